// Reverse-mode benchmarks (issue 4): for each program of bench/programs/reverse.smooth and each size, the compiled
// primal, its compiled reverse-mode gradient (kind "gradient") and a hand-written JavaScript gradient
// (bench/hand/reverse.mjs), all in one run. Ratios: gradient / primal (should not grow with n) and smooth gradient /
// hand-written gradient (target <= 1.5). Then the ADBench GMM and LSTM objectives: gradient / objective (target <= 3).
// Prints a markdown table and writes it to bench/results/reverse.md and .json.
// Run with `npm run bench:reverse` (builds first). Timings never gate `npm test`.
// The ADBench data is read from ../shared/data/adbench next to the repository, or from $SMOOTH_ADBENCH_DATA.

import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { Bench } from "tinybench";
import { DBL, INT, MAT, VEC, dense, random } from "./lib.mjs";
import { loadProgram } from "../dist/api/program.js";
import { GMM_WRT, gmmArgs, readGmm } from "../dist/adbench/gmm-data.js";
import { LSTM_WRT, lstmArgs, readLstm } from "../dist/adbench/lstm-data.js";
import { valueFromJson, valueToJson } from "../dist/runtime/json.js";
import * as hand from "./hand/reverse.mjs";

const read = (p) => readFileSync(new URL(p, import.meta.url), "utf8");
const prog = loadProgram({ name: "reverse.smooth", text: read("programs/reverse.smooth") });

/** The compiled primal and gradient of a reverse.smooth definition. */
const compiled = (name, types, wrt) => ({
  primal: prog.specialise(name, types, "js"),
  grad: prog.derivative(name, types, wrt, "js", undefined, "gradient"),
});

const SIZES = [1e3, 1e4, 1e5, 1e6];
const MATRIX_SIDES = [32, 100, 316, 1000];
/** A single call slower than this is not benchmarked (the 1000x1000 matrix product, if it comes to that). */
const MAX_CALL_MS = 20000;

// ---- the cases: name, n, the compiled primal and gradient, their arguments, the hand-written gradient ----
const cases = [];
const add = (name, n, programs, args, handFn) => cases.push({ name, n, ...programs, args, handFn });
/** A gradient as a list of flat arrays, one per differentiated parameter (a Double as a one-element list). */
const smoothArrays = (v) => (typeof v === "number" ? [[v]] : v.tag === "tuple" ? v.elems.map((e) => e.data) : [v.data]);
const handArrays = (h) => (typeof h === "number" ? [[h]] : h instanceof Float64Array ? [h] : h);

const dot = compiled("dot", [VEC, VEC], [0, 1]);
const product = compiled("product", [VEC], [0]);
const lse = compiled("lse", [VEC], [0]);
const scalarLoop = compiled("scalarLoop", [DBL, INT], [0]);
const readLoop = compiled("readLoop", [VEC], [0]);
const mmul = compiled("mmulLoss", [MAT, MAT, MAT], [0, 1]);
const taped = [];
for (const n of SIZES) {
  const a = random(n, 1),
    b = random(n, 2);
  add("dot product", n, dot, [dense(a, [n]), dense(b, [n])], () => hand.dotGrad(a, b));
  // Factors near 1, so that the product of a million of them neither underflows nor overflows.
  const p = random(n, 3, 0.999, 1.001);
  add("prod", n, product, [dense(p, [n])], () => hand.prodGrad(p));
  const v = random(n, 4, -3, 3);
  add("logsumexp", n, lse, [dense(v, [n])], () => hand.logsumexpGrad(v));
  add("scalar loop (x <- sin x * x + 0.1)", n, scalarLoop, [0.7, n], () => hand.scalarLoopGrad(0.7, n));
  taped.push({ n, fn: () => hand.scalarLoopGradTaped(0.7, n) });
  // sin v[i] in (-0.4, 0.6): every factor 0.5 + sin v[i] is in (0.1, 1.1), and the product shrinks slowly enough.
  const r = random(n, 5, -0.4, 0.6);
  add("loop reading v[i]", n, readLoop, [dense(r, [n])], () => hand.readLoopGrad(r));
}
for (const side of MATRIX_SIDES) {
  const n = side * side;
  const a = random(n, 6),
    b = random(n, 7),
    w = random(n, 8);
  const args = [dense(a, [side, side]), dense(b, [side, side]), dense(w, [side, side])];
  add(`matrixMul <w, a b> (${side}x${side})`, n, mmul, args, () => hand.mmulLossGrad(a, b, w, side));
}

// ---- the same numbers before timing anything (and the time of one call, to leave out what is too slow) ----
const close = (x, y, tol) => Math.abs(x - y) <= tol * Math.max(1, Math.abs(y));
function check(c) {
  const t0 = performance.now();
  const got = smoothArrays(c.grad.run(c.args));
  const t1 = performance.now();
  const want = handArrays(c.handFn());
  const t2 = performance.now();
  if (got.length !== want.length)
    throw new Error(`${c.name} (n=${c.n}): ${got.length} gradients, hand-written ${want.length}`);
  want.forEach((w, k) => {
    for (let i = 0; i < w.length; i++)
      if (!close(got[k][i], w[i], 1e-8))
        throw new Error(`${c.name} (n=${c.n}): gradient ${k}[${i}] smooth ${got[k][i]} != hand ${w[i]}`);
  });
  return { gradMs: t1 - t0, handMs: t2 - t1 };
}
const skipped = [];
const timed = cases.filter((c) => {
  const { gradMs, handMs } = check(c);
  if (gradMs <= MAX_CALL_MS) return true;
  const t0 = performance.now();
  c.primal.run(c.args);
  const primalMs = performance.now() - t0;
  const s = (ms) => `${(ms / 1000).toFixed(1)} s`;
  skipped.push(
    `${c.name}: not benchmarked, one gradient call takes ${s(gradMs)} (> ${s(MAX_CALL_MS)}); ` +
      `one call each: primal ${s(primalMs)}, gradient ${s(gradMs)}, hand ${s(handMs)}`,
  );
  return false;
});
for (const t of taped) {
  const c = cases.find((k) => k.name.startsWith("scalar loop") && k.n === t.n);
  if (!close(t.fn(), c.handFn(), 1e-10))
    throw new Error(`taped scalar loop (n=${t.n}) disagrees with the one-pass one`);
}

// ---- ADBench GMM and LSTM: the objective and its gradient (no hand-written gradient here) ----
const dataDir = process.env.SMOOTH_ADBENCH_DATA ?? new URL("../../shared/data/adbench", import.meta.url).pathname;
const adbench = [];
function addAdbench(name, example, entry, wrt, jsonArgs) {
  const p = loadProgram({ name: example, text: read(`../examples/adbench/${example}`) });
  const def = p.definition(entry);
  const types = p.argTypesFromJson(entry, jsonArgs);
  const toValues = (json) => json.map((a, i) => valueFromJson(a, types[i], def.paramNames[i] ?? `argument ${i + 1}`));
  const primal = p.specialise(entry, types, "js");
  const grad = p.derivative(entry, types, wrt, "js", undefined, "gradient");
  const args = toValues(jsonArgs);
  // A directional finite difference, an independent check of the gradient: (f(x + hu) - f(x - hu)) / 2h = g·u.
  const g = grad.run(args);
  const parts = wrt.length === 1 ? [g] : g.elems;
  const dir = jsonArgs.map((a, i) => (wrt.includes(i) ? mapNumbers(a, (_, k) => (k % 3) - 1) : undefined));
  const h = 1e-5;
  const shifted = (sign) =>
    jsonArgs.map((a, i) => (dir[i] === undefined ? a : zipNumbers(a, dir[i], (x, u) => x + sign * h * u)));
  const fd = (primal.run(toValues(shifted(1))) - primal.run(toValues(shifted(-1)))) / (2 * h);
  const gu = wrt.reduce((s, k, i) => s + dotJson(valueToJson(parts[i], types[k]), dir[k]), 0);
  if (!close(gu, fd, 1e-5))
    throw new Error(`${name}: the gradient's directional derivative ${gu} != finite difference ${fd}`);
  adbench.push({ name, primal, grad, args });
}
function mapNumbers(json, f, counter = { k: 0 }) {
  return Array.isArray(json) ? json.map((x) => mapNumbers(x, f, counter)) : f(json, counter.k++);
}
function zipNumbers(a, b, f) {
  return Array.isArray(a) ? a.map((x, i) => zipNumbers(x, b[i], f)) : f(a, b);
}
function dotJson(a, b) {
  return Array.isArray(a) ? a.reduce((s, x, i) => s + dotJson(x, b[i]), 0) : a * b;
}
const gmmFile = `${dataDir}/gmm/1k/gmm_d10_K25.txt`,
  lstmFile = `${dataDir}/lstm/lstm_l2_c1024.txt`;
if (existsSync(gmmFile))
  addAdbench("GMM (d=10, K=25)", "gmm.smooth", "gmmObjective", GMM_WRT, gmmArgs(readGmm(gmmFile)));
else skipped.push(`GMM: ${gmmFile} not found (set SMOOTH_ADBENCH_DATA)`);
if (existsSync(lstmFile))
  addAdbench("LSTM (l=2, c=1024)", "lstm.smooth", "lstmObjective", LSTM_WRT, lstmArgs(readLstm(lstmFile)));
else skipped.push(`LSTM: ${lstmFile} not found (set SMOOTH_ADBENCH_DATA)`);

// ---- timing: a time budget per task, and fewer iterations for the calls that take seconds ----
const bench = new Bench({ time: 400, warmupTime: 100, iterations: 5, warmupIterations: 2 });
const slowBench = new Bench({ time: 0, warmupTime: 0, iterations: 2, warmupIterations: 1 });
const taskName = (c, what) => `${c.name} | ${c.n} | ${what}`;
for (const c of timed) {
  const b = c.n >= 1e6 && c.name.startsWith("matrixMul") ? slowBench : bench;
  b.add(taskName(c, "primal"), () => c.primal.run(c.args));
  b.add(taskName(c, "gradient"), () => c.grad.run(c.args));
  b.add(taskName(c, "hand"), c.handFn);
}
for (const t of taped) bench.add(`scalar loop taped | ${t.n} | hand`, t.fn);
for (const c of adbench) {
  bench.add(`${c.name} | primal`, () => c.primal.run(c.args));
  bench.add(`${c.name} | gradient`, () => c.grad.run(c.args));
}
await bench.run();
await slowBench.run();

// The median time per call: other processes on a shared machine make the mean jump between runs.
const ms = (name) => (bench.getTask(name) ?? slowBench.getTask(name))?.result?.latency?.p50;
const fmt = (x) => (x >= 100 ? x.toFixed(0) : x >= 1 ? x.toFixed(2) : x.toFixed(4));
const rows = timed.map((c) => {
  const primal = ms(taskName(c, "primal")),
    gradient = ms(taskName(c, "gradient")),
    handMs = ms(taskName(c, "hand"));
  return {
    benchmark: c.name,
    n: c.n,
    primalMs: primal,
    gradientMs: gradient,
    ratio: gradient / primal,
    handMs,
    smoothOverHand: gradient / handMs,
  };
});
for (const c of adbench) {
  const primal = ms(`${c.name} | primal`),
    gradient = ms(`${c.name} | gradient`);
  rows.push({
    benchmark: c.name,
    n: null,
    primalMs: primal,
    gradientMs: gradient,
    ratio: gradient / primal,
    handMs: null,
    smoothOverHand: null,
  });
}

const header =
  "| benchmark | n | primal ms | gradient ms | ratio | hand ms | smooth/hand |\n| --- | ---: | ---: | ---: | ---: | ---: | ---: |";
const line = (r) =>
  `| ${r.benchmark} | ${r.n ?? "-"} | ${fmt(r.primalMs)} | ${fmt(r.gradientMs)} | ${r.ratio.toFixed(2)} | ${r.handMs === null ? "-" : fmt(r.handMs)} | ${r.smoothOverHand === null ? "-" : r.smoothOverHand.toFixed(2)} |`;
const notes = taped.map((t) => {
  const row = rows.find((r) => r.benchmark.startsWith("scalar loop") && r.n === t.n);
  const tapedMs = ms(`scalar loop taped | ${t.n} | hand`);
  return `scalar loop, n=${t.n}: a hand-written taped reverse sweep takes ${fmt(tapedMs)} ms (smooth/taped hand ${(row.gradientMs / tapedMs).toFixed(2)})`;
});
const table = [header, ...rows.map(line)].join("\n");
const text = [
  `# Reverse-mode benchmarks`,
  ``,
  `Node ${process.version}, ${new Date().toISOString().slice(0, 10)}; median ms per call. ratio = gradient / primal (should not grow with n; ` +
    `<= 3 for GMM and LSTM); smooth/hand = Smooth's gradient / the hand-written gradient (target <= 1.5). ` +
    `matrixMul is the gradient of <w, a b> (n = elements of one matrix).`,
  ``,
  table,
  ``,
  ...[...notes, ...skipped].map((s) => `- ${s}`),
  ``,
].join("\n");
console.log(text);
const resultsDir = new URL("results/", import.meta.url);
mkdirSync(resultsDir, { recursive: true });
writeFileSync(new URL("reverse.md", resultsDir), text);
writeFileSync(
  new URL("reverse.json", resultsDir),
  JSON.stringify({ node: process.version, rows, notes, skipped }, null, 2) + "\n",
);
