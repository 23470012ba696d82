// The matrix-calculus identities of paper 000 §4.1, derived by the optimisation strategy from user-level Smooth with
// no per-example choices: the vectorised forward derivative program of an entry point (the derivative API), through the
// standard derivative pipeline (forward-ad, inline, the strategy: on tangents, the paper's finite-Double assumption).
// Each derived program is also run against the reference (the unoptimised derivative, in the interpreter), compiled
// and interpreted, on random inputs, including shapes the identity does not cover.

import { describe, expect, test } from "vitest";
import { loadProgram, type Specialised } from "../../src/api/program.js";
import { compileFunction } from "../../src/codegen/compile.js";
import { runFunction } from "../../src/eval/interpreter.js";
import { printIr } from "../../src/ir/print.js";
import { verify } from "../../src/ir/verify.js";
import { DERIVATIVE_PIPELINE } from "../../src/opt/pipeline.js";
import { valuesEqual } from "../../src/runtime/equal.js";
import type { DenseArray, Value } from "../../src/runtime/value.js";
import { SmoothError } from "../../src/syntax/diagnostics.js";
import { parseProgram } from "../../src/syntax/parser.js";
import { checkProgram } from "../../src/types/infer.js";
import { lowerEntry } from "../../src/ir/lower.js";
import { MATRIX, VECTOR, type Type } from "../../src/types/types.js";

let seed = 12345;
const random = () => {
  seed = (seed * 1103515245 + 12345) % 2147483648;
  return seed / 2147483648 + 0.5; // in [0.5, 1.5): NNMF divides by products
};
const vector = (n: number): DenseArray => ({
  tag: "dense",
  elemKind: "double",
  shape: [n],
  data: Float64Array.from({ length: n }, random),
});
const matrix = (r: number, c: number): DenseArray => ({
  tag: "dense",
  elemKind: "double",
  shape: [r, c],
  data: Float64Array.from({ length: r * c }, random),
});

/** The optimised derivative program of `f` with respect to parameter `wrt`. */
function derive(text: string, types: readonly Type[], wrt: number): Specialised {
  const d = loadProgram({ name: "identity.smooth", text }).derivative("f", types, [wrt], "interp");
  verify(d.optimised);
  return d;
}

type Outcome = { value: Value } | { error: string };
const attempt = (f: () => Value): Outcome => {
  try {
    return { value: f() };
  } catch (e) {
    if (e instanceof SmoothError) return { error: e.kind };
    throw e;
  }
};

/**
 * The derived program, interpreted and compiled, computes what the reference does (an index error, or a shape error
 * of a prelude check, may be elided: ARCHITECTURE.md, "Errors and optimisation").
 */
function agrees(d: Specialised, args: readonly Value[]): void {
  const reference = attempt(() => d.run(args));
  for (const got of [
    attempt(() => runFunction(d.optimised, args)),
    attempt(() => compileFunction(d.optimised)(args)),
  ]) {
    if ("value" in reference) {
      expect(got).toHaveProperty("value");
      expect(valuesEqual((got as { value: Value }).value, reference.value, d.resultType, 1e-12)).toBe(true);
    } else if ("error" in got) {
      // Without the removed shape check, the mismatch may surface as an index error instead.
      if (reference.error === "shape") expect(["index", "shape"]).toContain(got.error);
      else expect(got.error).toBe(reference.error);
    } else {
      expect(["index", "shape"]).toContain(reference.error);
    }
  }
}

describe("paper 000 §4.1, from the derivative API", () => {
  test("Example 4: d(v1 · v2)/dv1 = v2", () => {
    const d = derive("let f = fun (v1: Vector) (v2: Vector) -> vectorDot v1 v2", [VECTOR, VECTOR], 0);
    expect(printIr(d.optimised)).toMatchInlineSnapshot(
      `"let f' (v1: Vector) (v2: Vector) = build (length v1) (fun p0 -> v2[p0])"`,
    );
    for (const [n, m] of [
      [4, 4],
      [0, 0],
      [3, 5],
      [5, 3],
    ] as const)
      agrees(d, [vector(n), vector(m)]);
  });

  test("Example 5: d tr(M)/dM = I, where M is square; the diagonal read keeps its index check", () => {
    const d = derive("let f = fun (m: Matrix) -> matrixTrace m", [MATRIX], 0);
    expect(printIr(d.optimised)).toMatchInlineSnapshot(`
      "let f' (m: Matrix) =
        build (length m) (fun p0 ->
          let n = length m[0] in
          build n (fun p1 -> if checkIndex p0 n = p1 then 1. else 0.))"
    `);
    for (const [r, c] of [
      [3, 3],
      [2, 4],
      [4, 2],
      [0, 0],
    ] as const)
      agrees(d, [matrix(r, c)]);
    // The printed program, checkIndex included, reads back as a program computing the same (and failing the same).
    const again = lowerEntry(
      checkProgram([parseProgram({ name: "printed", text: printIr(d.optimised) })]),
      d.optimised.name,
      [MATRIX],
    );
    for (const [r, c] of [
      [3, 3],
      [4, 2],
    ] as const) {
      const args = [matrix(r, c)];
      expect(attempt(() => runFunction(again, args))).toEqual(attempt(() => runFunction(d.optimised, args)));
    }
  });

  test("d tr(MA)/dM = Aᵀ", () => {
    const d = derive("let f = fun (m: Matrix) (a: Matrix) -> matrixTrace (matrixMul m a)", [MATRIX, MATRIX], 0);
    expect(printIr(d.optimised)).toMatchInlineSnapshot(`
      "let f' (m: Matrix) (a: Matrix) =
        build (length m) (fun p0 -> build (length m[0]) (fun p1 -> a[p1][p0]))"
    `);
    for (const [r, c] of [
      [3, 4],
      [2, 2],
      [1, 3],
    ] as const)
      agrees(d, [matrix(r, c), matrix(c, r)]);
    agrees(d, [matrix(3, 2), matrix(3, 3)]);
  });

  test("Example 1: d(u M vᵀ)/dM = uᵀ v, where the rows of M are as many as the elements of u", () => {
    const text = [
      "let f = fun (u: Vector) (m: Matrix) (v: Vector) ->",
      "  let um = vectorToMatrix u",
      "  let vt = matrixTranspose (vectorToMatrix v)",
      "  let r = matrixMult um (matrixMult m vt)",
      "  r[0][0]",
    ].join("\n");
    const d = derive(text, [VECTOR, MATRIX, VECTOR], 1);
    expect(printIr(d.optimised)).toMatchInlineSnapshot(`
      "let f' (u: Vector) (m: Matrix) (v: Vector) =
        build (length m) (fun p0 -> build (length m[0]) (fun p1 -> u[p0] * v[p1]))"
    `);
    for (const [n, r, c, m] of [
      [3, 3, 4, 4],
      [2, 3, 4, 4],
      [1, 1, 1, 1],
      [3, 3, 2, 4],
    ] as const)
      agrees(d, [vector(n), matrix(r, c), vector(m)]);
  });

  test("NNMF: the gradient with respect to H is Wᵀ(1/(WH) - A/(WH)²), one loop per element", () => {
    const text = [
      "let f = fun (u: Vector) (v: Vector) (a: Matrix) ->",
      "  let wh = vectorOutProd u v",
      "  vectorSum (build (length a) (fun i -> vectorSum (build (length v) (fun j -> log wh[i][j] + a[i][j] / wh[i][j]))))",
    ].join("\n");
    const d = derive(text, [VECTOR, VECTOR, MATRIX], 1);
    expect(printIr(d.optimised)).toMatchInlineSnapshot(`
      "let f' (u: Vector) (v: Vector) (a: Matrix) =
        let n = length a in
        build (length v) (fun p0 ->
          let x = v[p0] in
          ifold (fun s' i ->
            let u_2 = u[i] in
            let r = 0. + u_2 * x in
            s' + (u_2 / r - a[i][p0] / r / r * u_2)) 0. n)"
    `);
    agrees(d, [vector(4), vector(3), matrix(4, 3)]);
    agrees(d, [vector(2), vector(5), matrix(2, 5)]);
  });
});

describe("from grad, mgrad and deriv in Smooth", () => {
  const optimised = (text: string, types: readonly Type[]) => {
    const s = loadProgram({ name: "identity.smooth", text }).specialise("f", types, "interp", DERIVATIVE_PIPELINE);
    verify(s.optimised);
    return s;
  };

  test("the tangents of grad: v2 again; with the value, the dot product is computed once, outside the loop", () => {
    const tangents = optimised(
      "let f = fun (v1: Vector) (v2: Vector) -> build (length v1) (fun i -> snd (grad (fun v -> vectorDot v v2) v1)[i])",
      [VECTOR, VECTOR],
    );
    expect(printIr(tangents.optimised)).toMatchInlineSnapshot(
      `"let f (v1: Vector) (v2: Vector) = build (length v1) (fun i -> v2[i])"`,
    );
    const both = optimised("let f = fun (v1: Vector) (v2: Vector) -> grad (fun v -> vectorDot v v2) v1", [
      VECTOR,
      VECTOR,
    ]);
    expect(printIr(both.optimised)).toMatchInlineSnapshot(`
      "let f (v1: Vector) (v2: Vector) =
        let n = length v1 in
        let s0 = ifold (fun s' i -> s' + v1[i] * v2[i]) 0. (sameSize n (length v2)) in
        build n (fun p0 -> (s0, v2[p0]))"
    `);
    agrees(both, [vector(5), vector(5)]);
  });

  test("mgrad of the trace of MA, and deriv of it", () => {
    const m = optimised(
      "let f = fun (m: Matrix) (a: Matrix) -> build (length m) (fun i -> build (length m[0]) (fun j -> snd (mgrad (fun x -> matrixTrace (matrixMul x a)) m)[i][j]))",
      [MATRIX, MATRIX],
    );
    expect(printIr(m.optimised)).toMatchInlineSnapshot(`
      "let f (m: Matrix) (a: Matrix) =
        build (length m) (fun i -> build (length m[0]) (fun j -> a[j][i]))"
    `);
    agrees(m, [matrix(2, 3), matrix(3, 2)]);
    const d = optimised("let f = fun (m: Matrix) (a: Matrix) -> deriv (matrixTrace (matrixMul m a)) m", [
      MATRIX,
      MATRIX,
    ]);
    expect(printIr(d.optimised)).toMatchInlineSnapshot(`
      "let f (m: Matrix) (a: Matrix) =
        let n = length m in
        let n_2 = length (if 0 < n then m[0] else build 0 (fun i -> 0.)) in
        let n_3 = sameSize n_2 (length a) in
        let s0 = ifold (fun s' i_2 ->
          let x = m[i_2] in
          s' + ifold (fun s'_2 i_3 -> s'_2 + x[i_3] * a[i_3][i_2]) 0. n_3) 0. n in
        build n (fun p0 -> build n_2 (fun p1 -> (s0, a[p1][p0])))"
    `);
    agrees(d, [matrix(3, 3), matrix(3, 3)]);
  });

  test("the paper's post-AD form of Example 4, written by hand: its zeros are primal values, so it stays exact", () => {
    const text = [
      "let f = fun (v1: Vector) (v2: Vector) ->",
      "  build (length v1) (fun i ->",
      "    snd (ifold (fun s j ->",
      "      (fst s + v1[j] * v2[j], snd s + v1[j] * 0. + (if i = j then 1. else 0.) * v2[j])) (0., 0.) (length v1)))",
    ].join("\n");
    const s = optimised(text, [VECTOR, VECTOR]);
    // `v1[j] * 0.` and `0. * v2[j]` are NaN for an infinite element: only zero *tangents* are symbolic zeros (the
    // derivative API's own one-hot tangents do become v2[i]: see "Example 4" above).
    expect(printIr(s.optimised)).toMatchInlineSnapshot(`
      "let f (v1: Vector) (v2: Vector) =
        let t = length v1 in
        build t (fun i ->
          ifold (fun s j ->
            let t_2 = v2[j] in
            s + v1[j] * 0. + (if i = j then t_2 else 0. * t_2)) 0. t)"
    `);
    agrees(s, [vector(3), vector(3)]);
  });
});
