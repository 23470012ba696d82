// Recursion benchmarks (issue 12): the compiled primal and reverse-mode gradient of a linear recursion (depth n) and
// of a divide-and-conquer sum (2n - 1 calls, depth log n) over a vector of n elements, against hand-written
// JavaScript (bench/hand/recursion.mjs) in the same run. Ratios: gradient / primal (should not grow with n: the
// reverse of a recursion costs a constant factor of it, paper 004 §3) and smooth / hand for both.
// Prints a markdown table and writes bench/results/recursion.md and .json. Run with `npm run bench:recursion`.

import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { Bench } from "tinybench";
import { VEC, dense, random } from "./lib.mjs";
import { loadProgram } from "../dist/api/program.js";
import * as hand from "./hand/recursion.mjs";

const prog = loadProgram({
  name: "recursion.smooth",
  text: readFileSync(new URL("programs/recursion.smooth", import.meta.url), "utf8"),
});
const SIZES = {
  linear: [1e2, 1e3, 1e4, 1e5],
  treeSum: [1e3, 1e4, 1e5, 1e6],
};
const LABEL = {
  linear: "linear recursion (depth n)",
  treeSum: "divide and conquer (2n calls, depth log n)",
};

const cases = [];
for (const [name, sizes] of Object.entries(SIZES)) {
  const primal = prog.specialise(name, [VEC], "js");
  const grad = prog.derivative(name, [VEC], [0], "js", undefined, "gradient");
  for (const n of sizes) {
    const v = random(n, 11, -2, 2);
    const args = [dense(v, [n])];
    // The same numbers before timing anything.
    const close = (x, y) => Math.abs(x - y) <= 1e-9 * Math.max(1, Math.abs(y));
    if (!close(primal.run(args), hand[name](v))) throw new Error(`${name} (n=${n}): the primal disagrees`);
    const g = grad.run(args).data;
    const h = hand.gradient(v);
    for (let i = 0; i < n; i++) if (!close(g[i], h[i])) throw new Error(`${name} (n=${n}): gradient[${i}] disagrees`);
    cases.push({ name, n, primal, grad, args, v });
  }
}

const bench = new Bench({ time: 400, warmupTime: 100, iterations: 5, warmupIterations: 2 });
const task = (c, what) => `${c.name} | ${c.n} | ${what}`;
for (const c of cases) {
  bench.add(task(c, "primal"), () => c.primal.run(c.args));
  bench.add(task(c, "gradient"), () => c.grad.run(c.args));
  bench.add(task(c, "hand primal"), () => hand[c.name](c.v));
  bench.add(task(c, "hand gradient"), () => hand.gradient(c.v));
}
await bench.run();

// The median time per call: other processes on a shared machine make the mean jump between runs.
const ms = (name) => bench.getTask(name)?.result?.latency?.p50;
const fmt = (x) => (x >= 100 ? x.toFixed(0) : x >= 1 ? x.toFixed(2) : x.toFixed(4));
const rows = cases.map((c) => {
  const [primal, gradient, handPrimal, handGradient] = ["primal", "gradient", "hand primal", "hand gradient"].map((w) =>
    ms(task(c, w)),
  );
  return {
    benchmark: LABEL[c.name],
    n: c.n,
    primalMs: primal,
    gradientMs: gradient,
    ratio: gradient / primal,
    handPrimalMs: handPrimal,
    handGradientMs: handGradient,
    primalOverHand: primal / handPrimal,
    gradientOverHand: gradient / handGradient,
  };
});
const header =
  "| benchmark | n | primal ms | gradient ms | gradient/primal | hand primal ms | hand gradient ms | smooth/hand primal | smooth/hand gradient |\n" +
  "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |";
const line = (r) =>
  `| ${r.benchmark} | ${r.n} | ${fmt(r.primalMs)} | ${fmt(r.gradientMs)} | ${r.ratio.toFixed(2)} | ` +
  `${fmt(r.handPrimalMs)} | ${fmt(r.handGradientMs)} | ${r.primalOverHand.toFixed(1)} | ${r.gradientOverHand.toFixed(1)} |`;
const text = [
  "# Recursion benchmarks",
  "",
  `Node ${process.version}, ${new Date().toISOString().slice(0, 10)}; median ms per call. gradient/primal should not ` +
    "grow with n. The hand-written primal of the linear recursion is a loop, its gradient (both cases) one loop of " +
    "cos v[i] * v[i] + sin v[i]: what the reverse sweep of a recursion has to compete with.",
  "",
  header,
  ...rows.map(line),
  "",
].join("\n");
console.log(text);
const resultsDir = new URL("results/", import.meta.url);
mkdirSync(resultsDir, { recursive: true });
writeFileSync(new URL("recursion.md", resultsDir), text);
writeFileSync(new URL("recursion.json", resultsDir), JSON.stringify({ node: process.version, rows }, null, 2) + "\n");
