// The TypeScript front end's benchmark: the gradients of the loop-heavy functions of test/tsfront/corpus.ts (plain
// TypeScript, read from their source: `grad(f)`), against hand-written JavaScript gradients (bench/hand/tsfront.mjs),
// in the same run. Each hand gradient is checked against Smooth's first. Rounds alternate between the two, and each
// figure is the fastest round's time per call (the least disturbed by other processes on a loaded machine). Writes bench/results/tsfront.md and
// .json. Run with `npm run bench:tsfront` (builds first). Timings never gate `npm test`.

import { mkdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { readFileSync } from "node:fs";
import ts from "typescript";
import { compilations, grad, ndarray } from "../dist/index.js";
import * as hand from "./hand/tsfront.mjs";
import { random } from "./lib.mjs";

// The corpus as the JavaScript a TypeScript build gives (the types stripped).
const source = readFileSync(new URL("../test/tsfront/corpus.ts", import.meta.url), "utf8");
const js = ts.transpileModule(source, {
  compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
}).outputText;
const path = join(tmpdir(), `smooth-tsfront-corpus-${process.pid}.mjs`);
writeFileSync(path, js);
const corpus = await import(path);

const N = 10_000;
const rows = [];
const ROUNDS = 25;

/** Seconds per call of `run`, by calls repeated for about `ms` milliseconds. */
function perCall(run, ms = 40) {
  let calls = 0;
  const t0 = performance.now();
  let t = t0;
  while (t - t0 < ms) {
    run();
    calls++;
    t = performance.now();
  }
  return (t - t0) / calls;
}

const fastest = (xs) => Math.min(...xs);
const flat = (x) =>
  typeof x === "number"
    ? [x]
    : ArrayBuffer.isView(x)
      ? Array.from(x)
      : Array.isArray(x)
        ? x.flatMap(flat)
        : Object.values(x).flatMap(flat);

function bench(name, size, f, args, argnums, byHand) {
  const g = grad(f, { argnums });
  const smooth = g(...args);
  const reference = byHand(...args);
  const a = flat(smooth);
  const b = flat(reference);
  const scale = Math.max(1, ...b.map(Math.abs));
  const diff = Math.max(...a.map((x, i) => Math.abs(x - b[i])));
  if (a.length !== b.length || !(diff <= 1e-8 * scale)) throw new Error(`${name}: the hand gradient differs (${diff})`);
  const s = [];
  const h = [];
  for (let r = 0; r < ROUNDS; r++) {
    s.push(perCall(() => g(...args)));
    h.push(perCall(() => byHand(...args)));
  }
  if (compilations(g) !== 1) throw new Error(`${name}: compiled ${compilations(g)} times`);
  const row = { name, size, smoothMs: fastest(s), handMs: fastest(h), ratio: fastest(s) / fastest(h), maxDiff: diff };
  rows.push(row);
  console.log(
    `${name.padEnd(22)} ${size.padEnd(18)} smooth ${row.smoothMs.toFixed(4)} ms  hand ${row.handMs.toFixed(4)} ms  ratio ${row.ratio.toFixed(2)}`,
  );
}

const x = random(N, 1, 0, 1.2);
bench("rosenbrock", `n = ${N}`, corpus.rosenbrock, [x], [0], (v) => [hand.rosenbrockGrad(v)]);
const c = random(N, 2, -1, 1);
bench("horner", `n = ${N}`, corpus.horner, [c, 0.999], [0, 1], (cs, t) => hand.hornerGrad(cs, t));
bench("horner (hand: reverse sweep)", `n = ${N}`, corpus.horner, [c, 0.999], [0, 1], (cs, t) =>
  hand.hornerGradReverse(cs, t),
);
bench(
  "projectileMiss",
  `${N} Euler steps`,
  corpus.projectileMiss,
  [new Float64Array([12, 9]), 10, N],
  [0, 1],
  (v, t, n) => hand.projectileMissGrad(v, t, n),
);
const X = Array.from({ length: 1000 }, (_, i) => Array.from(random(10, 100 + i, -1, 1)));
const y = Float64Array.from({ length: 1000 }, (_, i) => i % 2);
const model = { w: random(10, 3, -0.5, 0.5), b: 0.1 };
bench("logisticLoss", "1000 × 10, X: number[][]", corpus.logisticLoss, [model, X, y], [0], (m) => [
  hand.logisticLossGrad(m, X, y),
]);
// The same data as an NDArray (one Float64Array and a shape), which the library passes without copying.
const Xnd = ndarray(Float64Array.from(X.flat()), [1000, 10]);
bench("logisticLoss", "1000 × 10, X: NDArray", corpus.logisticLoss, [model, Xnd, y], [0], (m) => [
  hand.logisticLossGrad(m, X, y),
]);
const bodies = 300;
bench(
  "nBodyEnergy",
  `${bodies} bodies`,
  corpus.nBodyEnergy,
  [random(bodies, 4, -5, 5), random(bodies, 5, -5, 5), random(bodies, 6, 0.5, 1.5)],
  [0, 1, 2],
  (px, py, m) => hand.nBodyEnergyGrad(px, py, m),
);
bench(
  "springChainEnergy",
  `n = ${N}`,
  corpus.springChainEnergy,
  [random(N, 7, 0, 100), 2.5, 0.4],
  [0, 1, 2],
  (p, k, r) => hand.springChainEnergyGrad(p, k, r),
);
bench("weightedPrefixSums", `n = ${N}`, corpus.weightedPrefixSums, [random(N, 8), random(N, 9)], [0, 1], (u, w) =>
  hand.weightedPrefixSumsGrad(u, w),
);

const table = [
  "| function | size | Smooth `grad(f)` (ms) | hand-written (ms) | Smooth / hand |",
  "| --- | --- | ---: | ---: | ---: |",
  ...rows.map(
    (r) => `| ${r.name} | ${r.size} | ${r.smoothMs.toFixed(4)} | ${r.handMs.toFixed(4)} | ${r.ratio.toFixed(2)} |`,
  ),
].join("\n");
const md =
  "# Plain TypeScript gradients against hand-written ones\n\n" +
  "`npm run bench:tsfront`: each function of test/tsfront/corpus.ts is plain TypeScript, differentiated by `grad(f)` " +
  "(read from its source, compiled once); the reference is a hand-written JavaScript gradient (bench/hand/tsfront.mjs) " +
  `in the same run. Fastest of ${ROUNDS} alternating rounds, time per call.\n\n${table}\n\n` +
  "The first hand-written Horner gradient uses the closed form (one pass: the powers of x), where reverse mode runs " +
  "the loop forward (keeping each partial sum) and then backward; the second is that reverse sweep written by hand. " +
  "A matrix given as nested JS arrays (`number[][]`) is " +
  "copied into one buffer on every call; given as an NDArray it is passed without copying (the same function, the " +
  "same program).\n";
mkdirSync(new URL("./results/", import.meta.url), { recursive: true });
writeFileSync(new URL("./results/tsfront.md", import.meta.url), md);
writeFileSync(
  new URL("./results/tsfront.json", import.meta.url),
  JSON.stringify({ rounds: ROUNDS, rows }, null, 2) + "\n",
);
console.log(`\n${table}`);
