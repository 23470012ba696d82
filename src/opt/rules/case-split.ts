// Case split on a one-hot condition (paper 000 Fig. 7f, last rule: e -> if c then e[c := true] else e[c := false]):
//
//   build n (fun j -> ... let c = (j = q) in rest)  ->  build n (fun j -> ... let c = (j = q) in if c then rest else
// rest)
//
// with q the index of an enclosing loop (or a parameter), c used in `rest` only as the condition of conditionals (at
// least twice), and the two copies of `rest` simplified under the fact c (resp. not c) by if-known. In a vectorised
// forward derivative, c says "this element is
// the one the seed hits": the copy for `not c` has a zero tangent everywhere, which the ring rules and dead-let removal
// collapse (with its primal work), and the copy for c runs once per column. The split is exact (both copies are
// `rest`); it is bounded by the size of `rest` and fires once per condition, since inside the copies c is known and its
// uses are gone. When `let c` is in a branch of the body (not in a nested loop), the whole body is split on a new
// `let hit = (j = q)` at its top, which decides the conditions equal to it.

import { mkIf, splitLets, wrapLets, type Binding } from "../../ir/builder.js";
import { exprSizeAbove, forEachNode, operands } from "../../ir/free.js";
import { freshVar, type Atom, type Build, type Expr, type Prim, type Var } from "../../ir/ir.js";
import { BOOL } from "../../types/types.js";
import { rule, type RuleContext } from "./rule.js";

/**
 * At most this many nodes in the part of the body that is copied; and at least MIN_REST: a small element (a one-hot
 * seed `if c then (x, 1.) else (x, 0.)`) is better left whole, for the tuple rules once it is fused into its use.
 */
const MAX_REST = 4000;
const MIN_REST = 50;

/**
 * Every use of `v` in `e` is the condition of a conditional, and there are at least two (one conditional, as in a
 * one-hot seed `(x, if c then 1. else 0.)`, gains nothing from a copy of `e`); so `e` is not already split.
 */
function usedOnlyAsCondition(v: Var, e: Expr): boolean {
  let asCond = 0;
  let other = 0;
  forEachNode(e, (n) => {
    for (const a of operands(n)) {
      if (a.kind !== "var" || a.id !== v.id) continue;
      if (n.kind === "if" && n.cond === a) asCond++;
      else other++;
    }
  });
  return other === 0 && asCond >= 2;
}

/** MIN_REST <= exprSize(e) <= MAX_REST, walking at most MAX_REST + 1 nodes of e. */
const worthCopying = (e: Expr): boolean => !exprSizeAbove(e, MAX_REST) && exprSizeAbove(e, MIN_REST - 1);

function splitLoop(loop: Build, ctx: RuleContext): Expr | undefined {
  // The binders of the body and its lets' right-hand sides, collected at the first comparison (most bodies have none).
  let bound: Set<number> | undefined;
  const defs = new Map<number, Expr>();
  const collect = (): Set<number> => {
    const ids = new Set<number>([loop.index.id]);
    forEachNode(loop.body, (n) => {
      if (n.kind === "let") {
        ids.add(n.v.id);
        defs.set(n.v.id, n.rhs);
      }
      if (n.kind === "build" || n.kind === "ifold") ids.add(n.index.id);
      if (n.kind === "ifold" || n.kind === "while") ids.add(n.acc.id);
      if (n.kind === "lam") ids.add(n.param.id);
    });
    return ids;
  };
  const isIndex = (a: Atom): boolean => {
    if (a.kind !== "var") return false;
    if (a.id === loop.index.id) return true;
    const d = defs.get(a.id);
    return d?.kind === "prim" && d.op === "checkIndex" && d.args[0]!.kind === "var" && d.args[0]!.id === loop.index.id;
  };
  // q is an enclosing loop's index (or a parameter), not a computed value: the column of a vectorised derivative.
  const outside = (a: Atom) => a.kind === "var" && !bound!.has(a.id) && ctx.definition(a) === undefined;
  const oneHot = (rhs: Expr): boolean => {
    if (rhs.kind !== "prim" || rhs.op !== "eq") return false;
    bound ??= collect();
    const [x, y] = rhs.args as [Atom, Atom];
    return (isIndex(x) && outside(y)) || (isIndex(y) && outside(x));
  };

  // The split conditions already at the top of the body (a body split before starts with one).
  const top = splitLets(loop.body).bindings.filter((b) => oneHot(b.rhs));
  const sameAtom = (a: Atom, b: Atom) =>
    a.kind === "var" ? b.kind === "var" && a.id === b.id : b.kind === "lit" && a.value === b.value;
  const atTop = (rhs: Expr) =>
    top.some((b) => (b.rhs as Prim).args.every((a, i) => sameAtom(a, (rhs as Prim).args[i]!)));
  let nested: Prim | undefined;

  const inScope = (e: Expr, depth: number): Expr | undefined => {
    const { bindings, tail } = splitLets(e);
    const rebuilt = (k: number, rhs: Expr): Expr => {
      const bs: Binding[] = bindings.map((b, i) => (i === k ? { v: b.v, rhs } : b));
      return wrapLets(bs, tail);
    };
    for (let k = 0; k < bindings.length; k++) {
      const { v, rhs } = bindings[k]!;
      if (oneHot(rhs)) {
        const rest = wrapLets(bindings.slice(k + 1), tail);
        if (depth === 0 && usedOnlyAsCondition(v, rest) && worthCopying(rest)) {
          return wrapLets(bindings.slice(0, k + 1), mkIf(v, rest, ctx.copy(rest)));
        }
        // In a branch: the whole body is split on the same condition (if-known then decides this one).
        const byIndex = (rhs as Prim).args.some((a) => a.kind === "var" && a.id === loop.index.id);
        if (depth > 0 && nested === undefined && byIndex && !atTop(rhs) && usedOnlyAsCondition(v, rest)) {
          nested = rhs as Prim;
        }
      }
      if (rhs.kind === "if") {
        const t = inScope(rhs.then, depth + 1);
        if (t !== undefined) return rebuilt(k, { ...rhs, then: t });
        const f = inScope(rhs.else, depth + 1);
        if (f !== undefined) return rebuilt(k, { ...rhs, else: f });
      }
    }
    if (tail.kind === "if") {
      const t = inScope(tail.then, depth + 1);
      if (t !== undefined) return wrapLets(bindings, { ...tail, then: t });
      const f = inScope(tail.else, depth + 1);
      if (f !== undefined) return wrapLets(bindings, { ...tail, else: f });
    }
    return undefined;
  };
  const body = inScope(loop.body, 0);
  if (body !== undefined) return { ...loop, body };
  if (nested === undefined || !worthCopying(loop.body)) return undefined;
  const c = freshVar("hit", BOOL);
  return { ...loop, body: wrapLets([{ v: c, rhs: nested }], mkIf(c, loop.body, ctx.copy(loop.body))) };
}

export const caseSplitBuild = rule({
  name: "case-split-build",
  head: "build",
  doc: "build n (fun j -> .. let c = (j = q) in e) -> build n (fun j -> .. let c = (j = q) in if c then e else e)   (q invariant)",
  // A tuple state is left to fission and single access first (the tangent loop of a dot product).
  apply: (node, ctx) => (node.type.k === "tuple" ? undefined : splitLoop(node, ctx)),
});
