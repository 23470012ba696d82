// float32 (the wasm-f32 back end, the library's `dtype: "float32"`): every operation rounded to single precision, so a
// program computes what the same loops written with Math.fround after every operation compute, bit for bit — in four
// SIMD lanes too, at every length around a multiple of four; derivatives agree with float64's to float32's precision;
// what float32 cannot run is an error, never a silent float64 run.

import { describe, expect, it } from "vitest";
import { loadProgram } from "../../src/api/program.js";
import { grad, smooth, valueAndGrad } from "../../src/index.js";
import type { Value } from "../../src/runtime/value.js";
import { SmoothError } from "../../src/syntax/diagnostics.js";
import { DOUBLE, MATRIX, VECTOR } from "../../src/types/types.js";

const f = Math.fround;
const SOURCE = `
let dot = fun (a: Vector) (b: Vector) -> vectorDot a b
let lse = fun (v: Vector) -> logsumexp v
let scaled = fun (a: Vector) (s: Double) -> build (length a) (fun i -> exp a[i] * s + 0.1)
let mmSum = fun (a: Matrix) (b: Matrix) ->
  let c = matrixMult a b
  vectorSum (build (length c) (fun i -> vectorSum c[i]))
let poly = fun (x: Double) -> x * 0.1 + sin x / (1 + x * x)
let rec pow = fun (x: Double) (n: Index) -> if n = 0 then 1 else x * pow x (n - 1)
let usesPow = fun (x: Double) -> pow x 3
`;
const prog = loadProgram({ name: "f32.smooth", text: SOURCE });
const vec = (xs: readonly number[]): Value => ({
  tag: "dense",
  elemKind: "double",
  shape: [xs.length],
  data: Float64Array.from(xs),
});
const numbers = (v: Value): number[] => (typeof v === "number" ? [v] : [...(v as { data: Float64Array }).data]);
const xs = Array.from({ length: 23 }, (_, i) => Math.sin(i * 1.7) * 3);
const ys = Array.from({ length: 23 }, (_, i) => Math.cos(i * 0.3) / 3);

describe("float32 (wasm-f32)", () => {
  it("is the Math.fround loop bit for bit: a dot product and logsumexp (two reductions, in four lanes)", () => {
    const dot = prog.specialise("dot", [VECTOR, VECTOR], "wasm-f32");
    const lse = prog.specialise("lse", [VECTOR], "wasm-f32");
    expect(lse.code?.text).toMatch(/computing in float32; 2 loops in SIMD lanes$/);
    for (const n of [0, 1, 3, 4, 5, 8, 9, 23]) {
      const [a, b] = [xs.slice(0, n), ys.slice(0, n)];
      let s = 0;
      for (let i = 0; i < n; i++) s = f(s + f(f(a[i]!) * f(b[i]!)));
      expect(numbers(dot.run([vec(a), vec(b)]))).toEqual([s]);
      if (n === 0) continue;
      let m = f(a[0]!);
      for (const x of a) m = Math.max(m, f(x));
      let e = 0;
      for (const x of a) e = f(e + f(Math.exp(f(f(x) - m))));
      expect(numbers(lse.run([vec(a)]))).toEqual([f(m + f(Math.log(e)))]);
    }
  });

  it("is the Math.fround loop bit for bit: an elementwise build and a scalar function with sin and a division", () => {
    const scaled = prog.specialise("scaled", [VECTOR, DOUBLE], "wasm-f32");
    expect(scaled.code?.text).toMatch(/; 1 loops in SIMD lanes$/);
    for (const n of [1, 2, 3, 4, 5, 6, 7, 23]) {
      const a = xs.slice(0, n);
      expect(numbers(scaled.run([vec(a), 0.3]))).toEqual(a.map((x) => f(f(f(Math.exp(f(x))) * f(0.3)) + f(0.1))));
    }
    const x = f(0.7);
    const byHand = f(f(x * f(0.1)) + f(f(Math.sin(x)) / f(1 + f(x * x))));
    expect(numbers(prog.specialise("poly", [DOUBLE], "wasm-f32").run([0.7]))).toEqual([byHand]);
  });

  it("widens results to Float64Arrays: fresh ones per call, or (borrowed) the same ones again, refilled", () => {
    const scaled = prog.specialise("scaled", [VECTOR, DOUBLE], "wasm-f32");
    const expected = (s: number) => xs.map((x) => f(f(f(Math.exp(f(x))) * f(s)) + f(0.1)));
    const first = scaled.runBorrowed([vec(xs), 0.3]) as { data: Float64Array };
    expect([...first.data]).toEqual(expected(0.3));
    const second = scaled.runBorrowed([vec(xs), 0.5]) as { data: Float64Array };
    expect(second.data).toBe(first.data);
    expect([...second.data]).toEqual(expected(0.5));
    const owned = scaled.run([vec(xs), 0.3]) as { data: Float64Array };
    expect(owned.data).not.toBe(first.data);
    expect([...owned.data]).toEqual(expected(0.3));
    expect([...(scaled.run([vec(xs), 0.5]) as { data: Float64Array }).data]).toEqual(expected(0.5));
    expect([...owned.data]).toEqual(expected(0.3));
  });

  it("differentiates: gradients within float32's precision of float64's", () => {
    const g32 = prog.derivative("lse", [VECTOR], [0], "wasm-f32", undefined, "gradient").run([vec(xs)]);
    const g64 = prog.derivative("lse", [VECTOR], [0], "wasm", undefined, "gradient").run([vec(xs)]);
    const [a, b] = [numbers(g32), numbers(g64)];
    a.forEach((x, i) => {
      expect(x).toBe(f(x)); // a float32 value
      expect(Math.abs(x - b[i]!)).toBeLessThanOrEqual(4e-7 * Math.max(Math.abs(b[i]!), 1e-3));
    });
    const m = prog.derivative("mmSum", [MATRIX, MATRIX], [0], "wasm-f32", undefined, "gradient");
    const A: Value = { tag: "dense", elemKind: "double", shape: [3, 4], data: Float64Array.from(xs.slice(0, 12)) };
    const B: Value = { tag: "dense", elemKind: "double", shape: [4, 2], data: Float64Array.from(ys.slice(0, 8)) };
    // d/dA Σ (A B) = 1 Bᵀ: every row is the row sums of B.
    const rowSums = [0, 1, 2, 3].map((k) => f(f(ys[2 * k]!) + f(ys[2 * k + 1]!)));
    expect(numbers(m.run([A, B]))).toEqual([...rowSums, ...rowSums, ...rowSums]);
  });

  it("is the library's dtype: Float32Array in, Float32Array out, computed in float32", () => {
    const m = smooth`let f = fun (v: Vector) -> vectorDot v v + sin v[0]`;
    const v = Float32Array.from([0.1, 0.2, 0.3]);
    const g = grad(m.f!, { dtype: "float32" })(v) as Float32Array;
    expect(g).toBeInstanceOf(Float32Array);
    const want = [f(f(f(2) * f(0.1)) + f(Math.cos(f(0.1)))), f(f(2) * f(0.2)), f(f(2) * f(0.3))];
    [...g].forEach((x, i) => expect(Math.abs(x - want[i]!)).toBeLessThanOrEqual(1e-7));
    const [value] = valueAndGrad(m.f!, { dtype: "float32" })(v) as [number, Float32Array];
    expect(value).toBe(f(value));
    expect(() => grad(m.f!, { dtype: "float32", backend: "js" })).toThrow(/dtype "float32" runs on the wasm back end/);
    expect(() => grad(m.f!, { dtype: "float16" as "float32" })).toThrow(/unknown dtype `float16`/);
  });

  it("refuses what it cannot compute in float32 (recursive functions) instead of running it in float64", () => {
    let error: unknown;
    try {
      prog.specialise("usesPow", [DOUBLE], "wasm-f32");
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(SmoothError);
    expect((error as SmoothError).message).toMatch(
      /float32 \(the wasm-f32 back end\) cannot compile .*recursive functions/,
    );
    // float64 wasm runs it (as JavaScript, saying so).
    expect(prog.specialise("usesPow", [DOUBLE], "wasm").run([2])).toBe(8);
  });
});
