// The reverse of `while` (./reverse.ts): the primal runs a while that also counts its iterations, n; the loop is then
// the ifold of n steps of its body, and that ifold is reversed as any other (./reverse-ifold.ts: tapes of the state,
// residuals recorded by the primal loop, activity per state component, the narrowing of residuals). The condition
// is not differentiated: it only decides how many steps there are.
//
// Why a count and not a tape that grows with the loop: the ifold's tapes are allocated once, at their final size, and
// everything the reverse of ifold knows (what to tape, which residuals to record or to hoist into builds) applies as
// is; the price is running the body once more, in the counting loop. When the reverse needs no tape and no residual
// (a state whose adjoint passes through unchanged), the counting loop's result is the primal value and nothing runs
// twice. ARCHITECTURE.md records the measurements behind this choice.

import { AnfBuilder, litIndex, mkIfold, mkPrim, mkProj, mkWhile, nested } from "../ir/builder.js";
import { freshVar, mkTuple, type Atom, type Ifold, type While } from "../ir/ir.js";
import { copyFresh } from "../ir/rename.js";
import { INT, tupleOf } from "../types/types.js";

/**
 * Emits the counting loop of `e` into `b`; returns the equivalent ifold (over the count it found) and the counting
 * loop's final state, which is the while's value.
 */
export function whileAsIfold(e: While, b: AnfBuilder): { loop: Ifold; value: Atom } {
  const st = freshVar(e.acc.name, tupleOf([e.acc.type, INT]));
  const [forCond, forBody, forFold] = [copyFresh(e), copyFresh(e), copyFresh(e)] as [While, While, While];
  const cond = nested((bb) => {
    bb.bindVar(forCond.acc, mkProj(0, st));
    return forCond.cond;
  });
  const body = nested((bb) => {
    bb.bindVar(forBody.acc, mkProj(0, st));
    const next = bb.bind("s", forBody.body);
    const n = bb.bind("n", mkPrim("add", [bb.proj(1, st, "n"), litIndex(1)]));
    return mkTuple([next, n]);
  });
  const counted = b.bind(`${e.acc.name}_n`, mkWhile(b.tuple([e.init, litIndex(0)], "st0"), st, cond, body, e.span));
  const count = b.proj(1, counted, "n");
  const index = freshVar("i", INT);
  return { loop: mkIfold(e.init, count, forFold.acc, index, forFold.body, e.span), value: b.proj(0, counted, "s") };
}
