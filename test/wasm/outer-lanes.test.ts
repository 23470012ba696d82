// Outer SIMD lanes in the wasm back end: a build (or a reduction) whose element is a reduction over b reading rows of
// a matrix at the build's index, `build m (fun j -> ifold (fun s b -> s + W[b][j] * v[b]) 0. B)`, runs two outputs
// j, j + 1 at once (four in float32), each lane its own accumulator. The listing says which loops do; the values are
// bit for bit the js back end's and the interpreter's (each lane adds its terms in b order) and within rounding of a
// hand-written loop, at odd widths, one column, no rows; errors are the js back end's, at the same element.

import { describe, expect, it } from "vitest";
import { loadProgram, type Engine } from "../../src/api/program.js";
import type { Value } from "../../src/runtime/value.js";
import { INT, MATRIX, VECTOR, type Type } from "../../src/types/types.js";

const SOURCE = `
let vecMat = fun (W: Matrix) (v: Vector) ->
  build (length W[0]) (fun j -> ifold (fun s b -> s + W[b][j] * v[b]) 0. (length W))
let vecMatN = fun (W: Matrix) (v: Vector) (m: Index) ->
  build m (fun j -> ifold (fun s b -> s + W[b][j] * v[b]) 0. (length v))
let weightGrad = fun (x: Matrix) (dh: Matrix) ->
  build (length x[0]) (fun i ->
    build (length dh[0]) (fun j -> ifold (fun s b -> s + x[b][i] * dh[b][j]) 0. (length x)))
let layer = fun (W: Matrix) (v: Vector) (c: Vector) ->
  build (length c) (fun j -> tanh (ifold (fun s b -> max s (W[b][j + 1] * v[b])) c[j] (length v) + c[j]))
let total = fun (W: Matrix) (v: Vector) ->
  ifold (fun acc j -> acc + exp (ifold (fun s b -> s * W[b][j] + v[b]) 1. (length v))) 0. (length W[0])
`;
const prog = loadProgram({ name: "outer-lanes.smooth", text: SOURCE });

/** Uniform in [-1, 1), from a fixed seed (a linear congruential generator). */
function random(n: number, seed: number): number[] {
  let s = seed;
  return Array.from({ length: n }, () => {
    s = (s * 1103515245 + 12345) % 2147483648;
    return (2 * s) / 2147483648 - 1;
  });
}
const vector = (xs: readonly number[]): Value => ({
  tag: "dense",
  elemKind: "double",
  shape: [xs.length],
  data: Float64Array.from(xs),
});
const matrix = (rows: number, cols: number, xs: readonly number[]): Value => ({
  tag: "dense",
  elemKind: "double",
  shape: [rows, cols],
  data: Float64Array.from(xs),
});
const numbers = (v: Value): number[] => (typeof v === "number" ? [v] : [...(v as { data: Float64Array }).data]);
const listing = (name: string, types: Type[], engine: Engine = "wasm") =>
  prog.specialise(name, types, engine).code?.text ?? "";
const run = (name: string, types: Type[], engine: Engine, args: Value[]) =>
  numbers(prog.specialise(name, types, engine).run(args));
const message = (name: string, types: Type[], engine: Engine, args: Value[]) => {
  try {
    run(name, types, engine, args);
  } catch (e) {
    return (e as Error).message;
  }
  return "no error";
};
const OUTER = /; 2 loops in SIMD lanes \(1 of them in outer lanes\)$/;

/** Each of `got` within `tol` (relative to 1 or the value) of `want`. */
function expectClose(got: readonly number[], want: readonly number[], tol: number): void {
  expect(got.length).toBe(want.length);
  want.forEach((w, k) => expect(Math.abs(got[k]! - w)).toBeLessThanOrEqual(tol * Math.max(1, Math.abs(w))));
}

describe("outer SIMD lanes", () => {
  it("run a vector-matrix product across its columns: bit for bit js and the interpreter, close to a hand loop", () => {
    const types = [MATRIX, VECTOR];
    expect(listing("vecMat", types)).toMatch(OUTER);
    for (const [B, m] of [
      [5, 1],
      [1, 2],
      [4, 3],
      [7, 8],
      [33, 17],
    ] as const) {
      const W = random(B * m, B + 3 * m);
      const v = random(B, 7 * m);
      const args = [matrix(B, m, W), vector(v)];
      const wasm = run("vecMat", types, "wasm", args);
      expect(wasm).toEqual(run("vecMat", types, "js", args));
      expect(wasm).toEqual(run("vecMat", types, "interp", args));
      const byHand = Array.from({ length: m }, (_, j) => {
        let s = 0;
        for (let b = 0; b < B; b++) s += W[b * m + j]! * v[b]!;
        return s;
      });
      expectClose(wasm, byHand, 1e-12);
    }
  });

  it("run no steps for no rows, and raise a short matrix's index errors as js does", () => {
    const types = [MATRIX, VECTOR, INT];
    expect(listing("vecMatN", types)).toMatch(OUTER);
    // No rows: every output is the initial 0.
    expect(run("vecMatN", types, "wasm", [matrix(0, 5, []), vector([]), 5])).toEqual([0, 0, 0, 0, 0]);
    const W = random(4 * 5, 11);
    const v = random(4, 12);
    // More outputs than columns: the plain loop reads W[0][5] at the element after the lanes.
    const wide = [matrix(4, 5, W), vector(v), 7];
    expect(message("vecMatN", types, "wasm", wide)).toMatch(/index 5 is out of range for an array of length 5/);
    expect(message("vecMatN", types, "wasm", wide)).toBe(message("vecMatN", types, "js", wide));
    // More terms than rows: W[3] fails in the lanes' loop over b, at the first element, as in the plain loop.
    const tall = [matrix(3, 5, W.slice(0, 15)), vector(v), 5];
    expect(message("vecMatN", types, "wasm", tall)).toMatch(/index 3 is out of range for an array of length 3/);
    expect(message("vecMatN", types, "wasm", tall)).toBe(message("vecMatN", types, "js", tall));
    // A negative count of outputs.
    const negative = [matrix(4, 5, W), vector(v), -1];
    expect(message("vecMatN", types, "wasm", negative)).toBe(message("vecMatN", types, "js", negative));
  });

  it("run a dense layer's weight gradient across j, bit for bit js, close to a hand loop", () => {
    const types = [MATRIX, MATRIX];
    expect(listing("weightGrad", types)).toMatch(OUTER);
    for (const [B, n, m] of [
      [6, 3, 5],
      [0, 2, 3],
      [9, 4, 1],
      [16, 7, 12],
    ] as const) {
      const x = random(B * n, 100 + B);
      const dh = random(B * m, 200 + m);
      // With no rows, x[0] is out of range: the error, the same in both.
      const args = [matrix(B, n, x), matrix(B, m, dh)];
      if (B === 0) {
        expect(message("weightGrad", types, "wasm", args)).toMatch(/index 0 is out of range for an array of length 0/);
        expect(message("weightGrad", types, "wasm", args)).toBe(message("weightGrad", types, "js", args));
        continue;
      }
      const wasm = run("weightGrad", types, "wasm", args);
      expect(wasm).toEqual(run("weightGrad", types, "js", args));
      const byHand: number[] = [];
      for (let i = 0; i < n; i++)
        for (let j = 0; j < m; j++) {
          let s = 0;
          for (let b = 0; b < B; b++) s += x[b * n + i]! * dh[b * m + j]!;
          byHand.push(s);
        }
      expectClose(wasm, byHand, 1e-12);
    }
  });

  it("run lane arithmetic around the reduction, an offset read, a lane-valued start and a max step", () => {
    const types = [MATRIX, VECTOR, VECTOR];
    expect(listing("layer", types)).toMatch(OUTER);
    for (const m of [1, 2, 5, 6]) {
      const B = 9;
      const W = random(B * (m + 1), m);
      const v = random(B, 2 * m);
      const c = random(m, 3 * m);
      const args = [matrix(B, m + 1, W), vector(v), vector(c)];
      const wasm = run("layer", types, "wasm", args);
      expect(wasm).toEqual(run("layer", types, "js", args));
      const byHand = c.map((cj, j) => {
        let s = cj;
        for (let b = 0; b < B; b++) s = Math.max(s, W[b * (m + 1) + j + 1]! * v[b]!);
        return Math.tanh(s + cj);
      });
      expectClose(wasm, byHand, 1e-12);
    }
    // W one column short: the offset read W[b][m] fails at the last element, in the plain loop after the lanes.
    const short = [matrix(3, 4, random(12, 5)), vector(random(3, 6)), vector(random(4, 7))];
    expect(message("layer", types, "wasm", short)).toMatch(/index 4 is out of range for an array of length 4/);
    expect(message("layer", types, "wasm", short)).toBe(message("layer", types, "js", short));
  });

  it("run a reduction nested in a reduction's term across the outer index, its own sum still in order", () => {
    const types = [MATRIX, VECTOR];
    expect(listing("total", types)).toMatch(OUTER);
    for (const [B, m] of [
      [3, 1],
      [4, 5],
      [8, 16],
    ] as const) {
      const W = random(B * m, B * m);
      const v = random(B, B + m);
      const args = [matrix(B, m, W), vector(v)];
      const wasm = run("total", types, "wasm", args);
      expect(wasm).toEqual(run("total", types, "js", args));
      let acc = 0;
      for (let j = 0; j < m; j++) {
        let s = 1;
        for (let b = 0; b < B; b++) s = s * W[b * m + j]! + v[b]!;
        acc += Math.exp(s);
      }
      expectClose(wasm, [acc], 1e-12);
    }
  });

  it("run four float32 lanes: the Math.fround loop bit for bit at every width around a multiple of four", () => {
    const types = [MATRIX, VECTOR];
    expect(listing("vecMat", types, "wasm-f32")).toMatch(OUTER);
    const f = Math.fround;
    for (let m = 1; m <= 9; m++) {
      const B = 6;
      const W = random(B * m, m).map(f);
      const v = random(B, m + 50).map(f);
      const byHand = Array.from({ length: m }, (_, j) => {
        let s = 0;
        for (let b = 0; b < B; b++) s = f(s + f(W[b * m + j]! * v[b]!));
        return s;
      });
      expect(run("vecMat", types, "wasm-f32", [matrix(B, m, W), vector(v)])).toEqual(byHand);
    }
  });
});
