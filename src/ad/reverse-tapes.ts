// The primal loop of a taped ifold (./reverse-ifold.ts): the loop, also writing each taped component of the state,
// its residuals and its undo logs. tape[i] is the state before iteration i, so tape[0] is the initial state and
// iteration i writes its result at i + 1 (n + 1 entries). Writing the result, after the body, lets the body update the
// state in place before the tape copies it. Residual i is written at i.

import { AnfBuilder, litIndex, mkIfold, mkProj, nested } from "../ir/builder.js";
import { freshVar, lit, mkTuple, type Atom, type Expr, type Ifold, type Var } from "../ir/ir.js";
import { BOOL, isScalar, tupleOf, type Type } from "../types/types.js";
import { emptyTape, zeroScalar } from "./reverse-support.js";

/** What the taped primal loop stores. */
export interface TapedPrimal {
  readonly e: Ifold;
  /** The loop run: the ifold's binders and body (the forward walk's, when it records residuals). */
  readonly loop: { readonly acc: Var; readonly index: Var; readonly body: Expr };
  readonly taped: readonly { readonly tape: Var; readonly component: number }[];
  readonly residuals: readonly { readonly copy: Var; readonly original: Var; readonly tape: Var }[];
  /** The undo logs: the body logging its updates (./reverse-undo.ts), its sites, the log's variable. */
  readonly undo?: { readonly body: Expr; readonly sites: readonly Type[]; readonly log: Var };
  /** Per state component: taped only while it keeps the initial shape. */
  readonly guarded: readonly boolean[];
  /** Some taped component is guarded: the loop also returns `regular`. */
  readonly checked: boolean;
}

/**
 * Emits the taped primal loop into `b`; returns its value: (state, tapes..., residuals..., logs..., regular if
 * `checked`).
 */
export function emitTapedLoop(b: AnfBuilder, p: TapedPrimal, name: string): Atom {
  const { e, loop, taped, residuals, undo, guarded, checked } = p;
  const stateType = e.acc.type;
  const part = (bb: AnfBuilder, x: Atom, c: number) => (stateType.k === "tuple" ? bb.proj(c, x, "x") : x);
  const entries = b.prim("add", [e.count, litIndex(1)], "n");
  // Only entry 0 needs the initial state: a scalar tape starts as zeros (a bare allocation) with it at 0.
  const tape0 = taped.map(({ tape, component }) => {
    const first = part(b, e.init, component);
    const elem = tape.type.k === "array" ? tape.type.elem : tape.type;
    // An array state's tape is allocated by recording entry 0 (no copies of the initial state in the others).
    if (!isScalar(elem)) return b.prim("record", [emptyTape(b, elem), litIndex(0), first, entries], "tape0");
    // Located at the user's loop: a count too large for a tape (2^31 - 1 wraps to a negative size) is reported there.
    const zeros = b.build(entries, () => zeroScalar(elem), "tape0", "i", e.span);
    return b.prim("setAt", [zeros, litIndex(0), first], "tape0");
  });
  const residual0 = residuals.map((r) =>
    isScalar(r.copy.type)
      ? b.build(e.count, () => zeroScalar(r.copy.type), `${r.copy.name}s`, "i", e.span)
      : emptyTape(b, r.copy.type),
  );
  // The undo log: per iteration, the position and the element each update overwrote.
  const logTapes = undo ? [undo.log] : [];
  const log0 = undo
    ? [
        b.build(
          e.count,
          (_i, bb) =>
            bb.tuple(
              undo.sites.flatMap((t) => [litIndex(0), zeroScalar(t)]),
              "log",
            ),
          "log",
        ),
      ]
    : [];
  const st = freshVar(
    "st",
    tupleOf([
      stateType,
      ...taped.map(({ tape }) => tape.type),
      ...residuals.map((r) => r.tape.type),
      ...logTapes.map((t) => t.type),
      ...(checked ? [BOOL] : []),
    ]),
  );
  const loopBody = nested((bb) => {
    bb.bindVar(loop.acc, mkProj(0, st));
    const step = bb.bind("s", undo?.body ?? loop.body);
    const next = undo ? bb.proj(0, step, "s") : step;
    const at = bb.prim("add", [loop.index, litIndex(1)], "at");
    let ok: Atom = lit(true, BOOL);
    const written = taped.map(({ component }, j) => {
      const tape = bb.proj(j + 1, st, "tape");
      const value = part(bb, next, component);
      if (!guarded[component]) return bb.prim("setAt", [tape, at, value], "tape");
      // Written only while the state keeps the initial shape; once it does not, `regular` is false for good.
      const same = bb.prim("sameShape", [part(bb, e.init, component), value], "same");
      ok = ok.kind === "lit" ? same : bb.prim("and", [ok, same], "same");
      return bb.if(
        same,
        (x) => x.prim("setAt", [tape, at, value], "tape"),
        () => tape,
        "tape",
      );
    });
    const kept = residuals.map((r, j) => {
      const tape = bb.proj(taped.length + j + 1, st, "r");
      return isScalar(r.copy.type)
        ? bb.prim("setAt", [tape, loop.index, r.original], "r")
        : bb.prim("record", [tape, loop.index, r.original, e.count], "r");
    });
    const logs = logTapes.map((t) => {
      const tape = bb.proj(taped.length + residuals.length + 1, st, "log");
      const entry = bb.tuple(
        undo!.sites.flatMap((_, j) => [bb.proj(2 * j + 1, step, "pos"), bb.proj(2 * j + 2, step, "old")]),
        "entry",
      );
      return bb.prim("setAt", [tape, loop.index, entry], t.name);
    });
    const flag = checked
      ? [bb.prim("and", [bb.proj(taped.length + residuals.length + logs.length + 1, st, "regular"), ok], "regular")]
      : [];
    return mkTuple([next, ...written, ...kept, ...logs, ...flag]);
  });
  const init0 = [e.init, ...tape0, ...residual0, ...log0, ...(checked ? [lit(true, BOOL)] : [])];
  return b.bind(name, mkIfold(b.tuple(init0, "st0"), e.count, st, loop.index, loopBody, e.span));
}
