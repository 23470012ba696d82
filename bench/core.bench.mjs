// Core benchmarks (issue 2): compiled Smooth against hand-written JavaScript loops over Float64Array, in one run.
// Prints time per call and the ratio smooth/hand-written (1.0 = as fast as the hand-written loop).
// Run with `npm run bench` (builds first). Not part of `npm test`: timings never gate the tests.

import { Bench } from "tinybench";
import { loadProgram } from "../dist/api/program.js";

const SOURCE = `
let dot = fun (a: Vector) (b: Vector) -> vectorDot a b
let mmul = fun (a: Matrix) (b: Matrix) -> matrixMul a b
let lse = fun (v: Vector) -> logsumexp v
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

// ---- hand-written references ----
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

const prog = loadProgram({ name: "bench.smooth", text: SOURCE });
const VEC = { k: "array", elem: { k: "double" } };
const MAT = { k: "array", elem: VEC };
const dot = prog.specialise("dot", [VEC, VEC], "js");
const mmul = prog.specialise("mmul", [MAT, MAT], "js");
const lse = prog.specialise("lse", [VEC], "js");

const N = 1_000_000;
const a = randomVector(N, 1);
const b = randomVector(N, 2);
const M = 200;
const ma = randomVector(M * M, 3);
const mb = randomVector(M * M, 4);

// Same answers before timing anything.
const check = (name, x, y) => {
  if (Math.abs(x - y) > 1e-9 * Math.max(1, Math.abs(y))) throw new Error(`${name}: smooth ${x} != hand-written ${y}`);
};
check("vectorDot", dot.run([dense(a, [N]), dense(b, [N])]), handDot(a, b));
check("logsumexp", lse.run([dense(a, [N])]), handLogSumExp(a));
const mm = mmul.run([dense(ma, [M, M]), dense(mb, [M, M])]).data;
const hm = handMatMul(ma, mb, M, M, M);
for (let i = 0; i < hm.length; i++) check(`matrixMul[${i}]`, mm[i], hm[i]);

const cases = [
  ["vectorDot n=1e6", () => dot.run([dense(a, [N]), dense(b, [N])]), () => handDot(a, b)],
  ["matrixMul 200x200", () => mmul.run([dense(ma, [M, M]), dense(mb, [M, M])]), () => handMatMul(ma, mb, M, M, M)],
  ["logsumexp n=1e6", () => lse.run([dense(a, [N])]), () => handLogSumExp(a)],
];

const bench = new Bench({ time: 1500, warmupTime: 300 });
for (const [name, smooth, hand] of cases) {
  bench.add(`${name} | smooth`, smooth).add(`${name} | hand-written`, hand);
}
await bench.run();

const ms = (task) => task.result.latency.mean;
const rows = [];
for (const [name] of cases) {
  const s = bench.getTask(`${name} | smooth`);
  const h = bench.getTask(`${name} | hand-written`);
  rows.push({
    benchmark: name,
    "smooth ms": ms(s).toFixed(3),
    "hand-written ms": ms(h).toFixed(3),
    ratio: (ms(s) / ms(h)).toFixed(2),
  });
}
console.table(rows);
