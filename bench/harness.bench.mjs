// GradBench's own evals against Smooth and the suite's hand-written C++ (issue 16). Each eval's `run.py` (github
// gradbench/gradbench, python/gradbench/gradbench/evals/<eval>/run.py) generates the inputs, sets the run counts and
// validates every answer against the C++ `manual` tool; bench/harness/intermediary.mjs relays its messages to a tool
// as the suite's Rust CLI does. The evals are restricted to the issue's workloads with their own options and run
// otherwise at their defaults: min_runs 1, min_seconds 1 (each evaluate repeats its function for at least a second;
// no warm-up beyond that). Tools, each eval x tool in fresh processes: the C++ tool as the suite runs it
// (`python3 python/gradbench/gradbench/cpp.py manual` in the checkout: its define rebuilds bin/<eval> with `make -B`,
// -O3 -march=native, single-threaded), and Smooth's tool (dist/bundle/gradbench.js) with SMOOTH_ENGINE=js and =wasm,
// single-threaded (SMOOTH_THREADS=1), and for gmm and ba wasm again with a thread per core.
//
// Setup (Python 3.11 with numpy, scipy and pydantic as `python3`; g++, make, Debian's nlohmann-json3-dev):
//   G=/work/.mirror/gradbench+gradbench/repo   # a GradBench clone (a partial one lacks evals/lstm/data: see below)
//   mkdir -p /tmp/gb && git -C $G archive HEAD python cpp tools/manual evals/ba/data/ba1_n49_m7776_p31843.txt \
//     evals/ht/data/complicated_big/hand1_t26_c100.txt evals/ht/data/complicated_big/model | tar -x -C /tmp/gb
//   (a partial clone's archive complains of large files it lacks, ht's hand12 among them; these arrive whole)
//   ln -s /usr/include/nlohmann/json.hpp /tmp/gb/cpp/json.hpp      # what the suite's cpp/Makefile would download
//   make -C /tmp/gb/tools/manual bin/gmm bin/lstm bin/ba bin/ht bin/lse bin/kmeans  # the evals' validators
//   node bench/harness/lstm-text.mjs <ADBench data>/lstm/lstm_l2_c1024.txt /tmp/gb/evals/lstm/data/lstm_full.txt
//   GRADBENCH_REPO=/tmp/gb npm run bench:harness         (-- --only gmm: one eval, printed only)
// lstm_full.txt is in a full clone; the lstm-text step rebuilds the 1024 characters the eval reads from ADBench's
// data (shared/data/adbench/lstm). ht's eval also needs dataclasses_json: e.g. Debian's python3-dataclasses-json,
// its packages (dataclasses_json, marshmallow, marshmallow_enum, typing_inspect.py, mypy_extensions.py from
// /usr/lib/python3/dist-packages) linked into a folder named by GRADBENCH_PYTHONPATH, when `python3` is not Debian's.
// GRADBENCH_TIMEOUT: seconds a tool may take to answer one message (default 600), as the CLI's --timeout.
// Writes bench/results/harness.md and .json; exits non-zero unless every run's outcome is success with every answer
// validated and exactly the expected workloads evaluated.

import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { relay } from "./harness/intermediary.mjs";

const REPO = process.env.GRADBENCH_REPO;
if (REPO === undefined || !existsSync(join(REPO, "python/gradbench/gradbench/evals"))) {
  console.error("set GRADBENCH_REPO to a GradBench checkout set up as the top of bench/harness.bench.mjs says");
  process.exit(1);
}
const TIMEOUT_SECONDS = Number(process.env.GRADBENCH_TIMEOUT ?? 600);
const SMOOTH_TOOL = fileURLToPath(new URL("../dist/bundle/gradbench.js", import.meta.url));
const only = process.argv.includes("--only") ? process.argv[process.argv.indexOf("--only") + 1] : undefined;

/** The issue's workloads: each eval's options selecting them, and the evaluates that must come out of it. */
const EVALS = [
  { name: "gmm", args: ["-d", "10", "64", "-k", "25"], workloads: ["10_25_1000", "64_25_1000"], allCores: true },
  { name: "lstm", args: ["-l", "2", "-c", "1024"], workloads: ["l=2,c=1024"] },
  { name: "ba", args: ["--min", "1", "--max", "1"], workloads: ["ba1_n49_m7776_p31843"], allCores: true },
  {
    name: "ht",
    args: ["--min", "1", "--max", "1", "--model", "big", "--variant", "complicated"],
    workloads: ["hand1_t26_c100"],
  },
  { name: "lse", args: ["-n", "1280000"], workloads: ["n=1280000"] },
  { name: "kmeans", args: ["-k", "100", "-n", "10000", "-d", "8"], workloads: ["k=100,n=10000,d=8"] },
].filter((e) => only === undefined || e.name === only);
const FUNCTIONS = {
  gmm: ["objective", "jacobian"],
  lstm: ["objective", "jacobian"],
  ba: ["objective", "jacobian"],
  ht: ["objective", "jacobian"],
  lse: ["primal", "gradient"],
  kmeans: ["cost", "dir"],
};
if (EVALS.length === 0) {
  console.error(`no eval named ${only} (the evals: ${Object.keys(FUNCTIONS).join(", ")})`);
  process.exit(1);
}

const pythonPath = [join(REPO, "python/gradbench"), process.env.GRADBENCH_PYTHONPATH].filter(Boolean).join(":");
const evalCommand = (e) => ({
  command: "python3",
  args: [`python/gradbench/gradbench/evals/${e.name}/run.py`, ...e.args],
  cwd: REPO,
  env: { ...process.env, PYTHONPATH: pythonPath },
});
// js and wasm on one thread (SMOOTH_THREADS=1: the single-threaded comparison the C++ tool is); for the evals marked
// allCores, wasm again with a thread per core (the issue's "faster with all cores" row).
const CORES = availableParallelism();
const smooth = (name, engine, threads) => ({
  name,
  command: process.execPath,
  args: [SMOOTH_TOOL],
  env: { ...process.env, SMOOTH_ENGINE: engine, SMOOTH_THREADS: String(threads) },
});
const TOOLS = [
  { name: "C++", command: "python3", args: ["python/gradbench/gradbench/cpp.py", "manual"], cwd: REPO },
  smooth("js", "js", 1),
  smooth("wasm", "wasm", 1),
  { ...smooth("wasm-all", "wasm", CORES), allCores: true },
];
const toolsOf = (e) => TOOLS.filter((t) => !t.allCores || e.allCores);

const problems = [];
const runs = [];
for (const e of EVALS) {
  const expected = e.workloads.flatMap((w) => FUNCTIONS[e.name].map((f) => `${w} ${f}`));
  const byTool = {};
  for (const tool of toolsOf(e)) {
    const run = await relay(evalCommand(e), tool, { timeoutSeconds: TIMEOUT_SECONDS });
    byTool[tool.name] = run;
    const where = `${e.name} / ${tool.name}`;
    console.log(`${where}: ${run.outcome} in ${run.seconds.toFixed(1)} s`);
    if (run.outcome !== "success") problems.push(`${where}: ${run.outcome}${run.error ? `: ${run.error}` : ""}`);
    const got = run.evaluations.map((r) => `${r.workload} ${r.function}`);
    if (got.join("|") !== expected.join("|"))
      problems.push(`${where}: evaluated [${got.join(", ")}], expected [${expected.join(", ")}]`);
    for (const r of run.evaluations)
      if (r.success !== true || r.valid !== true)
        problems.push(`${where} ${r.workload} ${r.function}: ${r.error ?? r.analysisError ?? "not validated"}`);
  }
  runs.push({ eval: e.name, args: e.args, tools: byTool });
}

// One row per evaluate, the tools side by side (matched by workload and function).
const rows = runs.flatMap(({ eval: name, tools }) =>
  tools["C++"].evaluations.map((c) => {
    const find = (tool) => tools[tool].evaluations.find((r) => r.workload === c.workload && r.function === c.function);
    const all = tools["wasm-all"] === undefined ? undefined : find("wasm-all");
    return { eval: name, workload: c.workload, function: c.function, cpp: c, js: find("js"), wasm: find("wasm"), all };
  }),
);
const f = (v) => (v === undefined ? "—" : v >= 100 ? v.toFixed(0) : v >= 1 ? v.toFixed(2) : v.toPrecision(3));
const ratio = (a, b) => (a === undefined || b === undefined ? "—" : (a / b).toFixed(2));
const validity = (r) => {
  const answers = [r.cpp, r.js, r.wasm, ...(r.all === undefined ? [] : [r.all])];
  return answers.every((x) => x?.valid === true) ? "yes" : answers.map((x) => x?.valid ?? "—");
};
const timeTable = (stat) =>
  [
    "| eval | workload | function | C++ ms | js ms | js / C++ | wasm ms | wasm / C++ | " +
      `wasm, ${CORES} threads ms | / C++ | runs (C++, js, wasm, threads) | valid |`,
    "| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- | --- |",
    ...rows.map(
      (r) =>
        `| ${r.eval} | ${r.workload} | ${r.function} | ${f(r.cpp[stat])} | ${f(r.js?.[stat])} | ` +
        `${ratio(r.js?.[stat], r.cpp[stat])} | ${f(r.wasm?.[stat])} | ${ratio(r.wasm?.[stat], r.cpp[stat])} | ` +
        `${f(r.all?.[stat])} | ${ratio(r.all?.[stat], r.cpp[stat])} | ` +
        `${r.cpp.runs}, ${r.js?.runs ?? "—"}, ${r.wasm?.runs ?? "—"}, ${r.all?.runs ?? "—"} | ${validity(r)} |`,
    ),
  ].join("\n");
const seconds = (ms) => (ms === undefined ? "—" : (ms / 1e3).toFixed(2));
const defineTable = [
  "| eval | C++ define s (make -B) | js define s | wasm define s | whole run s (C++, js, wasm, threads) |",
  "| --- | ---: | ---: | ---: | --- |",
  ...runs.map(
    ({ eval: name, tools }) =>
      `| ${name} | ${seconds(tools["C++"].define?.wallMs)} | ${seconds(tools.js.define?.wallMs)} | ` +
      `${seconds(tools.wasm.define?.wallMs)} | ${Object.values(tools)
        .map((t) => t.seconds.toFixed(1))
        .join(", ")} |`,
  ),
].join("\n");
const fastest = timeTable("minMs");
const mean = timeTable("meanMs");
console.log(`\nfastest evaluate:\n${fastest}\n\nmean evaluate:\n${mean}\n\ndefine:\n${defineTable}`);

if (only === undefined) {
  mkdirSync(new URL("./results/", import.meta.url), { recursive: true });
  writeFileSync(
    new URL("./results/harness.md", import.meta.url),
    "# GradBench's evals (run.py) against Smooth and the hand-written C++\n\n" +
      `\`npm run bench:harness\`, Node ${process.version}; the C++ tool, js and wasm single-threaded (SMOOTH_THREADS=1), ` +
      `and for gmm and ba wasm with ${CORES} threads (one per core). Each eval's own inputs, run counts ` +
      "(min_runs 1, min_seconds 1: every evaluate repeats its function for at least a second) and validation of " +
      "every answer against the C++ tool; messages relayed as GradBench's CLI relays them; each eval x tool in fresh " +
      "processes.\n\n" +
      "## Fastest evaluate (the minimum of the tool's own per-run timings)\n\n" +
      `${fastest}\n\n` +
      "## Mean evaluate (what GradBench's CLI prints: the mean of the same timings, first runs included)\n\n" +
      `${mean}\n\n` +
      "## Define (wall time of the define message: the C++ tool compiles with g++, Smooth compiles the module)\n\n" +
      `${defineTable}\n`,
  );
  writeFileSync(
    new URL("./results/harness.json", import.meta.url),
    JSON.stringify({ node: process.version, timeoutSeconds: TIMEOUT_SECONDS, runs }, null, 2) + "\n",
  );
}
if (problems.length > 0) {
  console.error(`\n${problems.length} problems:\n${problems.join("\n")}`);
  process.exit(1);
}
