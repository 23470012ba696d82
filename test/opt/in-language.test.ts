// Derivatives written inside a program (`deriv`, `grad`, `jacob`) are optimised as derivatives requested from outside
// (issue 32, item 3): the program is compiled with the standard pipeline, and the paper's assumption applies to
// forward mode's tangent arithmetic wherever it is (src/opt/rules/ring.ts). Examples 1, 4 and 5 of paper 000 §4.1
// print the same program both ways; the dot product's in-language derivative has no one-hot loop left (linear, not
// quadratic); forward mode's NNMF gradient is one loop per element of H, as the paper's Fig. 9. Values are checked
// against hand-written derivatives.

import { describe, expect, test } from "vitest";
import { loadProgram, type Specialised } from "../../src/api/program.js";
import { children } from "../../src/ir/free.js";
import type { Expr } from "../../src/ir/ir.js";
import { printIr } from "../../src/ir/print.js";
import { verify } from "../../src/ir/verify.js";
import type { DenseArray, TupleArray, TupleValue, Value } from "../../src/runtime/value.js";
import { DOUBLE, MATRIX, VECTOR, type Type } from "../../src/types/types.js";
import { matrix, random, vector } from "../helpers.js";

/** The entry point `name` of `text`, compiled as any program is (the standard pipeline). */
function inLanguage(text: string, name: string, types: readonly Type[]): Specialised {
  const s = loadProgram({ name: "in-language.smooth", text }).specialise(name, types, "interp");
  verify(s.optimised);
  return s;
}

/** The derivative of `f` with respect to parameter `wrt`, requested from outside (the derivative API). */
function requested(text: string, types: readonly Type[], wrt: number): Specialised {
  const d = loadProgram({ name: "requested.smooth", text }).derivative("f", types, [wrt], "interp");
  verify(d.optimised);
  return d;
}

/** The deepest nest of loops (build, ifold, while) in `e`. */
function loopDepth(e: Expr): number {
  const inner = children(e).reduce((d, c) => Math.max(d, loopDepth(c)), 0);
  return e.kind === "build" || e.kind === "ifold" || e.kind === "while" ? inner + 1 : inner;
}

/** How many loops `e` has. */
function loopCount(e: Expr): number {
  const inner = children(e).reduce((n, c) => n + loopCount(c), 0);
  return e.kind === "build" || e.kind === "ifold" || e.kind === "while" ? inner + 1 : inner;
}

/** The numbers of a dense array. */
const numbers = (v: Value): number[] => Array.from((v as DenseArray).data);
/** The values and the tangents of an array of (value, tangent) pairs, as `deriv` and `grad` return. */
const pairs = (v: Value): [number[], number[]] => {
  const [values, tangents] = (v as TupleArray).fields as [DenseArray, DenseArray];
  return [Array.from(values.data), Array.from(tangents.data)];
};
const positive = (n: number, seed: number) => random(n, seed).map((x) => 1.5 + x); // NNMF divides by products

describe("paper 000 §4.1 written in the program: the same printed program as the requested derivative", () => {
  // The index names are the user's: p0, p1 as the derivative API names the seed's indices.
  test("Example 4: d(v1 · v2)/dv1 = v2, from deriv and from grad", () => {
    const out = requested("let f = fun (v1: Vector) (v2: Vector) -> vectorDot v1 v2", [VECTOR, VECTOR], 0);
    const viaDeriv = inLanguage(
      "let f' = fun (v1: Vector) (v2: Vector) -> let d = deriv (vectorDot v1 v2) v1 in build (length v1) (fun p0 -> snd d[p0])",
      "f'",
      [VECTOR, VECTOR],
    );
    const viaGrad = inLanguage(
      "let f' = fun (v1: Vector) (v2: Vector) -> let d = grad (fun v -> vectorDot v v2) v1 in build (length v1) (fun p0 -> snd d[p0])",
      "f'",
      [VECTOR, VECTOR],
    );
    expect(printIr(out.optimised)).toMatchInlineSnapshot(
      `"let f' (v1: Vector) (v2: Vector) = build (length v1) (fun p0 -> v2[p0])"`,
    );
    expect(printIr(viaDeriv.optimised)).toMatchInlineSnapshot(
      `"let f' (v1: Vector) (v2: Vector) = build (length v1) (fun p0 -> v2[p0])"`,
    );
    expect(printIr(viaDeriv.optimised)).toBe(printIr(out.optimised));
    expect(printIr(viaGrad.optimised)).toBe(printIr(out.optimised));
    const v2 = random(5, 2);
    expect(numbers(viaDeriv.run([vector(random(5, 1)), vector(v2)]))).toEqual(v2);
  });

  test("Example 5: d tr(M)/dM = I, the diagonal read keeping its index check", () => {
    const out = requested("let f = fun (m: Matrix) -> matrixTrace m", [MATRIX], 0);
    // `let n` names the column count as the derivative API's seed does (the optimiser would call it `t`).
    const inside = inLanguage(
      [
        "let f' = fun (m: Matrix) ->",
        "  let d = deriv (matrixTrace m) m",
        "  build (length m) (fun p0 -> let n = length m[0] in build n (fun p1 -> snd d[p0][p1]))",
      ].join("\n"),
      "f'",
      [MATRIX],
    );
    expect(printIr(out.optimised)).toMatchInlineSnapshot(`
      "let f' (m: Matrix) =
        build (length m) (fun p0 ->
          let n = length m[0] in
          build n (fun p1 -> if checkIndex p0 n = p1 then 1. else 0.))"
    `);
    expect(printIr(inside.optimised)).toMatchInlineSnapshot(`
      "let f' (m: Matrix) =
        build (length m) (fun p0 ->
          let n = length m[0] in
          build n (fun p1 -> if checkIndex p0 n = p1 then 1. else 0.))"
    `);
    expect(printIr(inside.optimised)).toBe(printIr(out.optimised));
    expect(numbers(inside.run([matrix(3, 3, random(9, 3))]))).toEqual([1, 0, 0, 0, 1, 0, 0, 0, 1]);
  });

  test("Example 1: d(u M vᵀ)/dM = uᵀ v", () => {
    const body = [
      "  let um = vectorToMatrix u",
      "  let vt = matrixTranspose (vectorToMatrix v)",
      "  let r = matrixMult um (matrixMult m vt)",
      "  r[0][0]",
    ];
    const out = requested(
      ["let f = fun (u: Vector) (m: Matrix) (v: Vector) ->", ...body].join("\n"),
      [VECTOR, MATRIX, VECTOR],
      1,
    );
    const inside = inLanguage(
      [
        "let uMv = fun (u: Vector) (m: Matrix) (v: Vector) ->",
        ...body,
        "let f' = fun (u: Vector) (m: Matrix) (v: Vector) ->",
        "  let d = deriv (uMv u m v) m",
        "  build (length m) (fun p0 -> build (length m[0]) (fun p1 -> snd d[p0][p1]))",
      ].join("\n"),
      "f'",
      [VECTOR, MATRIX, VECTOR],
    );
    expect(printIr(out.optimised)).toMatchInlineSnapshot(`
      "let f' (u: Vector) (m: Matrix) (v: Vector) =
        build (length m) (fun p0 -> build (length m[0]) (fun p1 -> u[p0] * v[p1]))"
    `);
    expect(printIr(inside.optimised)).toMatchInlineSnapshot(`
      "let f' (u: Vector) (m: Matrix) (v: Vector) =
        build (length m) (fun p0 -> build (length m[0]) (fun p1 -> u[p0] * v[p1]))"
    `);
    expect(printIr(inside.optimised)).toBe(printIr(out.optimised));
    const [u, v] = [random(2, 4), random(3, 5)];
    const got = numbers(inside.run([vector(u), matrix(2, 3, random(6, 6)), vector(v)]));
    expect(got).toEqual(u.flatMap((ui) => v.map((vj) => ui * vj)));
  });
});

describe("the cost follows the primal's", () => {
  const dot = "let dot = fun (a: Vector) (b: Vector) -> vectorDot a b\n";

  test("deriv and grad of the dot product: no one-hot loop, one loop for the value and one for the tangents", () => {
    for (const text of [
      "let f = fun (v1: Vector) (v2: Vector) -> deriv (dot v1 v2) v1",
      "let f = fun (v1: Vector) (v2: Vector) -> grad (fun v -> dot v v2) v1",
    ]) {
      const s = inLanguage(dot + text, "f", [VECTOR, VECTOR]);
      // The one-hot seed (`if i_2 = i then ... else ...` inside a loop over i) would be a loop nest and a conditional.
      expect(loopDepth(s.optimised.body)).toBe(1);
      expect(loopCount(s.optimised.body)).toBe(2);
      expect(printIr(s.optimised)).not.toContain("if ");
      const [a, b] = [random(6, 7), random(6, 8)];
      const value = a.reduce((sum, x, i) => sum + x * b[i]!, 0);
      const [values, tangents] = pairs(s.run([vector(a), vector(b)]));
      expect(tangents).toEqual(b);
      for (const x of values) expect(x).toBeCloseTo(value, 12);
    }
  });

  test("vjp of the dot product (reverse mode, written in the program): linear, as the requested gradient", () => {
    const s = inLanguage(dot + "let f = fun (v1: Vector) (v2: Vector) -> vjp (fun v -> dot v v2) v1 1.", "f", [
      VECTOR,
      VECTOR,
    ]);
    expect(loopDepth(s.optimised.body)).toBe(1);
    const [a, b] = [random(6, 12), random(6, 13)];
    const out = s.run([vector(a), vector(b)]) as TupleValue;
    expect(out.elems[0]).toBeCloseTo(
      a.reduce((sum, x, i) => sum + x * b[i]!, 0),
      12,
    );
    expect(numbers(out.elems[1]!)).toEqual(b);
  });

  test("jacob of a scaled vector: the identity times the scale, a loop per dimension", () => {
    const s = inLanguage(
      "let f = fun (v: Vector) (c: Double) -> let j = jacob (fun x -> vectorSMul x c) v in build (length j) (fun i -> build (length j[i]) (fun k -> snd j[i][k]))",
      "f",
      [VECTOR, DOUBLE],
    );
    expect(loopDepth(s.optimised.body)).toBe(2);
    expect(numbers(s.run([vector([1, 2, 3]), 2]))).toEqual([2, 0, 0, 0, 2, 0, 0, 0, 2]);
  });

  test("forward-mode NNMF: the gradient with respect to H is one loop per element of H (paper 000 Fig. 9)", () => {
    const text = [
      "let nnmf = fun (u: Vector) (v: Vector) (a: Matrix) ->",
      "  let wh = vectorOutProd u v",
      "  vectorSum (build (length a) (fun i -> vectorSum (build (length v) (fun j -> log wh[i][j] + a[i][j] / wh[i][j]))))",
      "let f = fun (u: Vector) (v: Vector) (a: Matrix) -> let d = deriv (nnmf u v a) v in build (length v) (fun j -> snd d[j])",
    ].join("\n");
    const s = inLanguage(text, "f", [VECTOR, VECTOR, MATRIX]);
    // Wᵀ(1/(WH) - A/(WH)²): a build over H's elements of a sum over W's, as the paper's derived update rule; an
    // uncollapsed one-hot tangent would be a third loop (n³).
    expect(loopDepth(s.optimised.body)).toBe(2);
    expect(loopCount(s.optimised.body)).toBe(2);
    const [n, m] = [3, 4];
    const [u, v, a] = [positive(n, 9), positive(m, 10), positive(n * m, 11)];
    const want = v.map((vj, j) => u.reduce((g, ui, i) => g + ui * (1 / (ui * vj) - a[i * m + j]! / (ui * vj) ** 2), 0));
    const got = numbers(s.run([vector(u), vector(v), matrix(n, m, a)]));
    got.forEach((x, j) => expect(x).toBeCloseTo(want[j]!, 10));
  });
});
