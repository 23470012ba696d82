// All cores on GradBench's largest gmm and ba workloads (issue 16): each eval's functions through Smooth's GradBench
// eval modules (the timed run() of the tool: for ba's jacobian, the CSR layout too), compiled for the wasm back end
// with 1 thread and with `--threads` (default 2), in one process, timed alternately; medians and their ratio. The
// outputs of both must be identical (the threads give bit for bit one thread's results).
//
//   npm run bench:threads                 (-- --threads 4, -- --quick: ba1 and gmm d64 K25 only)
// Writes bench/results/threads.md and .json. On a machine other processes load, the gain is understated.

import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { availableParallelism, loadavg } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { EVALS } from "../dist/gradbench/registry.js";
import { setWasmThreads } from "../dist/wasm/parallel-run.js";
import { DATA, workloads } from "./gradbench-workloads.mjs";

const argv = process.argv.slice(2);
const flag = (name) => argv.indexOf(name);
const THREADS = flag("--threads") >= 0 ? Number(argv[flag("--threads") + 1]) : 2;
const QUICK = flag("--quick") >= 0;
const MIN_RUNS = 7;
const MIN_SECONDS = 2;
process.env.SMOOTH_ENGINE = "wasm";

/** The input of one of the suite's workloads (./gradbench-workloads.mjs), by eval and name. */
function input(evalName, name) {
  if (!existsSync(DATA)) throw new Error(`no ADBench data at ${DATA}`);
  const w = workloads().find((x) => x.eval === evalName && x.name === name);
  if (w === undefined) throw new Error(`no workload ${evalName} ${name} (is the ADBench data there?)`);
  return w.input;
}

// gmm d64 K25 (the suite's default size at d = 64) and the largest gmm in our data (d64 K100: d64 K200 is absent);
// ba1 and a larger ba (ba10: 564k observations).
const CASES = [
  ["gmm", "d=64,k=25,n=1000"],
  ["gmm", "d=64,k=100,n=1000", "large"],
  ["ba", "ba1_n49_m7776_p31843"],
  ["ba", "ba10_n1197_m126327_p563734", "large"],
]
  .filter(([, , large]) => !(QUICK && large))
  .map(([evalName, name]) => [evalName, name, input(evalName, name)]);

/** The eval module compiled with `threads` (wasm), each function prepared on the input. */
function prepared(evalName, threads, input) {
  setWasmThreads(threads);
  const module = EVALS.get(evalName)();
  module.define();
  return Object.fromEntries(module.functions.map((fn) => [fn, module.prepare(fn, input)]));
}

const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
const rows = [];
for (const [evalName, name, input] of CASES) {
  const data = input();
  const one = prepared(evalName, 1, data);
  const many = prepared(evalName, THREADS, data);
  for (const fn of Object.keys(one)) {
    const times = { one: [], many: [] };
    // CPU time of the process (all its threads) per call: the work done, whatever share of the cores it got.
    const cpu = { one: [], many: [] };
    const started = performance.now();
    // The order alternates (one, many, many, one, ...): a run pays for the garbage the run before it left.
    for (let r = 0; r < MIN_RUNS || performance.now() - started < MIN_SECONDS * 1000; r++)
      for (const [key, call] of r % 2 === 0
        ? [
            ["one", one[fn]],
            ["many", many[fn]],
          ]
        : [
            ["many", many[fn]],
            ["one", one[fn]],
          ]) {
        const c0 = process.cpuUsage();
        const t0 = performance.now();
        call.run();
        times[key].push(performance.now() - t0);
        const c = process.cpuUsage(c0);
        cpu[key].push((c.user + c.system) / 1000);
      }
    const same = JSON.stringify(one[fn].output()) === JSON.stringify(many[fn].output());
    const row = {
      eval: evalName,
      workload: name,
      fn,
      oneMs: median(times.one),
      manyMs: median(times.many),
      oneCpuMs: median(cpu.one),
      manyCpuMs: median(cpu.many),
      runs: times.one.length,
      identical: same,
    };
    row.ratio = row.oneMs / row.manyMs;
    rows.push(row);
    console.log(
      `${evalName} ${name} ${fn}: 1 thread ${row.oneMs.toFixed(2)} ms, ${THREADS} threads ${row.manyMs.toFixed(2)} ms, ` +
        `x${row.ratio.toFixed(2)}; CPU ${row.oneCpuMs.toFixed(2)} vs ${row.manyCpuMs.toFixed(2)} ms` +
        `${same ? "" : "  OUTPUTS DIFFER"}`,
    );
  }
}

const load = loadavg()[0];
const out = fileURLToPath(new URL("./results/", import.meta.url));
mkdirSync(out, { recursive: true });
const table = [
  `# Threads: 1 vs ${THREADS} on gmm and ba (wasm, GradBench eval modules)`,
  "",
  `${availableParallelism()} cores, load average ${load.toFixed(1)} at the end (other processes' load understates the gain).`,
  "Medians of alternating runs in one process; outputs compared as JSON. CPU: the process's CPU time per call (all",
  "threads): the work done. Where it stays the same with more threads but the wall time does not drop, the process",
  "was not given more than one core's share (Linux's autogroup shares the CPU per session, not per thread).",
  "",
  `| eval | workload | function | 1 thread (ms) | ${THREADS} threads (ms) | speed-up | CPU 1 (ms) | CPU ${THREADS} (ms) | identical |`,
  "| --- | --- | --- | --- | --- | --- | --- | --- | --- |",
  ...rows.map(
    (r) =>
      `| ${r.eval} | ${r.workload} | ${r.fn} | ${r.oneMs.toFixed(2)} | ${r.manyMs.toFixed(2)} | ` +
      `${r.ratio.toFixed(2)} | ${r.oneCpuMs.toFixed(2)} | ${r.manyCpuMs.toFixed(2)} | ${r.identical ? "yes" : "NO"} |`,
  ),
  "",
];
writeFileSync(join(out, "threads.md"), table.join("\n"));
writeFileSync(join(out, "threads.json"), JSON.stringify({ threads: THREADS, load, rows }, null, 2) + "\n");
if (rows.some((r) => !r.identical)) process.exit(1);
