// Let sinking: a let whose every use is inside one branch of a later conditional of the same let chain moves into
// that branch, so it is computed only when the branch is taken. Processing a chain from its end carries a whole group
// of lets that feed each other into the branch.
//
// This is what lets the iteration rules see a loop body as `if i = j then (...) else a`: the work of the hot branch
// (say `v2[i]`) is otherwise computed in front of the conditional on every iteration. Nothing moves into a loop
// (that would repeat it), and moving a let into a branch can only skip its evaluation: the only observable change is
// that an error it would have raised when the branch is not taken is not raised, as with dead-code elimination.

import { splitLets, wrapLets, type Binding } from "../ir/builder.js";
import { binders, children, operands } from "../ir/free.js";
import { mkLet, type Expr, type If, type IrFunction } from "../ir/ir.js";
import type { Pass } from "./pass.js";

export function sinkLets(fn: IrFunction): { fn: IrFunction; sunk: number } {
  const s = new Sinker();
  return { fn: { ...fn, body: s.scope(fn.body) }, sunk: s.sunk };
}

export const sinkPass: Pass = {
  name: "sink",
  run: (fn) => sinkLets(fn).fn,
};

/** A conditional of the chain (a let's right-hand side, or the tail) and the uses in each of its branches. */
interface Target {
  node: If;
  thenUses: Map<number, number>;
  elseUses: Map<number, number>;
  /** Positions (in the chain) of the lets sunk into each branch, in order. */
  thenLets: number[];
  elseLets: number[];
}

class Sinker {
  sunk = 0;
  private readonly usesOf = new WeakMap<Expr, ReadonlyMap<number, number>>();

  scope(e: Expr): Expr {
    const { bindings, tail: t0 } = splitLets(e);
    const rhss = bindings.map((b) => this.node(b.rhs));
    const tail = this.node(t0);
    // Binder ids are unique, so a chain variable's uses are its free uses in the later right-hand sides and the tail.
    const counts = new Map<number, number>();
    for (const x of [...rhss, tail]) addCounts(counts, this.uses(x));
    // Targets by position in the chain (bindings.length for the tail).
    const targets = new Map<number, Target>();
    const target = (x: Expr) =>
      x.kind === "if"
        ? {
            node: x,
            thenUses: new Map(this.uses(x.then)),
            elseUses: new Map(this.uses(x.else)),
            thenLets: [],
            elseLets: [],
          }
        : undefined;
    rhss.forEach((r, k) => {
      const t = target(r);
      if (t) targets.set(k, t);
    });
    const tailTarget = target(tail);
    if (tailTarget) targets.set(bindings.length, tailTarget);
    const kept: (Binding | undefined)[] = bindings.map((b, k) => ({ v: b.v, rhs: rhss[k]! }));
    for (let k = bindings.length - 1; k >= 0; k--) {
      const { v, rhs } = kept[k]!;
      const total = counts.get(v.id) ?? 0;
      if (total === 0) continue;
      for (const [pos, t] of targets) {
        if (pos <= k) continue;
        const side =
          (t.thenUses.get(v.id) ?? 0) === total ? "then" : (t.elseUses.get(v.id) ?? 0) === total ? "else" : undefined;
        if (side === undefined) continue;
        // The right-hand side's own uses now happen in that branch.
        const into = side === "then" ? t.thenUses : t.elseUses;
        addCounts(into, this.uses(rhs));
        (side === "then" ? t.thenLets : t.elseLets).unshift(k);
        kept[k] = undefined;
        this.sunk++;
        break;
      }
    }
    // A let sunk into a branch takes along what was sunk into its own branches (when it is a conditional too).
    const materialise = (k: number): Binding => ({ v: bindings[k]!.v, rhs: withSunk(rhss[k]!, k) });
    const withSunk = (x: Expr, pos: number): Expr => {
      const t = targets.get(pos);
      if (t === undefined || (t.thenLets.length === 0 && t.elseLets.length === 0)) return x;
      return {
        ...t.node,
        then: wrapLets(t.thenLets.map(materialise), t.node.then),
        else: wrapLets(t.elseLets.map(materialise), t.node.else),
      };
    };
    let out = withSunk(tail, bindings.length);
    for (let k = bindings.length - 1; k >= 0; k--) {
      if (kept[k] !== undefined) out = mkLet(bindings[k]!.v, withSunk(rhss[k]!, k), out);
    }
    return out;
  }

  /**
   * How many times each variable free in `e` is used in it, remembered per node: sinking works from the innermost
   * chains out, and counting each branch again at every enclosing level was quadratic in the nesting depth.
   */
  private uses(e: Expr): ReadonlyMap<number, number> {
    const known = this.usesOf.get(e);
    if (known !== undefined) return known;
    const counts = new Map<number, number>();
    if (e.kind === "let") {
      const { bindings, tail } = splitLets(e);
      for (const b of bindings) addCounts(counts, this.uses(b.rhs));
      addCounts(counts, this.uses(tail));
      for (const b of bindings) counts.delete(b.v.id);
    } else {
      for (const a of operands(e)) if (a.kind === "var") counts.set(a.id, (counts.get(a.id) ?? 0) + 1);
      for (const c of children(e)) addCounts(counts, this.uses(c));
      for (const b of binders(e)) counts.delete(b.id);
    }
    this.usesOf.set(e, counts);
    return counts;
  }

  private node(e: Expr): Expr {
    switch (e.kind) {
      case "if":
        return { ...e, then: this.scope(e.then), else: this.scope(e.else) };
      case "lam":
      case "build":
      case "ifold":
        return { ...e, body: this.scope(e.body) };
      case "while":
        return { ...e, cond: this.scope(e.cond), body: this.scope(e.body) };
      default:
        return e;
    }
  }
}

function addCounts(into: Map<number, number>, from: ReadonlyMap<number, number>): void {
  for (const [id, n] of from) into.set(id, (into.get(id) ?? 0) + n);
}
