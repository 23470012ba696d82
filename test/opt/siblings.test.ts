// Sibling fusion (src/opt/siblings.ts): two loops over the same count that share work become one loop, and CSE then
// computes the shared work once; loops that share nothing stay apart, and so do loops whose fusion could change which
// error is raised first. Programs in, the optimised program's shape out; values against the interpreter (which runs
// the unoptimised program) and a hand-written reference; errors against the interpreter's.

import { describe, expect, test } from "vitest";
import { loadProgram, type Engine } from "../../src/api/program.js";
import { printIr } from "../../src/ir/print.js";
import type { DenseArray, TupleValue, Value } from "../../src/runtime/value.js";
import { MATRIX, VECTOR } from "../../src/types/types.js";
import { random, thrown } from "../helpers.js";

const SOURCE = `
let twoSums = fun (W: Matrix) (X: Matrix) ->
  let n = length X
  let m = length W
  let first = ifold (fun s r ->
    let h = build m (fun i -> tanh (vectorDot W[i] X[r]))
    s + vectorSum h * vectorSum (build m (fun i -> h[i] * h[i]))) 0. n
  let second = ifold (fun s r ->
    let h = build m (fun i -> tanh (vectorDot W[i] X[r]))
    s * 0.5 + vectorSum (build m (fun i -> exp h[i])) - vectorSum h) 0. n
  (first, second)

// Nothing shared: two sums stay two loops.
let apart = fun (v: Vector) ->
  (ifold (fun s i -> s + v[i]) 0. (length v), ifold (fun s i -> s + v[i] * v[i]) 0. (length v))

// The second loop's own part reads c[r], which may fail before the first loop's end (here the first fails at d[3],
// the second would at c[2]): not fused, so the first's error is raised, as the program says.
let secondMayFail = fun (W: Matrix) (X: Matrix) (c: Vector) (d: Vector) ->
  let n = length X
  let m = length W
  let first = ifold (fun s r ->
    let h = build m (fun i -> tanh (vectorDot W[i] X[r]))
    s + d[r] * vectorSum h * vectorSum (build m (fun i -> h[i] * h[i]))) 0. n
  let second = ifold (fun s r ->
    let h = build m (fun i -> tanh (vectorDot W[i] X[r]))
    s + c[r] * vectorSum (build m (fun i -> exp h[i])) - vectorSum h) 0. n
  first + second

// The first loop's own part may fail (c[r]); the second's cannot: fused, the first's error comes first as before.
let firstMayFail = fun (W: Matrix) (X: Matrix) (c: Vector) ->
  let n = length X
  let m = length W
  let first = ifold (fun s r ->
    let h = build m (fun i -> tanh (vectorDot W[i] X[r]))
    s + c[r] * vectorSum h * vectorSum (build m (fun i -> h[i] * h[i]))) 0. n
  let second = ifold (fun s r ->
    let h = build m (fun i -> tanh (vectorDot W[i] X[r]))
    s * 0.5 + vectorSum (build m (fun i -> exp h[i])) - vectorSum h) 0. n
  first + second

let mlpLoss = fun (W1: Matrix) (b1: Vector) (W2: Matrix) (b2: Vector) (X: Matrix) (Y: Matrix) ->
  let n = length X
  let total = ifold (fun acc r ->
    let h = build (length W1) (fun i -> tanh (vectorDot W1[i] X[r] + b1[i]))
    let z = build (length W2) (fun k -> vectorDot W2[k] h + b2[k])
    acc + logsumexp z - vectorDot Y[r] z) 0. n
  total / double n
`;
const prog = loadProgram({ name: "siblings.smooth", text: SOURCE });

const matrix = (rows: number, cols: number, seed: number): Value => ({
  tag: "dense",
  elemKind: "double",
  shape: [rows, cols],
  data: Float64Array.from(random(rows * cols, seed)),
});
const vector = (xs: number[]): Value => ({
  tag: "dense",
  elemKind: "double",
  shape: [xs.length],
  data: Float64Array.from(xs),
});
const rows = (v: Value) => {
  const d = v as DenseArray;
  return Array.from({ length: d.shape[0]! }, (_, i) => [...d.data.subarray(i * d.shape[1]!, (i + 1) * d.shape[1]!)]);
};
const count = (text: string, word: string) => text.split(word).length - 1;
const ENGINES: Engine[] = ["js", "wasm"];
/** The message of the SmoothError `f` raises. */
const message = (f: () => unknown): string => thrown(f).message;

describe("sibling fusion", () => {
  test("two loops over the data sharing a layer become one loop computing the layer once", () => {
    const spec = prog.specialise("twoSums", [MATRIX, MATRIX], "js");
    const text = printIr(spec.optimised);
    expect(count(text, "tanh")).toBe(1);
    const [W, X] = [matrix(5, 3, 1), matrix(4, 3, 2)];
    // By hand: the layer per row of X, then both sums in their own order.
    const h = rows(X).map((x) => rows(W).map((w) => Math.tanh(w.reduce((s, wi, k) => s + wi * x[k]!, 0))));
    let first = 0;
    let second = 0;
    const sum = (xs: number[]) => xs.reduce((s, y) => s + y, 0);
    for (const hr of h) {
      first += sum(hr) * sum(hr.map((y) => y * y));
      second = second * 0.5 + sum(hr.map(Math.exp)) - sum(hr);
    }
    const reference = prog.specialise("twoSums", [MATRIX, MATRIX], "interp").run([W, X]);
    for (const engine of ENGINES) {
      const got = prog.specialise("twoSums", [MATRIX, MATRIX], engine).run([W, X]) as TupleValue;
      expect(got).toEqual(reference);
      expect(got.elems[0] as number).toBeCloseTo(first, 12);
      expect(got.elems[1] as number).toBeCloseTo(second, 12);
    }
  });

  test("loops that share no loop stay apart", () => {
    const text = printIr(prog.specialise("apart", [VECTOR], "js").optimised);
    expect(count(text, "ifold")).toBe(2);
  });

  test("a second loop whose own part may fail is not moved before the first loop's end", () => {
    const types = [MATRIX, MATRIX, VECTOR, VECTOR];
    const text = printIr(prog.specialise("secondMayFail", types, "js").optimised);
    expect(count(text, "tanh")).toBe(2);
    const args = [matrix(3, 2, 3), matrix(4, 2, 4), vector([1, 2]), vector([1, 2, 3])];
    const want = message(() => prog.specialise("secondMayFail", types, "interp").run(args));
    expect(want).toMatch(/index 3 .*length 3|3.*out of range/);
    for (const engine of ENGINES)
      expect(message(() => prog.specialise("secondMayFail", types, engine).run(args))).toBe(want);
  });

  test("a first loop whose own part may fail still fuses: its error is raised at the same iteration", () => {
    const text = printIr(prog.specialise("firstMayFail", [MATRIX, MATRIX, VECTOR], "js").optimised);
    expect(count(text, "tanh")).toBe(1);
    const args = [matrix(3, 2, 5), matrix(4, 2, 6), vector([1, 2])];
    const want = message(() => prog.specialise("firstMayFail", [MATRIX, MATRIX, VECTOR], "interp").run(args));
    expect(want).toMatch(/index/);
    for (const engine of ENGINES)
      expect(message(() => prog.specialise("firstMayFail", [MATRIX, MATRIX, VECTOR], engine).run(args))).toBe(want);
    const ok = [args[0]!, args[1]!, vector([1, 2, 3, 4])];
    const reference = prog.specialise("firstMayFail", [MATRIX, MATRIX, VECTOR], "interp").run(ok);
    for (const engine of ENGINES)
      expect(prog.specialise("firstMayFail", [MATRIX, MATRIX, VECTOR], engine).run(ok)).toEqual(reference);
  });

  test("a value and its gradient: the value's loop and the reverse sweep's are one loop, one forward pass", () => {
    const types = [MATRIX, VECTOR, MATRIX, VECTOR, MATRIX, MATRIX];
    const wrt = [0, 1, 2, 3];
    const vg = prog.derivative("mlpLoss", types, wrt, "js", undefined, "value-gradient");
    const text = printIr(vg.optimised);
    // One forward pass per branch of `0 < length W2` (unswitching leaves two copies of the loop, one per case).
    expect(count(text, "tanh")).toBe(2);
    const Y: Value = {
      tag: "dense",
      elemKind: "double",
      shape: [4, 3],
      data: Float64Array.from({ length: 12 }, (_, i) => (i % 4 === 0 ? 1 : 0)),
    };
    const args = [matrix(5, 6, 7), vector(random(5, 8)), matrix(3, 5, 9), vector(random(3, 10)), matrix(4, 6, 11), Y];
    for (const engine of ENGINES) {
      const got = prog.derivative("mlpLoss", types, wrt, engine, undefined, "value-gradient").run(args) as TupleValue;
      // The value in the primal's own order: bit for bit the primal program's.
      expect(got.elems[0]).toBe(prog.specialise("mlpLoss", types, engine).run(args));
      const grads = prog.derivative("mlpLoss", types, wrt, engine, undefined, "gradient").run(args) as TupleValue;
      const fused = got.elems.slice(1) as DenseArray[];
      fused.forEach((g, k) => {
        const want = (grads.elems[k] as DenseArray).data;
        g.data.forEach((x, i) => expect(x).toBeCloseTo(want[i]!, 13));
      });
      // And a central difference in W1[2][3] and b2[1].
      const loss = (a: Value[]) => prog.specialise("mlpLoss", types, engine).run(a) as number;
      const bumped = (which: number, at: number, eps: number) =>
        args.map((a, j) => {
          if (j !== which) return a;
          const d = a as DenseArray;
          const data = Float64Array.from(d.data);
          data[at] = data[at]! + eps;
          return { ...d, data };
        });
      const fd = (which: number, at: number) => (loss(bumped(which, at, 1e-6)) - loss(bumped(which, at, -1e-6))) / 2e-6;
      expect(fused[0]!.data[2 * 6 + 3]).toBeCloseTo(fd(0, 2 * 6 + 3), 8);
      expect(fused[3]!.data[1]).toBeCloseTo(fd(3, 1), 8);
    }
  });
});
