// Unswitching on a condition deep in a loop body (paper 000 Fig. 7f, the case split, for a loop-invariant condition):
//
//   ifold (fun a i -> ... if c then e1 else e2 ...) z n  ->  if c then ifold (...e1...) z n else ifold (...e2...) z n
//
// where the Bool c is bound outside the loop. The two copies are simplified under the fact c (resp. not c), so each
// loop loses the test; in a vectorised derivative, where c is `k = p` (the column of a one-hot tangent), the loop of
// the cold branch usually collapses (single access) and the hot one runs for one column only. The whole ifold is
// copied, so it applies only to small bodies, and only where c is not already known (which also bounds it: inside the
// copies c is known). Loops with a tuple state are left to fission, which may split them first.

import { mkIf } from "../../ir/builder.js";
import { exprSizeAbove } from "../../ir/free.js";
import type { Atom, Expr, Ifold } from "../../ir/ir.js";
import { rule } from "./rule.js";

/** At most this many nodes in the loop body (it is copied once). */
const MAX_BODY = 200;

/**
 * The first condition of a conditional in `node`'s body (outside nested loops and lambdas) bound outside the loop.
 * A condition in scope there that is bound in the body is bound by a let met before it in this walk (binders are
 * unique), so only those lets are collected, not every binder of the body. In program order, from a stack: a let
 * chain's length must not need as many JavaScript frames.
 */
function invariantCondition(node: Ifold): Atom | undefined {
  const bound = new Set<number>([node.index.id, node.acc.id]);
  const stack: Expr[] = [node.body];
  while (stack.length > 0) {
    const e = stack.pop()!;
    if (e.kind === "let") {
      bound.add(e.v.id);
      stack.push(e.body, e.rhs);
    } else if (e.kind === "if") {
      if (e.cond.kind === "var" && !bound.has(e.cond.id)) return e.cond;
      stack.push(e.else, e.then);
    }
  }
  return undefined;
}

export const unswitchNested = rule({
  name: "unswitch-nested",
  head: "ifold",
  doc: "ifold (fun a i -> ...if c then e1 else e2...) z n -> if c then ifold (...e1...) z n else ifold (...e2...) z n   (c invariant)",
  apply(node, ctx) {
    // A tuple state is left to fission first (its components may split into loops of which only some need the copy).
    if (node.type.k === "tuple") return undefined;
    // The size first, and bounded: a long body is not walked, in every sweep, to find a condition it cannot use.
    if (exprSizeAbove(node.body, MAX_BODY)) return undefined;
    const c = invariantCondition(node);
    if (c === undefined || ctx.facts.known(c) !== undefined) return undefined;
    return mkIf(c, ctx.copy(node), ctx.copy(node));
  },
});
