// Reverse-mode derivative programs of an entry point, as ordinary IR functions (src/ad/reverse.ts does the work):
//  - the gradient of a Double-valued function (the adjoint of each differentiated parameter for the cotangent 1);
//  - the vector-Jacobian product: the value and the parameters' adjoints for a cotangent given as an extra parameter;
//  - the Jacobian by rows: one reverse sweep per output scalar, as a build over the output's positions with one-hot
//    cotangents (the primal work the rows share is loop-invariant, so the optimiser hoists it).
// Each takes a first-order function (after forward-ad and inlining) and leaves the original untouched.

import { AnfBuilder, litDouble, mkIf, nested } from "../ir/builder.js";
import { freshVar, typeOf, type Atom, type Expr, type IrFunction, type Var } from "../ir/ir.js";
import { copyFunction } from "../ir/rename.js";
import { reverseSweep } from "../ad/reverse.js";
import { doubleRank } from "../ad/seed.js";
import { fail } from "../syntax/diagnostics.js";
import { showType, type Type } from "../types/types.js";
import { hasTangent } from "../ad/dual-types.js";
import { ProgramFunctions } from "../ad/functions.js";
import { withoutUnusedFunctions } from "../opt/pass.js";

export interface ReverseOptions {
  /** Parameter positions to differentiate with respect to. */
  readonly wrt: readonly number[];
}

const packGrads = (b: AnfBuilder, grads: readonly Atom[]): Atom =>
  grads.length === 1 ? grads[0]! : b.tuple(grads, "grad");

/** fn's gradient: the adjoints of the `wrt` parameters (a tuple when several); fn must return a Double. */
export function reverseGradient(fn: IrFunction, opts: ReverseOptions & { withValue?: boolean }): IrFunction {
  const resultType = typeOf(fn.body);
  // Front ends check the result type first (src/api/derivatives.ts, requireDoubleResult).
  if (resultType.k !== "double") throw new Error(`reverseGradient: \`${fn.name}\` returns ${showType(resultType)}`);
  const f = copyFunction(fn);
  const b = new AnfBuilder();
  const wrt = opts.wrt.map((k) => f.params[k]!);
  const table = functionsOf(fn, `${fn.name}'`);
  const { value, adjoint } = reverseSweep(f.body, wrt, litDouble(1), b, undefined, table);
  const grads = wrt.map(adjoint);
  const result = opts.withValue ? b.tuple([value, ...grads], "vg") : packGrads(b, grads);
  return withFunctions({ name: `${fn.name}'`, params: f.params, body: b.finish(result) }, table);
}

/** The functions of `fn`'s program, to which its reverse-mode derivative adds theirs (src/ad/reverse-functions.ts). */
export function functionsOf(fn: IrFunction, entryName: string): ProgramFunctions | undefined {
  if (fn.functions === undefined || fn.functions.length === 0) return undefined;
  return new ProgramFunctions(fn.functions, undefined, new Set([entryName]));
}

export function withFunctions(fn: IrFunction, table: ProgramFunctions | undefined): IrFunction {
  return table === undefined ? fn : withoutUnusedFunctions({ ...fn, functions: table.all() });
}

/** (params..., cotangent) -> (value, adjoints of the wrt parameters...). */
export function vjpFunction(fn: IrFunction, opts: ReverseOptions): IrFunction {
  const f = copyFunction(fn);
  const ct = freshVar("ct", typeOf(f.body));
  const b = new AnfBuilder();
  const wrt = opts.wrt.map((k) => f.params[k]!);
  const table = functionsOf(fn, `${fn.name}_vjp`);
  const { value, adjoint } = reverseSweep(f.body, wrt, ct, b, undefined, table);
  const result = b.tuple([value, ...wrt.map(adjoint)], "vjp");
  return withFunctions({ name: `${fn.name}_vjp`, params: [...f.params, ct], body: b.finish(result) }, table);
}

/**
 * The Jacobian by rows: for an output of type Array^r<Double>, a build over its positions (r levels) of the wrt
 * parameters' adjoints for the one-hot cotangent at that position. For an output that is a tuple (nested tuples whose
 * leaves are Doubles, arrays of Doubles, or values without a tangent), one such build per leaf with a tangent, in
 * order (a tuple of them when there are several): the cotangent is one-hot in that leaf and zero in the others. The
 * output's shape comes from a first primal run.
 */
export function reverseJacobian(fn: IrFunction, opts: ReverseOptions): IrFunction {
  const resultType = typeOf(fn.body);
  const leaves = jacobianLeaves(resultType);
  if (leaves === undefined)
    fail(
      "unsupported",
      `reverse-mode Jacobians need a Double, an array of Doubles, or a tuple of these as the result; \`${fn.name}\` returns ${showType(resultType)}`,
    );
  const shapeRun = copyFunction(fn);
  const f = copyFunction(fn);
  const b = new AnfBuilder();
  const table = functionsOf(fn, `${fn.name}_jac`);
  // The primal once, for the output's shape (its work is shared with the rows' primal by the optimiser).
  const y = b.bind("y", renameParams(shapeRun, f.params));
  const rowsOf = (leaf: JacobianLeaf): Atom => {
    const yLeaf = leaf.path.reduce<Atom>((x, k) => b.proj(k, x, "y"), y);
    const positions: Var[] = [];
    const rows = (bb: AnfBuilder, ys: Atom, depth: number): Atom => {
      if (depth === leaf.rank) {
        const row = copyFunction(fn);
        const body = renameParams(row, f.params);
        const ct = cotangentAt(bb, y, resultType, leaf.path, (c, yl) => oneHot(c, yl, positions));
        const wrt = opts.wrt.map((k) => f.params[k]!);
        const { adjoint } = reverseSweep(body, wrt, ct, bb, undefined, table);
        return packGrads(bb, wrt.map(adjoint));
      }
      const n = bb.prim("length", [ys], "n");
      return bb.build(
        n,
        (p, inner) => {
          positions.push(p);
          const next = depth + 1 < leaf.rank ? inner.prim("get", [ys, p], "row") : ys;
          const r = rows(inner, next, depth + 1);
          positions.pop();
          return r;
        },
        "jac",
        `p${depth}`,
      );
    };
    return rows(b, yLeaf, 0);
  };
  const parts = leaves.map(rowsOf);
  const result = parts.length === 1 ? parts[0]! : b.tuple(parts, "jac");
  return withFunctions({ name: `${fn.name}_jac`, params: f.params, body: b.finish(result) }, table);
}

/** A leaf of a Jacobian's output with a tangent: its path of tuple positions and its number of array levels. */
export interface JacobianLeaf {
  readonly path: readonly number[];
  readonly rank: number;
}

/**
 * The leaves with a tangent of an output type made of tuples (depth first), each a Double or an array of Doubles;
 * undefined when a leaf with a tangent is anything else (an array of tuples) or none has one.
 */
export function jacobianLeaves(t: Type): JacobianLeaf[] | undefined {
  const out: JacobianLeaf[] = [];
  const visit = (u: Type, path: readonly number[]): boolean => {
    if (u.k === "tuple") return u.elems.every((e, i) => visit(e, [...path, i]));
    if (!hasTangent(u)) return true;
    const rank = doubleRank(u);
    if (rank === undefined) return false;
    out.push({ path, rank });
    return true;
  };
  return visit(t, []) && out.length > 0 ? out : undefined;
}

/**
 * A cotangent of the output `y` (of type `t`) that is `leaf(b, y at path)` at `path` and zero elsewhere (a part without
 * a tangent is passed as it is: reverse mode ignores it).
 */
function cotangentAt(
  b: AnfBuilder,
  y: Atom,
  t: Type,
  path: readonly number[],
  leaf: (b: AnfBuilder, y: Atom) => Atom,
): Atom {
  if (path.length === 0) return leaf(b, y);
  if (t.k !== "tuple") throw new Error("cotangentAt: a path into a value that is not a tuple");
  const parts = t.elems.map((e, k) => {
    const yk = b.proj(k, y, "y");
    if (k === path[0]) return cotangentAt(b, yk, e, path.slice(1), leaf);
    return zeroCotangent(b, yk, e);
  });
  return b.tuple(parts, "ct");
}

/** A zero cotangent for `y` of type `t` (its parts without a tangent as they are). */
function zeroCotangent(b: AnfBuilder, y: Atom, t: Type): Atom {
  if (!hasTangent(t)) return y;
  if (t.k === "double") return litDouble(0);
  if (t.k === "tuple")
    return b.tuple(
      t.elems.map((e, k) => zeroCotangent(b, b.proj(k, y, "y"), e)),
      "zero",
    );
  return b.prim("zerosLike", [y], "zero");
}

/** The body of `copy` with its parameters replaced by `params` (let-bound, so the copy's ids stay unique). */
export function renameParams(copy: IrFunction, params: readonly Var[]): Expr {
  const b = new AnfBuilder();
  copy.params.forEach((p, i) => b.bindVar(p, params[i]!));
  return b.finish(copy.body);
}

/** An array shaped like `y` (Array^r<Double>, r = at.length) with 1 at position `at` and 0 elsewhere. */
function oneHot(b: AnfBuilder, y: Atom, at: readonly Var[]): Atom {
  if (at.length === 0) return litDouble(1);
  const level = (bb: AnfBuilder, ys: Atom, depth: number): Atom => {
    const n = bb.prim("length", [ys], "n");
    return bb.build(
      n,
      (j, inner) => {
        const hit = inner.prim("eq", [j, at[depth]!], "hit");
        if (depth + 1 === at.length) return inner.bind("c", mkIf(hit, litDouble(1), litDouble(0)));
        const row = inner.prim("get", [ys, j], "row");
        return inner.bind(
          "c",
          mkIf(
            hit,
            nested((x) => level(x, row, depth + 1)),
            nested((x) => x.prim("zerosLike", [row], "zero")),
          ),
        );
      },
      "ct",
      `j${depth}`,
    );
  };
  return level(b, y, 0);
}
