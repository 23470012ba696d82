// Iteration rules (paper 000, Fig. 7e) and loop unswitching.
//
// The rules that remove iterations (identity, single access, unswitching) would also remove the error of an ifold
// with a negative count, so they apply only where the count is known not to be negative (a length, a loop index...).
// The iterations they skip are pure, except that they may raise errors; skipping them can only remove an index error,
// the difference dead-code elimination accepts too (../dce.ts).

import { AnfBuilder, litIndex, mkIf, splitLets, wrapLets, type Binding } from "../../ir/builder.js";
import type { Atom, Expr, Ifold } from "../../ir/ir.js";
import type { RuleContext } from "./rule.js";
import { rule } from "./rule.js";

const isIndexLit = (a: Atom, v: number) => a.kind === "lit" && a.value === v;

export const ifoldZero = rule({
  name: "ifold-zero",
  head: "ifold",
  doc: "ifold f z 0 -> z",
  apply: (node) => (isIndexLit(node.count, 0) ? node.init : undefined),
});

export const ifoldOnce = rule({
  name: "ifold-once",
  head: "ifold",
  doc: "ifold (fun a i -> e) z 1 -> e[a := z, i := 0]",
  apply(node, ctx) {
    if (!isIndexLit(node.count, 1)) return undefined;
    return ctx.copy(
      node.body,
      new Map<number, Atom>([
        [node.acc.id, node.init],
        [node.index.id, litIndex(0)],
      ]),
    );
  },
});

export const ifoldIdentity = rule({
  name: "ifold-identity",
  head: "ifold",
  doc: "ifold (fun a i -> a) z n -> z   (n >= 0 known)",
  apply(node, ctx) {
    const b = node.body;
    return b.kind === "var" && b.id === node.acc.id && ctx.facts.isNonNegative(node.count) ? node.init : undefined;
  },
});

/**
 * A loop body `lets; if c then e1 else e2` in which one branch is just the state: which branch is not (`hot`), and
 * whether c is true there.
 */
function selectiveBody(node: Ifold): { lets: Binding[]; cond: Atom; hot: Expr; when: boolean } | undefined {
  const { bindings, tail } = splitLets(node.body);
  if (tail.kind !== "if") return undefined;
  const isAcc = (e: Expr) => e.kind === "var" && e.id === node.acc.id;
  if (isAcc(tail.else) && !isAcc(tail.then)) return { lets: bindings, cond: tail.cond, hot: tail.then, when: true };
  if (isAcc(tail.then) && !isAcc(tail.else)) return { lets: bindings, cond: tail.cond, hot: tail.else, when: false };
  return undefined;
}

/** `a` is bound outside the loop (neither its index, its state, nor a let of its body). */
function fromOutside(a: Atom, node: Ifold, lets: readonly Binding[]): boolean {
  if (a.kind === "lit") return true;
  return a.id !== node.index.id && a.id !== node.acc.id && !lets.some((b) => b.v.id === a.id);
}

/**
 * The j of a condition `i = j` or `j = i` (`i <> j` when `when` is false) with j from outside the loop, where i is the
 * loop index or `checkIndex i n`.
 */
function hotIndex(
  node: Ifold,
  lets: readonly Binding[],
  cond: Atom,
  when: boolean,
  ctx: RuleContext,
): Atom | undefined {
  if (cond.kind !== "var") return undefined;
  const d = lets.find((b) => b.v.id === cond.id)?.rhs ?? ctx.definition(cond);
  if (d?.kind !== "prim" || d.op !== (when ? "eq" : "ne")) return undefined;
  const [x, y] = d.args as [Atom, Atom];
  // The index, or `checkIndex i n` (the index of a fused get): the check is kept in the hot iteration.
  const isI = (a: Atom): boolean => {
    if (a.kind !== "var") return false;
    if (a.id === node.index.id) return true;
    const c = lets.find((b) => b.v.id === a.id)?.rhs;
    return c?.kind === "prim" && c.op === "checkIndex" && c.args[0]!.kind === "var" && c.args[0]!.id === node.index.id;
  };
  const j = isI(x) ? y : isI(y) ? x : undefined;
  return j !== undefined && fromOutside(j, node, lets) ? j : undefined;
}

export const singleAccess = rule({
  name: "single-access",
  head: "ifold",
  doc: "ifold (fun a i -> if i = j then g a i else a) z n -> if 0 <= j && j < n then g z j else z   (j independent of a, i)",
  apply(node, ctx) {
    const s = selectiveBody(node);
    if (s === undefined || !ctx.facts.isNonNegative(node.count)) return undefined;
    const j = hotIndex(node, s.lets, s.cond, s.when, ctx);
    if (j === undefined) return undefined;
    // Every other iteration returns its state unchanged, so iteration j starts from z and its result is final.
    const hot = ctx.copy(
      wrapLets(s.lets, s.hot),
      new Map<number, Atom>([
        [node.acc.id, node.init],
        [node.index.id, j],
      ]),
    );
    const b = new AnfBuilder();
    const lo = b.prim("le", [litIndex(0), j], "lo");
    const hi = b.prim("lt", [j, node.count], "hi");
    const ok = b.prim("and", [lo, hi], "ok");
    return b.finish(mkIf(ok, hot, node.init));
  },
});

export const unswitch = rule({
  name: "unswitch",
  head: "ifold",
  doc: "ifold (fun a i -> if c then e else a) z n -> if c then ifold (fun a i -> e) z n else z   (c loop-invariant)",
  apply(node, ctx) {
    const s = selectiveBody(node);
    if (s === undefined || s.cond.kind !== "var" || !fromOutside(s.cond, node, s.lets)) return undefined;
    if (!ctx.facts.isNonNegative(node.count)) return undefined;
    const loop: Ifold = { ...node, body: wrapLets(s.lets, s.hot) };
    return s.when ? mkIf(s.cond, loop, node.init) : mkIf(s.cond, node.init, loop);
  },
});

export const ITERATION_RULES = [ifoldZero, ifoldOnce, ifoldIdentity, singleAccess, unswitch];
