// Let sinking: a let whose every use is inside one branch of a later conditional of the same let chain moves into
// that branch, so it is computed only when the branch is taken. Processing a chain from its end carries a whole group
// of lets that feed each other into the branch.
//
// This is what lets the iteration rules see a loop body as `if i = j then (...) else a`: the work of the hot branch
// (say `v2[i]`) is otherwise computed in front of the conditional on every iteration. Nothing moves into a loop
// (that would repeat it), and moving a let into a branch can only skip its evaluation: the only observable change is
// that an error it would have raised when the branch is not taken is not raised, as with dead-code elimination.

import { splitLets, wrapLets, type Binding } from "../ir/builder.js";
import { forEachNode, operands } from "../ir/free.js";
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

/** A conditional of the chain (a right-hand side or the tail) and the uses of the chain's lets in its branches. */
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

  scope(e: Expr): Expr {
    const { bindings, tail: t0 } = splitLets(e);
    const rhss = bindings.map((b) => this.node(b.rhs));
    const tail = this.node(t0);
    // The chain's conditionals by position (bindings.length for the tail): without one, nothing moves here.
    const positions = [...rhss.keys()].filter((k) => rhss[k]!.kind === "if");
    if (tail.kind === "if") positions.push(bindings.length);
    if (positions.length === 0)
      return wrapLets(
        bindings.map((b, k) => ({ v: b.v, rhs: rhss[k]! })),
        tail,
      );
    // Only the uses of the chain's own variables decide (binder ids are unique, so each is free in the later
    // right-hand sides and the tail): counted by walks of this chain, not kept for every variable of every node.
    const own = new Set(bindings.map((b) => b.v.id));
    const counts = new Map<number, number>();
    for (const x of [...rhss, tail]) countUses(x, own, counts);
    // Which conditionals use each variable in a branch (their positions, ascending): a let is offered to those
    // only, not to every later conditional of the chain (a chain of 10⁴ conditionals would be quadratic).
    const usedAt = new Map<number, number[]>();
    const targets = new Map<number, Target>();
    const addUses = (x: Expr, pos: number, into: Map<number, number>) =>
      countUses(x, own, into, (id) => {
        const at = usedAt.get(id);
        if (at === undefined) usedAt.set(id, [pos]);
        else insertSorted(at, pos);
      });
    for (const pos of positions) {
      const node = (pos === bindings.length ? tail : rhss[pos]!) as If;
      const t: Target = { node, thenUses: new Map(), elseUses: new Map(), thenLets: [], elseLets: [] };
      targets.set(pos, t);
      addUses(node.then, pos, t.thenUses);
      addUses(node.else, pos, t.elseUses);
    }
    const kept: (Binding | undefined)[] = bindings.map((b, k) => ({ v: b.v, rhs: rhss[k]! }));
    for (let k = bindings.length - 1; k >= 0; k--) {
      const { v, rhs } = kept[k]!;
      const total = counts.get(v.id) ?? 0;
      if (total === 0) continue;
      // The first later conditional with every use in one of its branches (then before else).
      for (const pos of usedAt.get(v.id) ?? []) {
        if (pos <= k) continue;
        const t = targets.get(pos)!;
        const side =
          (t.thenUses.get(v.id) ?? 0) === total ? "then" : (t.elseUses.get(v.id) ?? 0) === total ? "else" : undefined;
        if (side === undefined) continue;
        // The right-hand side's own uses now happen in that branch.
        addUses(rhs, pos, side === "then" ? t.thenUses : t.elseUses);
        // Last first: reversed below.
        (side === "then" ? t.thenLets : t.elseLets).push(k);
        kept[k] = undefined;
        this.sunk++;
        break;
      }
    }
    for (const t of targets.values()) {
      t.thenLets.reverse();
      t.elseLets.reverse();
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

/** Adds to `into` how many times each variable of `ids` is used in `e`, telling `seen` of each use. */
function countUses(e: Expr, ids: ReadonlySet<number>, into: Map<number, number>, seen?: (id: number) => void): void {
  forEachNode(e, (n) => {
    for (const a of operands(n)) {
      if (a.kind !== "var" || !ids.has(a.id)) continue;
      into.set(a.id, (into.get(a.id) ?? 0) + 1);
      seen?.(a.id);
    }
  });
}

/** Inserts `x` into the ascending `xs` of distinct numbers unless it is there (mostly at the end: in order). */
function insertSorted(xs: number[], x: number): void {
  if (xs.length === 0 || xs[xs.length - 1]! < x) {
    xs.push(x);
    return;
  }
  let [lo, hi] = [0, xs.length];
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (xs[mid]! < x) lo = mid + 1;
    else hi = mid;
  }
  if (xs[lo] !== x) xs.splice(lo, 0, x);
}
