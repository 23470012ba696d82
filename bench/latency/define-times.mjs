// The compile latency of GradBench evals (issue 16): the CPU time of an eval's define (load the program, then compile
// its primal and its derivative: parse, check, AD, optimise, code) in a fresh process (cold: the compiler's own code
// not yet optimised by the engine) and then warm (the median of further defines in the same process). One process
// per eval. Arguments: the dist/ folder to load (default ../../dist/), then the evals (default gmm lstm ht lse).
// SMOOTH_ENGINE picks the back end as for the tool (default wasm). Prints one JSON line per eval.
// Usage: node bench/latency/define-times.mjs [DIST_DIR] [eval...]

import { execFileSync } from "node:child_process";
import { fileURLToPath, pathToFileURL } from "node:url";

const [distArg, ...names] = process.argv.slice(2);
const dist =
  distArg === undefined || distArg === "-" ? fileURLToPath(new URL("../../dist/", import.meta.url)) : distArg;

if (process.env.DEFINE_TIMES_CHILD !== undefined) {
  const { EVALS } = await import(pathToFileURL(`${dist}/gradbench/registry.js`).href);
  const name = process.env.DEFINE_TIMES_CHILD;
  const cpuMs = () => {
    const u = process.cpuUsage();
    return (u.user + u.system) / 1000;
  };
  const define = () => {
    const t = cpuMs();
    EVALS.get(name)().define();
    return cpuMs() - t;
  };
  const cold = define();
  const warm = Array.from({ length: Number(process.env.WARM_RUNS ?? 7) }, define).sort((a, b) => a - b);
  console.log(JSON.stringify({ eval: name, coldMs: Math.round(cold), warmMs: Math.round(warm[warm.length >> 1]) }));
} else {
  for (const name of names.length > 0 ? names : ["gmm", "lstm", "ht", "lse"]) {
    const line = execFileSync(process.execPath, [fileURLToPath(import.meta.url), dist], {
      env: { ...process.env, DEFINE_TIMES_CHILD: name },
      encoding: "utf8",
    });
    process.stdout.write(line);
  }
}
