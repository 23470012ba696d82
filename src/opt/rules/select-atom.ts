// `if-select-atom`: inside a loop, the branches of `if c then E[a] else E[b]` that differ only in one compared atom
// become one computation of the atom chosen first: `let k = if c then a else b in E[k]`. With c, a and b invariant
// in the loop, the choice then leaves it (licm) and E runs without a branch. A selection fold's derivative (one-hot
// at the selected index, or at the initial value's index when no element was selected: ../../ad/selection-folds.ts)
// is the case that matters: `build n (fun p -> if none then (if 0 = p ..) else (if at = p ..))`.
//
// Only atoms that are compared (arguments of a primitive with a Bool result) may differ: `distribute-over-if` moves
// arithmetic on a selected value back into the branches, and a compared atom is never such an argument, so the two
// rules cannot undo each other.

import { mkIf } from "../../ir/builder.js";
import { freshVar, type Atom, type Expr, type Var } from "../../ir/ir.js";
import { typeEq } from "../../types/types.js";
import { sameLiteral } from "../../ir/equal.js";
import { rule } from "./rule.js";

/** The pair of atoms by which the branches differ, and the variable standing for the chosen one. */
interface Difference {
  readonly a: Atom;
  readonly b: Atom;
  readonly k: Var;
}

/**
 * The branches merged into one expression (with `then`'s binders), a differing compared atom replaced by `k`; or
 * undefined when they differ otherwise (or in a construct this rule does not look into: lambdas, calls, while).
 */
class BranchMerge {
  /** Binder of `else` (by id) -> the corresponding binder of `then`. */
  private readonly pairs = new Map<number, number>();
  /** Binders of `then`. */
  private readonly bound = new Set<number>();
  difference: Difference | undefined;

  private bind(x: Var, y: Var): boolean {
    if (!typeEq(x.type, y.type)) return false;
    this.pairs.set(y.id, x.id);
    this.bound.add(x.id);
    return true;
  }

  private same(x: Atom, y: Atom): boolean {
    if (x.kind === "lit") return y.kind === "lit" && sameLiteral(x.value, y.value) && typeEq(x.type, y.type);
    return y.kind === "var" && (this.pairs.get(y.id) ?? y.id) === x.id;
  }

  /** The merged atom: x itself, or k where x and y are the (one) differing pair of free atoms. */
  private atom(x: Atom, y: Atom, compared: boolean): Atom | undefined {
    if (this.same(x, y)) return x;
    if (!compared || !typeEq(x.type, y.type)) return undefined;
    if ((x.kind === "var" && this.bound.has(x.id)) || (y.kind === "var" && this.pairs.has(y.id))) return undefined;
    const d = this.difference ?? { a: x, b: y, k: freshVar("k", x.type) };
    if (!freeSame(d.a, x) || !freeSame(d.b, y)) return undefined;
    this.difference = d;
    return d.k;
  }

  private atoms(xs: readonly Atom[], ys: readonly Atom[], compared: boolean): Atom[] | undefined {
    if (xs.length !== ys.length) return undefined;
    const out: Atom[] = [];
    for (let i = 0; i < xs.length; i++) {
      const m = this.atom(xs[i]!, ys[i]!, compared);
      if (m === undefined) return undefined;
      out.push(m);
    }
    return out;
  }

  expr(a: Expr, b: Expr): Expr | undefined {
    switch (a.kind) {
      case "let": {
        if (b.kind !== "let") return undefined;
        const rhs = this.expr(a.rhs, b.rhs);
        if (rhs === undefined || !this.bind(a.v, b.v)) return undefined;
        const body = this.expr(a.body, b.body);
        return body && { ...a, rhs, body };
      }
      case "var":
      case "lit":
        return (b.kind === "var" || b.kind === "lit") && this.same(a, b) ? a : undefined;
      case "prim": {
        if (b.kind !== "prim" || a.op !== b.op || !typeEq(a.type, b.type) || a.tangent !== b.tangent) return undefined;
        const args = this.atoms(a.args, b.args, a.type.k === "bool");
        return args && { ...a, args };
      }
      case "tuple": {
        if (b.kind !== "tuple") return undefined;
        const elems = this.atoms(a.elems, b.elems, false);
        return elems && { ...a, elems };
      }
      case "proj":
        return b.kind === "proj" && a.index === b.index && this.same(a.arg, b.arg) ? a : undefined;
      case "if": {
        if (b.kind !== "if" || !this.same(a.cond, b.cond)) return undefined;
        const then = this.expr(a.then, b.then);
        const els = then && this.expr(a.else, b.else);
        return els && { ...a, then, else: els };
      }
      case "build": {
        if (b.kind !== "build" || !this.same(a.size, b.size) || !this.bind(a.index, b.index)) return undefined;
        const body = this.expr(a.body, b.body);
        return body && { ...a, body };
      }
      case "ifold": {
        if (b.kind !== "ifold" || !this.same(a.init, b.init) || !this.same(a.count, b.count)) return undefined;
        if (!this.bind(a.acc, b.acc) || !this.bind(a.index, b.index)) return undefined;
        const body = this.expr(a.body, b.body);
        return body && { ...a, body };
      }
      default:
        return undefined;
    }
  }
}

const freeSame = (x: Atom, y: Atom): boolean =>
  x.kind === "lit" ? y.kind === "lit" && sameLiteral(x.value, y.value) : y.kind === "var" && x.id === y.id;

export const ifSelectAtom = rule({
  name: "if-select-atom",
  head: "if",
  doc: "in a loop: if c then E[a] else E[b] -> let k = if c then a else b in E[k]  (c, a, b invariant; a, b compared)",
  apply(node, ctx) {
    if (node.cond.kind !== "var") return undefined;
    const merge = new BranchMerge();
    const merged = merge.expr(node.then, node.else);
    const d = merge.difference;
    if (merged === undefined || d === undefined) return undefined;
    const chosen = mkIf(node.cond, d.a, d.b);
    if (!ctx.isLoopInvariant(chosen)) return undefined;
    return { kind: "let", v: d.k, rhs: chosen, body: merged };
  },
});
