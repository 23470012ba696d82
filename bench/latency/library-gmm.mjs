// One fresh process of bench:latency's library rows: import the package's bundle, define the GMM program with the
// `smooth` template, take its gradient with `grad` (compiled at the first call) and call it; prints one JSON line of
// milliseconds. Arguments: the back end ("wasm" or "js"). DISTIDX, a path, imports another build's bundle
// index.js instead (A/B runs of two builds, alternated).
const t0 = performance.now();
const { smooth, grad } = await import(process.env.DISTIDX ?? "../../dist/bundle/index.js");
const tImport = performance.now();
const { readFileSync } = await import("node:fs");
const example = (path) => readFileSync(new URL(`../../examples/${path}`, import.meta.url), "utf8");
const m = smooth([example("adbench/gmm.smooth") + "\n" + example("gradbench/gmm.smooth")]);
const backend = process.argv[2] ?? "wasm";
const dgmm = grad(m.gmmLogPosterior, { argnums: [0, 1, 2], backend });
// d = 10, K = 25, n = 1000: GradBench's gmm workload shape, deterministic data.
const [d, K, n] = [10, 25, 1000];
const data = (rows, cols, seed) =>
  Array.from({ length: rows }, (_, i) =>
    Float64Array.from({ length: cols }, (_, j) => Math.sin(seed + 1.3 * i + 0.7 * j) * 0.5),
  );
const args = [
  Float64Array.from({ length: K }, (_, k) => Math.cos(k)),
  data(K, d, 1),
  data(K, d + (d * (d - 1)) / 2, 2),
  data(n, d, 3),
  1,
  0,
];
const tDefine = performance.now();
const time = () => {
  const t = performance.now();
  dgmm(...args);
  return performance.now() - t;
};
const first = time();
const second = time();
const later = Array.from({ length: 20 }, time).sort((a, b) => a - b);
console.log(
  JSON.stringify({
    importMs: tImport - t0,
    defineMs: tDefine - tImport,
    firstMs: first,
    secondMs: second,
    steadyMs: later[later.length >> 1],
  }),
);
