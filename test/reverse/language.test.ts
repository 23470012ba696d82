// Reverse mode inside Smooth programs: `vjp f x ct` is (f x, the adjoint of x for the cotangent ct). Expanded like
// `jvp`, innermost first, so it nests with itself and with the forward-mode API in any order, and runs inside loops.
// Every program runs in the interpreter and compiled, which must agree; values are checked against derivatives
// written by hand and against central finite differences.

import { describe, expect, test } from "vitest";
import { centralDifference, expectClose, load, runBoth, type Json } from "../ad/harness.js";

const p = load(`
let f = fun (v: Vector) -> vectorSum (build (length v) (fun i -> sin v[i] * v[i]))
let gradF = fun (v: Vector) -> snd (vjp f v 1.)
let cube' = fun (x: Double) -> snd (vjp (fun y -> y * y * y) x 1.)
let cube'' = fun (x: Double) -> snd (vjp cube' x 1.)
let forwardOverReverse = fun (x: Double) -> snd (diff cube' x)
let reverseOverForward = fun (x: Double) -> snd (vjp (fun y -> snd (diff (fun z -> z * z * y) y)) x 1.)
let vjpOfVector = fun (v: Vector) (w: Vector) -> vjp (fun u -> build (length u) (fun i -> u[i] * u[i])) v w
let descent = fun (x0: Vector) (steps: Index) ->
  ifold (fun x k ->
    let g = snd (vjp (fun w -> vectorDot w w + sin w[0]) x 1.)
    build (length x) (fun i -> x[i] - 0.1 * g[i])) x0 steps
let usesConstant = fun (x: Double) (c: Double) -> snd (vjp (fun y -> y * c + c * c) x 1.)
let applyVjp = fun (g: Double -> Double) (x: Double) -> snd (vjp g x 1.)
let higherOrder = fun (x: Double) -> snd (vjp (fun y -> applyVjp (fun z -> z * y * y) y) x 1.)
`);

// Printed programs with reverse-mode residuals (`field`) are for reading, not for reading back: no reread here.
const run = (name: string, args: Json[]): Json => runBoth(p, name, args, { reread: false });

describe("vjp in the language", () => {
  test("the gradient of a Vector function: d/dv Σ sin(v_i) v_i = cos(v_i) v_i + sin(v_i)", () => {
    const v = [0.5, 1, -2];
    expectClose(
      run("gradF", [v]),
      v.map((x) => Math.cos(x) * x + Math.sin(x)),
      1e-12,
      "gradF",
    );
  });

  test("reverse over reverse, forward over reverse, reverse over forward", () => {
    for (const x of [2, -0.75]) {
      expect(run("cube'", [x])).toBeCloseTo(3 * x * x, 12);
      expect(run("cube''", [x])).toBeCloseTo(6 * x, 12);
      expect(run("forwardOverReverse", [x])).toBeCloseTo(6 * x, 12);
      // d/dz (z² y) at z = y is 2y², whose derivative is 4y: the inner derivative's y is not perturbed by it.
      expect(run("reverseOverForward", [x])).toBeCloseTo(4 * x, 12);
    }
  });

  test("a vector-Jacobian product with a Vector result: (u², 2 u w)", () => {
    const v = [1.5, -2, 3];
    const w = [0.25, 1, -1];
    expectClose(run("vjpOfVector", [v, w]), [v.map((x) => x * x), v.map((x, i) => 2 * x * w[i]!)], 1e-12, "vjp");
  });

  test("gradient descent with the reverse gradient inside a loop, against finite differences of the objective", () => {
    const objective = (x: number[]) => x[0]! * x[0]! + x[1]! * x[1]! + Math.sin(x[0]!);
    let x = [1, 2];
    for (let k = 0; k < 3; k++) {
      const g = centralDifference((y: Json) => objective(y as number[]), x, [1, 0], 1e-6) as number;
      const h = centralDifference((y: Json) => objective(y as number[]), x, [0, 1], 1e-6) as number;
      x = [x[0]! - 0.1 * g, x[1]! - 0.1 * h];
    }
    expectClose(run("descent", [[1, 2], 3]), x, 1e-8, "descent");
  });

  test("free variables of the differentiated function are constants", () => {
    expect(run("usesConstant", [0.5, 3])).toBe(3);
  });

  test("a higher-order function applying vjp to its argument, itself differentiated (inlined first)", () => {
    // d/dy of (the derivative in z of z y², at z = y) = d/dy y² = 2y.
    for (const x of [1.5, -3]) expect(run("higherOrder", [x])).toBeCloseTo(2 * x, 12);
  });
});
