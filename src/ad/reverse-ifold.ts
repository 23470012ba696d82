// The reverse of `ifold` (./reverse.ts): the states before each iteration are saved on a tape (an array written with
// `setAt` in the primal loop, only when the reverse needs them), then a loop from the last iteration to the first
// recomputes the body from its saved state and reverses it, carrying the adjoint of the state and of the body's free
// variables. Costly values the reverse reads are recorded by the primal loop as residuals; a state whose shape may
// change is taped only while it keeps its shape, with a loop recomputing states from the start as the fallback.

import { AnfBuilder, litIndex, mkIf, mkIfold, mkPrim, mkProj, nested, splitLets, type Binding } from "../ir/builder.js";
import { freeVars, isFreeIn } from "../ir/free.js";
import { freshVar, lit, mkTuple, type Atom, type Expr, type Ifold, type Var } from "../ir/ir.js";
import { copyFresh } from "../ir/rename.js";
import { allFlags, invariantShapePaths } from "../ir/invariant-shapes.js";
import { arrayOf, BOOL, INT, isScalar, tupleOf, typeEq, type Type } from "../types/types.js";
import { activeComponents } from "./activity.js";
import { adjTuple, addAdjoints, materialize, type Adj } from "./adjoints.js";
import { hasTangent } from "./dual-types.js";
import { narrowResiduals } from "./residual-narrowing.js";
import { ShapeStability } from "./shape-stability.js";
import {
  costly,
  emptyTape,
  forwardOrder,
  hoistResiduals,
  projectionsOf,
  prunedKeeping,
  readingResiduals,
  stateAdjointInvariant,
  stateIndependent,
} from "./reverse-support.js";
import {
  checkpointOf,
  emitCheckpointedPrimal,
  emitCheckpointedReverse,
  emitDecision,
  noSnapshots,
} from "./reverse-checkpoint.js";
import { emitTapedLoop } from "./reverse-tapes.js";
import { memoryBudget } from "../runtime/memory-budget.js";
import type { Reverse, ReverseLoop } from "./reverse.js";
import { loggingBody, logType, restoreBefore } from "./reverse-undo.js";

/**
 * An array component of the state restored by undo logs: `log` has an entry per iteration, with the position and
 * the old element of each of the body's `sites` updates.
 */
interface Undo {
  readonly component: number;
  readonly log: Var;
  readonly sites: readonly Type[];
}

/**
 * When the primal reaches an active ifold: prepare its reverse loop (a function of the loop's state: the adjoint of
 * the ifold's state, then the targets' adjoints) and emit the primal. Each component of the state has its own tape,
 * written only if the reverse reads that component's values (the reverse of `setAt out i x` needs nothing of `out`,
 * so a scan taping its output array would cost O(n²)); shapes come from the final state, which has the same ones.
 * `value`: the loop's value when it is already computed (then the primal loop only runs if it tapes or records).
 */
export function prepareIfold(
  rev: Reverse,
  v: Var,
  e: Ifold,
  b: AnfBuilder,
  value?: Atom,
  allowUndo = true,
): ReverseLoop {
  const targets = rev.targetsOf([e.body], [e.acc, e.index]);
  const stateType = e.acc.type;
  const parts = stateType.k === "tuple" ? stateType.elems : [stateType];
  // The state components that depend on the inputs: only they get adjoints.
  const varied = activeComponents(rev, v, parts.length);
  const tapes = parts.map((t, k) => freshVar(`tape${k}`, arrayOf(t)));
  /** The reverse loop's state: the state's adjoint, the targets' adjoints, and the array restored by undo logs. */
  const stateVar = (undo: Undo | undefined) => {
    const extra = [...targets.map((t) => t.type), ...(undo ? [parts[undo.component]!] : [])];
    return freshVar("dstate", extra.length === 0 ? stateType : tupleOf([stateType, ...extra]));
  };
  let state = stateVar(undefined);
  const k = freshVar("k", INT);
  // A state whose shape changes from one iteration to the next (a growing vector) cannot be taped in a regular
  // array: the reverse then recomputes the state before iteration i from the start, O(i) (correct, quadratic).
  // A state component the body only updates keeps its shape; any other array component is taped only while its
  // shape stays the initial one (checked as the primal runs: `regular`); otherwise the tape cannot hold it, and the
  // reverse recomputes the state before iteration i from the start instead, O(i) (correct, quadratic).
  const flags = invariantShapePaths(e);
  const preserved = parts.map((_, c) => allFlags(typeof flags === "boolean" ? flags : (flags[c] ?? false)));
  const guarded = preserved.map((x) => !x);
  const regular = freshVar("regular", BOOL);
  const recomputedState = (bb: AnfBuilder, i: Atom, c: number): Atom => {
    const again = copyFresh(e) as Ifold;
    const s = bb.bind("state", mkIfold(again.init, i, again.acc, again.index, again.body));
    return stateType.k === "tuple" ? bb.proj(c, s, "s") : s;
  };
  /**
   * The reverse loop's body: the state before iteration i from its tapes, or (`recompute`) from the start, or from
   * given variables (a checkpointed loop's recomputed state); with `undo`, that component is the array the state
   * carries with iteration i's updates undone.
   */
  const reverseBody = (
    source: "tape" | "recompute" | readonly Var[],
    state: Var,
    k: Var,
    undo?: Undo,
  ): { body: Expr; bindings: readonly Binding[]; copy: Ifold } => {
    const recompute = source === "recompute";
    const total = 1 + targets.length + (undo ? 1 : 0);
    const copy = copyFresh(e) as Ifold;
    let bindings: readonly Binding[] = [];
    let last: Atom | undefined;
    const body = rev.saving(targets, () =>
      // The iteration's index stays bound even if the recomputation does not read it: residuals read with it later.
      prunedKeeping(
        nested((bb) => {
          last = bb.prim("sub", [e.count, litIndex(1)], "last");
          bb.bindVar(copy.index, mkPrim("sub", [last, k]));
          const carried = undo && bb.proj(total - 1, state, "cur");
          const restored =
            undo && !recompute ? restoreBefore(bb, carried!, undo.log, undo.sites.length, copy.index) : carried;
          const saved = parts.map((_, c) =>
            typeof source !== "string"
              ? source[c]!
              : recompute
                ? recomputedState(bb, copy.index, c)
                : undo?.component === c
                  ? restored!
                  : bb.prim("get", [tapes[c]!, copy.index], "s"),
          );
          bb.bindVar(copy.acc, stateType.k === "tuple" ? mkTuple(saved) : saved[0]!);
          activateState(rev, copy.acc, varied);
          saved.forEach((x, c) => {
            if (x.kind === "var" && hasTangent(x.type) && varied.has(c)) rev.active.add(x.id);
          });
          const seed = total === 1 ? state : bb.proj(0, state, "ds");
          rev.unpack(targets, state, bb, 1, total);
          const recomputed = stateType.k === "tuple" ? projectionsOf(copy.body, copy.acc, saved) : copy.body;
          const mark = bb.size;
          const { steps, result } = rev.forward(recomputed, bb);
          bindings = bb.bindingsFrom(mark);
          rev.contribute(result, seed, bb);
          rev.backward(steps, bb);
          // The state's adjoint: what reached the whole state, plus what reached its saved parts.
          const viaParts =
            stateType.k === "tuple" ? adjTuple(saved.map((x) => rev.adjointOfAtom(x))) : rev.adjointOfAtom(saved[0]!);
          const dacc = materialize(addAdjoints(rev.adjointOf(copy.acc), viaParts, stateType, bb), stateType, v, bb);
          if (total === 1) return dacc;
          const adjoints = targets.map((t) => materialize(rev.adjointOf(t), t.type, t, bb));
          return mkTuple([dacc, ...adjoints, ...(restored ? [restored] : [])]);
        }),
        [copy.index, last],
      ),
    );
    return { body, bindings, copy };
  };
  let taping = reverseBody("tape", state, k);
  // An array component the reverse reads, which the body only updates in place: the reverse carries it and undoes
  // each iteration's updates from logs the primal writes, instead of reading a tape of whole arrays.
  // (Threaded through updates only, it keeps its shape, also where invariantShapePaths cannot tell.)
  let readWhileTaping: Map<number, Var> | undefined;
  const tapeRead = (c: number) => (readWhileTaping ??= freeVars(taping.body)).has(tapes[c]!.id);
  const undo = allowUndo ? undoPlan(e, parts, tapeRead) : undefined;
  if (undo !== undefined) {
    state = stateVar(undo);
    taping = reverseBody("tape", state, k, undo);
  }
  let body = taping.body;
  const copy = taping.copy;
  const recomputedBindings = taping.bindings;
  // Residuals: values the reverse reads that are costly to recompute (see `costly`: transcendental scalars, loops,
  // branches, builds), stored per iteration by the primal loop instead — only when that loop runs anyway to tape
  // the state (a reduction's primal loop is usually dead), and, for arrays, only when their shape is the same in
  // every iteration (./shape-stability.ts). The primal loop then runs the forward walk of its body (so that loops
  // inside it keep their own tapes and residuals), whose lets correspond one to one to the recomputation's.
  const live = new Set(splitLets(body).bindings.map((x) => x.v.id));
  const stateTaped = tapes.some((tp) => isFreeIn(tp, body));
  const walk = stateTaped || rev.isRunningAnyway ? primalWalk(rev, e, recomputedBindings, varied) : undefined;
  let residuals = (walk?.pairs ?? []).flatMap(({ recomputed, primal }) =>
    costly(recomputed.rhs) &&
    live.has(recomputed.v.id) &&
    (isScalar(recomputed.v.type) || walk!.stability.stable(primal))
      ? [
          {
            copy: recomputed.v,
            original: primal,
            tape: freshVar(`${recomputed.v.name}s`, arrayOf(recomputed.v.type)),
          },
        ]
      : [],
  );
  let walkBody = walk?.loop.body;
  if (residuals.length > 0) {
    body = readingResiduals(body, new Map(residuals.map((r) => [r.copy.id, r.tape])), copy.index);
    // A residual only needed to recompute another stored one is not read any more: it is not stored either.
    const stillRead = freeVars(body);
    residuals = residuals.filter((r) => stillRead.has(r.tape.id));
    // One read only in part records only the components read.
    ({ body, loopBody: walkBody, residuals } = narrowResiduals(body, walkBody!, residuals, copy.index));
  }
  const read = freeVars(body);
  const taped = tapes.flatMap((tp, c) => (read.has(tp.id) ? [{ tape: tp, component: c }] : []));
  // Undoing updates needs the iterations from the last to the first.
  const forwards = (x: Expr, st: Var) => !undo && stateAdjointInvariant(x, st, targets.length > 0);
  const order = (x: Expr, st: Var, i: Var) => (forwards(x, st) ? forwardOrder(x, i) : x);
  // A loop whose primal stores states may be checkpointed instead, when they would not fit (./reverse-checkpoint.ts):
  // one in the differentiated code itself (a loop inside a loop's step is recomputed with the step; the layout of
  // its primal's value, taped or not, would keep the outer loop from recording it).
  const cp =
    rev.atTop && (taped.length > 0 || undo !== undefined) && memoryBudget() < Infinity
      ? checkpointOf(
          e,
          (parts3, state3, k3) => reverseBody(parts3, state3, k3).body,
          stateVar(undefined),
          forwards(body, state),
        )
      : undefined;
  // When a stored component may change shape, a second reverse loop recomputing the states is chosen at run time.
  const checked = taped.some(({ component }) => guarded[component]);
  const regularNeeded = checked || (cp !== undefined && !cp.forward && cp.components.some((c) => guarded[c]));
  let fallback: ReverseLoop["fallback"];
  if (regularNeeded) {
    const [state2, k2] = [freshVar("dstate", state.type), freshVar("k", INT)];
    const again = reverseBody("recompute", state2, k2, undo).body;
    fallback = { state: state2, index: k2, body: order(again, state2, k2), regular };
  }
  const reverseLoop: ReverseLoop = {
    state,
    index: k,
    body: order(body, state, k),
    targets,
    fallback,
    ...(undo ? { carried: undo.component } : {}),
    ...(cp ? { checkpoint: cp } : {}),
  };
  // Residuals that do not depend on the state are computed before the loop, by a build over its iterations (which
  // writes them in place, even into an enclosing build's storage); the loop body reads them. Others are recorded.
  let loop = residuals.length > 0 ? { ...walk!.loop, body: walkBody! } : { acc: e.acc, index: e.index, body: e.body };
  // The primal loop's body (the forward walk's, when it records residuals) must log the same updates; if it does not,
  // the loop is prepared again with tapes (nothing has been emitted yet).
  const sitesOf = (x: Expr) => loggingBody(x, loop.acc, stateType.k === "tuple" ? undo!.component : -1)?.sites;
  const same = (sites: readonly Type[] | undefined) =>
    sites !== undefined && typeEq(logType(sites), logType(undo!.sites));
  if (undo && !same(sitesOf(loop.body))) return prepareIfold(rev, v, e, b, value, false);
  const early =
    residuals.length > 0
      ? stateIndependent(
          loop.body,
          loop.acc,
          residuals.map((r) => r.original),
        )
      : new Set<number>();
  const hoisted = residuals.filter((r) => early.has(r.original.id));
  residuals = residuals.filter((r) => !early.has(r.original.id));
  const recorded = residuals;
  /** The loop body reading the hoisted residuals, whose builds go into `bb` (binding `tapeOf` each). */
  const hoisting = (bb: AnfBuilder, tapeOf: (r: (typeof hoisted)[number]) => Var) =>
    hoisted.length === 0
      ? loop.body
      : hoistResiduals(
          loop,
          e.count,
          hoisted.map((r) => ({ original: r.original, tape: tapeOf(r) })),
          bb,
          recorded.map((r) => r.original),
        );
  if (cp === undefined) loop = { ...loop, body: hoisting(b, (r) => r.tape) };
  if (taped.length === 0 && residuals.length === 0 && undo === undefined) {
    // The loop's value, unless it is already known (a while's counting loop computed it: ./reverse-while.ts).
    b.bindVar(v, value ?? mkIfold(e.init, e.count, loop.acc, loop.index, loop.body, e.span));
    return reverseLoop;
  }
  /** The taped primal loop into `bb`, with the loop body `body`. */
  const tapedLoop = (bb: AnfBuilder, body: Expr): Atom => {
    const logged = undo && loggingBody(body, loop.acc, stateType.k === "tuple" ? undo.component : -1);
    if (undo && !same(logged?.sites))
      throw new Error("reverse: the primal loop's updates differ from the checked ones");
    const logging = undo && { body: logged!.body, sites: undo.sites, log: undo.log };
    const plan = { e, loop: { ...loop, body }, taped, residuals, undo: logging, guarded, checked };
    return emitTapedLoop(bb, plan, v.name);
  };
  const stored = taped.length + residuals.length + (undo ? 1 : 0);
  if (cp === undefined) {
    const all = tapedLoop(b, loop.body);
    b.bindVar(v, mkProj(0, all));
    taped.forEach(({ tape }, j) => b.bindVar(tape, mkProj(j + 1, all)));
    residuals.forEach((r, j) => b.bindVar(r.tape, mkProj(taped.length + j + 1, all)));
    if (undo) b.bindVar(undo.log, mkProj(taped.length + residuals.length + 1, all));
    if (checked) b.bindVar(regular, mkProj(stored + 1, all));
    return reverseLoop;
  }
  // Taped or checkpointed, as the decision says: one value of the same layout either way.
  const tapeSize = {
    taped: taped.map((t) => t.component),
    scalarsPerIteration:
      [...residuals, ...hoisted].reduce((sum, r) => sum + knownScalars(r.copy.type), 0) +
      (undo ? knownScalars(logType(undo.sites)) : 0),
    arraysPerIteration: [...residuals, ...hoisted].reduce((sum, r) => sum + arrayLeaves(r.copy.type), 0),
  };
  emitDecision(b, cp, tapeSize);
  const storedTapes = [...taped.map((t) => t.tape), ...residuals.map((r) => r.tape), ...(undo ? [undo.log] : [])];
  const layout = [...storedTapes, ...hoisted.map((r) => r.tape)];
  const tapedBranch = nested((bb) => {
    const renamed = new Map(hoisted.map((r) => [r.tape.id, freshVar(r.tape.name, r.tape.type)]));
    const all = tapedLoop(
      bb,
      hoisting(bb, (r) => renamed.get(r.tape.id)!),
    );
    const flag = checked ? [bb.proj(stored + 1, all, "regular")] : regularNeeded ? [lit(true, BOOL)] : [];
    return mkTuple([
      bb.proj(0, all, "s"),
      ...storedTapes.map((_, j) => bb.proj(j + 1, all, "tape")),
      ...hoisted.map((r) => renamed.get(r.tape.id)!),
      ...flag,
      ...noSnapshots(bb, cp),
    ]);
  });
  const checkpointed = nested((bb) => {
    const primal = emitCheckpointedPrimal(bb, cp, guarded, value);
    return mkTuple([
      primal.value,
      ...layout.map((t) => emptyTape(bb, t.type.k === "array" ? t.type.elem : t.type)),
      ...(regularNeeded ? [primal.regular] : []),
      ...primal.stored,
    ]);
  });
  const all = b.bind(v.name, mkIf(cp.flag, checkpointed, tapedBranch));
  b.bindVar(v, mkProj(0, all));
  layout.forEach((t, j) => b.bindVar(t, mkProj(j + 1, all)));
  let at = layout.length + 1;
  if (regularNeeded) b.bindVar(regular, mkProj(at++, all));
  cp.snaps.forEach((x) => b.bindVar(x, mkProj(at++, all)));
  b.bindVar(cp.positions, mkProj(at++, all));
  b.bindVar(cp.height, mkProj(at, all));
  return reverseLoop;
}

/** The scalars of a value of type t whose count the type tells (arrays count none: their size is not known). */
function knownScalars(t: Type): number {
  return isScalar(t) ? 1 : t.k === "tuple" ? t.elems.reduce((sum, u) => sum + knownScalars(u), 0) : 0;
}

/** The arrays in a value of type t (an array of tuples: one per field). */
function arrayLeaves(t: Type): number {
  if (t.k === "tuple") return t.elems.reduce((sum, u) => sum + arrayLeaves(u), 0);
  if (t.k !== "array") return 0;
  let elem = t.elem;
  while (elem.k === "array") elem = elem.elem;
  return elem.k === "tuple" ? Math.max(1, arrayLeaves(elem) + knownScalars(elem)) : 1;
}

/**
 * The forward walk of another copy of a loop's body, as the primal loop will run it, with its lets paired one to one
 * with the recomputation's (same program, same walk); undefined if they do not pair up.
 */
function primalWalk(
  rev: Reverse,
  e: Ifold,
  recomputed: readonly Binding[],
  varied: ReadonlySet<number>,
):
  | {
      loop: { acc: Var; index: Var; body: Expr };
      pairs: { recomputed: Binding; primal: Var }[];
      stability: ShapeStability;
    }
  | undefined {
  const p = copyFresh(e) as Ifold;
  activateState(rev, p.acc, varied);
  const b = new AnfBuilder();
  const { result } = rev.forward(p.body, b);
  const body = b.finish(result);
  const primal = splitLets(body).bindings;
  if (primal.length !== recomputed.length) return undefined;
  const pairs = recomputed.map((x, j) => ({ recomputed: x, primal: primal[j]!.v }));
  if (pairs.some(({ recomputed: x, primal: y }) => !typeEq(x.v.type, y.type))) return undefined;
  // The state's shape is stable if the body keeps it so, assuming it is (else nothing of it is).
  // Only state components the body provably keeps in shape (updated, never rebuilt) count as stable.
  const stability = new ShapeStability(body, p.acc, p.index, invariantShapePaths({ ...p, body }));
  return { loop: { acc: p.acc, index: p.index, body }, pairs, stability };
}

/** Marks a loop state active, with its varied components when they are not all of them. */
function activateState(rev: Reverse, acc: Var, varied: ReadonlySet<number>): void {
  rev.active.add(acc.id);
  if (acc.type.k === "tuple" && varied.size < acc.type.elems.length) rev.components.set(acc.id, varied);
}

/**
 * Which array component of the state (if any) the reverse carries and restores from undo logs: the first `read` one
 * whose updates the body threads (./reverse-undo.ts), with a log tape per update.
 */
function undoPlan(e: Ifold, parts: readonly Type[], read: (c: number) => boolean): Undo | undefined {
  const tuple = e.acc.type.k === "tuple";
  for (let c = 0; c < parts.length; c++) {
    if (parts[c]!.k !== "array" || !read(c)) continue;
    const logged = loggingBody(e.body, e.acc, tuple ? c : -1);
    if (logged === undefined) continue;
    return { component: c, log: freshVar("log", arrayOf(logType(logged.sites))), sites: logged.sites };
  }
  return undefined;
}

export function reverseIfold(rev: Reverse, v: Var, e: Ifold, vb: Adj, b: AnfBuilder, loop: ReverseLoop): void {
  const targets = loop.targets;
  const ds = materialize(vb, v.type, v, b);
  // The array the reverse restores starts as the loop's final one.
  const carried = loop.carried === undefined ? [] : [e.acc.type.k === "tuple" ? b.proj(loop.carried, v, "cur") : v];
  const init =
    targets.length + carried.length === 0
      ? ds
      : b.tuple([ds, ...targets.map((t) => materialize(rev.adjointOf(t), t.type, t, b)), ...carried], "dstate0");
  let taped: Expr = mkIfold(init, e.count, loop.state, loop.index, loop.body);
  // Checkpointed when the tapes would not fit (./reverse-checkpoint.ts): the same gradient, from snapshots.
  const cp = loop.checkpoint;
  if (cp !== undefined)
    taped = mkIf(
      cp.flag,
      nested((bb) => emitCheckpointedReverse(bb, cp, init, targets.length, carried.length)),
      taped,
    );
  const f = loop.fallback;
  const res = b.bind(
    "dstate",
    f === undefined ? taped : mkIf(f.regular, taped, mkIfold(init, e.count, f.state, f.index, f.body)),
  );
  if (targets.length + carried.length === 0) {
    rev.contribute(e.init, res, b);
    return;
  }
  // The targets' adjoints first: the initial state may be one of them too.
  rev.unpack(targets, res, b, 1, targets.length + carried.length + 1);
  rev.contribute(e.init, b.proj(0, res, "dinit"), b);
}
