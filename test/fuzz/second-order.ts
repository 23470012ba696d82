// Second derivatives of random programs with recursion (issue 29): `f (v: Vector) (x: Double) (m: Matrix)` after a
// `let rec` group it calls (test/reverse/double-programs.ts), checked on every engine (the interpreter, compiled
// JavaScript and wasm must agree: Point.run) against central differences of the gradient:
//  - the gradient equals differences of the value (so the differences below are of a right gradient);
//  - the Hessian (forward over reverse) equals the differences of the gradient, and is symmetric;
//  - vjp of the gradient (the library's vjp(grad(f)): reverse mode over it, or its forward columns where it keeps
//    tapes) applied to a random cotangent c equals cᵀ times those differences.
// Differences are trusted where they are finite and the one-sided ones agree: a point near a kink (max, abs, a
// comparison) or where the values overflow is only checked for agreement between the engines, and counted.

import fc from "fast-check";
import { arbDoubleProgram, type DoubleProgram } from "../reverse/double-programs.js";
import { valueFromJson, valueToJson } from "../../src/runtime/json.js";
import { doubleLeaves, load, mapDoubles, Point, uniform, type Json, type Matrix } from "../reverse/harness.js";

/** Random programs with a recursive group (expressions up to depth 3, so that a check stays a fraction of a second). */
export const arbRecursiveProgram: fc.Arbitrary<DoubleProgram> = arbDoubleProgram(3, { recursion: true });

/** Differences and derivatives agree to this, relative to the largest entry (and absolutely below 1). */
const FD_SCALE_TOL = 1e-5;
/** One-sided differences further apart than this (relative) mean a kink between x - h and x + h. */
const KINK_TOL = 1e-3;
const STEP = 1e-6;

/** Programs checked, and those with a kink (or an overflow) near the point: checked only across the engines. */
export const secondOrderStats = { checked: 0, untrusted: 0 };

const scaleOf = (m: Matrix) => Math.max(1, ...m.flat().map(Math.abs));

/** Whether a and b agree entry by entry within `tol` of their scale. */
function near(a: Matrix, b: Matrix, scale = Math.max(scaleOf(a), scaleOf(b)), tol = FD_SCALE_TOL): boolean {
  return a.every((row, i) => row.every((x, j) => Math.abs(x - b[i]![j]!) <= tol * scale));
}

/**
 * The Jacobian of `g` (a function of the point's arguments to a list of numbers) by central differences over the
 * Double leaves of the differentiated arguments (rows: outputs), or undefined where it cannot be trusted: a value is
 * not finite, or the one-sided differences disagree (a kink: central differences across one are its slopes' mean).
 */
function differences(at: Point, g: (args: readonly Json[]) => number[]): Matrix | undefined {
  const centre = g(at.args);
  const columns: number[][] = [];
  for (const k of at.wrt) {
    const leaves = doubleLeaves(at.args[k], at.argTypes[k]!);
    for (let q = 0; q < leaves.length; q++) {
      const h = STEP * Math.max(1, Math.abs(leaves[q]!));
      const moved = (s: number) => g(at.args.map((a, j) => (j === k ? moveLeaf(a, q, s * h) : a)));
      const [up, down] = [moved(1), moved(-1)];
      const [forward, backward] = [up.map((y, o) => (y - centre[o]!) / h), down.map((y, o) => (centre[o]! - y) / h)];
      if (![forward, backward].every((d) => d.every(Number.isFinite))) return undefined;
      if (!near([forward], [backward], scaleOf([forward, backward]), KINK_TOL)) return undefined;
      columns.push(up.map((y, o) => (y - down[o]!) / (2 * h)));
    }
  }
  return centre.map((_, o) => columns.map((col) => col[o]!));
}

/** The JSON value with its q-th number leaf moved by h. */
function moveLeaf(j: Json, q: number, h: number): Json {
  let at = 0;
  const go = (x: Json): Json => (typeof x === "number" ? (at++ === q ? x + h : x) : (x as Json[]).map(go));
  return go(j);
}

function mismatch(what: string, p: DoubleProgram, got: unknown, want: unknown): never {
  throw new Error(
    `${what}\n${p.source}// args: ${JSON.stringify(p.args)}\n  got:  ${JSON.stringify(got)}\n  want: ${JSON.stringify(want)}`,
  );
}

export function checkSecondOrder(p: DoubleProgram, rnd: () => number = Math.random): void {
  secondOrderStats.checked++;
  const at = new Point(load(p.source), "f", p.args);
  const gradient = [doubleLeaves(at.run("gradient"), at.gradType)];
  const h = at.hessian();
  const like = at.wrt.length === 1 ? at.args[at.wrt[0]!] : at.wrt.map((k) => at.args[k]);
  const c = mapDoubles(like, at.gradType, () => uniform(rnd, -1, 1));
  const cLeaves = doubleLeaves(c, at.gradType);
  const hc = at.vjpOfGradient(c);
  const compiled = at.specs("gradient").js;
  const runGradient = (args: readonly Json[]) =>
    doubleLeaves(
      valueToJson(compiled.run(args.map((a, i) => valueFromJson(a, at.argTypes[i]!, "arg"))), compiled.resultType),
      at.gradType,
    );
  const fdGradient = differences(at, (args) => doubleLeaves(at.primal(args), at.resultType));
  const fd = differences(at, runGradient);
  if (fdGradient === undefined || fd === undefined) {
    secondOrderStats.untrusted++;
    return;
  }
  if (!near(gradient, fdGradient))
    mismatch("the gradient differs from differences of the value", p, gradient, fdGradient);
  const scale = Math.max(scaleOf(fd), scaleOf(h));
  if (!near(h, fd, scale)) mismatch("the Hessian differs from differences of the gradient", p, h, fd);
  const ht = h.map((row, i) => row.map((_, j) => h[j]![i]!));
  if (!near(h, ht, scale)) mismatch("the Hessian is not symmetric", p, h, ht);
  // (Hᵀ c)_j = Σ_i c_i ∂g_i/∂x_j, from the differences' rows i (gradient component) and columns j (input).
  const fdHc = fd[0]!.map((_, j) => cLeaves.reduce((s, ci, i) => s + ci * fd[i]![j]!, 0));
  if (!near([hc], [fdHc], scale * cLeaves.reduce((s, ci) => s + Math.abs(ci), 1)))
    mismatch("vjp of the gradient differs from cᵀ times differences of the gradient", p, hc, fdHc);
}
