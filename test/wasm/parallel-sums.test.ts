// Parallel sums and allocating elements in the wasm back end (src/wasm/parallel.ts, part-arena.ts, parallel-run.ts):
// a large `ifold (fun s i -> s + term i) z n` at the top of a function computes its terms across threads and adds
// them in order on the calling thread; elements that allocate arrays take them from each thread's own arena; threads
// claim chunks of elements dynamically. Results must be bit for bit those of one thread and of the interpreter
// (float64), and of one thread in float32; errors the single-threaded ones; small sizes run on one thread.

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadProgram, type Engine } from "../../src/api/program.js";
import type { Value } from "../../src/runtime/value.js";
import { MATRIX, VECTOR, type Type } from "../../src/types/types.js";
import { parallelCalls, setWasmThreads, waitForWorkers } from "../../src/wasm/parallel-run.js";
import { matrix, random, vector } from "../helpers.js";

const SOURCE = `
// A sum of terms that each run a loop (no allocation).
let rowNormSum = fun (W: Matrix) ->
  ifold (fun s i -> s + sqrt (ifold (fun t k -> t + W[i][k] * W[i][k]) 0. (length W[i]))) 0.5 (length W)
// gmm's shape: each term allocates an array, reads it twice (a max, a sum of exps), and is added to the state.
let logsumexps = fun (W: Matrix) (x: Vector) ->
  let n = length W
  ifold (fun s i ->
    let v = build (length x) (fun k -> W[i][k] * x[k] - 0.25 * x[k] * x[k])
    let mx = ifold (fun m k -> max m v[k]) v[0] (length v)
    s + (mx + log (ifold (fun t k -> t + exp (v[k] - mx)) 0. (length v)))) 0. n
// Uneven terms: element i runs i steps (and allocates i + 1 Doubles); the state is second in the step.
let triangle = fun (x: Vector) ->
  ifold (fun s i ->
    let u = build (i + 1) (fun k -> sin (x[k] * 0.5 + double i))
    ifold (fun t k -> t + u[k] * x[i - k]) 0. (i + 1) + s) 0. (length x)
// A max of terms.
let maxTerm = fun (W: Matrix) ->
  ifold (fun m i -> max m (ifold (fun t k -> t + cos (W[i][k] * double k)) 0. (length W[i]))) (0. - 1000.) (length W)
// A term reading out of range where ix says so.
let picks = fun (x: Vector) (ix: Vector) ->
  ifold (fun s i -> s + ifold (fun t k -> t + x[toIndex ix[i] + k] * x[k]) 0. 3) 0. (length ix)
// The sum is a let's right-hand side's chain: still a site.
let nested = fun (W: Matrix) ->
  let r = (let s = ifold (fun s i -> s + exp (ifold (fun t k -> t + W[i][k]) 0. (length W[i]) * 0.01)) 0. (length W) in s * 2.)
  r + 1.
`;

const numbers = (v: Value): number[] => (typeof v === "number" ? [v] : [...(v as { data: Float64Array }).data]);

/** A fresh program (specialisations are cached per program) compiled with `threads` and a site `threshold`. */
function compiled(threads: number, name: string, types: Type[], engine: Engine = "wasm", threshold = 0) {
  setWasmThreads(threads, threshold);
  const prog = loadProgram({ name: "sums.smooth", text: SOURCE });
  return prog.specialise(name, types, engine);
}
const outcome = (threads: number, name: string, types: Type[], args: Value[], engine: Engine = "wasm") => {
  try {
    return numbers(compiled(threads, name, types, engine).run(args));
  } catch (e) {
    return (e as Error).message;
  }
};

// The calling thread computes elements too (and does not wait for a worker that has not started when none are left),
// or leaves them all to the workers, so that every result crossed threads.
describe.each([true, false])("parallel sums (wasm, two threads; the calling thread works: %s)", (callerWorks) => {
  // Calls leave out a worker that is still booting: every call below should run across threads.
  beforeAll(() => {
    setWasmThreads(2, 0, callerWorks);
    expect(waitForWorkers(2)).toBe(true);
  });
  afterAll(() => setWasmThreads(undefined, 100_000, true));

  const W = matrix(203, 37, random(203 * 37, 3));
  const x = vector(random(37, 5));
  const long = vector(random(301, 8));
  const cases: [string, Type[], Value[]][] = [
    ["rowNormSum", [MATRIX], [W]],
    ["logsumexps", [MATRIX, VECTOR], [W, x]],
    ["triangle", [VECTOR], [long]],
    ["maxTerm", [MATRIX], [W]],
    ["nested", [MATRIX], [W]],
  ];
  it.each(cases)("%s: runs across threads; bit for bit one thread and the interpreter", (name, types, args) => {
    const two = compiled(2, name, types);
    expect(two.code?.text).toMatch(/1 builds across 2 threads/);
    const before = parallelCalls();
    const result = numbers(two.run(args));
    expect(parallelCalls()).toBe(before + 1);
    expect(result.every(Number.isFinite)).toBe(true);
    expect(result).toEqual(outcome(1, name, types, args));
    expect(result).toEqual(outcome(1, name, types, args, "interp"));
    // Again, on the same compiled function (its arena and the workers' instances reused).
    expect(numbers(two.run(args))).toEqual(result);
  });

  it.each(cases)("%s in float32: bit for bit one thread", (name, types, args) => {
    const two = compiled(2, name, types, "wasm-f32");
    expect(two.code?.text).toMatch(/1 builds across 2 threads/);
    expect(numbers(two.run(args))).toEqual(outcome(1, name, types, args, "wasm-f32"));
  });

  it("below the threshold a sum runs on the calling thread, above it across threads: the same bits", () => {
    const small = matrix(5, 37, random(5 * 37, 13));
    const large = matrix(400, 37, random(400 * 37, 17));
    // Each term of logsumexps costs a few thousand units: 5 terms are below 100,000, 400 above.
    const fn = compiled(2, "logsumexps", [MATRIX, VECTOR], "wasm", 100_000);
    for (const [m, across] of [
      [small, 0],
      [large, 1],
    ] as const) {
      const before = parallelCalls();
      const result = numbers(fn.run([m, x]));
      expect(parallelCalls() - before).toBe(across);
      expect(result).toEqual(outcome(1, "logsumexps", [MATRIX, VECTOR], [m, x], "interp"));
    }
  });

  it("an index error in an early or a late term is the single-threaded one", () => {
    const xs = vector(random(50, 9));
    const n = 40;
    for (const bad of [[3], [37], [2, 38]]) {
      const ix = random(n, 11).map((v) => Math.floor((v + 1) * 20));
      for (const b of bad) ix[b] = 48 + b;
      const args = [xs, vector(ix)];
      const one = outcome(1, "picks", [VECTOR, VECTOR], args);
      expect(one).toMatch(/out of range/);
      expect(outcome(2, "picks", [VECTOR, VECTOR], args)).toEqual(one);
      expect(outcome(1, "picks", [VECTOR, VECTOR], args, "interp")).toEqual(one);
    }
  });
});
