// Conditional rules (paper 000, Fig. 7f).

import { mkIf, mkPrim, splitLets, wrapLets } from "../../ir/builder.js";
import { alphaEqual } from "../../ir/equal.js";
import { freshVar, typeOf, type Atom, type Expr } from "../../ir/ir.js";
import { BOOL } from "../../types/types.js";
import type { PrimName } from "../../prims/names.js";
import { rule } from "./rule.js";

export const ifLiteral = rule({
  name: "if-literal",
  head: "if",
  doc: "if true then e1 else e2 -> e1;  if false then e1 else e2 -> e2",
  apply(node) {
    if (node.cond.kind !== "lit") return undefined;
    return node.cond.value === true ? node.then : node.else;
  },
});

export const ifKnown = rule({
  name: "if-known",
  head: "if",
  doc: "if c then e1 else e2 -> e1 (or e2) under an enclosing branch of the same condition c",
  apply(node, ctx) {
    const v = ctx.facts.known(node.cond);
    return v === undefined || node.cond.kind === "lit" ? undefined : v ? node.then : node.else;
  },
});

export const ifSameBranches = rule({
  name: "if-same-branches",
  head: "if",
  doc: "if c then e else e -> e   (branches equal up to bound names)",
  apply(node) {
    return alphaEqual(node.then, node.else) ? node.then : undefined;
  },
});

const isBoolLit = (e: Expr, v: boolean) => e.kind === "lit" && e.value === v;

export const ifBool = rule({
  name: "if-bool",
  head: "if",
  doc: "if c then true else false -> c;  if c then false else true -> not c",
  apply(node) {
    if (isBoolLit(node.then, true) && isBoolLit(node.else, false)) return node.cond;
    if (isBoolLit(node.then, false) && isBoolLit(node.else, true)) return mkPrim("not", [node.cond]);
    return undefined;
  },
});

export const logicUnit = rule({
  name: "logic-unit",
  head: "prim",
  ops: ["and", "or"],
  doc: "true && c -> c;  false && c -> false;  false || c -> c;  true || c -> true   (either side)",
  apply(node) {
    if (node.op !== "and" && node.op !== "or") return undefined;
    const unit = node.op === "and";
    for (const k of [0, 1]) {
      const a = node.args[k]!;
      if (a.kind !== "lit") continue;
      return a.value === unit ? node.args[1 - k] : a;
    }
    return undefined;
  },
});

export const ifNot = rule({
  name: "if-not",
  head: "if",
  doc: "if not c then e1 else e2 -> if c then e2 else e1",
  apply(node, ctx) {
    const d = ctx.definition(node.cond);
    if (d?.kind !== "prim" || d.op !== "not") return undefined;
    return mkIf(d.args[0]!, node.else, node.then);
  },
});

/** A branch computing a Bool with a few lets, ending in an atom or a primitive (a comparison). */
function smallCondition(e: Expr): boolean {
  const { bindings, tail } = splitLets(e);
  return bindings.length <= 64 && (tail.kind === "var" || tail.kind === "lit" || tail.kind === "prim");
}

export const ifNestedCondition = rule({
  name: "if-nested-condition",
  head: "if",
  doc: "if (if c1 then c2 else false) then A else B -> if c1 then (if c2 then A else B) else B   (B an atom; and || likewise)",
  apply(node, ctx) {
    const d = ctx.definition(node.cond);
    if (d?.kind !== "if") return undefined;
    const inner = (branch: Expr, a: Expr, b: Expr): Expr => {
      // branch computes a Bool; a copy of it decides between a and b.
      const { bindings, tail } = splitLets(ctx.copy(branch));
      if (tail.kind === "var" || tail.kind === "lit") return wrapLets(bindings, mkIf(tail, a, b));
      const c = freshVar("c", BOOL);
      return wrapLets([...bindings, { v: c, rhs: tail }], mkIf(c, a, b));
    };
    // `c1 && c2`: B is copied, so it must be an atom; likewise A for `c1 || c2`.
    if (isBoolLit(d.else, false) && smallCondition(d.then) && isAtomExpr(node.else)) {
      return mkIf(d.cond, inner(d.then, node.then, node.else), node.else);
    }
    if (isBoolLit(d.then, true) && smallCondition(d.else) && isAtomExpr(node.then)) {
      return mkIf(d.cond, node.then, inner(d.else, node.then, node.else));
    }
    return undefined;
  },
});

const isAtomExpr = (e: Expr) => e.kind === "var" || e.kind === "lit";

/** Binary arithmetic primitives that never fail (Index division can), so computing them in a branch is harmless. */
const DISTRIBUTES = new Set<PrimName>(["add", "sub", "mul", "div", "max", "min"]);

/** At most this many atoms at the leaves of the conditional an operation is distributed over, and lets per leaf. */
const MAX_LEAVES = 4;
const MAX_LEAF_LETS = 3;

/**
 * The leaves of a conditional whose branches are a few lets ending in an atom, a primitive or projection, or in such a
 * conditional; false when it is larger than the bound. `literal` records whether some leaf is a literal (something
 * will fold).
 */
function leaves(e: Expr, out: { count: number; literal: boolean }, maxLets: number, depth = 0): boolean {
  const { bindings, tail } = splitLets(e);
  const simple = tail.kind === "prim" || tail.kind === "proj";
  if (bindings.length + (simple ? 1 : 0) > maxLets) return false;
  if (tail.kind === "var" || tail.kind === "lit" || simple) {
    out.count++;
    if (tail.kind === "lit") out.literal = true;
    return out.count <= MAX_LEAVES;
  }
  if (tail.kind !== "if" || depth > 2) return false;
  return leaves(tail.then, out, maxLets, depth + 1) && leaves(tail.else, out, maxLets, depth + 1);
}

/** `cond` with `wrap` applied to the value at each leaf (`e` is a fresh copy the result may take over). */
function mapLeaves(e: Expr, wrap: (a: Atom) => Expr): Expr {
  const { bindings, tail } = splitLets(e);
  if (tail.kind === "var" || tail.kind === "lit") return wrapLets(bindings, wrap(tail));
  if (tail.kind === "if")
    return wrapLets(bindings, mkIf(tail.cond, mapLeaves(tail.then, wrap), mapLeaves(tail.else, wrap)));
  const v = freshVar("t", typeOf(tail));
  return wrapLets([...bindings, { v, rhs: tail }], wrap(v));
}

export const distributeOverIf = rule({
  name: "distribute-over-if",
  head: "prim",
  ops: [...DISTRIBUTES, "neg"],
  doc: "x op (if c then a else b) -> if c then x op a else x op b   (small branches, one a literal; also on the left)",
  apply(node, ctx) {
    const arith = node.type.k === "double" || (node.type.k === "int" && node.op !== "div");
    if (!DISTRIBUTES.has(node.op) && node.op !== "neg") return undefined;
    if (!arith) return undefined;
    for (let k = 0; k < node.args.length; k++) {
      const x = node.args[k]!;
      const d = ctx.definition(x);
      if (d?.kind !== "if" || x.kind !== "var") continue;
      // The branches are copied: when the conditional has other uses, its lets would then run twice, so it may have
      // none.
      const info = { count: 0, literal: false };
      if (!leaves(d, info, ctx.uses(x)?.total === 1 ? MAX_LEAF_LETS : 0) || !info.literal) continue;
      const copy = ctx.copy(d);
      return mapLeaves(copy, (a) => {
        const args = node.args.map((x, i) => (i === k ? a : x));
        return { ...node, args };
      });
    }
    return undefined;
  },
});

export const CONDITIONAL_RULES = [
  ifLiteral,
  ifKnown,
  ifSameBranches,
  ifBool,
  logicUnit,
  ifNot,
  ifNestedCondition,
  distributeOverIf,
];
