// The library's second derivatives through recursion (issue 29): hessian, jvp∘grad (Hessian-vector products),
// vjp∘grad, grad∘grad and jacobian∘grad of Smooth definitions that call recursive functions, on the js and wasm back
// ends (wasm compiles recursion through js) and, for the transforms that return functions, the reference interpreter.
// References: central differences of the library's gradient, itself checked against differences of the value.

import { describe, expect, it } from "vitest";
import { grad, hessian, jacobian, jvp, smoothModule, vjp, type AnyFunction } from "../../src/index.js";
import { interpretedProgram, libraryFunction, Specialisations } from "../../src/library/target.js";
import { decode } from "../../src/library/convert.js";
import { expectClose, flat, numericGradient } from "../library/helpers.js";
import { RECURSIVE_DEFINITIONS } from "./definitions.js";

const m = smoothModule(`${RECURSIVE_DEFINITIONS}
let issue = fun (x: Double) (y: Double) (z: Double) -> sq z 1 * y
let mutual = fun (x: Double) (y: Double) (z: Double) -> ping x y 3 * z * z
let inLoop = fun (v: Vector) -> vectorSum (build (length v) (fun i -> sq v[i] 2 * v[0])) + lin v 0 * fold v 0 0.5
let arrays = fun (v: Vector) -> vectorSum (roll v 2) * halves v 0 (length v)
let scalar = fun (x: Double) -> pw x 4 + sq (sin x) 2 * ping x 0.5 2
`);

/** The same library function run by the reference interpreter on its (unoptimised) IR. */
function interpreted(fn: AnyFunction, ...args: unknown[]): unknown {
  const target = libraryFunction(fn)!.target!;
  const { inst, trees, values } = new Specialisations(target).lookup(args);
  return decode(interpretedProgram(inst).run(values), inst.resultType, inst.resultForm(trees));
}

interface Case {
  readonly f: AnyFunction;
  /** The arguments: all Doubles, or one Vector. */
  readonly args: readonly (number | Float64Array)[];
}

const cases: Record<string, Case> = {
  issue: { f: m.issue!, args: [0, 0.5, 3] },
  mutual: { f: m.mutual!, args: [0.8, -0.3, 1.4] },
  inLoop: { f: m.inLoop!, args: [Float64Array.from([0.5, -1, 2, 0.3])] },
  arrays: { f: m.arrays!, args: [Float64Array.from([0.9, -0.6, 1.1, 0.4, -0.8])] },
};

const vectorArg = (c: Case) => c.args[0] instanceof Float64Array;
/** Every argument position (scalars), or the one Vector. */
const argnums = (c: Case) => (vectorArg(c) ? 0 : c.args.map((_, i) => i));
/** The point as one flat list of numbers, and back. */
const flatten = (c: Case): number[] => c.args.flatMap((a) => (typeof a === "number" ? [a] : Array.from(a)));
const unflatten = (c: Case, x: readonly number[]): (number | Float64Array)[] =>
  vectorArg(c) ? [Float64Array.from(x)] : [...x];

/** The library's gradient (compiled) as a flat list. */
const gradientAt = (c: Case, x: readonly number[]): number[] =>
  flat((grad(c.f, { argnums: argnums(c) }) as AnyFunction)(...unflatten(c, x)));

/** The Hessian by central differences of the gradient: row i is the derivative of gradient component i. */
function fdHessian(c: Case): number[][] {
  const x = flatten(c);
  const columns = x.map((_, j) => {
    const h = 1e-6 * Math.max(1, Math.abs(x[j]!));
    const moved = (s: number) =>
      gradientAt(
        c,
        x.map((xi, k) => (k === j ? xi + s * h : xi)),
      );
    const [up, down] = [moved(1), moved(-1)];
    return up.map((u, i) => (u - down[i]!) / (2 * h));
  });
  return x.map((_, i) => columns.map((col) => col[i]!));
}

const TOL = 1e-6;
const matVec = (h: number[][], t: readonly number[]) => h.map((row) => row.reduce((s, hij, j) => s + hij * t[j]!, 0));

describe.each(Object.entries(cases))("%s: second derivatives through recursion", (name, c) => {
  const x = flatten(c);
  const fd = fdHessian(c);
  const t = x.map((_, k) => Math.cos(3 * k + 1));

  it("the gradient agrees with differences of the value (the reference's reference)", () => {
    const value = (y: number[]) => (c.f as (...a: unknown[]) => number)(...unflatten(c, y));
    expectClose(gradientAt(c, x), numericGradient(value, x), TOL);
  });

  it("hessian on js, wasm and the interpreter", () => {
    for (const backend of ["js", "wasm"] as const)
      expectClose(flat(hessian(c.f, { argnums: argnums(c), backend })(...c.args)), fd.flat(), TOL);
    expectClose(flat(interpreted(hessian(c.f, { argnums: argnums(c) }), ...c.args)), fd.flat(), TOL);
  });

  it("jvp(grad(f)) is H t, vjp(grad(f)) is Hᵀ c", () => {
    const g = grad(c.f, { argnums: argnums(c) });
    const [, ht] = jvp(g, c.args, unflatten(c, t));
    expectClose(flat(ht), matVec(fd, t), TOL);
    const [, pullback] = vjp(g, ...c.args);
    const cot = vectorArg(c) ? Float64Array.from(t) : t;
    const transposed = fd.map((_, j) => fd.reduce((s, row, i) => s + row[j]! * t[i]!, 0));
    expectClose(flat(pullback(cot)), transposed, TOL);
    if (name === "issue") expect(flat(pullback(cot))).not.toContain(NaN);
  });

  it("jacobian(grad(f)) in either mode, and on the interpreter", () => {
    const g = grad(c.f, { argnums: argnums(c) });
    for (const mode of ["reverse", "forward"] as const)
      expectClose(flat(jacobian(g, { argnums: argnums(c), mode })(...c.args)), fd.flat(), TOL);
    expectClose(flat(interpreted(jacobian(g, { argnums: argnums(c), mode: "reverse" }), ...c.args)), fd.flat(), TOL);
  });
});

describe("grad(grad(f)) of a scalar function through recursion", () => {
  it("on js, wasm and the interpreter, against differences of the gradient", () => {
    const f = m.scalar!;
    for (const x of [0.7, -1.3]) {
      const h = 1e-6;
      const g = grad(f) as (x: number) => number;
      const expected = (g(x + h) - g(x - h)) / (2 * h);
      for (const backend of ["js", "wasm"] as const)
        expectClose([grad(grad(f), { backend })(x) as number], [expected], TOL);
      expectClose([interpreted(grad(grad(f)), x) as number], [expected], TOL);
    }
  });
});
