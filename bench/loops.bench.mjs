// Reverse mode through while loops and through in-place array updates (issue 12), from bench/programs/loops.smooth:
//  - a while loop of n steps (x <- sin x * x + 0.1): primal and gradient per n, and the gradient of the same loop as
//    an ifold (whose trip count is known): their ratio is what counting the while's steps first costs;
//  - n setAt updates of an n-array (an in-place prefix recurrence, a bubble-sort pass): gradient / primal per n, which
//    must not grow with n (the reverse undoes each update from a log instead of taping the array), and a
//    hand-written JavaScript gradient of each (smooth/hand).
// Prints a markdown table and writes bench/results/loops.md and .json. Run with `npm run bench:loops` (builds first).

import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { Bench } from "tinybench";
import { DBL, INT, VEC, dense, random } from "./lib.mjs";
import { loadProgram } from "../dist/api/program.js";

const prog = loadProgram({
  name: "loops.smooth",
  text: readFileSync(new URL("programs/loops.smooth", import.meta.url), "utf8"),
});
const compiled = (name, types) => ({
  primal: prog.specialise(name, types, "js"),
  grad: prog.derivative(name, types, [0], "js", undefined, "gradient"),
});
const SIZES = [1e3, 1e4, 1e5, 1e6];

// Hand-written gradients: the same loops, reversed by hand (the bubble pass by undoing its swaps).
function prefixGrad(v) {
  const a = Float64Array.from(v);
  for (let i = 1; i < a.length; i++) a[i] += a[i - 1] * 0.5;
  const da = a.map((x) => 2 * x);
  for (let i = a.length - 1; i >= 1; i--) da[i - 1] += 0.5 * da[i];
  return da;
}
function bubbleGrad(v) {
  const n = v.length;
  const a = Float64Array.from(v);
  const swapped = new Uint8Array(n);
  for (let i = 0; i + 1 < n; i++)
    if (a[i] > a[i + 1]) {
      const t = a[i];
      a[i] = a[i + 1];
      a[i + 1] = t;
      swapped[i] = 1;
    }
  const da = new Float64Array(n);
  for (let i = 0; i < n; i++) da[i] = i + 1;
  for (let i = n - 2; i >= 0; i--)
    if (swapped[i]) {
      const t = da[i];
      da[i] = da[i + 1];
      da[i + 1] = t;
    }
  return da;
}

const whileLoop = compiled("whileLoop", [DBL, INT]);
const ifoldLoop = compiled("ifoldLoop", [DBL, INT]);
const prefix = compiled("prefixRecurrence", [VEC]);
const bubble = compiled("bubblePass", [VEC]);
const cases = [];
for (const n of SIZES) {
  cases.push({ name: "while loop x <- sin x * x + 0.1", n, ...whileLoop, args: [0.7, n], also: ifoldLoop });
  const v = random(n, 3);
  const vs = [dense(v, [n])];
  cases.push({ name: "prefix recurrence (setAt)", n, ...prefix, args: vs, hand: () => prefixGrad(v) });
  const w = random(n, 4);
  cases.push({ name: "bubble-sort pass (swaps)", n, ...bubble, args: [dense(w, [n])], hand: () => bubbleGrad(w) });
}

// The same numbers before timing (Smooth's gradient against the hand-written one, the while against the ifold).
for (const c of cases) {
  const g = c.grad.run(c.args);
  const want = c.hand ? c.hand() : c.also.grad.run(c.args);
  const got = typeof g === "number" ? [g] : g.tag === "tuple" ? [g.elems[0]] : g.data;
  const ref = typeof want === "number" ? [want] : want.tag === "tuple" ? [want.elems[0]] : (want.data ?? want);
  for (let i = 0; i < ref.length; i++)
    if (Math.abs(got[i] - ref[i]) > 1e-9 * Math.max(1, Math.abs(ref[i])))
      throw new Error(`${c.name} (n=${c.n}): gradient ${i} is ${got[i]}, the reference ${ref[i]}`);
}

const bench = new Bench({ time: 300, warmupTime: 100, iterations: 5, warmupIterations: 2 });
const task = (c, what) => `${c.name} | ${c.n} | ${what}`;
for (const c of cases) {
  bench.add(task(c, "primal"), () => c.primal.run(c.args));
  bench.add(task(c, "gradient"), () => c.grad.run(c.args));
  if (c.also) bench.add(task(c, "ifold gradient"), () => c.also.grad.run(c.args));
  if (c.hand) bench.add(task(c, "hand"), c.hand);
}
await bench.run();
const ms = (name) => bench.getTask(name)?.result?.latency?.p50;
const fmt = (x) => (x >= 100 ? x.toFixed(0) : x >= 1 ? x.toFixed(2) : x.toFixed(4));
const rows = cases.map((c) => {
  const [primal, gradient] = [ms(task(c, "primal")), ms(task(c, "gradient"))];
  const other = c.also ? ms(task(c, "ifold gradient")) : ms(task(c, "hand"));
  return {
    benchmark: c.name,
    n: c.n,
    primalMs: primal,
    gradientMs: gradient,
    ratio: gradient / primal,
    otherMs: other,
  };
});
const header =
  "| benchmark | n | primal ms | gradient ms | gradient / primal | reference gradient ms | smooth / reference |\n" +
  "| --- | ---: | ---: | ---: | ---: | ---: | ---: |";
const line = (r) =>
  `| ${r.benchmark} | ${r.n} | ${fmt(r.primalMs)} | ${fmt(r.gradientMs)} | ${r.ratio.toFixed(2)} | ${fmt(r.otherMs)} | ${(r.gradientMs / r.otherMs).toFixed(2)} |`;
const text = [
  "# Reverse mode through while loops and in-place updates",
  "",
  `Node ${process.version}, ${new Date().toISOString().slice(0, 10)}; median ms per call. The reference gradient is, for ` +
    "the while loop, the same loop written as an ifold (its trip count known: no counting run), and for the array " +
    "updates a hand-written JavaScript gradient.",
  "",
  header,
  ...rows.map(line),
  "",
].join("\n");
console.log(text);
const resultsDir = new URL("results/", import.meta.url);
mkdirSync(resultsDir, { recursive: true });
writeFileSync(new URL("loops.md", resultsDir), text);
writeFileSync(new URL("loops.json", resultsDir), JSON.stringify({ node: process.version, rows }, null, 2) + "\n");
