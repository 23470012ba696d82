// Min and max folds, rewritten before AD so that their derivative is the selected element's alone.
//
//   ifold (fun s j -> let .. in min s x) z n
//
// is the smallest of z and the x of every iteration. Its derivative (the `select` rule of min, chained through the
// iterations) is the derivative of the one element the chain selected last: z's if no iteration replaced it. AD of the
// loop as written computes the tangent of every element (forward mode) or tapes the state and runs a reverse loop
// over every iteration adding zero adjoints (reverse mode): per point of k-means, the distance to every centroid
// differentiated, where one is used. Rewritten,
//
//   let st = ifold (fun s j -> let .. in let y = stopGradient x in (min (fst s) y, if <s chosen> then snd s else j))
//                  (stopGradient z, -1) n
//   withDerivativeOf (fst st) (if snd st < 0 then z else let .. [j := snd st] in x)
//
// the loop runs on values only (stopGradient: nothing in it is differentiated, nothing taped), carrying the index of
// the element selected last — chosen by the min rule's own `firstChosen`, so ties, NaN and signed zeros select what
// the chain of min's derivatives would — and the derivative is that of one recomputation of the element. The value is
// still the loop's own min, bit for bit (withDerivativeOf: the first operand's value, the second's derivative). The
// recomputed element ran in the loop already, so it cannot fail.
//
// Only a Double state used by the min alone is rewritten; it pays whenever the element costs more than the index
// bookkeeping (the recomputation is one iteration's work).

import { AnfBuilder, litIndex, mkIfold, mkPrim, splitLets, splitStep, wrapLets, type Binding } from "../ir/builder.js";
import { freeVars, mapNode, useCounts } from "../ir/free.js";
import { freshVar, mkTuple, type Atom, type Expr, type Ifold, type Var } from "../ir/ir.js";
import { copyFresh } from "../ir/rename.js";
import { PRIMS } from "../prims/table.js";
import { DOUBLE, INT, tupleOf } from "../types/types.js";

/**
 * `e` with every min or max fold (in any scope) whose derivative can matter rewritten to differentiate through its
 * selected element. A fold whose value only reaches stopGradient (logsumexp's shift) is left as it is.
 */
export function rewriteSelectionFolds(e: Expr): Expr {
  const { bindings, tail } = splitLets(e);
  // Found when the chain has a fold on a Double state (most chains have none: the walk is not made for them).
  let differentiated: Set<number> | undefined;
  const matters = (v: Var) => (differentiated ??= derivativeMatters(bindings, tail)).has(v.id);
  const out: Binding[] = [];
  const defined = new Map<number, Expr>();
  const definition = (a: Atom) => (a.kind === "var" ? defined.get(a.id) : undefined);
  for (const { v, rhs } of bindings) {
    const inner = rhs.kind === "let" ? rhs : mapNode(rhs, (a) => a, rewriteSelectionFolds);
    defined.set(v.id, inner);
    const rewritten =
      inner.kind === "ifold" && inner.acc.type.k === "double" && matters(v)
        ? selectionFold(inner, definition(inner.init))
        : undefined;
    // A rewritten fold is a let chain: its lets join this one (a let's right-hand side is never a let).
    const { bindings: lets, tail: value } = splitLets(rewritten ?? inner);
    out.push(...lets, { v, rhs: value });
  }
  const last = tail.kind === "let" ? tail : mapNode(tail, (a) => a, rewriteSelectionFolds);
  return wrapLets(out, last.kind === "ifold" ? (selectionFold(last, definition(last.init)) ?? last) : last);
}

/**
 * The variables of a let chain whose derivative can reach its value: read by the tail, or by a let whose derivative
 * can, except through stopGradient. (Reads from nested scopes count: only a let's own stopGradient cuts.)
 */
function derivativeMatters(bindings: readonly Binding[], tail: Expr): Set<number> {
  const matters = new Set<number>(freeVars(tail).keys());
  for (let k = bindings.length - 1; k >= 0; k--) {
    const { v, rhs } = bindings[k]!;
    if (!matters.has(v.id) || (rhs.kind === "prim" && rhs.op === "stopGradient")) continue;
    for (const id of freeVars(rhs).keys()) matters.add(id);
  }
  return matters;
}

/**
 * The rewrite of `e` if it is a min or max fold over a Double state used by the min or max alone. `initDefinition`:
 * what the initial value is let-bound to in the same chain, recomputed where no element replaced it, so that its
 * derivative is formed there alone (not, with a zero adjoint, wherever an element did: k-means' first distance).
 */
function selectionFold(e: Ifold, initDefinition: Expr | undefined): Expr | undefined {
  if (e.acc.type.k !== "double") return undefined;
  const { bindings, step } = splitStep(e.body);
  if (step.kind !== "prim" || (step.op !== "min" && step.op !== "max")) return undefined;
  const [a0, a1] = step.args as [Atom, Atom];
  const isAcc = (a: Atom) => a.kind === "var" && a.id === e.acc.id;
  const statePosition = isAcc(a0) ? 0 : isAcc(a1) ? 1 : -1;
  if (statePosition < 0 || useCounts(e.body).get(e.acc.id) !== 1) return undefined;
  const element = statePosition === 0 ? a1 : a0;
  if (element.kind !== "var") return undefined; // a literal has no derivative to select
  const rule = PRIMS[step.op].derivative;
  if (rule.kind !== "select") return undefined;

  const b = new AnfBuilder();
  // The loop on values: (the min so far, the iteration whose element it is; -1 for the initial value).
  const stateType = tupleOf([DOUBLE, INT]);
  const st = freshVar("sel", stateType);
  const index = freshVar(e.index.name, INT);
  const copied = copyFresh(wrapLets(bindings, element), new Map([[e.index.id, index]]));
  const loopBody = (() => {
    const bb = new AnfBuilder();
    const best = bb.proj(0, st, "best");
    const at = bb.proj(1, st, "at");
    const x = bb.prim("stopGradient", [bb.emit(copied) as Atom], "x");
    const args = statePosition === 0 ? [best, x] : [x, best];
    const value = bb.prim(step.op, args, "best");
    const first = rule.firstChosen(args, bb);
    const kept = statePosition === 0 ? first : bb.prim("not", [first], "kept");
    const where = bb.if(
      kept,
      () => at,
      () => index,
      "at",
    );
    return bb.finish(mkTuple([value, where]));
  })();
  const init = b.tuple([b.prim("stopGradient", [e.init], "z"), litIndex(-1)], "sel0");
  const loop = b.bind("sel", mkIfold(init, e.count, st, index, loopBody, e.span));
  const value = b.proj(0, loop, "best");
  const at = b.proj(1, loop, "at");
  const none = b.prim("lt", [at, litIndex(0)], "none");
  const selected = b.if(
    none,
    (bb) => (initDefinition === undefined ? e.init : bb.bind("z", copyFresh(initDefinition))),
    (bb) => bb.emit(copyFresh(wrapLets(bindings, element), new Map([[e.index.id, at]]))),
    "selected",
  );
  return b.finish(mkPrim("withDerivativeOf", [value, selected]));
}
