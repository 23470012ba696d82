// Parallel builds in the wasm back end (src/wasm/parallel.ts, parallel-run.ts): a large build at the top of a function
// runs across worker threads over a shared memory. With two threads and the threshold lowered so that every site runs
// in parallel, results are bit for bit those of one thread and of the js back end; errors are the single-threaded
// ones (the lowest failing element's); a program without a site compiles to the same bytes; the workers do not keep
// a process alive.

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadProgram, type Engine } from "../../src/api/program.js";
import type { Value } from "../../src/runtime/value.js";
import { INT, MATRIX, VECTOR, type Type } from "../../src/types/types.js";
import { setWasmThreads } from "../../src/wasm/parallel-run.js";
import { generateModule } from "../../src/wasm/module.js";
import { RAISE } from "../../src/wasm/runtime.js";
import { matrix, random, vector } from "../helpers.js";

const SOURCE = `
let matVec = fun (W: Matrix) (x: Vector) -> build (length W) (fun i -> vectorDot W[i] x)
let rowNorms = fun (W: Matrix) (c: Double) ->
  build (length W) (fun i -> sqrt (ifold (fun s k -> s + W[i][k] * W[i][k] * c) 0. (length W[i])))
let twoSites = fun (W: Matrix) (x: Vector) ->
  let ys = build (length W) (fun i -> vectorDot W[i] x)
  let m = length ys
  build m (fun i -> ifold (fun s k -> s + ys[(i + k) / 2] * x[k]) ys[i] (length x))
let logistic = fun (x: Vector) ->
  build (length x) (fun i ->
    let a = x[i] * 1.5 + 0.25
    let b = exp (0. - a)
    let c = 1. / (1. + b)
    let d = c * c - 0.5 * a + sin a * cos (a * 0.5)
    let e = log (1. + d * d) + tanh (d - c) * a
    let f = e * e + 2. * e * d - c / (1. + a * a)
    let g = sqrt (1. + f * f) + exp (0. - f * f) * c
    g * g + f - e * d)
let picks = fun (x: Vector) (ix: Vector) (m: Index) ->
  build m (fun i -> ifold (fun s k -> s + x[toIndex ix[i] + k]) 0. 3)
let small = fun (x: Vector) -> build (length x) (fun i -> x[i] * 2.)
// Rows of a literal length (bundle adjustment's residual pairs and Jacobian blocks); the row is built per element.
let pairs = fun (W: Matrix) (x: Vector) ->
  build (length W) (fun i ->
    let a = ifold (fun s k -> s + W[i][k] * x[k]) 0. (length x)
    let b = exp (0. - a * a) + log (1. + a * a)
    build 3 (fun k -> if k = 0 then a else if k = 1 then b else a * b + x[k]))
// Rows that are zero but for one element (the build writes only that one: the rows' memory is cleared first).
let oneHots = fun (W: Matrix) (x: Vector) (s: Index) ->
  build (length W) (fun i ->
    let a = ifold (fun t k -> t + W[i][k] * x[k]) 0. (length x)
    build 4 (fun k -> if k = (i + s) - (i + s) / 4 * 4 then a else 0.))
`;

const numbers = (v: Value): number[] => (typeof v === "number" ? [v] : [...(v as { data: Float64Array }).data]);

/** A fresh program (specialisations are cached per program) compiled with `threads`. */
function compiled(threads: number, name: string, types: Type[], engine: Engine = "wasm") {
  setWasmThreads(threads, 0);
  const prog = loadProgram({ name: "parallel.smooth", text: SOURCE });
  return prog.specialise(name, types, engine);
}
const outcome = (threads: number, name: string, types: Type[], args: Value[], engine: Engine = "wasm") => {
  try {
    return numbers(compiled(threads, name, types, engine).run(args));
  } catch (e) {
    return (e as Error).message;
  }
};

describe("parallel builds (wasm, two threads)", () => {
  // The workers compute every element (the calling thread takes none), so each result crossed threads.
  beforeAll(() => setWasmThreads(2, 0, false));
  afterAll(() => setWasmThreads(undefined, 100_000, true));

  const W = matrix(101, 37, random(101 * 37, 3));
  const x = vector(random(37, 5));
  const cases: [string, Type[], Value[]][] = [
    ["matVec", [MATRIX, VECTOR], [W, x]],
    ["rowNorms", [MATRIX, { k: "double" }], [W, 0.75]],
    ["logistic", [VECTOR], [vector(random(1001, 7))]],
    ["twoSites", [MATRIX, VECTOR], [W, x]],
    ["pairs", [MATRIX, VECTOR], [W, x]],
    ["oneHots", [MATRIX, VECTOR, INT], [W, x, 1]],
  ];
  it.each(cases)("%s: the listing says so; bit for bit one thread and js", (name, types, args) => {
    expect(compiled(2, name, types).code?.text).toMatch(
      name === "twoSites" ? /2 builds across 2/ : /1 builds across 2/,
    );
    const two = outcome(2, name, types, args);
    expect(two).toEqual(outcome(1, name, types, args));
    expect(two).toEqual(outcome(1, name, types, args, "js"));
    expect(two).toEqual(outcome(1, name, types, args, "interp"));
    // Again: the workers already hold the module.
    const again = compiled(2, name, types);
    expect(numbers(again.run(args))).toEqual(two);
    expect(numbers(again.run(args))).toEqual(two);
  });

  it("rows keep their shape; a row reading out of range raises the single-threaded error", () => {
    const rows = compiled(2, "pairs", [MATRIX, VECTOR]).run([W, x]) as unknown as { shape: number[] };
    expect(rows.shape).toEqual([101, 3]);
    // x longer than W's rows: every row's loop reads past its row; the first row's error, as one thread raises it.
    const short = vector(random(40, 6));
    const one = outcome(1, "pairs", [MATRIX, VECTOR], [W, short]);
    expect(one).toMatch(/out of range/);
    expect(outcome(2, "pairs", [MATRIX, VECTOR], [W, short])).toEqual(one);
  });

  it("one-hot rows are cleared: the elements an earlier call wrote do not show through", () => {
    const f = compiled(2, "oneHots", [MATRIX, VECTOR, INT]);
    const one = compiled(1, "oneHots", [MATRIX, VECTOR, INT]);
    for (const s of [0, 1, 2, 3]) expect(numbers(f.run([W, x, s]))).toEqual(numbers(one.run([W, x, s])));
  });

  it("a small build is no site", () => {
    expect(compiled(2, "small", [VECTOR]).code?.text).not.toMatch(/threads/);
  });

  it("an index error in an early or a late element is the single-threaded one", () => {
    const xs = vector(random(50, 9));
    const n = 40;
    expect(compiled(2, "picks", [VECTOR, VECTOR, INT]).code?.text).toMatch(/1 builds across 2 threads/);
    for (const bad of [[3], [37], [2, 38]]) {
      const ix = random(n, 11).map((v) => Math.floor((v + 1) * 20));
      for (const b of bad) ix[b] = 48 + b;
      const args = [xs, vector(ix), n];
      const one = outcome(1, "picks", [VECTOR, VECTOR, INT], args);
      expect(one).toMatch(/out of range/);
      expect(outcome(2, "picks", [VECTOR, VECTOR, INT], args)).toEqual(one);
    }
  });

  it("a program without a parallel site compiles to the same bytes with one or two threads", () => {
    setWasmThreads(2, 0);
    const prog = loadProgram({ name: "parallel.smooth", text: SOURCE });
    const fn = prog.specialise("small", [VECTOR], "wasm").optimised;
    const one = generateModule(fn, RAISE, "f64", 1);
    const two = generateModule(fn, RAISE, "f64", 2);
    expect(two.parallelCosts).toEqual([]);
    expect(two.bytes).toEqual(one.bytes);
  });
});
