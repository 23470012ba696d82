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
import { expectClose, FD_TOL, load, Point, seededRandom } from "../reverse/harness.js";

export const RECURSIVE_DEFINITIONS = `
let rec sq (a: Double) (n: Index) : Double = if n = 0 then a else sq (a * a) (n - 1)
let rec pw (x: Double) (n: Index) : Double = if n = 0 then 1. else x * pw x (n - 1)
let rec ping (x: Double) (y: Double) (n: Index) : Double = if n = 0 then x * y else pong (sin x) (x + y) (n - 1)
and pong (x: Double) (y: Double) (n: Index) : Double = if n = 0 then x - y else ping (y * 0.5) (x * y) (n - 1)
let rec lin (v: Vector) (i: Index) : Double = if i = length v then 0. else sin v[i] * v[i] * v[0] + lin v (i + 1)
let rec fold (v: Vector) (i: Index) (s: Double) : Double = if i = length v then s else fold v (i + 1) (s * v[i] + cos s)
let rec roll (v: Vector) (n: Index) : Vector =
  if n = 0 then v else roll (build (length v) (fun i -> v[i] * v[if i + 1 = length v then 0 else i + 1])) (n - 1)
let rec alias (a: Double) (n: Index) : Double =
  if n <= 0 then (let (b, c) = (a, a) in b * c + sin b) else a * alias (max 0.5 a) (n - 1)
let rec halves (v: Vector) (lo: Index) (hi: Index) : Double =
  if hi - lo = 1 then exp (v[lo] * 0.5) * v[lo] else (let mid = (lo + hi) / 2 in halves v lo mid * halves v mid hi)
`;

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
let arrays = fun (v: Vector) (s: Double) -> (vectorSum (roll v 2) + halves v 0 (length v)) * s * s
`);

const rnd = seededRandom(29);

/** The Hessian on every engine, against differences of the gradient (checked against differences of the value). */
function checkHessian(name: string, args: Parameters<typeof JSON.stringify>[0][]): number[][] {
  const pt = new Point(p, name, args);
  pt.checkAll(rnd);
  const h = pt.hessian();
  expectClose(h, pt.fdHessian(), FD_TOL, `${name}'' against differences of the gradient`);
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
