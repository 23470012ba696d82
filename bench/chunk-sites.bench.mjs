// A chunk site (src/wasm/chunk-sites.ts) on one thread and on several (issue 16): a synthetic program of the shape
// GradBench's gmm gradient takes once its loop over the n points is split into 8 chunks: n = 1000 points, per point
// an inner loop nest of 25 x 2144 multiply-adds into an adjoint of 25 x 2144 Doubles (a flat Vector: the surface
// language has no paths for addAt into a Matrix's element) and a row added into a 1000 x 64 Matrix, plus a Double;
// then the 8 parts added in order, per leaf (as the lead's chunking
// pass writes it; one ifold reading `parts[c]` once would have the build fused into it: no site). Compiled for the wasm back end with 1 thread and with `--threads` (default 2), in
// one process, timed alternately: medians, their ratio, and whether the outputs are identical.
//
//   npm run build && node bench/chunk-sites.bench.mjs [--threads 2]

import { loadProgram } from "../dist/api/program.js";
import { setWasmThreads } from "../dist/wasm/parallel-run.js";

const argv = process.argv.slice(2);
const THREADS = argv.includes("--threads") ? Number(argv[argv.indexOf("--threads") + 1]) : 2;
const MIN_RUNS = 9;
const MIN_SECONDS = 3;

const SOURCE = `
let chunked = fun (X: Matrix) (A: Matrix) (G: Vector) ->
  let n = length X
  let parts = build 8 (fun c ->
    let lo = c * n / 8
    let hi = (c + 1) * n / 8
    ifold (fun s i ->
      if i < lo then s
      else if i < hi then
        let (t, g, dX) = s
        let x = X[i]
        let g2 = ifold (fun h k ->
          let a = A[k]
          let xk = x[k]
          ifold (fun h2 j -> addAt h2 (k * 2144 + j) (a[j] * xk)) h 2144) g 25
        (t + x[0], g2, addAt dX i (build 64 (fun j -> x[j] * 0.5)))
      else s) (0., zerosLike G, zerosLike X) n)
  (ifold (fun t c -> let (u, _, _) = parts[c] in t + u) 0. 8,
   ifold (fun g c -> let (_, h, _) = parts[c] in addArray g h) (zerosLike G) 8,
   ifold (fun dX c -> let (_, _, dY) = parts[c] in addArray dX dY) (zerosLike X) 8)
`;

const rand = (n, seed) => {
  let s = seed;
  return Float64Array.from({ length: n }, () => ((s = (s * 1103515245 + 12345) % 2147483648) / 2147483648) * 2 - 1);
};
const dense = (shape, data) => ({ tag: "dense", elemKind: "double", shape, data });
const args = [
  dense([1000, 64], rand(64000, 1)),
  dense([25, 2144], rand(25 * 2144, 2)),
  dense([25 * 2144], new Float64Array(25 * 2144)),
];
const M = { k: "array", elem: { k: "array", elem: { k: "double" } } };
const V = { k: "array", elem: { k: "double" } };

function compiled(threads) {
  setWasmThreads(threads);
  const f = loadProgram({ name: "chunks.smooth", text: SOURCE }).specialise("chunked", [M, M, V], "wasm");
  return f;
}
const one = compiled(1);
const many = compiled(THREADS);
console.log(many.code.text);
const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
const times = { one: [], many: [] };
// CPU time of the process (all its threads) per call: the work done, whatever share of the cores it got.
const cpu = { one: [], many: [] };
const out = {};
const started = performance.now();
for (let r = 0; r < MIN_RUNS || performance.now() - started < MIN_SECONDS * 1000; r++)
  for (const key of r % 2 === 0 ? ["one", "many"] : ["many", "one"]) {
    const f = key === "one" ? one : many;
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    out[key] = f.run(args);
    times[key].push(performance.now() - t0);
    const c = process.cpuUsage(c0);
    cpu[key].push((c.user + c.system) / 1000);
  }
const flat = (v) => JSON.stringify(v, (_, x) => (x instanceof Float64Array ? Array.from(x) : x));
const a = median(times.one);
const b = median(times.many);
console.log(
  `chunk site, n=1000, 25x2144 + 1000x64 adjoints: 1 thread ${a.toFixed(1)} ms, ${THREADS} threads ${b.toFixed(1)} ms, ` +
    `x${(a / b).toFixed(2)} (${times.one.length} runs each; CPU ${median(cpu.one).toFixed(1)} vs ` +
    `${median(cpu.many).toFixed(1)} ms); outputs ${flat(out.one) === flat(out.many) ? "identical" : "DIFFER"}`,
);
