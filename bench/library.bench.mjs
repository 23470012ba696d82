// The library benchmark (issue 5): the gradient of logistic regression's mean cross-entropy at 1,000 samples × 10
// features, compiled once and called 10⁴ times through the public API, against a hand-written JavaScript gradient,
// TensorFlow.js (pure-JS CPU backend, float32) and jax-js (jit of grad, Wasm backend, float32), all in one run.
// Each competitor's gradient is checked against Smooth's before it is timed.
// Prints a markdown table and writes bench/results/library.md and .json (bench/scratch/ when a competitor did not run).
// Run with `npm run bench:library` (builds first). Timings never gate `npm test`.

import { mkdirSync, writeFileSync } from "node:fs";
import { add, compilations, dot, exp, get, grad, ifold, log, mul, ndarray, smooth, sub } from "../dist/index.js";
import { random } from "./lib.mjs";
import { importOnDemand, installCommand, installOnDemand } from "../scripts/on-demand.mjs";

// TensorFlow.js and jax-js are not in devDependencies (273 MB): installed here on first use into .on-demand/
// (package.json's "onDemandDependencies"), unless --no-install.
const PEERS = ["@tensorflow/tfjs", "@jax-js/jax"];
if (!process.argv.includes("--no-install")) {
  try {
    installOnDemand(PEERS);
  } catch (e) {
    console.error(`could not install ${PEERS.join(" and ")}: ${e.message}`);
  }
}
/** The peer's module; a missing one says how to install it. */
async function peer(name) {
  const mod = await importOnDemand(name);
  if (!mod) throw new Error(`${name} is not installed (install it with \`${installCommand(PEERS)}\`)`);
  return mod;
}

const N = 1000;
const D = 10;
const CALLS = 10_000;

const X = random(N * D, 11, -1, 1);
const w = random(D, 12, -0.5, 0.5);
const y = Float64Array.from(random(N, 13, 0, 1), (u, i) => (u + 0.3 * X[i * D] > 0.5 ? 1 : 0));

/** Times `calls` calls of `run` after `warm` warm-up calls; returns calls per second and microseconds per call. */
function time(run, calls, warm = Math.min(200, calls / 10)) {
  for (let i = 0; i < warm; i++) run();
  const t0 = performance.now();
  for (let i = 0; i < calls; i++) run();
  const ms = performance.now() - t0;
  return { calls, callsPerSecond: (calls / ms) * 1000, microsecondsPerCall: (ms * 1000) / calls };
}

const maxDiff = (a, b) => Math.max(...Array.from(a, (x, i) => Math.abs(x - b[i])));
const rows = [];

// ---- Smooth, from source: grad(m.loss) compiled on the first call ----
const m = smooth`
let loss = fun (w: Vector) (X: Matrix) (y: Vector) ->
  let n = length X
  let total = ifold (fun acc i ->
    let z = vectorDot w X[i]
    acc + log (1 + exp z) - y[i] * z) 0 n
  total / double n
`;
const Xm = ndarray(X, [N, D]);
const dloss = grad(m.loss);
let t0 = performance.now();
const reference = dloss(w, Xm, y);
const firstCallMs = performance.now() - t0;
rows.push({
  name: "Smooth (source, `grad(m.loss)`)",
  precision: "float64",
  ...time(() => dloss(w, Xm, y), CALLS),
  maxDiff: 0,
  firstCallMs,
});
if (compilations(dloss) !== 1) throw new Error(`the gradient was compiled ${compilations(dloss)} times`);

// ---- Smooth, from a JavaScript function over tensors (traced once for these shapes) ----
const stagedLoss = (w, X, y) => {
  const n = X.length;
  const total = ifold(
    (acc, i) => {
      const z = dot(w, get(X, i));
      return add(acc, sub(log(add(1, exp(z))), mul(get(y, i), z)));
    },
    0,
    n,
  );
  return mul(total, 1 / n);
};
const dstaged = grad(stagedLoss);
t0 = performance.now();
const stagedFirst = dstaged(w, Xm, y);
const stagedFirstMs = performance.now() - t0;
rows.push({
  name: "Smooth (traced JS function, `grad(loss)`)",
  precision: "float64",
  ...time(() => dstaged(w, Xm, y), CALLS),
  maxDiff: maxDiff(stagedFirst, reference),
  firstCallMs: stagedFirstMs,
});
if (compilations(dstaged) !== 1) throw new Error(`the staged gradient was compiled ${compilations(dstaged)} times`);

// ---- Hand-written JavaScript: the same gradient, fused by hand ----
function handGradient(w, X, y) {
  const g = new Float64Array(D);
  for (let i = 0; i < N; i++) {
    let z = 0;
    for (let j = 0; j < D; j++) z += w[j] * X[i * D + j];
    const s = 1 / (1 + Math.exp(-z)) - y[i];
    for (let j = 0; j < D; j++) g[j] += s * X[i * D + j];
  }
  for (let j = 0; j < D; j++) g[j] /= N;
  return g;
}
rows.push({
  name: "hand-written JavaScript",
  precision: "float64",
  ...time(() => handGradient(w, X, y), CALLS),
  maxDiff: maxDiff(handGradient(w, X, y), reference),
});

// ---- TensorFlow.js, CPU backend (pure JavaScript) ----
const notes = [];
try {
  const tf = await peer("@tensorflow/tfjs");
  await tf.setBackend("cpu");
  const Xt = tf.tensor2d(Float32Array.from(X), [N, D]);
  const yt = tf.tensor1d(Float32Array.from(y));
  const tfLoss = (wt) => {
    const z = tf.reshape(tf.matMul(Xt, tf.reshape(wt, [D, 1])), [N]);
    return tf.mean(tf.sub(tf.softplus(z), tf.mul(yt, z)));
  };
  const tfGrad = tf.grad(tfLoss);
  const call = () => tf.tidy(() => tfGrad(tf.tensor1d(Float32Array.from(w))).dataSync());
  rows.push({
    name: "TensorFlow.js 4.22 (`tf.grad`, cpu backend)",
    precision: "float32",
    ...time(call, CALLS),
    maxDiff: maxDiff(call(), reference),
  });
} catch (e) {
  notes.push(`TensorFlow.js did not run: ${e.message}`);
}

// ---- jax-js, Wasm backend (Node 20 has no Float16Array: a stand-in lets the module load; float16 is not used) ----
try {
  globalThis.Float16Array ??= class Float16Array extends Float32Array {};
  const jax = await peer("@jax-js/jax");
  await jax.init("wasm");
  const np = jax.numpy;
  const Xj = np.array(Float32Array.from(X)).reshape([N, D]);
  const yj = np.array(Float32Array.from(y));
  // jax-js arrays are reference counted: `.ref` keeps the closed-over data alive across calls.
  const jaxLoss = (wj) => {
    const z = np.matmul(Xj.ref, wj);
    return np.mean(np.log1p(np.exp(z.ref)).sub(yj.ref.mul(z)));
  };
  const jaxGrad = jax.jit(jax.grad(jaxLoss));
  const call = () => jaxGrad(np.array(Float32Array.from(w))).dataSync();
  rows.push({
    name: "jax-js 0.1.25 (`jit(grad(f))`, wasm backend)",
    precision: "float32",
    ...time(call, CALLS),
    maxDiff: maxDiff(call(), reference),
  });
} catch (e) {
  notes.push(`jax-js did not run: ${e.message}`);
}

// ---- report ----
const smoothRate = rows[0].callsPerSecond;
const table = [
  "| implementation | precision | calls/s | µs/call | Smooth speed-up | max abs diff from Smooth |",
  "| --- | --- | ---: | ---: | ---: | ---: |",
  ...rows.map(
    (r) =>
      `| ${r.name} | ${r.precision} | ${Math.round(r.callsPerSecond)} | ${r.microsecondsPerCall.toFixed(1)} | ${(smoothRate / r.callsPerSecond).toFixed(2)} | ${r.maxDiff.toExponential(1)} |`,
  ),
].join("\n");
const md =
  `# Library benchmark: logistic-regression gradient, ${N} samples × ${D} features\n\n` +
  `Each gradient is called ${CALLS} times after a warm-up (one process, node ${process.version}, ${new Date().toISOString().slice(0, 10)}). ` +
  `Smooth's first call, which compiles, took ${firstCallMs.toFixed(0)} ms from source and ${stagedFirstMs.toFixed(0)} ms from the traced function (tracing included); ` +
  `each gradient compiled once (\`compilations(dloss) === 1\`). ` +
  `Speed-up = Smooth's calls/s over the row's.\n\n${table}\n` +
  (notes.length ? `\n${notes.map((n) => `- ${n}`).join("\n")}\n` : "");
console.log(md);
// A run without every competitor (one not installed, or failing) writes bench/scratch/, not the committed results.
const out = new URL(notes.length === 0 ? "./results/" : "./scratch/", import.meta.url);
mkdirSync(out, { recursive: true });
writeFileSync(new URL("library.md", out), md);
writeFileSync(
  new URL("library.json", out),
  JSON.stringify(
    { node: process.version, n: N, d: D, calls: CALLS, firstCallMs, stagedFirstMs, rows, notes },
    null,
    2,
  ) + "\n",
);
