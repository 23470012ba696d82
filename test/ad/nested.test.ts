// The derivative API end to end (diff, grad, jacob, vdiff, mdiff, mgrad, deriv, jvp) and nested derivatives:
// perturbation confusion (paper 000 §3.3), second derivatives by diff of diff, Hessians by grad of grad, closures
// over variables that an outer derivative perturbs, and every construct (build, ifold, get, tuples, if) inside a
// differentiated function. Results are checked against derivatives written by hand.

import { describe, expect, test } from "vitest";
import { SmoothError } from "../../src/syntax/diagnostics.js";
import { expectClose, load, runBoth } from "./harness.js";

describe("perturbation confusion (paper 000 §3.3)", () => {
  const p = load(`
let confusion = fun x y -> snd (deriv (x * snd (deriv (x + y) y)) x)
let both = fun (x: Double) (y: Double) -> snd (deriv (x * snd (deriv (x * y) y)) x)
`);
  test("d/dx (x · d/dy (x + y)) is 1 everywhere", () => {
    for (const [x, y] of [
      [0, 0],
      [1.5, -2],
      [-3.25, 7],
      [100, 0.001],
    ])
      expect(runBoth(p, "confusion", [x, y])).toBe(1);
  });
  test("d/dx (x · d/dy (x y)) = 2x", () => {
    for (const [x, y] of [
      [0.5, 3],
      [-2, 1],
    ])
      expectClose(runBoth(p, "both", [x, y]), 2 * x!, 1e-12, "both");
  });
});

describe("second derivatives", () => {
  const p = load(`
let f = fun (x: Double) -> x * x * x * sin x
let diffDiff = fun (x: Double) -> snd (snd (diff (diff f) x))
let nestedLambdas = fun (x: Double) -> snd (diff (fun z -> snd (diff f z)) x)
let third = fun (x: Double) -> snd (diff (fun a -> snd (diff (fun b -> snd (diff f b)) a)) x)
`);
  const f2 = (x: number) => 6 * x * Math.sin(x) + 6 * x * x * Math.cos(x) - x ** 3 * Math.sin(x);
  const f3 = (x: number) => 6 * Math.sin(x) + 18 * x * Math.cos(x) - 9 * x * x * Math.sin(x) - x ** 3 * Math.cos(x);
  test("diff (diff f) and diff of a lambda over diff give f''", () => {
    for (const x of [-1.7, 0.3, 2.2]) {
      expectClose(runBoth(p, "diffDiff", [x]), f2(x), 1e-12, `diff (diff f) at ${x}`);
      expectClose(runBoth(p, "nestedLambdas", [x]), f2(x), 1e-12, `at ${x}`);
    }
  });
  test("three levels of nesting give f'''", () => {
    for (const x of [-0.4, 1.3]) expectClose(runBoth(p, "third", [x]), f3(x), 1e-12, `f''' at ${x}`);
  });
});

describe("gradients, Jacobians and matrix derivatives", () => {
  const p = load(`
let gradNorm = fun (v: Vector) -> vectorMap (grad vectorNorm v) snd
let jacobSin = fun (v: Vector) -> matrixMap (jacob (fun w -> vectorMap w sin) v) (fun row -> vectorMap row snd)
let mgradTrace = fun (m: Matrix) -> matrixMap (mgrad (fun a -> matrixTrace (matrixMul a a)) m) (fun row -> vectorMap row snd)
let vdiffScale = fun (x: Double) (v: Vector) -> vectorMap (vdiff (fun s -> vectorSMul v (s * s)) x) snd
let mdiffScale = fun (x: Double) (m: Matrix) -> matrixMap (mdiff (fun s -> matrixMap m (fun r -> vectorSMul r (sin s))) x) (fun row -> vectorMap row snd)
let derivDot = fun (v: Vector) (w: Vector) -> vectorMap (deriv (vectorDot v w) v) snd
let f = fun (w: Vector) -> vectorSum (vectorMap w (fun a -> a * a * a))
let partial = fun (i: Index) (w: Vector) -> snd ((grad f w)[i])
let hessian = fun (v: Vector) -> build (length v) (fun i -> vectorMap (grad (partial i) v) snd)
`);
  const v = [0.5, -1.25, 2];
  test("grad, jacob, mgrad, vdiff, mdiff, deriv", () => {
    const norm = Math.hypot(...v);
    expectClose(
      runBoth(p, "gradNorm", [v]),
      v.map((x) => x / norm),
      1e-12,
      "grad vectorNorm",
    );
    expectClose(
      runBoth(p, "jacobSin", [v]),
      v.map((_, i) => v.map((x, j) => (i === j ? Math.cos(x) : 0))),
      1e-12,
      "jacob",
    );
    const m = [
      [1, 2],
      [3, -4],
    ];
    // d tr(A²) / dA = 2 Aᵀ
    expectClose(
      runBoth(p, "mgradTrace", [m]),
      [
        [2, 6],
        [4, -8],
      ],
      1e-12,
      "mgrad",
    );
    expectClose(
      runBoth(p, "vdiffScale", [1.5, v]),
      v.map((x) => 3 * x),
      1e-12,
      "vdiff",
    );
    expectClose(
      runBoth(p, "mdiffScale", [0.7, m]),
      m.map((r) => r.map((x) => x * Math.cos(0.7))),
      1e-12,
      "mdiff",
    );
    expectClose(runBoth(p, "derivDot", [v, [3, 4, 5]]), [3, 4, 5], 1e-12, "deriv");
  });
  test("a Hessian by grad of grad", () => {
    expectClose(
      runBoth(p, "hessian", [v]),
      v.map((_, i) => v.map((x, j) => (i === j ? 6 * x : 0))),
      1e-12,
      "hessian",
    );
  });
});

describe("closures and free variables", () => {
  const p = load(`
let scaleBy = fun (x: Double) (y: Double) -> snd (diff (fun a -> a * y) x)
let outer = fun (x: Double) (y: Double) -> snd (diff (fun b -> snd (diff (fun a -> a * b * b) x)) y)
let captured = fun (x: Double) (v: Vector) (k: Index) -> snd (diff (fun a -> a * v[k] + vectorSum v) x)
let capturedFn = fun (x: Double) ->
  let g = fun z -> sin z * x
  snd (diff (fun a -> g (a * a)) x)
let pair = fun (x: Double) (p: Double * Double) -> snd (diff (fun a -> a * fst p + snd p) x)
`);
  test("free variables are constants to the derivative taken inside", () => {
    expect(runBoth(p, "scaleBy", [2, 5])).toBe(5);
    expect(runBoth(p, "captured", [2, [1, 2, 3], 1])).toBe(2);
    expect(runBoth(p, "pair", [2, [3, 4]])).toBe(3);
  });
  test("and get their own tangent from an outer derivative", () => {
    // d/db (d/da (a b²)) = 2b
    expectClose(runBoth(p, "outer", [0.3, 1.75]), 3.5, 1e-12, "outer");
  });
  test("a captured function: d/da (sin (a²) · x) at a = x", () => {
    const x = 0.8;
    expectClose(runBoth(p, "capturedFn", [x]), Math.cos(x * x) * 2 * x * x, 1e-12, "capturedFn");
  });
});

describe("every construct inside a differentiated function", () => {
  const p = load(`
let viaBuild = fun (x: Double) -> snd (diff (fun a -> let v = build 4 (fun i -> a * double i) in v[2] * v[3]) x)
let viaIfold = fun (x: Double) -> snd (diff (fun a -> ifold (fun s i -> s * a + double i) 1. 4) x)
let viaTuple = fun (x: Double) -> snd (diff (fun a -> let (p, q, n) = (a, a * a, 3) in p + q * double n) x)
let viaIf = fun (x: Double) -> snd (diff (fun a -> if a > 0. then a * a else -a) x)
let viaLength = fun (v: Vector) -> vectorMap (grad (fun w -> double (length w) * vectorSum w) v) snd
let curried = fun (x: Double) (y: Double) -> jvp (fun a b -> a * b) (x, 1.) (y, 0.)
let chooseFn = fun (c: Bool) (x: Double) -> snd (jvp (if c then sin else cos) (x, 1.))
let higherOrder = fun (x: Double) -> jvp (fun (g: Double -> Double) -> g 2.) (fun q -> (fst q * x, snd q * x))
`);
  test("build and get", () => expectClose(runBoth(p, "viaBuild", [1.5]), 12 * 1.5, 1e-12, "6a² → 12a"));
  test("ifold", () => {
    // s = ((((1 a + 0) a + 1) a + 2) a + 3) = a⁴ + a² + 2a + 3
    const x = 1.3;
    expectClose(runBoth(p, "viaIfold", [x]), 4 * x ** 3 + 2 * x + 2, 1e-12, "ifold");
  });
  test("tuples with an Index in them", () => expectClose(runBoth(p, "viaTuple", [2]), 13, 1e-12, "1 + 6a"));
  test("if on a Double comparison", () => {
    expect(runBoth(p, "viaIf", [3])).toBe(6);
    expect(runBoth(p, "viaIf", [-3])).toBe(-1);
  });
  test("length", () => expectClose(runBoth(p, "viaLength", [[1, 2, 3]]), [3, 3, 3], 1e-12, "length"));
  test("curried functions, a conditional choice of function, a higher-order function", () => {
    expectClose(runBoth(p, "curried", [2, 5]), [10, 5], 1e-12, "curried");
    expectClose(runBoth(p, "chooseFn", [true, 0.4]), Math.cos(0.4), 1e-12, "sin");
    expectClose(runBoth(p, "chooseFn", [false, 0.4]), -Math.sin(0.4), 1e-12, "cos");
    expectClose(runBoth(p, "higherOrder", [3]), [6, 0], 1e-12, "higher order");
  });
});

describe("what cannot be differentiated", () => {
  test("a function known only inside a higher-order function that is itself differentiated", () => {
    const p = load(`
let main = fun (x: Double) -> fst (jvp (fun (g: Double -> Double) -> snd (diff g x)) (fun q -> q))
`);
    let error: unknown;
    try {
      p.runJson("main", [1], "js");
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(SmoothError);
    expect((error as SmoothError).kind).toBe("unsupported");
    expect((error as SmoothError).message).toContain(
      "cannot differentiate a function that is only known when the program runs",
    );
  });
});
