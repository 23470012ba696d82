// Sparse Jacobians and Hessians (issue 32): the tridiagonal (Broyden) map's Jacobian, the chained Rosenbrock
// function's Hessian and that of the sum of the squared Broyden residuals (pentadiagonal), through
// `jacobian(f, { sparse: true })` / `hessian(f, { sparse: true })`, against the primal in the same run: per-call time
// (the pattern and colouring found on the first call, reported apart), the ratio to the primal, and how it grows with
// n. At n = 2,000 the sparse matrices are compared entry by entry with the dense ones; BA's Jacobian from the
// automatic pattern against the GradBench eval's hand-laid CSR. Timings alternate between the programs compared
// (rounds of calls, the fastest round kept), since other processes share the machine. Writes bench/results/sparse.md
// and .json. Run with `npm run bench:sparse` (builds first); `--quick` for smaller sizes. Timings never gate `npm test`.

import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { compile, hessian, jacobian, smooth } from "../dist/index.js";
import { loadProgram, prepare } from "../dist/api/program.js";
import { baCsr, baProblem } from "../dist/gradbench/evals/ba.js";
import { lowerEntry } from "../dist/ir/lower.js";
import { DERIVATIVE_PIPELINE, REVERSE_PRIMAL_PIPELINE } from "../dist/opt/pipeline.js";
import { compressedFunction } from "../dist/sparse/compressed-programs.js";
import { planSparse, sparseResult } from "../dist/sparse/sparse-derivative.js";
import { DATA } from "./gradbench-workloads.mjs";
import { random } from "./lib.mjs";

const quick = process.argv.includes("--quick");
const backend = process.argv.find((a) => a.startsWith("--backend="))?.slice(10) ?? "wasm";

const m = smooth`
let tridiag = fun (x: Vector) ->
  let n = length x
  build n (fun i ->
    let left = if i > 0 then x[i - 1] else 0.
    let right = if i < n - 1 then x[i + 1] else 0.
    (3. - 2. * x[i]) * x[i] - left - 2. * right + 1.)
let rosenbrock = fun (x: Vector) ->
  ifold (fun s i -> s + 100. * (x[i + 1] - x[i] * x[i]) * (x[i + 1] - x[i] * x[i]) + (1. - x[i]) * (1. - x[i]))
    0. (length x - 1)
let broydenSquares = fun (x: Vector) ->
  let n = length x
  ifold (fun s i ->
    let left = if i > 0 then x[i - 1] else 0.
    let right = if i < n - 1 then x[i + 1] else 0.
    let r = (3. - 2. * x[i]) * x[i] - left - 2. * right + 1.
    s + r * r) 0. n
`;

/** Milliseconds per call of each of `fns`, timed in alternating rounds; the fastest round of each. */
function alternate(fns, { rounds = 7, budgetMs = 150 } = {}) {
  const calls = fns.map((f) => {
    f();
    const t0 = performance.now();
    f();
    return Math.max(1, Math.round(budgetMs / Math.max(0.01, performance.now() - t0)));
  });
  const best = fns.map(() => Infinity);
  for (let r = 0; r < rounds; r++)
    fns.forEach((f, k) => {
      const t0 = performance.now();
      for (let i = 0; i < calls[k]; i++) f();
      best[k] = Math.min(best[k], (performance.now() - t0) / calls[k]);
    });
  return best;
}

const timed = (f) => {
  const t0 = performance.now();
  const r = f();
  return [r, performance.now() - t0];
};

const rows = [];
const sizes = quick ? [1000, 10_000] : [1000, 10_000, 100_000];
for (const [what, name, transform] of [
  ["tridiagonal map, Jacobian", "tridiag", jacobian],
  ["chained Rosenbrock, Hessian", "rosenbrock", hessian],
  ["sum of squared Broyden residuals, Hessian", "broydenSquares", hessian],
]) {
  for (const n of sizes) {
    const x = random(n, 17 + n, -1.5, 1.5);
    const primal = compile(m[name], { backend });
    const sparse = transform(m[name], { sparse: true, backend });
    const borrowing = transform(m[name], { sparse: true, backend, borrowResult: true });
    const [first, firstMs] = timed(() => sparse(x));
    borrowing(x);
    const [primalMs, sparseMs, borrowedMs] = alternate([() => primal(x), () => sparse(x), () => borrowing(x)]);
    rows.push({
      what,
      n,
      entries: first.values.length,
      colours: first.info.colours,
      mode: first.info.mode,
      firstCallMs: firstMs,
      primalMs,
      sparseMs,
      ratio: sparseMs / primalMs,
      borrowedMs,
      borrowedRatio: borrowedMs / primalMs,
    });
    console.log(rows.at(-1));
  }
}

// Entry by entry against the dense derivatives at n = 2,000.
const checks = [];
{
  const n = 2000;
  const x = random(n, 5, -1.5, 1.5);
  for (const [what, name, transform] of [
    ["tridiagonal map, Jacobian", "tridiag", jacobian],
    ["chained Rosenbrock, Hessian", "rosenbrock", hessian],
    ["sum of squared Broyden residuals, Hessian", "broydenSquares", hessian],
  ]) {
    const s = transform(m[name], { sparse: true, backend })(x);
    const dense = transform(m[name], { backend })(x);
    let differing = 0;
    let maxRelative = 0;
    let nonZeros = 0;
    for (let r = 0; r < n; r++) {
      const row = Float64Array.from(dense[r]);
      for (let k = s.rowPointers[r]; k < s.rowPointers[r + 1]; k++) {
        const c = s.columnIndexes[k];
        if (row[c] !== s.values[k]) differing++;
        maxRelative = Math.max(maxRelative, Math.abs(row[c] - s.values[k]) / Math.max(1, Math.abs(row[c])));
        row[c] = 0;
      }
      for (const v of row) if (v !== 0) nonZeros++;
    }
    checks.push({ what, n, entries: s.values.length, differing, maxRelative, missedNonZeros: nonZeros });
    console.log(checks.at(-1));
  }
}

// GradBench's BA eval at ba1 (when the ADBench data is there): the Jacobian of baObjective with the automatic pattern
// (compressed forward mode) against the eval's hand-written blocks (reverse mode per observation, ../examples/
// gradbench/ba.smooth) laid out as its CSR (src/gradbench/evals/ba.ts); both compiled for the same back end.
const ba = [];
const baFile = join(DATA, "ba", "ba1_n49_m7776_p31843.txt");
if (existsSync(baFile)) {
  const lines = readFileSync(baFile, "utf8").trim().split("\n");
  const nums = (i) => lines[i].trim().split(/\s+/).map(Number);
  const [n, mm, p] = nums(0);
  const problem = baProblem({ n, m: mm, p, cam: nums(1), x: nums(2), w: nums(3)[0], feat: nums(4) });
  const source = readFileSync(new URL("../examples/gradbench/ba.smooth", import.meta.url), "utf8");
  const prog = loadProgram({ name: "ba.smooth", text: source });
  const V = { k: "array", elem: { k: "double" } };
  const M = { k: "array", elem: V };
  const I = { k: "array", elem: { k: "int" } };
  const argTypes = [M, M, V, M, I, I];
  const lowered = lowerEntry(prog.checked, "baObjective", argTypes);
  const firstOrder = prog.primalThrough("baObjective", argTypes, REVERSE_PRIMAL_PIPELINE, lowered);
  const [plan, planMs] = timed(() =>
    planSparse({
      kind: "jacobian",
      subject: { label: "`baObjective`", argument: (k) => `argument ${k}` },
      context: "bench",
      firstOrder,
      argTypes,
      values: problem.args,
      wrt: [0, 1, 2],
      output: () => prog.specialise("baObjective", argTypes, backend).run(problem.args),
    }),
  );
  const c = compressedFunction("jacobian", plan.mode, lowered, () => firstOrder, [0, 1, 2]);
  const compressed = prepare(c.fn, c.argTypes, backend, DERIVATIVE_PIPELINE);
  const blocks = prog.specialise("baJacobianBlocks", argTypes, backend);
  const args = [...problem.args, ...plan.colourArguments];
  let last;
  const handLaid = () => {
    const out = blocks.runBorrowed(problem.args);
    last = baCsr(problem, out.elems[0].data, out.elems[1].data, last);
    return last;
  };
  const automatic = () => sparseResult(plan, compressed.runBorrowed(args));
  // Every entry of the automatic pattern is in the hand-laid layout, with the same value (to rounding).
  const a = automatic();
  const h = handLaid();
  let outside = 0;
  let maxRelative = 0;
  for (let r = 0; r < a.shape[0]; r++)
    for (let k = a.rowPointers[r]; k < a.rowPointers[r + 1]; k++) {
      let at = -1;
      for (let q = h.rows[r]; q < h.rows[r + 1]; q++) if (h.cols[q] === a.columnIndexes[k]) at = q;
      if (at < 0) outside++;
      else maxRelative = Math.max(maxRelative, Math.abs(h.vals[at] - a.values[k]) / (1 + Math.abs(h.vals[at])));
    }
  const programOnly = () => compressed.runBorrowed(args);
  const [handMs, autoMs, programMs] = alternate([handLaid, automatic, programOnly], { rounds: 5, budgetMs: 300 });
  ba.push({
    problem: "ba1_n49_m7776_p31843",
    automaticEntries: a.values.length,
    handLaidEntries: h.vals.length,
    colours: plan.info.colours,
    mode: plan.info.mode,
    patternMs: planMs,
    outside,
    maxRelative,
    handMs,
    autoMs,
    programMs,
  });
  console.log(ba.at(-1));
}

const fmt = (x, d = 3) => (x >= 100 ? x.toFixed(0) : x.toFixed(d));
const table = [
  `| derivative | n | entries | colours (mode) | first call, ms | primal, ms | sparse, ms | sparse / primal | borrowResult, ms | / primal |`,
  `| --- | ---: | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: |`,
  ...rows.map(
    (r) =>
      `| ${r.what} | ${r.n} | ${r.entries} | ${r.colours} (${r.mode}) | ${fmt(r.firstCallMs, 0)} | ${fmt(r.primalMs)} | ${fmt(r.sparseMs)} | ${r.ratio.toFixed(1)} | ${fmt(r.borrowedMs)} | ${r.borrowedRatio.toFixed(1)} |`,
  ),
  "",
  `| at n = 2000 | entries | entries differing from the dense derivative | largest relative difference | non-zeros of the dense derivative outside the pattern |`,
  `| --- | ---: | ---: | ---: | ---: |`,
  ...checks.map(
    (c) => `| ${c.what} | ${c.entries} | ${c.differing} | ${c.maxRelative.toExponential(1)} | ${c.missedNonZeros} |`,
  ),
  ...(ba.length === 0
    ? []
    : [
        "",
        `| GradBench BA | entries (hand-laid) | colours (mode) | pattern + colouring, ms | hand-laid blocks + CSR, ms | automatic, ms | of which the compressed program, ms | automatic / hand-laid | automatic entries outside the hand-laid layout | largest relative difference |`,
        `| --- | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |`,
        ...ba.map(
          (b) =>
            `| ${b.problem} | ${b.automaticEntries} (${b.handLaidEntries}) | ${b.colours} (${b.mode}) | ${fmt(b.patternMs, 0)} | ${fmt(b.handMs)} | ${fmt(b.autoMs)} | ${fmt(b.programMs)} | ${(b.autoMs / b.handMs).toFixed(1)} | ${b.outside} | ${b.maxRelative.toExponential(1)} |`,
        ),
      ]),
];
const md = `# Sparse Jacobians and Hessians (backend ${backend})\n\n${table.join("\n")}\n`;
console.log(`\n${md}`);
const dir = new URL(quick ? "./scratch/" : "./results/", import.meta.url);
mkdirSync(dir, { recursive: true });
writeFileSync(new URL("sparse.md", dir), md);
writeFileSync(new URL("sparse.json", dir), JSON.stringify({ backend, rows, checks, ba }, null, 2));
