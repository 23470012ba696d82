// Against GradBench's hand-written C++ (issue 16): the suite's `manual` tool (github gradbench/gradbench,
// tools/manual, built with g++ -O3 -march=native, single-threaded, nlohmann-json from Debian) and Smooth's GradBench
// tool (js and wasm back ends, single-threaded: SMOOTH_THREADS=1) on the same inputs, each timed by itself as the suite
// times it (the evaluate runs; JSON and input conversion excluded). The C++ code is not part of this project: build it from a GradBench checkout and
// give its bin folder, e.g.
//   git -C <gradbench> archive HEAD cpp tools/manual | tar -x -C /tmp/gb
//   make -C /tmp/gb/tools/manual CXXFLAGS="-std=c++17 -O3 -I../../cpp -I/usr/include/nlohmann -march=native" \
//     bin/gmm bin/lstm bin/ba bin/ht bin/lse bin/kmeans
//   GRADBENCH_MANUAL=/tmp/gb/tools/manual/bin npm run bench:cpp   (-- --only lstm: one eval, printed only)
// Writes bench/results/cpp.md and .json.

import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { workloads } from "./gradbench-workloads.mjs";

const MANUAL = process.env.GRADBENCH_MANUAL;
if (MANUAL === undefined || !existsSync(MANUAL)) {
  console.error("set GRADBENCH_MANUAL to the bin folder of GradBench's built tools/manual (see the top of this file)");
  process.exit(1);
}
const TOOL = fileURLToPath(new URL("../dist/bundle/gradbench.js", import.meta.url));
const MIN_RUNS = 10;
const MIN_SECONDS = 1;
const CASES = [
  ["gmm", "d=10,k=25,n=1000"],
  ["gmm", "d=64,k=25,n=1000"],
  ["lstm", "l=2,c=1024"],
  ["ba", "ba1_n49_m7776_p31843"],
  ["ht", "complicated hand1_t26_c100"],
  ["lse", "n=1280000"],
  ["kmeans", "k=100,n=10000,d=8"],
];

const summary = (ns) => {
  const ms = ns.map((t) => t / 1e6).sort((a, b) => a - b);
  return { min: ms[0], median: ms[ms.length >> 1] };
};

/** The C++ tool on one input: the evaluate timings it prints after its output. */
function cpp(evalName, fn, input) {
  const dir = mkdtempSync(join(tmpdir(), "smooth-cpp-"));
  const file = join(dir, "input.json");
  writeFileSync(file, JSON.stringify({ ...input, min_runs: MIN_RUNS, min_seconds: MIN_SECONDS }));
  const r = spawnSync(join(MANUAL, evalName), [file, fn], { encoding: "utf8", maxBuffer: 1 << 30 });
  if (r.status !== 0) throw new Error(`C++ ${evalName} ${fn}: ${r.stderr}`);
  const lines = r.stdout.trim().split("\n");
  const output = JSON.parse(lines[0]);
  const times = lines
    .slice(1)
    .map((l) => JSON.parse(l))
    .filter((t) => t.name === "evaluate")
    .map((t) => t.nanoseconds);
  return { ...summary(times), output };
}

/** The largest relative difference between two JSON values of the same structure (Infinity when they differ). */
function difference(a, b) {
  if (typeof a === "number" && typeof b === "number")
    return a === b ? 0 : Math.abs(a - b) / Math.max(1e-300, Math.abs(a), Math.abs(b));
  if (Array.isArray(a) && Array.isArray(b) && a.length === b.length)
    return a.reduce((m, x, i) => Math.max(m, difference(x, b[i])), 0);
  if (a && b && typeof a === "object" && typeof b === "object" && !Array.isArray(a) && !Array.isArray(b)) {
    const keys = Object.keys(a);
    if (keys.length !== Object.keys(b).length) return Infinity;
    return keys.reduce((m, k) => Math.max(m, k in b ? difference(a[k], b[k]) : Infinity), 0);
  }
  return a === b ? 0 : Infinity;
}

/** Smooth's tool on one input, in a fresh process with the given back end. */
function smooth(engine, evalName, fn, input) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [TOOL], {
      env: { ...process.env, SMOOTH_ENGINE: engine, SMOOTH_THREADS: "1" },
    });
    const answers = [];
    createInterface({ input: child.stdout }).on("line", (line) => {
      answers.push(JSON.parse(line));
      if (answers.length === 3) child.stdin.end();
    });
    child.on("error", reject);
    child.on("close", () => {
      const a = answers[2];
      if (a === undefined || a.success !== true) reject(new Error(`Smooth ${engine} ${evalName} ${fn}: ${a?.error}`));
      else resolve({ ...summary(a.timings.map((t) => t.nanoseconds)), output: a.output });
    });
    const input2 = { ...input, min_runs: MIN_RUNS, min_seconds: MIN_SECONDS };
    for (const m of [
      { id: 0, kind: "start" },
      { id: 1, kind: "define", module: evalName },
      { id: 2, kind: "evaluate", module: evalName, function: fn, input: input2 },
    ])
      child.stdin.write(JSON.stringify(m) + "\n");
  });
}

// `--only <eval>` runs one eval's rows (printed; the results files are written only by a full run).
const ONLY = process.argv.includes("--only") ? process.argv[process.argv.indexOf("--only") + 1] : undefined;
const rows = [];
for (const [evalName, name] of CASES.filter(([e]) => ONLY === undefined || e === ONLY)) {
  const w = workloads().find((x) => x.eval === evalName && x.name === name);
  if (w === undefined) throw new Error(`no workload ${evalName} ${name} (is the ADBench data there?)`);
  const input = w.input();
  for (const fn of [w.primal, ...w.derivatives]) {
    const c = cpp(evalName, fn, input);
    const js = await smooth("js", evalName, fn, input);
    const wasm = await smooth("wasm", evalName, fn, input);
    // The same answers (GradBench validates a tool against this C++ tool), as relative differences.
    const diff = Math.max(difference(c.output, js.output), difference(c.output, wasm.output));
    if (!(diff < 1e-6)) throw new Error(`${evalName} ${name} ${fn}: Smooth's output differs from C++'s by ${diff}`);
    for (const x of [c, js, wasm]) delete x.output;
    const row = { eval: evalName, workload: name, function: fn, cpp: c, js, wasm, relativeDifference: diff };
    rows.push(row);
    console.log(
      `${evalName} ${name} ${fn}: C++ ${c.min.toFixed(3)} ms, js ${js.min.toFixed(3)} (${(js.min / c.min).toFixed(2)}x), ` +
        `wasm ${wasm.min.toFixed(3)} (${(wasm.min / c.min).toFixed(2)}x)`,
    );
  }
}

const f = (v) => (v >= 100 ? v.toFixed(0) : v >= 1 ? v.toFixed(2) : v.toPrecision(3));
const table = [
  "| eval | workload | function | C++ ms | Smooth js ms | js / C++ | Smooth wasm ms | wasm / C++ | max rel. diff |",
  "| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |",
  ...rows.map(
    (r) =>
      `| ${r.eval} | ${r.workload} | ${r.function} | ${f(r.cpp.min)} | ${f(r.js.min)} | ${(r.js.min / r.cpp.min).toFixed(2)} | ` +
      `${f(r.wasm.min)} | ${(r.wasm.min / r.cpp.min).toFixed(2)} | ${r.relativeDifference.toExponential(1)} |`,
  ),
].join("\n");
console.log(table);
if (ONLY !== undefined) process.exit(0);
mkdirSync(new URL("./results/", import.meta.url), { recursive: true });
writeFileSync(
  new URL("./results/cpp.md", import.meta.url),
  "# Against GradBench's hand-written C++\n\n" +
    `\`npm run bench:cpp\`, Node ${process.version}; the fastest of at least ${MIN_RUNS} runs and ${MIN_SECONDS} s per ` +
    "function, as each tool times itself; single-threaded; the same inputs (bench/gradbench-workloads.mjs), and the " +
    "same answers (the largest relative difference of Smooth's from C++'s).\n\n" +
    `${table}\n`,
);
writeFileSync(new URL("./results/cpp.json", import.meta.url), JSON.stringify(rows, null, 2) + "\n");
