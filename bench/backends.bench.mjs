// The back ends side by side (issue 16): the same Smooth programs compiled by the JavaScript back end (`js`) and the
// WebAssembly one (`wasm`), against hand-written JavaScript where there is one, in one run. Primal programs and
// reverse-mode gradients. Writes bench/results/backends.md and .json. Run with `npm run bench:backends`.

import { mkdirSync, writeFileSync } from "node:fs";
import { Bench } from "tinybench";
import { loadProgram } from "../dist/api/program.js";

const SOURCE = `
let dot = fun (a: Vector) (b: Vector) -> vectorDot a b
let mmul = fun (a: Matrix) (b: Matrix) -> matrixMult a b
let lse = fun (v: Vector) -> logsumexp v
let layer = fun (W: Matrix) (x: Vector) -> vectorSum (build (length W) (fun i -> tanh (vectorDot W[i] x)))
let vecMat = fun (W: Matrix) (v: Vector) ->
  build (length W[0]) (fun j -> ifold (fun s b -> s + W[b][j] * v[b]) 0. (length W))
let weightGrad = fun (x: Matrix) (dh: Matrix) ->
  build (length x[0]) (fun i ->
    build (length dh[0]) (fun j -> ifold (fun s b -> s + x[b][i] * dh[b][j]) 0. (length x)))
let qTimes = fun (qDiag: Vector) (icfk: Vector) (v: Vector) ->
  let d = length v
  build d (fun r -> qDiag[r] * v[r] + ifold (fun s c -> s + icfk[d + c * (2 * d - c - 1) / 2 + (r - c - 1)] * v[c]) 0. r)
let qBatch = fun (qDiag: Vector) (icfk: Vector) (X: Matrix) -> build (length X) (fun i -> qTimes qDiag icfk X[i])
`;

function randomVector(n, seed) {
  const a = new Float64Array(n);
  let s = seed;
  for (let i = 0; i < n; i++) {
    s = (s * 1103515245 + 12345) % 2147483648;
    a[i] = s / 2147483648 - 0.5;
  }
  return a;
}
const dense = (data, shape) => ({ tag: "dense", elemKind: "double", shape, data });

function handDot(a, b) {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i] * b[i];
  return s;
}
function handMatMul(a, b, n, m, p) {
  const out = new Float64Array(n * p);
  for (let i = 0; i < n; i++)
    for (let j = 0; j < p; j++) {
      let s = 0;
      for (let k = 0; k < m; k++) s += a[i * m + k] * b[k * p + j];
      out[i * p + j] = s;
    }
  return out;
}
function handLogSumExp(v) {
  let m = -Infinity;
  for (let i = 0; i < v.length; i++) m = Math.max(m, v[i]);
  let s = 0;
  for (let i = 0; i < v.length; i++) s += Math.exp(v[i] - m);
  return m + Math.log(s);
}
/** ∂/∂v logsumexp v = softmax v. */
function handLogSumExpGrad(v) {
  let m = -Infinity;
  for (let i = 0; i < v.length; i++) m = Math.max(m, v[i]);
  const g = new Float64Array(v.length);
  let s = 0;
  for (let i = 0; i < v.length; i++) s += g[i] = Math.exp(v[i] - m);
  for (let i = 0; i < v.length; i++) g[i] /= s;
  return g;
}
/** ∂/∂W Σ tanh (W x): (1 - tanh² (W x)_i) x_j. */
function handLayerGrad(W, x, n, m) {
  const g = new Float64Array(n * m);
  for (let i = 0; i < n; i++) {
    let y = 0;
    for (let j = 0; j < m; j++) y += W[i * m + j] * x[j];
    const t = Math.tanh(y);
    const d = 1 - t * t;
    for (let j = 0; j < m; j++) g[i * m + j] = d * x[j];
  }
  return g;
}
/** v W (W: rows × cols), row by row: each output's sum in row order, as the program adds it. */
function handVecMat(W, v, rows, cols) {
  const out = new Float64Array(cols);
  for (let b = 0; b < rows; b++) {
    const vb = v[b];
    for (let j = 0; j < cols; j++) out[j] += W[b * cols + j] * vb;
  }
  return out;
}
/** xᵀ dh (x: B × n, dh: B × m), a dense layer's weight gradient, row of the batch by row. */
function handWeightGrad(x, dh, B, n, m) {
  const out = new Float64Array(n * m);
  for (let b = 0; b < B; b++)
    for (let i = 0; i < n; i++) {
      const xi = x[b * n + i];
      for (let j = 0; j < m; j++) out[i * m + j] += xi * dh[b * m + j];
    }
  return out;
}
/** Q x for each row x of X (n × d), Q = diag(qDiag) + L, L's strict lower triangle column by column after d leading
 * entries of icfk (gmm's Q_k x): each output's sum in column order, as the program adds it. */
function handQBatch(qDiag, icfk, X, n, d) {
  const out = new Float64Array(n * d);
  for (let i = 0; i < n; i++)
    for (let r = 0; r < d; r++) {
      let s = 0;
      for (let c = 0; c < r; c++) s += icfk[d + (c * (2 * d - c - 1)) / 2 + (r - c - 1)] * X[i * d + c];
      out[i * d + r] = qDiag[r] * X[i * d + r] + s;
    }
  return out;
}

const prog = loadProgram({ name: "bench.smooth", text: SOURCE });
const VEC = { k: "array", elem: { k: "double" } };
const MAT = { k: "array", elem: VEC };
const N = 1_000_000;
const a = randomVector(N, 1);
const b = randomVector(N, 2);
const M = 200;
const ma = randomVector(M * M, 3);
const mb = randomVector(M * M, 4);
const [LN, LM] = [256, 784];
const W = randomVector(LN * LM, 5);
const x = randomVector(LM, 6);
const [VB, VM] = [784, 128];
const vW = randomVector(VB * VM, 7);
const vv = randomVector(VB, 8);
const GB = 64;
const gx = randomVector(GB * VB, 9);
const gdh = randomVector(GB * VM, 10);
const [QN, QD] = [1000, 64];
const qDiag = randomVector(QD, 11);
const icfk = randomVector(QD + (QD * (QD - 1)) / 2, 12);
const qX = randomVector(QN * QD, 13);

const flat = (v) => (typeof v === "number" ? [v] : ArrayBuffer.isView(v) ? v : (v.data ?? v.elems.flatMap(flat)));
const close = (name, got, want) => {
  const [g, w] = [flat(got), flat(want)];
  for (let i = 0; i < w.length; i++)
    if (!(Math.abs(g[i] - w[i]) <= 1e-9 * Math.max(1, Math.abs(w[i]))))
      throw new Error(`${name}[${i}]: ${g[i]} != ${w[i]}`);
};

const cases = [
  [
    "vectorDot n=1e6",
    (e) => prog.specialise("dot", [VEC, VEC], e),
    [dense(a, [N]), dense(b, [N])],
    () => handDot(a, b),
  ],
  [
    "matrixMult 200x200",
    (e) => prog.specialise("mmul", [MAT, MAT], e),
    [dense(ma, [M, M]), dense(mb, [M, M])],
    () => handMatMul(ma, mb, M, M, M),
  ],
  ["logsumexp n=1e6", (e) => prog.specialise("lse", [VEC], e), [dense(a, [N])], () => handLogSumExp(a)],
  [
    "grad logsumexp n=1e6",
    (e) => prog.derivative("lse", [VEC], [0], e, undefined, "gradient"),
    [dense(a, [N])],
    () => handLogSumExpGrad(a),
  ],
  [
    "grad Σ tanh(W x) 256x784",
    (e) => prog.derivative("layer", [MAT, VEC], [0], e, undefined, "gradient"),
    [dense(W, [LN, LM]), dense(x, [LM])],
    () => handLayerGrad(W, x, LN, LM),
  ],
  [
    "v W, W 784x128",
    (e) => prog.specialise("vecMat", [MAT, VEC], e),
    [dense(vW, [VB, VM]), dense(vv, [VB])],
    () => handVecMat(vW, vv, VB, VM),
  ],
  [
    "xᵀ dh (weight gradient), x 64x784, dh 64x128",
    (e) => prog.specialise("weightGrad", [MAT, MAT], e),
    [dense(gx, [GB, VB]), dense(gdh, [GB, VM])],
    () => handWeightGrad(gx, gdh, GB, VB, VM),
  ],
  [
    "triangular Q v d=64, 1000 vectors",
    (e) => prog.specialise("qBatch", [VEC, VEC, MAT], e),
    [dense(qDiag, [QD]), dense(icfk, [icfk.length]), dense(qX, [QN, QD])],
    () => handQBatch(qDiag, icfk, qX, QN, QD),
  ],
];

const bench = new Bench({ time: 1000, warmupTime: 300 });
for (const [name, make, args, hand] of cases) {
  const [js, wasm] = [make("js"), make("wasm")];
  close(`${name} js`, js.run(args), hand());
  close(`${name} wasm`, wasm.run(args), hand());
  bench
    .add(`${name} | js`, () => js.runBorrowed(args))
    .add(`${name} | wasm`, () => wasm.runBorrowed(args))
    .add(`${name} | hand`, hand);
}
await bench.run();

const ms = (task) => task.result.latency.mean;
const rows = cases.map(([name]) => {
  const [js, wasm, hand] = ["js", "wasm", "hand"].map((k) => ms(bench.getTask(`${name} | ${k}`)));
  return { name, js, wasm, hand, wasmOverJs: wasm / js, wasmOverHand: wasm / hand, jsOverHand: js / hand };
});
const f = (v) => (v < 0.1 ? v.toFixed(4) : v.toFixed(3));
const table = [
  "| program | js (ms) | wasm (ms) | hand-written JS (ms) | wasm / js | js / hand | wasm / hand |",
  "| --- | ---: | ---: | ---: | ---: | ---: | ---: |",
  ...rows.map(
    (r) =>
      `| ${r.name} | ${f(r.js)} | ${f(r.wasm)} | ${f(r.hand)} | ${r.wasmOverJs.toFixed(2)} | ${r.jsOverHand.toFixed(2)} | ${r.wasmOverHand.toFixed(2)} |`,
  ),
].join("\n");
console.log(table);
const out = new URL("./results/", import.meta.url);
mkdirSync(out, { recursive: true });
writeFileSync(
  new URL("backends.md", out),
  `# The back ends side by side\n\n\`npm run bench:backends\`, Node ${process.version}, mean ms per call (tinybench); results borrowed (no copy out).\n\n${table}\n`,
);
writeFileSync(new URL("backends.json", out), JSON.stringify(rows, null, 2) + "\n");
