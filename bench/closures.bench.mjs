// Closures over data (issue 28, item 2), measured through the package's entry (dist/bundle/index.js):
//  1. the gradient of a loss over a captured Float64Array of 10⁶ numbers against the same loss taking the array as an
//     argument (target: within 1.2×), the closure read by Node's inspector and through an accessor (what the bundler
//     plugin writes), in alternating rounds, each figure the fastest round's time per call;
//  2. the first call of `grad` on a 20-line plain function in a warm process (target: under 50 ms), each round a
//     function of new text (so nothing is cached);
//  3. closures made afresh in a loop, `grad(x => x * k + Math.sin(x))(1)`: the time per closure, and one compilation.
// Writes bench/results/closures.md and .json. Run with `npm run bench:closures` (builds first). Timings never gate
// `npm test`.

import { mkdirSync, writeFileSync } from "node:fs";
import { compilations, grad, withClosure } from "../dist/bundle/index.js";
import { random } from "./lib.mjs";

const ROUNDS = 15;
const fastest = (xs) => Math.min(...xs);
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** Milliseconds per call of `run`, by calls repeated for about `ms` milliseconds. */
function perCall(run, ms = 60) {
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

// 1. Captured data against an argument.
const N = 1_000_000;
const X = random(N, 1, -1, 1);
const Y = random(N, 2, -1, 1);
const lossOf = (w, X, Y) => {
  let s = 0;
  for (let i = 0; i < X.length; i++) {
    const r = w[0] * X[i] + w[1] - Y[i];
    s += r * r;
  }
  return s;
};
const asArgument = grad(lossOf);
const captured = grad((w) => {
  let s = 0;
  for (let i = 0; i < X.length; i++) {
    const r = w[0] * X[i] + w[1] - Y[i];
    s += r * r;
  }
  return s;
});
const accessed = grad(
  withClosure(
    (w) => {
      let s = 0;
      for (let i = 0; i < X.length; i++) {
        const r = w[0] * X[i] + w[1] - Y[i];
        s += r * r;
      }
      return s;
    },
    () => [X, Y],
  ),
);
const w = new Float64Array([0.3, -0.1]);
const reference = asArgument(w, X, Y);
for (const [name, g] of [
  ["captured", captured],
  ["accessed", accessed],
]) {
  const got = g(w);
  if (
    Math.abs(got[0] - reference[0]) > 1e-6 * Math.abs(reference[0]) ||
    Math.abs(got[1] - reference[1]) > 1e-6 * Math.abs(reference[1])
  )
    throw new Error(`${name}: ${got} ≠ ${reference}`);
}
const times = { argument: [], captured: [], accessed: [] };
for (let r = 0; r < ROUNDS; r++) {
  times.argument.push(perCall(() => asArgument(w, X, Y)));
  times.captured.push(perCall(() => captured(w)));
  times.accessed.push(perCall(() => accessed(w)));
}
const data = Object.fromEntries(Object.entries(times).map(([k, v]) => [k, fastest(v)]));
for (const g of [asArgument, captured, accessed]) if (compilations(g) !== 1) throw new Error("compiled again");
console.log(
  `captured 10⁶: argument ${data.argument.toFixed(3)} ms, captured (inspector) ${data.captured.toFixed(3)} ms ` +
    `(${(data.captured / data.argument).toFixed(3)}×), accessor ${data.accessed.toFixed(3)} ms ` +
    `(${(data.accessed / data.argument).toFixed(3)}×)`,
);

// 2. The first call of grad on a 20-line plain function, in a process that has compiled other functions already.
const twentyLines = (c) => `
  let total = 0;
  let previous = x[0];
  for (let i = 0; i < x.length; i++) {
    const a = x[i] * ${c};
    const b = Math.sin(a) + Math.cos(previous);
    let t = 0;
    if (a > 0) {
      t = a * b;
    } else {
      t = Math.exp(a) - b;
    }
    for (let j = 0; j < 3; j++) {
      t = t * 0.5 + Math.tanh(a + j);
    }
    previous = a;
    total += t * t + Math.log(1 + a * a);
  }
  const mean = total / x.length;
  return mean + Math.sqrt(1 + mean * mean);`;
const x0 = random(100, 3, -1, 1);
const first = [];
const firstCpu = [];
for (let r = 0; r < ROUNDS; r++) {
  const f = new Function("x", twentyLines(1 + r / 100));
  const t0 = performance.now();
  const c0 = process.cpuUsage();
  grad(f)(x0);
  const c = process.cpuUsage(c0);
  first.push(performance.now() - t0);
  // (The process's CPU time: less disturbed than wall time by other processes on the machine.)
  firstCpu.push((c.user + c.system) / 1000);
}
console.log(
  `first call of grad, 20-line function: median ${median(first).toFixed(1)} ms, fastest ${fastest(first).toFixed(1)} ms` +
    `; CPU time median ${median(firstCpu).toFixed(1)} ms`,
);

// 3. Closures made in a loop.
const before = compilations();
const loopTimes = [];
let made = 0;
for (let r = 0; r < ROUNDS; r++) {
  const t0 = performance.now();
  for (let i = 0; i < 200; i++, made++) {
    const k = made;
    grad((x) => x * k + Math.sin(x))(1);
  }
  loopTimes.push((performance.now() - t0) / 200);
}
const loopCompiled = compilations() - before;
console.log(`closures made in a loop: ${fastest(loopTimes).toFixed(3)} ms per closure, ${loopCompiled} compilation(s)`);

const md = `# Closures over data

\`npm run bench:closures\` (fastest of ${ROUNDS} rounds; a loaded machine makes every figure noisy).

| what | time | against |
| --- | ---: | --- |
| gradient of a loss over a captured Float64Array(10⁶), closure read by the inspector | ${data.captured.toFixed(3)} ms | ${(data.captured / data.argument).toFixed(3)} × the array as an argument (${data.argument.toFixed(3)} ms); target ≤ 1.2 |
| the same, closure read through an accessor (what the bundler plugin writes) | ${data.accessed.toFixed(3)} ms | ${(data.accessed / data.argument).toFixed(3)} × the argument |
| first call of \`grad\` on a 20-line plain function, warm process | ${median(first).toFixed(1)} ms (median; fastest ${fastest(first).toFixed(1)} ms; CPU time median ${median(firstCpu).toFixed(1)} ms) | target < 50 ms |
| \`grad((x) => x * k + Math.sin(x))(1)\` for a new closure each time | ${fastest(loopTimes).toFixed(3)} ms per closure | ${loopCompiled} compilation for ${made} closures |
`;
mkdirSync(new URL("./results/", import.meta.url), { recursive: true });
writeFileSync(new URL("./results/closures.md", import.meta.url), md);
writeFileSync(
  new URL("./results/closures.json", import.meta.url),
  JSON.stringify(
    { rounds: ROUNDS, data, firstCallMs: first, firstCallCpuMs: firstCpu, perClosureMs: loopTimes, loopCompiled },
    null,
    2,
  ) + "\n",
);
console.log(`\n${md}`);
