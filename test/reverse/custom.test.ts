// Functions with custom derivative rules (customJvp / customVjp, src/ad/custom.ts) with every transform: forward,
// reverse, forward over reverse (Hessians), inside builds and loops, in the interpreter and compiled (the library's
// vmap and its customJvp/customVjp are tested in test/library/custom.test.ts). The examples are those of
// examples/custom.smooth; references are closed forms and finite differences.

import { readFileSync } from "node:fs";
import { describe, expect, test } from "vitest";
import { loadProgram } from "../../src/api/program.js";
import { someNode } from "../../src/ir/free.js";
import { SmoothError } from "../../src/syntax/diagnostics.js";
import { smooth } from "../cli/run.js";
import { expectClose, load, Point, seededRandom } from "./harness.js";

const source = readFileSync(new URL("../../examples/custom.smooth", import.meta.url), "utf8");
const examples = loadProgram({ name: "examples/custom.smooth", text: source });
const rnd = seededRandom(21);
const sigmoid = (x: number) => 1 / (1 + Math.exp(-x));

describe("customJvp: a numerically stable log1pexp", () => {
  test("its derivative at x = 1000 is 1 in every mode and engine (the formula's own derivative is NaN there)", () => {
    const p = new Point(examples, "softplusLoss", [1000]);
    expect(p.run("gradient")).toBe(2);
    expect(p.forwardJacobian()).toEqual([[2]]);
    expect(p.vjp(1)).toEqual([2]);
    const naive = new Point(load("let f = fun (x: Double) -> 2 * log (1 + exp x)"), "f", [1000]);
    expect(naive.run("gradient")).toBe("NaN");
  });

  test("elsewhere: finite differences, the closed form 2σ(x), and the Hessian 2σ(1 - σ) by forward over reverse", () => {
    for (const x of [0.5, -3]) {
      const p = new Point(examples, "softplusLoss", [x]);
      expectClose(p.checkAll(rnd), [[2 * sigmoid(x)]], 1e-12, "2σ");
      const s = sigmoid(x);
      expectClose(p.hessian(), [[2 * s * (1 - s)]], 1e-12, "2σ(1 - σ)");
      expectClose(p.hessian(), p.fdHessian(), 1e-6, "Hessian vs finite differences of the gradient");
    }
  });

  test("a Vector function with its Jacobian-vector product: forward, reverse (the rule transposed), Hessian", () => {
    const p = new Point(examples, "direction", [
      [1, 2, 3],
      [0.5, -1, 2],
    ]);
    p.checkAll(rnd);
    const v = [1, 2, 3];
    const r = Math.hypot(...v);
    const u = v.map((x) => x / r);
    const w = [0.5, -1, 2];
    const uw = u[0]! * w[0]! + u[1]! * w[1]! + u[2]! * w[2]!;
    // d(u · w)/dv = (w - u (u · w)) / |v|, plus σ(v0) for log1pexp v[0]; d/dw = u.
    const dv = w.map((x, i) => (x - u[i]! * uw) / r + (i === 0 ? sigmoid(v[0]!) : 0));
    expectClose(p.reverseJacobian(), [[...dv, ...u]], 1e-12, "the gradient by hand");
    expectClose(p.hessian(), p.fdHessian(), 1e-6, "Hessian vs finite differences of the gradient");
    // A Vector result: the Jacobian by rows (one reverse sweep per output, the rule transposed in each), (I - nnᵀ)/|v|.
    const q = load(`${source}\nlet twice = fun (v: Vector) -> normalize (vectorSMul v 2.)`);
    const jac = new Point(q, "twice", [[1, 2, 2]]).checkAll(rnd);
    const n = [1 / 3, 2 / 3, 2 / 3];
    expectClose(
      jac,
      n.map((a, i) => n.map((b, j) => ((i === j ? 1 : 0) - a * b) / 3)),
      1e-12,
      "(I - nnᵀ) 2/|2v|",
    );
  });

  test("inside a build, an ifold and a while; vjp and jvp of it in the language", () => {
    const q = load(`${source}
let mapped = fun (v: Vector) -> vectorSum (build (length v) (fun i -> log1pexp (v[i] * v[i])))
let folded = fun (v: Vector) -> ifold (fun acc i -> log1pexp (acc - v[i])) 0.5 (length v)
let looped = fun (x: Double) -> fst (while (fun (s: Double * Index) -> snd s < 3) (fun s -> (log1pexp (fst s) * 0.5, snd s + 1)) (x, 0))
let byVjp = fun (x: Double) -> snd (vjp log1pexp x 1.)
let byJvp = fun (x: Double) -> snd (jvp log1pexp (x, 1.))
`);
    for (const name of ["mapped", "folded"]) new Point(q, name, [[0.5, -1, 2]]).checkAll(rnd);
    new Point(q, "looped", [0.3]).checkAll(rnd);
    for (const name of ["byVjp", "byJvp"]) {
      expect(new Point(q, name, [1000]).primal()).toBe(1);
      expect(new Point(q, name, [0.5]).primal()).toBeCloseTo(sigmoid(0.5), 14);
    }
  });

  test("smooth show --grad prints the rule, in both modes", () => {
    const reverse = smooth("show", "examples/custom.smooth", "--fn", "softplusLoss", "--grad");
    expect(reverse.code).toBe(0);
    expect(reverse.stdout).toMatch(/1\. - 1\. \/ \(1\. \+ exp x\)/);
    const forward = smooth("show", "examples/custom.smooth", "--fn", "softplusLoss", "--grad", "--mode", "forward");
    expect(forward.stdout).toMatch(/1\. - 1\. \/ \(1\. \+ exp x\)/);
  });
});

describe("customVjp", () => {
  test("gradient clipping: reverse mode clips the cotangent; forward mode transposes bwd at a zero cotangent", () => {
    for (const x of [0.5, 3]) {
      const p = new Point(examples, "clippedLoss", [x]);
      // The cotangent reaching clipGradient is 10, clipped to 1: d/dx = 1 · 2x (unclipped it would be 20x).
      expect(p.run("gradient")).toBeCloseTo(2 * x, 14);
      expect(p.vjp(0.05)).toEqual([0.05 * 10 * 2 * x]);
      // bwd is not linear in the cotangent: its linearisation at 0 is the identity, so forward mode does not clip.
      expectClose(p.forwardJacobian(), [[20 * x]], 1e-12, "forward");
    }
  });

  test("an implicit-function rule for a fixed point solved by while: finite differences, closed form, no reverse loop", () => {
    for (const a of [0.5, -0.8]) {
      const p = new Point(examples, "fixedPointLoss", [a]);
      const x = new Point(examples, "solve", [a]).primal() as number;
      expect(Math.abs(x - a * Math.cos(x))).toBeLessThan(1e-14);
      // d(x²)/da = 2x dx/da, dx/da = cos x / (1 + a sin x).
      expectClose(p.checkAll(rnd), [[(2 * x * Math.cos(x)) / (1 + a * Math.sin(x))]], 1e-9, "implicit derivative");
      expectClose(p.hessian(), p.fdHessian(), 1e-5, "Hessian vs finite differences of the gradient");
      // The gradient program runs the solver (one while) and reverses no iteration of it (no loop over them).
      for (const engine of ["js", "interp"] as const) {
        const g = p.specs("gradient")[engine];
        const body = engine === "js" ? g.optimised.body : g.lowered.body;
        const whiles: unknown[] = [];
        someNode(body, (n) => (n.kind === "while" && whiles.push(n), false));
        expect(whiles.length, engine).toBe(engine === "js" ? 1 : 2);
        expect(
          someNode(body, (n) => n.kind === "ifold"),
          engine,
        ).toBe(false);
      }
    }
  });
});

describe("nested derivatives through custom rules", () => {
  test("forward over forward, reverse over forward and reverse over reverse agree with the Hessian", () => {
    const q = load(`${source}
let d2soft = fun (x: Double) -> snd (snd (diff (diff softplusLoss) x))
let reverseOverForward = fun (x: Double) -> snd (vjp (fun y -> snd (diff softplusLoss y)) x 1.)
let d2fixed = fun (a: Double) -> snd (snd (diff (diff fixedPointLoss) a))
let reverseOverReverse = fun (a: Double) -> snd (vjp (fun b -> snd (vjp fixedPointLoss b 1.)) a 1.)
`);
    const s = sigmoid(0.5);
    for (const name of ["d2soft", "reverseOverForward"])
      expectClose(new Point(q, name, [0.5]).primal(), 2 * s * (1 - s), 1e-12, name);
    const [[h]] = new Point(examples, "fixedPointLoss", [0.5]).hessian() as [[number]];
    for (const name of ["d2fixed", "reverseOverReverse"])
      expectClose(new Point(q, name, [0.5]).primal(), h, 1e-12, name);
  });
});

describe("what stays unsupported is a located error", () => {
  test("a custom function that captures a variable of the function being differentiated", () => {
    const p = load(`
let f = fun (x: Double) ->
  snd (diff (fun y -> customJvp (fun (z: Double) -> z * y) (fun z dz -> (z * y, dz * y)) y) x)
`);
    let err: unknown;
    try {
      p.runJson("f", [2]);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(SmoothError);
    expect((err as SmoothError).message).toMatch(/custom derivative rule .* uses `y`/);
    expect((err as SmoothError).span?.start).toBeGreaterThan(0);
  });

  test("the same in reverse mode, for a gradient of the whole definition", () => {
    const p = load("let f = fun (x: Double) -> customJvp (fun (z: Double) -> z * x) (fun z dz -> (z * x, dz * x)) x");
    const point = new Point(p, "f", [2]);
    for (const kind of ["gradient", "forward"] as const) {
      let err: unknown;
      try {
        point.run(kind);
      } catch (e) {
        err = e;
      }
      expect(err, kind).toBeInstanceOf(SmoothError);
      expect((err as SmoothError).message, kind).toMatch(/custom derivative rule .* uses `x`/);
      expect((err as SmoothError).span?.start, kind).toBeGreaterThan(0);
    }
  });

  test("a function with custom rules must take and return first-order values", () => {
    const p = load(`
let g = customJvp (fun (x: Double) (y: Double) -> x * y) (fun x dx -> ((fun y -> x * y), (fun y -> dx * y)))
let f = fun (x: Double) -> g x 2.
`);
    expect(() => p.runJson("f", [2])).toThrow(/custom derivative rules must take one argument/);
  });
});
