// Outer SIMD lanes in the wasm back end: a build (or a reduction) whose element is a loop over b reading rows of a
// matrix at the build's index, `build m (fun j -> ifold (fun s b -> s + W[b][j] * v[b]) 0. B)`, or rows per output
// (`build n (fun i -> vectorDot W[i] x)`), runs two outputs at once (four in float32), each lane its own accumulator.
// The listing says which loops do; the values are bit for bit the js back end's and the interpreter's (each lane adds
// its terms in b order) and within rounding of a hand-written loop, at odd widths, one column, no rows; errors are the
// js back end's, at the same element; gradients through them are js's and finite differences'.

import { describe, expect, it } from "vitest";
import { loadProgram, type Engine } from "../../src/api/program.js";
import type { Value } from "../../src/runtime/value.js";
import { INT, MATRIX, VECTOR, type Type } from "../../src/types/types.js";
import { matrix, random, vector } from "../helpers.js";

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
let matVec = fun (W: Matrix) (x: Vector) (n: Index) -> build n (fun i -> vectorDot W[i] x)
let matVecUnchecked = fun (W: Matrix) (x: Vector) ->
  build (length W) (fun i -> ifold (fun s k -> s + W[i][k] * x[k]) 0. (length x))
let net = fun (W1: Matrix) (W2: Matrix) (X: Matrix) ->
  ifold (fun acc r ->
    let h = build (length W1) (fun i -> tanh (vectorDot W1[i] X[r]))
    let z = build (length W2) (fun k -> vectorDot W2[k] h)
    acc + vectorSum (build (length z) (fun k -> z[k] * z[k]))) 0. (length X)
let total = fun (W: Matrix) (v: Vector) ->
  ifold (fun acc j -> acc + exp (ifold (fun s b -> s * W[b][j] + v[b]) 1. (length v))) 0. (length W[0])
`;
const prog = loadProgram({ name: "outer-lanes.smooth", text: SOURCE });

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
/** The listing's count: the build or reduction in lanes, the ifold across its lanes, and (where the plain loop's ifold
 * is a sum the same analysis takes over b, reading W[b] as a row per lane) that one: 3. */
const outer = (loops: number) => new RegExp(`; ${loops} loops in SIMD lanes \\(1 of them in outer lanes\\)$`);

/** Each of `got` within `tol` (relative to 1 or the value) of `want`. */
function expectClose(got: readonly number[], want: readonly number[], tol: number): void {
  expect(got.length).toBe(want.length);
  want.forEach((w, k) => expect(Math.abs(got[k]! - w)).toBeLessThanOrEqual(tol * Math.max(1, Math.abs(w))));
}

describe("outer SIMD lanes", () => {
  it("run a vector-matrix product across its columns: bit for bit js and the interpreter, close to a hand loop", () => {
    const types = [MATRIX, VECTOR];
    expect(listing("vecMat", types)).toMatch(outer(3));
    for (const [B, m] of [
      [5, 1],
      [1, 2],
      [4, 3],
      [7, 8],
      [6, 9],
      [33, 17],
      [3, 30],
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
    expect(listing("vecMatN", types)).toMatch(outer(3));
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
    expect(listing("weightGrad", types)).toMatch(outer(3));
    for (const [B, n, m] of [
      [6, 3, 5],
      [0, 2, 3],
      [9, 4, 1],
      [16, 7, 12],
      [5, 2, 23],
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
    expect(listing("layer", types)).toMatch(outer(3));
    for (const m of [1, 2, 5, 6, 13]) {
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

  it("run a matrix-vector product across rows (one element of each lane's row per step), errors as js", () => {
    const types = [MATRIX, VECTOR, INT];
    expect(listing("matVec", types)).toMatch(/in outer lanes/);
    for (const [n, m] of [
      [1, 4],
      [2, 1],
      [5, 3],
      [16, 9],
    ] as const) {
      const W = random(n * m, 3 * n + m);
      const x = random(m, n);
      const args = [matrix(n, m, W), vector(x), n];
      const wasm = run("matVec", types, "wasm", args);
      expect(wasm).toEqual(run("matVec", types, "js", args));
      const byHand = Array.from({ length: n }, (_, i) => {
        let s = 0;
        for (let k = 0; k < m; k++) s += W[i * m + k]! * x[k]!;
        return s;
      });
      expectClose(wasm, byHand, 1e-12);
    }
    const W = random(5 * 3, 1);
    // More rows asked for than W has: W[5] fails after the lanes, at the same element as js.
    const rows = [matrix(5, 3, W), vector(random(3, 2)), 6];
    expect(message("matVec", types, "wasm", rows)).toMatch(/index 5 is out of range for an array of length 5/);
    expect(message("matVec", types, "wasm", rows)).toBe(message("matVec", types, "js", rows));
    // x longer than W's rows: the sizes differ (vectorDot's check), at the first element.
    const long = [matrix(5, 3, W), vector(random(4, 2)), 5];
    expect(message("matVec", types, "wasm", long)).toMatch(/3 and 4/);
    expect(message("matVec", types, "wasm", long)).toBe(message("matVec", types, "js", long));
    // Without that check, W[0][3] fails: the lanes (here every row) check the index against the rows' length.
    const unchecked = [MATRIX, VECTOR];
    expect(listing("matVecUnchecked", unchecked)).toMatch(/in outer lanes/);
    const longer = [matrix(4, 3, W.slice(0, 12)), vector(random(4, 2))];
    expect(message("matVecUnchecked", unchecked, "wasm", longer)).toMatch(
      /index 3 is out of range for an array of length 3/,
    );
    expect(message("matVecUnchecked", unchecked, "wasm", longer)).toBe(
      message("matVecUnchecked", unchecked, "js", longer),
    );
  });

  it("run a two-layer net's products in outer lanes, its gradient bit for bit js and close to finite differences", () => {
    const types = [MATRIX, MATRIX, MATRIX];
    const [n, d, k, B] = [5, 7, 3, 4];
    const W1 = random(n * d, 1).map((w) => w / 2);
    const args = (w1: readonly number[]) => [
      matrix(n, d, w1),
      matrix(k, n, random(k * n, 2)),
      matrix(B, d, random(B * d, 3)),
    ];
    expect(listing("net", types)).toMatch(/in outer lanes/);
    const grad = (engine: Engine) => prog.derivative("net", types, [0], engine, undefined, "gradient");
    expect(grad("wasm").code?.text).toMatch(/in outer lanes/);
    const wasm = numbers(grad("wasm").run(args(W1)));
    expect(wasm).toEqual(numbers(grad("js").run(args(W1))));
    const loss = prog.specialise("net", types, "wasm");
    const h = 1e-6;
    const fd = W1.map((_, q) => {
      const at = (dw: number) => numbers(loss.run(args(W1.map((w, p) => (p === q ? w + dw : w)))))[0]!;
      return (at(h) - at(-h)) / (2 * h);
    });
    expectClose(wasm, fd, 1e-6);
  });

  it("run a reduction nested in a reduction's term across the outer index, its own sum still in order", () => {
    const types = [MATRIX, VECTOR];
    expect(listing("total", types)).toMatch(outer(2));
    for (const [B, m] of [
      [3, 1],
      [4, 5],
      [8, 16],
      [5, 19],
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

  it("run four float32 lanes: the Math.fround loop bit for bit at widths around multiples of four and sixteen", () => {
    const types = [MATRIX, VECTOR];
    expect(listing("vecMat", types, "wasm-f32")).toMatch(outer(3));
    const f = Math.fround;
    for (const m of [1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 21, 33]) {
      const B = 6;
      const W = random(B * m, m).map(f);
      const v = random(B, m + 50).map(f);
      const byHand = Array.from({ length: m }, (_, j) => {
        let s = 0;
        for (let b = 0; b < B; b++) s = f(s + f(W[b * m + j]! * v[b]!));
        return s;
      });
      expect(run("vecMat", types, "wasm-f32", [matrix(B, m, W), vector(v)])).toEqual(byHand);
      // exp of each lane's state, summed in order (float32's exp is float64's, rounded).
      let acc = 0;
      for (let j = 0; j < m; j++) {
        let s = 1;
        for (let b = 0; b < B; b++) s = f(f(s * W[b * m + j]!) + v[b]!);
        acc = f(acc + f(Math.exp(s)));
      }
      expect(run("total", types, "wasm-f32", [matrix(B, m, W), vector(v)])).toEqual([acc]);
    }
  });
});
