// Reverse-mode derivative programs of code that keeps tapes: a reverse-mode derivative of a recursive function
// (src/ad/reverse-functions.ts), such as the library's grad(f) of one. Reverse mode does not reverse tapes again
// (src/ad/reverse.ts, reverseOverTapes), so every kind ./derivatives.ts asks of reverse mode is made from forward
// mode's Jacobian columns instead (ARCHITECTURE.md: a gradient of it is taken in forward mode), in the layout reverse
// mode would give:
//  - gradient: the columns of a Double result are the gradient;
//  - vjp: per differentiated parameter, over its positions, the column's inner product with the cotangent;
//  - jacobian-rows: per output leaf, over its positions, per parameter, the column entries there (transposed);
//  - hessian: forward mode over the forward gradient.
// Each costs one forward sweep per input scalar, where reverse mode's would have cost one sweep in all.

import { AnfBuilder } from "../ir/builder.js";
import { freshVar, typeOf, type Atom, type IrFunction, type Var } from "../ir/ir.js";
import { mapElements, readAt } from "../ir/axes.js";
import { copyFunction } from "../ir/rename.js";
import { functionsOfAll, withProgramFunctions } from "../ir/program-functions.js";
import { doubleRank, innerProduct, tangentType } from "../ad/seed.js";
import { fail } from "../syntax/diagnostics.js";
import { showType, type Type } from "../types/types.js";
import { forwardDerivative, type DerivativeOptions } from "./derivative-programs.js";
import { jacobianLeaves } from "./reverse-programs.js";

export type ReverseKind = "gradient" | "value-gradient" | "vjp" | "jacobian-rows" | "hessian";

/** The derivative program `kind` of `fn` (which keeps tapes), by forward mode. */
export function derivativeByForward(fn: IrFunction, kind: ReverseKind, opts: DerivativeOptions): IrFunction {
  const columns = forwardDerivative(fn, opts);
  switch (kind) {
    case "gradient":
      return columns;
    case "hessian":
      return forwardDerivative(columns, opts);
    case "value-gradient":
      return assemble(fn, [fn, columns], [], (b, [value, grads]) => [value!, ...parts(b, grads!, opts.wrt.length)]);
    case "vjp":
      return vjpByForward(fn, columns, opts.wrt);
    case "jacobian-rows":
      return rowsByForward(fn, columns, opts.wrt);
  }
}

/**
 * A function of `fn`'s parameters and `extra` ones, whose result `result` makes from the bodies of `parts` (each a
 * function of `fn`'s parameters) bound to those parameters.
 */
function assemble(
  fn: IrFunction,
  inlined: readonly IrFunction[],
  extra: readonly Var[],
  result: (b: AnfBuilder, values: readonly Atom[], params: readonly Var[]) => readonly Atom[],
): IrFunction {
  const b = new AnfBuilder();
  const params = fn.params.map((p) => freshVar(p.name, p.type));
  const values = inlined.map((f, k) => {
    const copy = copyFunction(f);
    copy.params.forEach((p, i) => b.bindVar(p, params[i]!));
    return b.bind(k === 0 ? "value" : "columns", copy.body);
  });
  const out = result(b, values, [...params, ...extra]);
  const body = b.finish(out.length === 1 ? out[0]! : b.tuple(out, "d"));
  return withProgramFunctions({ name: `${fn.name}'`, params: [...params, ...extra], body }, functionsOfAll(inlined));
}

/** The n parts of a forward derivative's result (a tuple when n > 1). */
const parts = (b: AnfBuilder, x: Atom, n: number): Atom[] =>
  n === 1 ? [x] : Array.from({ length: n }, (_, i) => b.proj(i, x, "part"));

/** The wrt parameter k's rank (forwardDerivative has refused the others). */
const rankOf = (fn: IrFunction, k: number): number => doubleRank(fn.params[k]!.type)!;

/** (params..., ct) -> (value, Jᵀ ct per wrt parameter): column j's inner product with ct at position j. */
function vjpByForward(fn: IrFunction, columns: IrFunction, wrt: readonly number[]): IrFunction {
  const resultType = typeOf(fn.body);
  const ct = freshVar("ct", resultType);
  return assemble(fn, [fn, columns], [ct], (b, [value, cols]) => [
    value!,
    ...parts(b, cols!, wrt.length).map((c, i) =>
      mapElements(b, c, rankOf(fn, wrt[i]!), (bb, column) => innerProduct(bb, ct, column, resultType)),
    ),
  ]);
}

/**
 * The Jacobian by rows, in reverseJacobian's layout: per leaf of the output (a Double or an array of Doubles, in a
 * tuple or not; a tuple of them when several), over its positions o, per wrt parameter, the array shaped like it
 * whose element at position p is column p's element at o.
 */
function rowsByForward(fn: IrFunction, columns: IrFunction, wrt: readonly number[]): IrFunction {
  const resultType = typeOf(fn.body);
  const leaves = jacobianLeaves(resultType);
  if (leaves === undefined)
    fail(
      "unsupported",
      `reverse-mode Jacobians need a Double, an array of Doubles, or a tuple of these as the result; \`${fn.name}\` returns ${showType(resultType)}`,
    );
  return assemble(fn, [fn, columns], [], (b, [y, cols]) => {
    const blocks = parts(b, cols!, wrt.length);
    const perLeaf = leaves.map((leaf) => {
      const at: Atom[] = [];
      const rows = (bb: AnfBuilder, ys: Atom, depth: number): Atom => {
        if (depth === leaf.rank) {
          const row = blocks.map((c, i) =>
            mapElements(bb, c, rankOf(fn, wrt[i]!), (e, col) =>
              readAt(e, tangentLeaf(e, col, resultType, leaf.path), at),
            ),
          );
          return row.length === 1 ? row[0]! : bb.tuple(row, "row");
        }
        return bb.build(
          bb.prim("length", [ys], "n"),
          (o, inner) => {
            at.push(o);
            const r = rows(inner, depth + 1 < leaf.rank ? inner.prim("get", [ys, o], "y") : ys, depth + 1);
            at.pop();
            return r;
          },
          "jac",
          `o${depth}`,
        );
      };
      return rows(
        b,
        leaf.path.reduce<Atom>((x, k) => b.proj(k, x, "y"), y!),
        0,
      );
    });
    return [perLeaf.length === 1 ? perLeaf[0]! : b.tuple(perLeaf, "jac")];
  });
}

/**
 * The part of a tangent (of tangentType(t), which drops the parts of tuples without Doubles and a tuple left with one
 * part is that part) at `path`, a path of tuple positions in `t`.
 */
function tangentLeaf(b: AnfBuilder, tangent: Atom, t: Type, path: readonly number[]): Atom {
  if (path.length === 0) return tangent;
  if (t.k !== "tuple") throw new Error("tangentLeaf: a path into a value that is not a tuple");
  const kept = t.elems.flatMap((e, k) => (tangentType(e) === undefined ? [] : [k]));
  const part = kept.length === 1 ? tangent : b.proj(kept.indexOf(path[0]!), tangent, "t");
  return tangentLeaf(b, part, t.elems[path[0]!]!, path.slice(1));
}
