// `while` loops (unknown trip count) in both engines and both modes: the examples of examples/while.smooth (Newton's
// method, an adaptive ODE integrator, gradient descent to convergence) against finite differences and their closed
// forms, and while loops nested in builds, ifolds and other whiles. `Point.checkAll` runs every derivative program in
// the interpreter and compiled (which must agree), forward against finite differences, reverse against forward, and
// the dot-product test.

import { readFileSync } from "node:fs";
import { describe, expect, test } from "vitest";
import { loadProgram } from "../../src/api/program.js";
import { SmoothError } from "../../src/syntax/diagnostics.js";
import { expectClose, load, Point, seededRandom, type Json } from "./harness.js";

const examples = loadProgram({
  name: "examples/while.smooth",
  text: readFileSync(new URL("../../examples/while.smooth", import.meta.url), "utf8"),
});
const rnd = seededRandom(12);

describe("the while examples: both engines, both modes, finite differences and closed forms", () => {
  test("Newton's method: the cube root and the square root", () => {
    for (const a of [8, 0.3, 50]) {
      const cbrt = new Point(examples, "cbrt", [a]);
      expectClose(cbrt.primal(), Math.cbrt(a), 1e-12, "cbrt");
      const [[d]] = cbrt.checkAll(rnd) as [[number]];
      expect(d).toBeCloseTo(1 / (3 * Math.cbrt(a) ** 2), 9);
      expectClose(cbrt.reverseJacobian(), [[1 / (3 * Math.cbrt(a) ** 2)]], 1e-9, "cbrt'");
      const sqrt = new Point(examples, "newtonSqrt", [a]);
      const [[e]] = sqrt.checkAll(rnd) as [[number]];
      expect(e).toBeCloseTo(1 / (2 * Math.sqrt(a)), 9);
    }
  });

  test("the second derivative of the cube root, forward over reverse through the loop", () => {
    const a = 8;
    const p = new Point(examples, "cbrt", [a]);
    const [[h]] = p.hessian() as [[number]];
    expectClose(h, -2 / (9 * Math.cbrt(a) ** 5), 1e-7, "cbrt''");
    expectClose(p.hessian(), p.fdHessian(), 1e-6, "cbrt'' vs finite differences");
  });

  test("an adaptive ODE integrator: the step sizes depend on k too", () => {
    for (const [k, y0] of [[0.7, 2]] as const) {
      const p = new Point(examples, "decay", [k, y0]);
      const [row] = p.checkAll(rnd) as [number[]];
      // The solver's error is about its tolerance: the closed form holds to about that.
      expectClose(row, [-y0 * Math.exp(-k), Math.exp(-k)], 1e-6, "d y(1) / d (k, y0)");
    }
  });

  test("gradient descent until the gradient vanishes, with reverse mode inside the loop: d x*/d b = A⁻¹", () => {
    const p = new Point(examples, "descend", [[1, 2]]);
    const jac = p.checkAll(rnd);
    const det = 2 - 0.25;
    expectClose(
      jac,
      [
        [1 / det, -0.5 / det],
        [-0.5 / det, 2 / det],
      ],
      1e-9,
      "A⁻¹",
    );
    expectClose(p.reverseJacobian(), jac, 1e-9, "by rows");
  });
});

const nests = load(`
let sqrtTo = fun (a: Double) -> while (fun x -> abs (x * x - a) > 0.000000000001 * a) (fun x -> 0.5 * (x + a / x)) (a + 1)
// A while in a build, in an ifold, and in a while.
let inBuild = fun (v: Vector) -> build (length v) (fun i -> sqrtTo (v[i] * v[i] + 1))
let inIfold = fun (v: Vector) -> ifold (fun acc i -> acc + sqrtTo (acc * acc + v[i])) 1 (length v)
let inWhile = fun (a: Double) ->
  let (x, _n) = while (fun (s: Double * Index) -> snd s < 4) (fun s -> (sqrtTo (fst s + a), snd s + 1)) (a, 0)
  x
// A build and an ifold in a while; the state is a Vector of fixed shape.
let loops = fun (v: Vector) (c: Double) ->
  let (w, _k) =
    while (fun (s: Vector * Index) -> vectorSum (fst s) < 50 && snd s < 100)
      (fun s ->
        let w = fst s
        let t = ifold (fun acc i -> acc + w[i] * w[i]) 0 (length w)
        (build (length w) (fun i -> w[i] * 1.05 + c * sin (0.01 * t)), snd s + 1))
      (v, 0)
  w
// A state whose shape changes (a growing vector): its tape cannot be regular.
let growing = fun (x: Double) ->
  let v = while (fun (v: Vector) -> length v < 5) (fun v -> build (length v + 1) (fun i -> if i < length v then sin v[i] + x else x * x)) (build 1 (fun _ -> x))
  vectorSum v
// No iteration at all: the value passes through unchanged.
let never = fun (x: Double) -> while (fun y -> y > 100) (fun y -> y * y) (x * 3)
// A condition that reads an Index part of the state and Doubles of the closure.
let count = fun (x: Double) (m: Index) ->
  let (y, _i) = while (fun (s: Double * Index) -> snd s < m) (fun s -> (fst s * x + 1, snd s + 1)) (x, 0)
  y
`);

describe("while loops nested with other loops", () => {
  test("a while in a build, an ifold, a while", () => {
    const v = [0.5, -1.5, 2];
    new Point(nests, "inBuild", [v]).checkAll(rnd);
    const jac = new Point(nests, "inBuild", [v]).forwardJacobian();
    v.forEach((x, i) => expect(jac[i]![i]).toBeCloseTo(x / Math.sqrt(x * x + 1), 9));
    new Point(nests, "inIfold", [v]).checkAll(rnd);
    new Point(nests, "inWhile", [0.8]).checkAll(rnd);
  });

  test("builds and ifolds in a while, a growing state, no iteration, an Index counter", () => {
    new Point(nests, "loops", [[0.5, 1, 1.5], 0.3]).checkAll(rnd);
    new Point(nests, "growing", [0.7]).checkAll(rnd);
    const never = new Point(nests, "never", [2]);
    expect(never.checkAll(rnd)).toEqual([[3]]);
    const count = new Point(nests, "count", [1.1, 5], [0]);
    const [[d]] = count.checkAll(rnd) as [[number]];
    // y_5 for y_{k+1} = x y_k + 1, y_0 = x: y_5 = x^6 + x^4 + x^3 + x^2 + x + 1 - ... computed directly:
    const y = (x: number) => [1, 2, 3, 4, 5].reduce((acc) => acc * x + 1, x);
    expect(d).toBeCloseTo((y(1.1 + 1e-6) - y(1.1 - 1e-6)) / 2e-6, 6);
  });

  test("the state of a while cannot be a function: a located type error", () => {
    const bad = () =>
      load(
        "let f = fun (x: Double) -> while (fun g -> false) (fun g -> g) (fun y -> y * x)\nlet main = fun (x: Double) -> f x 2.",
      );
    expect(() => bad().runJson("main", [1] as Json[])).toThrow(SmoothError);
    try {
      bad().runJson("main", [1]);
    } catch (e) {
      expect((e as SmoothError).message).toMatch(/the state of a while loop cannot be a function/);
      expect((e as SmoothError).span).toBeDefined();
    }
  });
});
