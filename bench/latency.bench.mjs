// Latency (issue 16): how long a fresh process takes to give a derivative's first result, and how soon calls reach
// steady speed. For each back end and each of GradBench's gmm (d=10, K=25), lstm and ht workloads (the quick
// subset's), a new `node dist/bundle/gradbench.js` process is sent start, define, then evaluate three times; from the
// tool's own timings: `define` (load and compile), the first call, the second call and the median of 20 later ones,
// and the wall time from spawning the process to the first evaluate's answer (Node's start and the import included).
// Then the library's path: a fresh process imports the package, defines GMM and calls its `grad` (the first call
// compiles), per back end (bench/latency/library-gmm.mjs). Then the persistent compile cache's rows
// (bench/latency/cache.mjs): every GradBench eval's define and the library's first GMM gradient call, each in a fresh
// process with a cold and then a warm cache. The rows before those run with the cache off (SMOOTH_CACHE=off): they
// measure the compiler. Writes bench/results/latency.md and .json. Run with `npm run bench:latency`.

import { execFileSync, spawn } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { workloads } from "./gradbench-workloads.mjs";
import { cacheRows } from "./latency/cache.mjs";

// The compiler's own latency: no persistent compile cache (cacheRows turns it on for its processes).
process.env.SMOOTH_CACHE = "off";

const TOOL = fileURLToPath(new URL("../dist/bundle/gradbench.js", import.meta.url));
const CASES = [
  ["gmm", "d=10,k=25,n=1000", "jacobian"],
  ["lstm", "l=2,c=1024", "jacobian"],
  ["ht", "complicated hand1_t26_c100", "jacobian"],
];

/** One fresh tool process: the answers to `messages`, and the wall time until each answer. */
function session(engine, messages) {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(process.execPath, [TOOL], { env: { ...process.env, SMOOTH_ENGINE: engine } });
    const answers = [];
    const lines = createInterface({ input: child.stdout });
    lines.on("line", (line) => {
      answers.push({ ...JSON.parse(line), wallMs: performance.now() - t0 });
      if (answers.length === messages.length) child.stdin.end();
    });
    child.on("error", reject);
    child.on("close", () =>
      answers.length === messages.length ? resolve(answers) : reject(new Error("tool ended early")),
    );
    for (const m of messages) child.stdin.write(JSON.stringify(m) + "\n");
  });
}

const ms = (timing) => timing.nanoseconds / 1e6;
const rows = [];
for (const [evalName, workload, fn] of CASES) {
  const w = workloads().find((x) => x.eval === evalName && x.name === workload);
  if (w === undefined) throw new Error(`no workload ${evalName} ${workload} (is the ADBench data there?)`);
  const input = w.input();
  for (const engine of ["js", "wasm"]) {
    const evaluate = (id, runs) => ({
      id,
      kind: "evaluate",
      module: evalName,
      function: fn,
      input: { ...input, min_runs: runs, min_seconds: 0 },
    });
    const answers = await session(engine, [
      { id: 0, kind: "start" },
      { id: 1, kind: "define", module: evalName },
      evaluate(2, 1),
      evaluate(3, 1),
      evaluate(4, 20),
    ]);
    for (const a of answers) if (a.success === false) throw new Error(`${evalName} ${engine}: ${a.error}`);
    const steady = answers[4].timings.map(ms).sort((a, b) => a - b);
    const row = {
      eval: evalName,
      workload,
      function: fn,
      engine,
      defineMs: ms(answers[1].timings[0]),
      firstMs: ms(answers[2].timings[0]),
      secondMs: ms(answers[3].timings[0]),
      steadyMs: steady[steady.length >> 1],
      wallToFirstMs: answers[2].wallMs,
    };
    rows.push(row);
    console.log(
      `${evalName} ${fn} ${engine}: define ${row.defineMs.toFixed(0)} ms, first ${row.firstMs.toFixed(1)}, second ` +
        `${row.secondMs.toFixed(1)}, steady ${row.steadyMs.toFixed(2)}; spawn to first answer ${row.wallToFirstMs.toFixed(0)} ms`,
    );
  }
}

const table = [
  "| eval | function | back end | define ms | first call ms | second ms | steady ms | second / steady | process start to first result ms |",
  "| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |",
  ...rows.map(
    (r) =>
      `| ${r.eval} (${r.workload}) | ${r.function} | ${r.engine} | ${r.defineMs.toFixed(0)} | ${r.firstMs.toFixed(1)} | ` +
      `${r.secondMs.toFixed(1)} | ${r.steadyMs.toFixed(2)} | ${(r.secondMs / r.steadyMs).toFixed(2)} | ${r.wallToFirstMs.toFixed(0)} |`,
  ),
].join("\n");
console.log(table);

// The library's path (issue 16: "GMM gradient: first call under 150 ms in a fresh process"): a fresh process per
// back end imports the package's bundle, defines GMM with `smooth`, and calls `grad` of it, whose first call compiles.
const library = [];
for (const backend of ["wasm", "js"]) {
  const script = fileURLToPath(new URL("./latency/library-gmm.mjs", import.meta.url));
  const runs = [0, 1, 2].map(() => JSON.parse(execFileSync(process.execPath, [script, backend], { encoding: "utf8" })));
  // The median of three fresh processes by first call.
  runs.sort((a, b) => a.firstMs - b.firstMs);
  library.push({ backend, ...runs[1] });
}
const libraryTable = [
  "| library, GMM d=10 K=25 gradient | import ms | define ms | first call ms (compiles) | second ms | steady ms |",
  "| --- | ---: | ---: | ---: | ---: | ---: |",
  ...library.map(
    (r) =>
      `| ${r.backend} | ${r.importMs.toFixed(0)} | ${r.defineMs.toFixed(0)} | ${r.firstMs.toFixed(0)} | ` +
      `${r.secondMs.toFixed(1)} | ${r.steadyMs.toFixed(2)} |`,
  ),
].join("\n");
console.log(libraryTable);
const cache = await cacheRows();
console.log(cache.table);
mkdirSync(new URL("./results/", import.meta.url), { recursive: true });
writeFileSync(
  new URL("./results/latency.md", import.meta.url),
  `# Latency: a fresh process to the first derivative, and the calls after\n\n\`npm run bench:latency\`, Node ${process.version}; the tool's own timings (JSON and input conversion excluded), and the wall time from spawning the process to the first evaluate's answer.\n\n${table}\n\nThrough the library (bench/latency/library-gmm.mjs; the median of three fresh processes):\n\n${libraryTable}\n\nWith the persistent compile cache (bench/latency/cache.mjs; medians of three pairs of fresh processes, the first with an empty cache directory, the second with the one it filled; wasm):\n\n${cache.table}\n`,
);
writeFileSync(
  new URL("./results/latency.json", import.meta.url),
  JSON.stringify({ tool: rows, library, cache: { tool: cache.tool, library: cache.library } }, null, 2) + "\n",
);
