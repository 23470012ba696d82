// Triangular loops in outer SIMD lanes (issue 16, gmm's Q v): `build d (fun r -> ... ifold (fun s c -> s + a[u(c) + r
// + k] * v[c]) 0. r)`, an inner loop whose count is the lane index (each lane its own number of steps) and whose read
// index is the lane index shifted by a value computed in the step. The listing says the loop runs in lanes; the values
// are bit for bit the js back end's (and the interpreter's) and within rounding of a hand-written Q v; a read out of
// range (checked per group as the lanes go) and an error of the step's uniform code are js's errors, at the same
// element; float32 lanes match the Math.fround loop; the gradient is js's and finite differences'.

import { describe, expect, it } from "vitest";
import { loadProgram, type Engine } from "../../src/api/program.js";
import type { Value } from "../../src/runtime/value.js";
import { INT, MATRIX, VECTOR, type Type } from "../../src/types/types.js";
import { matrix, random, vector } from "../helpers.js";

const SOURCE = `
let lowerAt = fun (d: Index) (r: Index) (c: Index) ->
  d + c * (2 * d - c - 1) / 2 + (r - c - 1)
let qTimes = fun (qDiag: Vector) (icfk: Vector) (v: Vector) ->
  let d = length v
  build d (fun r -> qDiag[r] * v[r] + ifold (fun s c -> s + icfk[lowerAt d r c] * v[c]) 0. r)
let qBatch = fun (qDiag: Vector) (icfk: Vector) (X: Matrix) -> build (length X) (fun i -> qTimes qDiag icfk X[i])
let qNormSq = fun (qDiag: Vector) (icfk: Vector) (v: Vector) ->
  let d = length v
  ifold (fun t r ->
    let y = qDiag[r] * v[r] + ifold (fun s c -> s + icfk[lowerAt d r c] * v[c]) 0. r in t + y * y) 0. d
let lagged = fun (a: Vector) (w: Vector) (n: Index) (k: Index) ->
  build n (fun r -> ifold (fun s c -> s + a[r - c + k] * w[c]) 1. (r + 1))
`;
const prog = loadProgram({ name: "triangular.smooth", text: SOURCE });

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
const QV = [VECTOR, VECTOR, VECTOR];

/** Q v by hand, Q = diag(qDiag) + the strict lower triangle stored column by column after d leading entries. */
function handQv(qDiag: readonly number[], icfk: readonly number[], v: readonly number[]): number[] {
  const d = v.length;
  const out = qDiag.map((q, r) => q * v[r]!);
  for (let c = 0; c < d; c++) {
    const column = d + (c * (2 * d - c - 1)) / 2;
    for (let r = c + 1; r < d; r++) out[r]! += icfk[column + r - c - 1]! * v[c]!;
  }
  return out;
}

/** Each of `got` within `tol` (relative to 1 or the value) of `want`. */
function expectClose(got: readonly number[], want: readonly number[], tol: number): void {
  expect(got.length).toBe(want.length);
  want.forEach((w, k) => expect(Math.abs(got[k]! - w)).toBeLessThanOrEqual(tol * Math.max(1, Math.abs(w))));
}

const triangle = (d: number) => d + (d * (d - 1)) / 2;

describe("triangular outer lanes", () => {
  it("run Q v across its rows: bit for bit js and the interpreter, close to a hand-written Q v", () => {
    expect(listing("qTimes", QV)).toMatch(/; 2 loops in SIMD lanes \(1 of them in outer lanes\)$/);
    for (const d of [1, 2, 3, 7, 8, 9, 17, 64]) {
      const [qDiag, icfk, v] = [random(d, d), random(triangle(d), 2 * d + 1), random(d, 3 * d + 2)];
      const args = [vector(qDiag), vector(icfk), vector(v)];
      const wasm = run("qTimes", QV, "wasm", args);
      expect(wasm).toEqual(run("qTimes", QV, "js", args));
      if (d <= 17) expect(wasm).toEqual(run("qTimes", QV, "interp", args));
      expectClose(wasm, handQv(qDiag, icfk, v), 1e-12);
    }
  });

  it("run Q v for a batch of vectors and ‖Q v‖² as a reduction, bit for bit js", () => {
    const types = [VECTOR, VECTOR, MATRIX];
    expect(listing("qBatch", types)).toMatch(/in outer lanes/);
    expect(listing("qNormSq", QV)).toMatch(/in outer lanes/);
    for (const [n, d] of [
      [3, 1],
      [2, 5],
      [5, 8],
      [4, 11],
      [3, 64],
    ] as const) {
      const [qDiag, icfk, X] = [random(d, n), random(triangle(d), d), random(n * d, n + d)];
      const args = [vector(qDiag), vector(icfk), matrix(n, d, X)];
      const wasm = run("qBatch", types, "wasm", args);
      expect(wasm).toEqual(run("qBatch", types, "js", args));
      const byHand = Array.from({ length: n }, (_, i) => handQv(qDiag, icfk, X.slice(i * d, (i + 1) * d))).flat();
      expectClose(wasm, byHand, 1e-12);
      const one = [vector(qDiag), vector(icfk), vector(X.slice(0, d))];
      const norm = run("qNormSq", QV, "wasm", one);
      expect(norm).toEqual(run("qNormSq", QV, "js", one));
      expectClose(norm, [handQv(qDiag, icfk, X.slice(0, d)).reduce((s, y) => s + y * y, 0)], 1e-12);
    }
  });

  it("raise a short triangle's index error as js does, at the same element", () => {
    for (const d of [2, 3, 8, 9, 20]) {
      for (const short of [1, 2, 5]) {
        if (short > triangle(d)) continue;
        const args = [vector(random(d, 1)), vector(random(triangle(d) - short, 2)), vector(random(d, 3))];
        const js = message("qTimes", QV, "js", args);
        expect(js).toMatch(/index \d+ is out of range for an array of length \d+/);
        expect(message("qTimes", QV, "wasm", args)).toBe(js);
      }
    }
  });

  it("take each lane's own count of steps, and raise negative reads and the step's own errors as js does", () => {
    const types = [VECTOR, VECTOR, INT, INT];
    expect(listing("lagged", types)).toMatch(/in outer lanes/);
    for (const n of [1, 2, 3, 8, 9, 13]) {
      const a = random(n + 8, n);
      const w = random(n + 2, n + 1);
      for (const k of [0, 1, 3]) {
        const args = [vector(a), vector(w), n, k];
        const wasm = run("lagged", types, "wasm", args);
        expect(wasm).toEqual(run("lagged", types, "js", args));
        const byHand = Array.from({ length: n }, (_, r) => {
          let s = 1;
          for (let c = 0; c <= r; c++) s += a[r - c + k]! * w[c]!;
          return s;
        });
        expectClose(wasm, byHand, 1e-12);
      }
      // A negative read (r - c + k < 0 at the last steps), past the end (a too short), and w too short (the step's
      // uniform read w[c], in the steps only the later lanes take).
      for (const args of [
        [vector(a), vector(w), n, -1],
        [vector(a.slice(0, n)), vector(w), n, 2],
        [vector(a), vector(w.slice(0, Math.max(0, n - 1))), n, 0],
      ]) {
        const js = message("lagged", types, "js", args);
        expect(js).toMatch(/index -?\d+ is out of range/);
        expect(message("lagged", types, "wasm", args)).toBe(js);
      }
    }
  });

  it("run four float32 lanes: the Math.fround loop bit for bit", () => {
    expect(listing("qTimes", QV, "wasm-f32")).toMatch(/in outer lanes/);
    const f = Math.fround;
    for (const d of [1, 3, 4, 5, 15, 16, 17, 33]) {
      const [qDiag, icfk, v] = [random(d, d).map(f), random(triangle(d), d + 1).map(f), random(d, d + 2).map(f)];
      const byHand = qDiag.map((q, r) => {
        let s = 0;
        for (let c = 0; c < r; c++) s = f(s + f(icfk[d + (c * (2 * d - c - 1)) / 2 + r - c - 1]! * v[c]!));
        return f(f(q * v[r]!) + s);
      });
      expect(run("qTimes", QV, "wasm-f32", [vector(qDiag), vector(icfk), vector(v)])).toEqual(byHand);
    }
  });

  it("differentiate ‖Q v‖²: the gradient bit for bit js, close to finite differences", () => {
    const d = 9;
    const [qDiag, icfk, v] = [random(d, 4), random(triangle(d), 5), random(d, 6)];
    const args = (l: readonly number[]) => [vector(qDiag), vector(l), vector(v)];
    const grad = (engine: Engine) => prog.derivative("qNormSq", QV, [1], engine, undefined, "gradient");
    const wasm = numbers(grad("wasm").run(args(icfk)));
    expect(wasm).toEqual(numbers(grad("js").run(args(icfk))));
    const loss = prog.specialise("qNormSq", QV, "wasm");
    const h = 1e-6;
    const fd = icfk.map((_, q) => {
      const at = (dl: number) => numbers(loss.run(args(icfk.map((x, p) => (p === q ? x + dl : x)))))[0]!;
      return (at(h) - at(-h)) / (2 * h);
    });
    expectClose(wasm, fd, 1e-6);
  });
});
