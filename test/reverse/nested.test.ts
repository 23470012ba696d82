// Nested derivatives with reverse mode (issue 4, item 5):
//  - forward over reverse: the "hessian" program against central differences of the reverse gradient and against
//    Hessians written by hand; a Hessian-vector product program (jvp of the reverse gradient, built as IR);
//  - reverse over reverse: reverseGradient applied to x ↦ <∇f(x), w> (the reverse gradient program plus a dot
//    product, as IR) is H w; both from the gradient of the unoptimised primal and of the optimised one;
//  - reverse over forward: the reverse gradient of programs that take a forward derivative inside (diff, grad).
// Every program runs in both engines (test/reverse/harness.ts), which agree.

import { describe, test } from "vitest";
import { reverseGradient } from "../../src/api/reverse-programs.js";
import { runPipeline } from "../../src/opt/pass.js";
import { STANDARD_PIPELINE } from "../../src/opt/pipeline.js";
import { valueFromJson } from "../../src/runtime/json.js";
import { VECTOR } from "../../src/types/types.js";
import { expectClose, FD_TOL, load, Point, runIrBoth, seededRandom, uniform, type Matrix } from "./harness.js";
import { gradientDotProgram, hvpProgram } from "./nested-programs.js";

const p = load(`
let f1 = fun (v: Vector) -> v[0] * v[1] * v[1] + sin (v[0] * v[2])
let rosenbrock = fun (v: Vector) ->
  ifold (fun s i ->
    let a = v[i + 1] - v[i] * v[i]
    let b = 1. - v[i]
    s + 100. * a * a + b * b) 0. (length v - 1)
let mixed = fun (x: Double) (v: Vector) -> x * x * vectorDot v v + sin (x * v[0])
`);

/** The Hessian of f1 = x0 x1² + sin(x0 x2). */
function hessianF1([x0, x1, x2]: number[]): Matrix {
  const [s, c] = [Math.sin(x0! * x2!), Math.cos(x0! * x2!)];
  const h02 = c - x0! * x2! * s;
  return [
    [-x2! * x2! * s, 2 * x1!, h02],
    [2 * x1!, 2 * x0!, 0],
    [h02, 0, -x0! * x0! * s],
  ];
}

/** The Hessian of the Rosenbrock function Σ 100 (x[i+1] - x[i]²)² + (1 - x[i])². */
function hessianRosenbrock(x: number[]): Matrix {
  const n = x.length;
  const h = Array.from({ length: n }, () => new Array<number>(n).fill(0));
  for (let i = 0; i + 1 < n; i++) {
    h[i]![i]! += 1200 * x[i]! * x[i]! - 400 * x[i + 1]! + 2;
    h[i]![i + 1]! -= 400 * x[i]!;
    h[i + 1]![i]! -= 400 * x[i]!;
    h[i + 1]![i + 1]! += 200;
  }
  return h;
}

/** The Hessian of mixed(x, v) = x² |v|² + sin(x v0), over the leaves (x, v0, v1, ...). */
function hessianMixed(x: number, v: number[]): Matrix {
  const z = x * v[0]!;
  const squares = v.reduce((s, a) => s + a * a, 0);
  const n = v.length + 1;
  const h = Array.from({ length: n }, () => new Array<number>(n).fill(0));
  h[0]![0] = 2 * squares - v[0]! * v[0]! * Math.sin(z);
  v.forEach((vi, i) => {
    h[0]![i + 1] = h[i + 1]![0] = 4 * x * vi + (i === 0 ? Math.cos(z) - z * Math.sin(z) : 0);
    h[i + 1]![i + 1] = 2 * x * x - (i === 0 ? x * x * Math.sin(z) : 0);
  });
  return h;
}

const times = (m: Matrix, t: readonly number[]) => m.map((row) => row.reduce((s, a, j) => s + a * t[j]!, 0));
const randomVector = (rnd: () => number, n: number) => Array.from({ length: n }, () => uniform(rnd, -1.5, 1.5));

interface VectorCase {
  readonly name: "f1" | "rosenbrock";
  readonly n: number;
  readonly hessian: (x: number[]) => Matrix;
}
const VECTOR_CASES: readonly VectorCase[] = [
  { name: "f1", n: 3, hessian: hessianF1 },
  { name: "rosenbrock", n: 4, hessian: hessianRosenbrock },
];

const vectorValue = (x: readonly number[]) => valueFromJson(x, VECTOR, "x");

describe.each(VECTOR_CASES)("$name", (c) => {
  const rnd = seededRandom(c.name.length * 3571);
  const points = Array.from({ length: 3 }, () => ({ x: randomVector(rnd, c.n), t: randomVector(rnd, c.n) }));

  test("forward over reverse: the hessian program = the hand-written Hessian = FD of the gradient", () => {
    for (const { x } of points) {
      const at = new Point(p, c.name, [x]);
      const h = at.hessian();
      expectClose(h, c.hessian(x), 1e-10, `${c.name}: Hessian at ${JSON.stringify(x)}`);
      expectClose(h, at.fdHessian(), FD_TOL, `${c.name}: Hessian vs FD of the reverse gradient`);
    }
  });

  test("forward over reverse: a Hessian-vector product program (jvp of the reverse gradient)", () => {
    for (const { x, t } of points) {
      const at = new Point(p, c.name, [x]);
      const hvp = hvpProgram(at.specs("gradient").interp.lowered);
      expectClose(runIrBoth(hvp, [vectorValue(x), vectorValue(t)]), times(c.hessian(x), t), 1e-10, `${c.name}: H t`);
    }
  });

  test("reverse over reverse: the gradient of <grad f(x), w> is H w", () => {
    for (const { x, t: w } of points) {
      const at = new Point(p, c.name, [x]);
      const expected = times(c.hessian(x), w);
      const inner = at.specs("gradient").interp.lowered;
      // The reverse gradient of the unoptimised inner gradient, and of the optimised one (loops fused, hoisted).
      for (const grad of [inner, runPipeline(inner, STANDARD_PIPELINE)]) {
        const hw = reverseGradient(gradientDotProgram(grad), { wrt: [0] });
        expectClose(
          runIrBoth(hw, [vectorValue(x), vectorValue(w)]),
          expected,
          1e-10,
          `${c.name}: H w by reverse over reverse`,
        );
      }
    }
  });
});

describe("forward over reverse with two parameters (a Double and a Vector)", () => {
  test("the hessian program = the hand-written Hessian = FD of the gradient", () => {
    const rnd = seededRandom(99);
    for (let k = 0; k < 3; k++) {
      const [x, v] = [uniform(rnd, -1.5, 1.5), randomVector(rnd, 3)];
      const at = new Point(p, "mixed", [x, v]);
      const h = at.hessian();
      expectClose(h, hessianMixed(x, v), 1e-10, `mixed: Hessian at ${JSON.stringify([x, v])}`);
      expectClose(h, at.fdHessian(), FD_TOL, "mixed: Hessian vs FD of the reverse gradient");
    }
  });
});

describe("reverse over forward: the reverse gradient of programs that differentiate inside", () => {
  const q = load(`
// d/da (a sin (a y)) at a = x: sin (x y) + x y cos (x y)
let inner = fun (x: Double) (y: Double) -> snd (diff (fun a -> a * sin (a * y)) x)
// the sum of the entries of the gradient of Σ w³ (3 v²), plus a derivative taken in a loop over v
let gradSum = fun (v: Vector) (x: Double) ->
  vectorSum (vectorMap (grad (fun w -> vectorSum (vectorMap w (fun a -> a * a * a))) v) snd)
    + ifold (fun s i -> s + snd (diff (fun a -> a * v[i] * a) x)) 0. (length v)
`);
  test("against the gradient by hand, forward mode and finite differences", () => {
    const rnd = seededRandom(2024);
    for (let k = 0; k < 3; k++) {
      const [x, y] = [uniform(rnd, -1.5, 1.5), uniform(rnd, -1.5, 1.5)];
      const at = new Point(q, "inner", [x, y]);
      at.checkAll(rnd);
      const [c, s] = [Math.cos(x * y), Math.sin(x * y)];
      expectClose(at.run("gradient"), [2 * y * c - x * y * y * s, 2 * x * c - x * x * y * s], 1e-12, "inner by hand");

      const v = randomVector(rnd, 4);
      const at2 = new Point(q, "gradSum", [v, x]);
      at2.checkAll(rnd);
      // Σ 3 v² + Σ 2 x v: ∂/∂v = 6 v + 2 x, ∂/∂x = 2 Σ v
      const expected = [v.map((a) => 6 * a + 2 * x), 2 * v.reduce((s2, a) => s2 + a, 0)];
      expectClose(at2.run("gradient"), expected, 1e-12, "gradSum by hand");
    }
  });
});
