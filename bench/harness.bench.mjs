// GradBench's own evals against Smooth and the suite's hand-written C++ (issue 16): each eval's `run.py` (github
// gradbench/gradbench, python/gradbench/gradbench/evals/<eval>/run.py) generates the inputs, sets the run counts
// (its defaults: min_runs 1, min_seconds 1 — no warm-up beyond what that gives) and validates every answer against
// the C++ tool; this file is the intermediary between an eval and a tool, as the suite's Rust CLI is
// (crates/gradbench/src/intermediary.rs: every eval message goes to the tool, every response back, the eval's
// `analysis` messages say whether an answer was valid). Tools: the C++ `manual` tool (its binaries run as the suite's
// cpp.py runs them, without its rebuild), and Smooth's tool on each back end. Setup (Python 3 with numpy, scipy and
// pydantic; the C++ built as bench/cpp.bench.mjs's header says):
//   git -C <gradbench> archive HEAD python evals/ht/data/complicated_big/hand1_t26_c100.txt \
//     evals/ht/data/complicated_big/model evals/ba/data/ba1_n49_m7776_p31843.txt | tar -x -C /tmp/gb
//   GRADBENCH_REPO=/tmp/gb npm run bench:harness
// ht's eval also needs dataclasses_json: Debian's python3-dataclasses-json, its packages linked into a folder named by
// GRADBENCH_PYTHONPATH (e.g. dataclasses_json, marshmallow, marshmallow_enum, typing_inspect.py and
// mypy_extensions.py from /usr/lib/python3/dist-packages), when the Python with numpy is not Debian's.
// Writes bench/results/harness.md and .json; exits non-zero if an answer is invalid or a tool fails.

import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";

const REPO = process.env.GRADBENCH_REPO;
if (REPO === undefined || !existsSync(join(REPO, "python/gradbench/gradbench/evals"))) {
  console.error(
    "set GRADBENCH_REPO to a GradBench checkout with python/, evals/ data and tools/manual/bin (see above)",
  );
  process.exit(1);
}
const TOOL = fileURLToPath(new URL("../dist/bundle/gradbench.js", import.meta.url));
// The workloads, with each eval's own options (lstm is left out: its text corpus, evals/lstm/data, is not in
// the mirrored checkout this was run from).
const EVALS = [
  ["gmm", ["-d", "10", "64", "-k", "25"]],
  ["ba", ["--min", "1", "--max", "1"]],
  ["ht", ["--min", "1", "--max", "1"]],
  ["lse", ["-n", "1280000"]],
  ["kmeans", ["-k", "100", "-n", "10000", "-d", "8"]],
];

/** The C++ tool, answering one message (as the suite's cpp.py does, with its binaries already built). */
function cppTool(message) {
  if (message.kind === "start") return { id: message.id, tool: "manual" };
  if (message.kind === "define") return { id: message.id, success: true };
  if (message.kind !== "evaluate") return { id: message.id };
  const file = join(mkdtempSync(join(tmpdir(), "smooth-harness-")), "input.json");
  writeFileSync(file, JSON.stringify(message.input));
  const r = spawnSync(join(REPO, "tools/manual/bin", message.module), [file, message.function], {
    encoding: "utf8",
    maxBuffer: 1 << 30,
  });
  if (r.status !== 0) return { id: message.id, success: false, error: r.stderr };
  const [output, ...timings] = r.stdout.trim().split("\n");
  return { id: message.id, success: true, output: JSON.parse(output), timings: timings.map((t) => JSON.parse(t)) };
}

/** Smooth's tool in its own process: a function from a message to its response. */
function smoothTool(engine) {
  const child = spawn(process.execPath, [TOOL], { env: { ...process.env, SMOOTH_ENGINE: engine } });
  const waiting = [];
  createInterface({ input: child.stdout }).on("line", (line) => waiting.shift()(JSON.parse(line)));
  child.stderr.on("data", (d) => process.stderr.write(d));
  const send = (message) =>
    new Promise((resolve) => {
      waiting.push(resolve);
      child.stdin.write(JSON.stringify(message) + "\n");
    });
  send.close = () => child.stdin.end();
  return send;
}

/** One eval against one tool: what each evaluate took (the tool's own timings) and whether the eval found it valid. */
async function run(evalName, args, tool) {
  const evaluation = spawn("python3", [`python/gradbench/gradbench/evals/${evalName}/run.py`, ...args], {
    cwd: REPO,
    env: {
      ...process.env,
      PYTHONPATH: [join(REPO, "python/gradbench"), process.env.GRADBENCH_PYTHONPATH].filter(Boolean).join(":"),
    },
  });
  evaluation.stderr.on("data", (d) => process.stderr.write(d));
  const results = new Map();
  let define;
  for await (const line of createInterface({ input: evaluation.stdout })) {
    const message = JSON.parse(line);
    const response = await tool(message);
    if (message.kind === "define") define = response.timings?.[0]?.nanoseconds ?? 0;
    if (message.kind === "evaluate") {
      const ns = (response.timings ?? []).filter((t) => t.name === "evaluate").map((t) => t.nanoseconds);
      results.set(message.id, {
        function: message.function,
        workload: message.description ?? "",
        success: response.success,
        error: response.error,
        runs: ns.length,
        minMs: Math.min(...ns) / 1e6,
      });
    }
    if (message.kind === "analysis") {
      const r = results.get(message.of);
      if (r) Object.assign(r, { valid: message.valid, analysisError: message.error });
    }
    evaluation.stdin.write(JSON.stringify(response) + "\n");
  }
  evaluation.stdin.end();
  return { defineMs: define / 1e6, evaluations: [...results.values()] };
}

const rows = [];
let bad = 0;
for (const [evalName, args] of EVALS) {
  const byTool = {};
  for (const [name, make] of [
    ["C++", () => cppTool],
    ["js", () => smoothTool("js")],
    ["wasm", () => smoothTool("wasm")],
  ]) {
    const tool = make();
    byTool[name] = await run(evalName, args, tool);
    tool.close?.();
  }
  for (const [k, c] of byTool["C++"].evaluations.entries()) {
    const js = byTool.js.evaluations[k];
    const wasm = byTool.wasm.evaluations[k];
    const row = { eval: evalName, workload: c.workload, function: c.function, cpp: c, js, wasm };
    for (const r of [c, js, wasm])
      if (!r?.success || r.valid !== true) {
        bad++;
        console.error(`${evalName} ${c.workload} ${c.function}: not valid: ${r?.error ?? r?.analysisError ?? ""}`);
      }
    rows.push(row);
    console.log(
      `${evalName} ${c.workload} ${c.function}: C++ ${c.minMs.toFixed(3)} ms, js ${js.minMs.toFixed(3)} ` +
        `(${(js.minMs / c.minMs).toFixed(2)}x), wasm ${wasm.minMs.toFixed(3)} (${(wasm.minMs / c.minMs).toFixed(2)}x)`,
    );
  }
  rows.push({ eval: evalName, define: { js: byTool.js.defineMs, wasm: byTool.wasm.defineMs } });
}

const f = (v) => (v >= 100 ? v.toFixed(0) : v >= 1 ? v.toFixed(2) : v.toPrecision(3));
const valid = (r) => (r.valid === true ? "yes" : "NO");
const table = [
  "| eval | workload | function | C++ ms | js ms | js / C++ | wasm ms | wasm / C++ | runs (C++, js, wasm) | valid |",
  "| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | --- | --- |",
  ...rows
    .filter((r) => r.cpp !== undefined)
    .map(
      (r) =>
        `| ${r.eval} | ${r.workload} | ${r.function} | ${f(r.cpp.minMs)} | ${f(r.js.minMs)} | ` +
        `${(r.js.minMs / r.cpp.minMs).toFixed(2)} | ${f(r.wasm.minMs)} | ${(r.wasm.minMs / r.cpp.minMs).toFixed(2)} | ` +
        `${r.cpp.runs}, ${r.js.runs}, ${r.wasm.runs} | ${[r.cpp, r.js, r.wasm].every((x) => x.valid === true) ? "yes" : [r.cpp, r.js, r.wasm].map(valid).join(", ")} |`,
    ),
].join("\n");
console.log(table);
mkdirSync(new URL("./results/", import.meta.url), { recursive: true });
writeFileSync(
  new URL("./results/harness.md", import.meta.url),
  "# GradBench's evals (run.py) against Smooth and the hand-written C++\n\n" +
    `\`npm run bench:harness\`, Node ${process.version}; each eval's own inputs, run counts (min_runs 1, min_seconds 1) ` +
    "and validation; the fastest evaluate timing each tool reported; single-threaded.\n\n" +
    `${table}\n`,
);
writeFileSync(new URL("./results/harness.json", import.meta.url), JSON.stringify(rows, null, 2) + "\n");
if (bad > 0) {
  console.error(`${bad} answers were not valid`);
  process.exit(1);
}
