// Second derivatives through recursion (issue 29): Hessians by forward over reverse, where the reverse passes a tape
// through the recursive calls (src/ad/reverse-functions.ts) and forward mode differentiates that code, tape and all.
// Every Hessian runs on the interpreter, compiled JavaScript and wasm (which must agree) and is compared with central
// differences of the gradient (itself checked against differences of the value), and with closed forms where short.
//
// The class: recursive functions self- and mutually recursive, tail and non-tail, with Double, Index and array
// arguments and array results, called twice, called inside ifold, build and while. The optimiser shares the primal
// work of the Hessian's directions (CSE merges their `newTape`s and then their forward sweeps), so a tape version
// reaches two pops; compiled code, whose tapes are mutable stacks, must copy it there (src/lowering/ownership.ts).

import { describe, expect, it } from "vitest";
import { gradJson, hessianJson } from "../../src/cli/derivative-commands.js";
import { loadProgram } from "../../src/api/program.js";
import { expectClose, FD_TOL, load, mapDoubles, Point, seededRandom, type Json } from "../reverse/harness.js";
import { RECURSIVE_DEFINITIONS } from "./definitions.js";

const p = load(`${RECURSIVE_DEFINITIONS}
let issue = fun (x: Double) (y: Double) (z: Double) -> sq z 1 * y
let twice = fun (x: Double) (y: Double) (w: Double) -> pw x 3 * y + pw (x * y) 2 * w
let mutual = fun (x: Double) (y: Double) (w: Double) -> ping x y 3 * w * w
let inFold = fun (x: Double) (y: Double) (w: Double) -> ifold (fun s i -> s + pw (x * double i + 1.) 2 * y * w) 0. 3
let inBuild = fun (v: Vector) -> vectorSum (build (length v) (fun i -> pw v[i] 3 * v[0]))
let inWhile = fun (x: Double) (y: Double) (w: Double) ->
  snd (while (fun (s: Index * Double) -> fst s < 3) (fun (s: Index * Double) -> (fst s + 1, snd s * y + sq (snd s * x) 1)) (0, x)) * w
let vectors = fun (v: Vector) (w: Vector) (s: Double) -> (lin v 0 + fold w 0 0.5) * s * s
let aliased = fun (x: Double) (y: Double) -> alias (x * y) 2 * y
let deep = fun (v: Vector) -> lin v 0
let arrays = fun (v: Vector) (s: Double) -> (vectorSum (roll v 2) + halves v 0 (length v)) * s * s
`);

const rnd = seededRandom(29);

/** The Hessian on every engine, against differences of the gradient (checked against differences of the value). */
function checkHessian(name: string, args: Json[], program = p): number[][] {
  const pt = new Point(program, name, args);
  pt.checkAll(rnd);
  const h = pt.hessian();
  const fd = pt.fdHessian();
  expectClose(h, fd, FD_TOL, `${name}'' against differences of the gradient`);
  // vjp of the gradient (the library's vjp(grad(f))) is Hᵀ c: here against the differences' cᵀ FD.
  const c = fd.map((_, i) => Math.cos(i + 0.5));
  const like = pt.wrt.length === 1 ? pt.args[pt.wrt[0]!] : pt.wrt.map((k) => pt.args[k]);
  let at = 0;
  const ct = mapDoubles(like, pt.gradType, () => c[at++]!);
  const expected = fd[0]!.map((_, j) => fd.reduce((sum, row, i) => sum + c[i]! * row[j]!, 0));
  expectClose(pt.vjpOfGradient(ct), expected, FD_TOL, `${name}: vjp of the gradient`);
  return h;
}

describe("Hessians through recursion, every engine, against differences of the gradient", () => {
  it("the issue's example: (sq z 1) · y = z² y, whose Hessian row for z is (0, 2z, 2y)", () => {
    const h = checkHessian("issue", [0, 0.5, 3]);
    expectClose(
      h,
      [
        [0, 0, 0],
        [0, 0, 6],
        [0, 6, 1],
      ],
      1e-12,
      "issue''",
    );
  });

  it("a non-tail recursion called twice: x³ y + (x y)² w", () => {
    const [x, y, w] = [0.7, 1.3, -0.4];
    const h = checkHessian("twice", [x, y, w]);
    const closed = [
      [6 * x * y + 2 * y * y * w, 3 * x * x + 4 * x * y * w, 2 * x * y * y],
      [3 * x * x + 4 * x * y * w, 2 * x * x * w, 2 * x * x * y],
      [2 * x * y * y, 2 * x * x * y, 0],
    ];
    expectClose(h, closed, 1e-12, "twice''");
  });

  it("mutual recursion through both Double arguments", () => {
    checkHessian("mutual", [0.8, -0.3, 1.4]);
  });

  it("recursion called inside ifold, build and while", () => {
    checkHessian("inFold", [0.7, 1.3, -0.6]);
    const v = [0.5, -1, 2];
    const h = checkHessian("inBuild", [v]);
    // Σ vᵢ³ v₀ = v₀⁴ + v₀ (v₁³ + v₂³)
    const closed = [
      [12 * v[0]! ** 2, 3 * v[1]! ** 2, 3 * v[2]! ** 2],
      [3 * v[1]! ** 2, 6 * v[0]! * v[1]!, 0],
      [3 * v[2]! ** 2, 0, 6 * v[0]! * v[2]!],
    ];
    expectClose(h, closed, 1e-12, "inBuild''");
    checkHessian("inWhile", [0.6, 0.9, 1.2]);
  });

  it("a parameter met first in a branch, through an alias (its dual split there, not in the other branch)", () => {
    // Forward mode over the reference's unoptimised primal once read the branch's projection in the other branch.
    checkHessian("aliased", [0.9, 1.3]);
  });

  it("array arguments (tail and non-tail, an accumulator) and array results, divide and conquer", () => {
    checkHessian("vectors", [[0.3, -1.2, 0.8], [0.5, 0.4, -0.7], 0.9]);
    checkHessian("arrays", [[0.9, -0.6, 1.1, 0.4, -0.8], 1.3]);
  });
});

describe("forward over reverse keeps reverse mode's accumulators in place", () => {
  it("D[f_bwd] adds into its owned adjoint: no array copy in the recursive functions' code", () => {
    // Copying the adjoint at each of n levels made the Hessian of a depth-n recursion over a Vector O(n³), not O(n²)
    // (n = 400, median of 5 calls, builds alternated on a loaded machine: 0.7 to 1.3 s before, 45 to 107 ms after).
    const pt = new Point(p, "deep", [[0.3, -1.2, 0.8, 0.5, 1.1]]);
    expectClose(pt.hessian(), pt.fdHessian(), FD_TOL, "deep''");
    const source = pt.specs("hessian").js.jsSource!;
    const functions = source.slice(0, source.indexOf("function $run("));
    expect(functions).toContain("function $f1(");
    expect(functions).not.toMatch(/slice\w*\(/);
  });
});

describe("the CLI's hessian command", () => {
  it("gives the issue's Hessian on every engine, and the gradient's differences agree", () => {
    const text =
      "let rec r = fun (a: Double) (n: Index) -> if n = 0 then a else r (a*a) (n-1)\n" +
      "let f = fun x y z -> (r z 1) * y\n";
    const prog = loadProgram({ name: "issue.smooth", text });
    const o = { fn: "f", prelude: true };
    for (const engine of ["interp", "js", "wasm"] as const) {
      const out = hessianJson(prog, { ...o, engine }, [0, 0.5, 3], engine) as { hessian: number[][] };
      expect(out.hessian, engine).toEqual([
        [0, 0, 0],
        [0, 0, 6],
        [0, 6, 1],
      ]);
      const h = 1e-6;
      const g = (z: number) =>
        (gradJson(prog, { ...o, engine }, [0, 0.5, z], engine) as { gradient: number[] }).gradient;
      const [up, down] = [g(3 + h), g(3 - h)];
      expectClose(
        out.hessian[2],
        up.map((u, i) => (u - down[i]!) / (2 * h)),
        FD_TOL,
        `${engine}: row z`,
      );
    }
  });
});

describe("found by the recursion fuzzer (test/fuzz/second-order.ts) before compiled tapes kept value semantics", () => {
  // Each failed on compiled code: a tape version popped twice (wrong numbers, or a raw TypeError on an empty tape).
  it("a recursive call as another's argument, next to a second Double", () => {
    const q = load(`
let rec r0 (a0: Double) (w1: Vector) (n2: Index) : Double =
  if n2 <= 0 then (a0 * w1[0]) else (a0 + a0)
let f = fun (v: Vector) (x: Double) (y: Double) (m: Matrix) ->
  (m[1][0] * (r0 (x - (r0 y v 0)) (vectorMap v (fun (y3: Double) -> (double 2 * v[1]))) 0))
`);
    const v = [-1.4265, 1.7595, 0.0355, 0.4225];
    const m = [
      [-0.8575, -1.0015, 0.1885, 1.3365],
      [-1.3625, -1.6575, 0.2105, 0.6535],
    ];
    checkHessian("f", [v, 1.4195, -1.0175, m], q);
  });

  it("a call independent of x and y, times a function of them (the issue's pattern, with arrays)", () => {
    const q = load(`
let rec r0 (a0: Double) (w1: Vector) (n2: Index) : Double =
  if n2 <= 0 then (vectorDot w1 w1) else ((cos a0) * (r0 (r0 w1[0] w1 (n2 - 1)) w1 (n2 - 1)))
let f = fun (v: Vector) (x: Double) (y: Double) (m: Matrix) ->
  ((max (min (v[0] - v[0]) (m[1][0] + 0.75)) (v[2] * (tanh x))) * (r0 (if 0.75 > v[0] then (-1.25) else m[2][0]) m[1] 3))
`);
    const v = [-1.8425, 0.8185, -1.7845];
    const m = [
      [1.0925, -0.7815, 1.6715],
      [-1.8665, 0.9855, 0.4145],
      [-1.0065, -1.4865, -1.7895],
    ];
    checkHessian("f", [v, -0.5105, -1.4125, m], q);
  });
});
