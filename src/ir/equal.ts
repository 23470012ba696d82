// Alpha-equivalence of IR expressions: equal up to the names and ids of the variables they bind. Used by rewrite
// rules that compare subterms (`if c then e else e`) and, later, by common-subexpression elimination.

import { typeEq } from "../types/types.js";
import { binders, operands, someNode } from "./free.js";
import { tangentMarkKey, type Atom, type Expr, type Var } from "./ir.js";
import { compileWork } from "./work.js";

/** True when `a` and `b` are the same expression up to renaming of their binders. Free variables must be identical. */
export function alphaEqual(a: Expr, b: Expr): boolean {
  return new Matcher().expr(a, b);
}

/**
 * A key of `e` that alpha-equal expressions share: its first `limit` nodes (pre-order) and their operands, binders
 * numbered as they are met, free variables by id (types left out). Expressions are bucketed by key before alphaEqual
 * compares them, so that finding the equal ones among n takes about n comparisons rather than n² / 2 (loops of one
 * shape over different values differ early: in what they read). Bounded, so that keying nested loops stays linear.
 */
export function alphaKey(e: Expr, limit = Infinity): string {
  const binder = new Map<number, number>();
  const parts: string[] = [];
  const atom = (a: Atom) => {
    if (a.kind === "lit") parts.push(Object.is(a.value, -0) ? "-0" : String(a.value));
    else parts.push(binder.has(a.id) ? `#${binder.get(a.id)}` : `v${a.id}`);
  };
  let seen = 0;
  someNode(e, (n) => {
    if (++seen > limit) return true;
    for (const v of binders(n)) binder.set(v.id, binder.size);
    parts.push(n.kind === "prim" ? n.op : n.kind === "proj" ? `p${n.index}` : n.kind === "call" ? n.fn : n.kind);
    if (n.kind !== "let" && n.kind !== "lam") for (const a of operands(n)) atom(a);
    return false;
  });
  return parts.join(" ");
}

/** Literal equality that tells -0 from 0 and equates NaN with NaN (the values a program can observe). */
export function sameLiteral(x: number | boolean, y: number | boolean): boolean {
  return Object.is(x, y);
}

class Matcher {
  /** Binder of `a` (by id) -> the corresponding binder of `b`. */
  private readonly pairs = new Map<number, number>();

  private bind(x: Var, y: Var): boolean {
    if (!typeEq(x.type, y.type)) return false;
    this.pairs.set(x.id, y.id);
    return true;
  }

  private atom(x: Atom, y: Atom): boolean {
    if (x.kind === "lit") return y.kind === "lit" && sameLiteral(x.value, y.value) && typeEq(x.type, y.type);
    if (y.kind !== "var") return false;
    const mapped = this.pairs.get(x.id);
    return mapped === undefined ? x.id === y.id : mapped === y.id;
  }

  private atoms(xs: readonly Atom[], ys: readonly Atom[]): boolean {
    return xs.length === ys.length && xs.every((x, i) => this.atom(x, ys[i]!));
  }

  expr(a: Expr, b: Expr): boolean {
    compileWork.nodes++;
    // Let chains are compared iteratively.
    while (a.kind === "let") {
      if (b.kind !== "let" || !this.expr(a.rhs, b.rhs) || !this.bind(a.v, b.v)) return false;
      a = a.body;
      b = b.body;
    }
    switch (a.kind) {
      case "var":
      case "lit":
        return (b.kind === "var" || b.kind === "lit") && this.atom(a, b);
      case "prim":
        // Forward mode's tangent arithmetic (Prim.tangent) is not the same as the primal operation: a zero tangent is
        // a symbolic zero.
        return (
          b.kind === "prim" &&
          a.op === b.op &&
          tangentMarkKey(a) === tangentMarkKey(b) &&
          typeEq(a.type, b.type) &&
          this.atoms(a.args, b.args)
        );
      case "call":
        return b.kind === "call" && a.fn === b.fn && this.atoms(a.args, b.args);
      case "tuple":
        return b.kind === "tuple" && this.atoms(a.elems, b.elems);
      case "proj":
        return b.kind === "proj" && a.index === b.index && this.atom(a.arg, b.arg);
      case "app":
        return b.kind === "app" && this.atom(a.fn, b.fn) && this.atom(a.arg, b.arg);
      case "jvp":
        return b.kind === "jvp" && a.reverse === b.reverse && this.atom(a.fn, b.fn);
      case "lam":
        return b.kind === "lam" && this.bind(a.param, b.param) && this.expr(a.body, b.body);
      case "if":
        return b.kind === "if" && this.atom(a.cond, b.cond) && this.expr(a.then, b.then) && this.expr(a.else, b.else);
      case "build":
        return (
          b.kind === "build" && this.atom(a.size, b.size) && this.bind(a.index, b.index) && this.expr(a.body, b.body)
        );
      case "ifold":
        return (
          b.kind === "ifold" &&
          this.atom(a.init, b.init) &&
          this.atom(a.count, b.count) &&
          this.bind(a.acc, b.acc) &&
          this.bind(a.index, b.index) &&
          this.expr(a.body, b.body)
        );
      case "while":
        return (
          b.kind === "while" &&
          this.atom(a.init, b.init) &&
          this.bind(a.acc, b.acc) &&
          this.expr(a.cond, b.cond) &&
          this.expr(a.body, b.body)
        );
      case "custom":
        return b.kind === "custom" && a.mode === b.mode && this.atom(a.fn, b.fn) && this.atoms(a.rules, b.rules);
    }
  }
}
