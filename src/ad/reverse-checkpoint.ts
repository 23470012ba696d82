// Checkpointing the reverse of a taped ifold (./reverse-ifold.ts) when its tape would not fit in the memory budget
// (src/runtime/memory-budget.ts): the decision is made when the loop runs, from its count and its state's size.
//  - Fits: the tapes as before (n + 1 states, residuals, undo logs).
//  - Does not fit: s snapshots of the state (s from the budget), Revolve's schedule (./revolve.ts). The primal loop
//    stores the first snapshots as it runs; the reverse is a loop that either advances from the top snapshot and
//    pushes the state reached, or advances to step i and reverses it — recomputing the step from its state, as the
//    taped reverse does from a taped state, with the same operations in the same order, so the gradient is the same
//    bits. A reverse running forwards (a state whose adjoint passes through, ./reverse-support.ts) needs no snapshot:
//    it carries the state forwards instead.
// Only the state components the reverse reads are stored, with those their next values depend on ("components").

import { AnfBuilder, litBool, litDouble, litIndex, mkIfold, mkPrim, nested, splitLets } from "../ir/builder.js";
import { freeVars } from "../ir/free.js";
import { freshVar, mkTuple, type Atom, type Expr, type Ifold, type Var } from "../ir/ir.js";
import { copyFresh } from "../ir/rename.js";
import { MAX_ARRAY_ELEMENTS } from "../runtime/limits.js";
import { CHECKPOINTED_FLAG, memoryBudget } from "../runtime/memory-budget.js";
import { arrayOf, BOOL, INT, isScalar, type Type } from "../types/types.js";
import { emptyTape, forwardOrder, pruned, zeroScalar } from "./reverse-support.js";
import { nextSnapshotIr, splitIr } from "./revolve.js";

/** The reverse of one step from a given state: `body` reads `state` (adjoints), `index` (k) and `parts`. */
export interface CheckpointStep {
  readonly body: Expr;
  readonly state: Var;
  readonly index: Var;
  /** The state components the step reads, as variables (of the components' types; only `components` are read). */
  readonly parts: readonly Var[];
}

/** What the primal of a checkpointable loop decided and stored, and what its reverse needs. */
export interface Checkpoint {
  /** Bool: the tape would not fit, so the loop is checkpointed. */
  readonly flag: Var;
  readonly slots: Var;
  /** The state components stored and recomputed (those the reverse reads and those they depend on). */
  readonly components: readonly number[];
  /** The snapshot arrays (one per component), their positions and how many are held, after the primal loop. */
  readonly snaps: readonly Var[];
  readonly positions: Var;
  readonly height: Var;
  readonly step: CheckpointStep;
  /** The reverse runs from the first iteration to the last: the state is carried forwards, nothing is stored. */
  readonly forward: boolean;
  readonly loop: Ifold;
}

/** The state components whose values the components `read` depend on, from one iteration to the next (a closure). */
export function neededComponents(e: Ifold, read: ReadonlySet<number>): number[] {
  const parts = e.acc.type.k === "tuple" ? e.acc.type.elems.length : 1;
  if (parts === 1) return read.size > 0 ? [0] : [];
  const all = new Set(Array.from({ length: parts }, (_, c) => c));
  // What each let depends on, as state components (a use of the whole state: all of them).
  const deps = new Map<number, ReadonlySet<number>>([[e.acc.id, all]]);
  const { bindings, tail } = splitLets(e.body);
  const of = (x: Expr): Set<number> => {
    const out = new Set<number>();
    for (const v of freeVars(x).values()) for (const c of deps.get(v.id) ?? []) out.add(c);
    return out;
  };
  const defs = new Map<number, Expr>();
  for (const { v, rhs } of bindings) {
    defs.set(v.id, rhs);
    const direct = rhs.kind === "proj" && rhs.arg.kind === "var" && rhs.arg.id === e.acc.id;
    deps.set(v.id, direct ? new Set([rhs.index]) : of(rhs));
  }
  const result = tail.kind === "var" ? defs.get(tail.id) : tail;
  const component = (c: number): Set<number> => (result?.kind === "tuple" ? of(result.elems[c]!) : of(tail));
  const needed = new Set(read);
  for (let grew = true; grew;) {
    grew = false;
    for (const c of [...needed])
      for (const d of component(c))
        if (!needed.has(d)) {
          needed.add(d);
          grew = true;
        }
  }
  return [...needed].sort((a, b) => a - b);
}

/** The number of scalars in a value of type t (regular arrays: a row's count times the rows), as a Double. */
export function scalarCount(b: AnfBuilder, x: Atom, t: Type): Atom {
  if (isScalar(t)) return litDouble(1);
  if (t.k === "tuple") {
    const counts = t.elems.map((u, k) => scalarCount(b, b.proj(k, x, "x"), u));
    return counts.reduce((sum, c) => b.prim("add", [sum, c], "count"));
  }
  if (t.k !== "array") throw new Error("checkpoint: a state of function type");
  const n = b.prim("length", [x], "n");
  const rows = b.prim("toDouble", [n], "rows");
  if (isScalar(t.elem)) return rows;
  const empty = b.prim("eq", [n, litIndex(0)], "empty");
  return b.if(
    empty,
    () => litDouble(0),
    (bb) => bb.prim("mul", [rows, scalarCount(bb, bb.prim("get", [x, litIndex(0)], "row"), t.elem)], "count"),
    "count",
  );
}

/** What the decision needs to know about the taped primal: its tapes' sizes per entry and per iteration. */
export interface TapeSize {
  /** The components taped whole (n + 1 entries each). */
  readonly taped: readonly number[];
  /** Scalars stored per iteration besides them: scalar residuals, undo log entries. */
  readonly scalarsPerIteration: number;
  /**
   * Arrays stored per iteration (residuals): their size is known only as the loop runs, so each counts as large as
   * the largest stored state component (an estimate: a step's values are typically the size of its state).
   */
  readonly arraysPerIteration: number;
}

/**
 * Emits the decision: whether the taped loop's tapes would pass the budget or the array limit (then `flag` is true),
 * and the snapshot slots a checkpointed loop gets (the budget over the stored components' size; at most n, and at
 * most what one array holds). `slots` fails with a located error when the budget cannot hold one state.
 */
export function emitDecision(b: AnfBuilder, cp: Checkpoint, tape: TapeSize): void {
  const { loop: e, components, flag, slots } = cp;
  const parts = e.acc.type.k === "tuple" ? e.acc.type.elems : [e.acc.type];
  const part = (c: number) => (e.acc.type.k === "tuple" ? b.proj(c, e.init, "init") : e.init);
  const counts = new Map<number, Atom>();
  const count = (c: number) => {
    let x = counts.get(c);
    if (x === undefined) counts.set(c, (x = scalarCount(b, part(c), parts[c]!)));
    return x;
  };
  const sum = (cs: readonly number[]) => cs.map(count).reduce((s, x) => b.prim("add", [s, x], "scalars"));
  const max = (cs: readonly number[]) => cs.map(count).reduce((s, x) => b.prim("max", [s, x], "largest"));
  const n = b.prim("toDouble", [e.count], "n");
  const entries = b.prim("add", [n, litDouble(1)], "entries");
  const perEntry = tape.taped.length > 0 ? sum(tape.taped) : litDouble(0);
  const stored = b.prim(
    "add",
    [
      b.prim("mul", [entries, perEntry], "states"),
      b.prim("mul", [n, perIteration(b, tape, max(components))], "others"),
    ],
    "scalars",
  );
  const budget = litDouble(memoryBudget());
  const over = b.prim("gt", [b.prim("mul", [stored, litDouble(8)], "bytes"), budget], "over");
  const largest = tape.taped.length > 0 ? b.prim("mul", [entries, max(tape.taped)], "largest") : litDouble(0);
  const tooLong = b.prim("gt", [largest, litDouble(MAX_ARRAY_ELEMENTS)], "tooLong");
  const run = b.prim("ge", [e.count, litIndex(1)], "runs");
  b.bindVar(flag, mkPrim("and", [run, b.prim("or", [over, tooLong], "big")]));
  const snapshot = sum(components);
  const widest = max(components);
  // A reverse running forwards stores no snapshot: it needs no slots.
  if (cp.forward) return b.bindVar(slots, litIndex(0));
  b.bindVar(slots, {
    kind: "if",
    cond: flag,
    then: nested((bb) => {
      const bytes = bb.prim("mul", [snapshot, litDouble(8)], "bytes");
      return mkPrim("checkpointSlots", [budget, bytes, e.count, widest], e.span);
    }),
    else: litIndex(0),
    type: INT,
  });
}

/** The stored components of a full state `x` (an atom of the loop's state type). */
export function componentsOf(b: AnfBuilder, e: Ifold, x: Atom, components: readonly number[]): Atom[] {
  return e.acc.type.k === "tuple" ? components.map((c) => b.proj(c, x, "x")) : [x];
}

/**
 * A full state from its stored components: the others are the initial state's (the stored ones never depend on
 * them, and what reads them is dropped).
 */
function assemble(b: AnfBuilder, e: Ifold, components: readonly number[], xs: readonly Atom[]): Atom {
  if (e.acc.type.k !== "tuple") return xs[0]!;
  const elems = e.acc.type.elems.map((_, c) => {
    const at = components.indexOf(c);
    return at >= 0 ? xs[at]! : b.proj(c, e.init, "init");
  });
  return b.tuple(elems, "state");
}

/** The type of the stored components (a tuple when there are several). */
function storedType(e: Ifold, components: readonly number[]): Type {
  const t = e.acc.type;
  if (t.k !== "tuple") return t;
  return components.length === 1 ? t.elems[components[0]!]! : { k: "tuple", elems: components.map((c) => t.elems[c]!) };
}

/** Emits `steps` iterations of the loop from stored components `xs` at iteration `from`; returns the components. */
export function emitAdvance(
  b: AnfBuilder,
  e: Ifold,
  components: readonly number[],
  xs: readonly Atom[],
  from: Atom,
  steps: Atom,
): Atom[] {
  const packed = xs.length === 1 ? xs[0]! : b.tuple(xs, "stored");
  const acc = freshVar("st", storedType(e, components));
  const j = freshVar("j", INT);
  const body = nested((bb) => {
    const cs = xs.length === 1 ? [acc] : xs.map((_, k) => bb.proj(k, acc, "x"));
    const state = assemble(bb, e, components, cs);
    const i = bb.prim("add", [from, j], "i");
    const next = bb.bind(
      "s",
      copyFresh(
        e.body,
        new Map([
          [e.acc.id, state],
          [e.index.id, i],
        ]),
      ),
    );
    const out = componentsOf(bb, e, next, components);
    return out.length === 1 ? out[0]! : mkTuple(out);
  });
  // What only the components not stored need is dropped (it ran in the primal already: no error is hidden).
  const reached = b.bind("advanced", mkIfold(packed, steps, acc, j, pruned(body)));
  return xs.length === 1 ? [reached] : xs.map((_, k) => b.proj(k, reached, "x"));
}

/** The type of each state component (one when the state is not a tuple). */
const partTypes = (e: Ifold): readonly Type[] => (e.acc.type.k === "tuple" ? e.acc.type.elems : [e.acc.type]);

/**
 * The checkpointed form of a taped loop's reverse, or undefined when its reverse reads no state. `step` makes the
 * reverse of one step (./reverse-ifold.ts) from variables holding the state's components; `forward`: the taped
 * reverse runs forwards, and so does this one.
 */
export function checkpointOf(
  e: Ifold,
  step: (parts: readonly Var[], state: Var, k: Var) => Expr,
  stepState: Var,
  forward: boolean,
): Checkpoint | undefined {
  const types = partTypes(e);
  const parts = types.map((t, c) => freshVar(`x${c}`, t));
  const k = freshVar("k", INT);
  const body = step(parts, stepState, k);
  const free = freeVars(body);
  const components = neededComponents(e, new Set(types.flatMap((_, c) => (free.has(parts[c]!.id) ? [c] : []))));
  if (components.length === 0) return undefined;
  return {
    flag: freshVar(CHECKPOINTED_FLAG, BOOL),
    slots: freshVar("slots", INT),
    components,
    snaps: components.map((c) => freshVar("snaps", arrayOf(types[c]!))),
    positions: freshVar("positions", arrayOf(INT)),
    height: freshVar("held", INT),
    step: { body: forward ? forwardOrder(body, k) : body, state: stepState, index: k, parts },
    forward,
    loop: e,
  };
}

/** The snapshot arrays, positions and height of a loop that stored none (it was taped, or runs forwards). */
export function noSnapshots(b: AnfBuilder, cp: Checkpoint): Atom[] {
  const elem = (x: Var) => (x.type.k === "array" ? x.type.elem : x.type);
  return [...cp.snaps.map((x) => emptyTape(b, elem(x))), emptyTape(b, INT), litIndex(0)];
}

/**
 * Emits the primal loop of a checkpointed loop: the loop, storing the first snapshots of Revolve's schedule as it
 * runs (none when the reverse runs forwards). Returns its value, whether every state kept the initial shape of the
 * components the guarded ones (else the snapshots stop: the reverse recomputes from the start instead), and the
 * snapshots, their positions and their number.
 */
export function emitCheckpointedPrimal(
  b: AnfBuilder,
  cp: Checkpoint,
  guarded: readonly boolean[],
  value: Atom | undefined,
): { value: Atom; regular: Atom; stored: Atom[] } {
  const e = cp.loop;
  if (cp.forward) {
    const plain = value ?? b.bind("s", copyFresh(e));
    return { value: plain, regular: litBool(true), stored: noSnapshots(b, cp) };
  }
  const { components, slots } = cp;
  const first = componentsOf(b, e, e.init, components);
  const snap0 = first.map((x) =>
    isScalar(x.type)
      ? b.prim("setAt", [b.build(slots, () => zeroScalar(x.type), "snaps"), litIndex(0), x], "snaps")
      : b.prim("record", [emptyTape(b, x.type), litIndex(0), x, slots], "snaps"),
  );
  const pos0 = b.build(slots, () => litIndex(0), "positions");
  const next0 = nextSnapshotIr(b, litIndex(0), e.count, b.prim("sub", [slots, litIndex(1)], "free"));
  const start = b.tuple([e.init, ...snap0, pos0, litIndex(1), next0, litBool(true)], "st0");
  const m = components.length;
  const storedTypes = [...cp.snaps.map((x) => x.type), arrayOf(INT), INT, INT];
  const all = b.ifold(
    start,
    e.count,
    (st, i, bb) => {
      const [snaps, pos, h, next, regular] = [
        components.map((_, j) => bb.proj(j + 1, st, "snaps")),
        bb.proj(m + 1, st, "positions"),
        bb.proj(m + 2, st, "held"),
        bb.proj(m + 3, st, "next"),
        bb.proj(m + 4, st, "regular"),
      ];
      const s = bb.bind(
        "s",
        copyFresh(
          e.body,
          new Map([
            [e.acc.id, bb.proj(0, st, "x")],
            [e.index.id, i],
          ]),
        ),
      );
      const at = bb.prim("add", [i, litIndex(1)], "at");
      const xs = componentsOf(bb, e, s, components);
      // Stored only while the guarded components keep the initial shape (then the reverse recomputes from the start).
      const same = components.flatMap((c, j) =>
        guarded[c] ? [bb.prim("sameShape", [first[j]!, xs[j]!], "same")] : [],
      );
      const ok = same.reduce((x, y) => bb.prim("and", [x, y], "same"), regular);
      const take = bb.prim("and", [bb.prim("eq", [at, next], "due"), ok], "take");
      const kept = bb.if(
        take,
        (tb) => {
          const h1 = tb.prim("add", [h, litIndex(1)], "held");
          const free = tb.prim("sub", [slots, h1], "free");
          return mkTuple([
            ...snaps.map((x, j) => tb.prim("setAt", [x, h, xs[j]!], "snaps")),
            tb.prim("setAt", [pos, h, at], "positions"),
            h1,
            nextSnapshotIr(tb, at, e.count, free),
          ]);
        },
        () => mkTuple([...snaps, pos, h, next]),
        "kept",
      );
      if (kept.type.k !== "tuple" || kept.type.elems.length !== storedTypes.length)
        throw new Error("checkpoint: the snapshot state has the wrong layout");
      return mkTuple([s, ...storedTypes.map((_, j) => bb.proj(j, kept, "kept")), ok]);
    },
    "snapshots",
    "st",
    "i",
    e.span,
  );
  return {
    value: b.proj(0, all, "s"),
    regular: b.proj(m + 4, all, "regular"),
    stored: [
      ...components.map((_, j) => b.proj(j + 1, all, "snaps")),
      b.proj(m + 1, all, "positions"),
      b.proj(m + 2, all, "held"),
    ],
  };
}

/** Emits the reverse of one step (the step's index k) from the adjoints and the stored components; its adjoints. */
function emitStep(b: AnfBuilder, cp: Checkpoint, adjoints: readonly Atom[], k: Atom, xs: readonly Atom[]): Atom[] {
  const { step } = cp;
  b.bindVar(step.state, adjoints.length === 1 ? adjoints[0]! : mkTuple(adjoints));
  b.bindVar(step.index, k);
  const free = freeVars(step.body);
  cp.components.forEach((c, j) => {
    if (free.has(step.parts[c]!.id)) b.bindVar(step.parts[c]!, xs[j]!);
  });
  const out = b.bind("dstate", step.body);
  return adjoints.length === 1 ? [out] : adjoints.map((_, j) => b.proj(j, out, "d"));
}

/**
 * Emits the checkpointed reverse loop of `cp`: from `init` (the adjoint of the loop's value, the targets' adjoints,
 * then `carried` components passed through) to the same layout the taped reverse loop gives.
 */
export function emitCheckpointedReverse(
  b: AnfBuilder,
  cp: Checkpoint,
  init: Atom,
  targets: number,
  carried: number,
): Atom {
  const count = 1 + targets;
  const whole = targets + carried === 0;
  const adjoints = whole ? [init] : Array.from({ length: count }, (_, j) => b.proj(j, init, "d"));
  const passed = Array.from({ length: carried }, (_, j) => b.proj(count + j, init, "cur"));
  const result = cp.forward ? forwardSweep(b, cp, adjoints) : revolveSweep(b, cp, adjoints);
  return whole ? result[0]! : b.tuple([...result, ...passed], "dstate");
}

/** The reverse from the first iteration to the last, advancing the stored components one step after each. */
function forwardSweep(b: AnfBuilder, cp: Checkpoint, adjoints: readonly Atom[]): Atom[] {
  const e = cp.loop;
  const first = componentsOf(b, e, e.init, cp.components);
  const all = b.ifold(
    b.tuple([...adjoints, ...first], "dstate0"),
    e.count,
    (st, k, bb) => {
      const ds = adjoints.map((_, j) => bb.proj(j, st, "d"));
      const xs = first.map((_, j) => bb.proj(adjoints.length + j, st, "x"));
      const out = emitStep(bb, cp, ds, k, xs);
      return mkTuple([...out, ...emitAdvance(bb, e, cp.components, xs, k, litIndex(1))]);
    },
    "dstate",
    "dst",
    "k",
  );
  return adjoints.map((_, j) => b.proj(j, all, "d"));
}

/** Revolve's reverse (./revolve.ts): a loop over the schedule's actions, until step 0 is reversed. */
function revolveSweep(b: AnfBuilder, cp: Checkpoint, adjoints: readonly Atom[]): Atom[] {
  const e = cp.loop;
  const [a, m] = [adjoints.length, cp.snaps.length];
  const last = b.prim("sub", [e.count, litIndex(1)], "last");
  const start = b.tuple([...adjoints, ...cp.snaps, cp.positions, cp.height, last], "revolve0");
  const all = b.while(
    start,
    (st, bb) => bb.prim("ge", [bb.proj(a + m + 2, st, "i"), litIndex(0)], "more"),
    (st, bb) => {
      const ds = adjoints.map((_, j) => bb.proj(j, st, "d"));
      const snaps = cp.snaps.map((_, j) => bb.proj(a + j, st, "snaps"));
      const [pos, h, i] = [
        bb.proj(a + m, st, "positions"),
        bb.proj(a + m + 1, st, "held"),
        bb.proj(a + m + 2, st, "i"),
      ];
      const top = bb.prim("sub", [h, litIndex(1)], "top");
      const p = bb.prim("get", [pos, top], "p");
      const free = bb.prim("sub", [cp.slots, h], "free");
      const atTop = bb.prim("eq", [p, i], "atTop");
      const reverse = bb.prim("or", [atTop, bb.prim("le", [free, litIndex(0)], "full")], "reverse");
      const gap = bb.prim("sub", [i, p], "gap");
      const steps = bb.if(
        reverse,
        () => gap,
        (sb) => splitIr(sb, sb.prim("add", [gap, litIndex(1)], "length"), free),
        "steps",
      );
      // The top snapshot, copied by reading its scalars: a row of the snapshots passed to the advancing loop would
      // share them, and storing the next snapshot would copy them all (src/lowering/ownership.ts).
      const from = snaps.map((x) => freshCopy(bb, x, top));
      const xs = emitAdvance(bb, e, cp.components, from, p, steps);
      return nested((ob) => {
        const out = ob.if(
          reverse,
          (rb) => {
            const k = rb.prim("sub", [last, i], "k");
            const d = emitStep(rb, cp, ds, k, xs);
            const h1 = rb.if(
              atTop,
              (x) => x.prim("sub", [h, litIndex(1)], "held"),
              () => h,
              "held",
            );
            return mkTuple([...d, ...snaps, pos, h1, rb.prim("sub", [i, litIndex(1)], "i")]);
          },
          (pb) =>
            mkTuple([
              ...ds,
              ...snaps.map((x, j) => pb.prim("setAt", [x, h, xs[j]!], "snaps")),
              pb.prim("setAt", [pos, h, pb.prim("add", [p, steps], "at")], "positions"),
              pb.prim("add", [h, litIndex(1)], "held"),
              i,
            ]),
          "revolve",
        );
        return out;
      });
    },
    "revolve",
    "rs",
    e.span,
  );
  return adjoints.map((_, j) => b.proj(j, all, "d"));
}

/**
 * Element `i` of `arr` (an array of a state component's snapshots), copied: recorded into a tape of one entry, which
 * reads it as an update reads the value it stores (src/lowering/ownership.ts).
 */
function freshCopy(b: AnfBuilder, arr: Atom, i: Atom): Atom {
  const t = arr.type.k === "array" ? arr.type.elem : arr.type;
  const x = b.prim("get", [arr, i], "x");
  if (isScalar(t)) return x;
  const one = b.prim("record", [emptyTape(b, t), litIndex(0), x, litIndex(1)], "copy");
  return b.prim("get", [one, litIndex(0)], "x");
}

/** The scalars a taped loop stores per iteration besides its states (see TapeSize.arraysPerIteration). */
function perIteration(b: AnfBuilder, tape: TapeSize, largest: Atom): Atom {
  const scalars = litDouble(tape.scalarsPerIteration);
  if (tape.arraysPerIteration === 0) return scalars;
  const arrays = b.prim("mul", [litDouble(tape.arraysPerIteration), largest], "arrays");
  return b.prim("add", [scalars, arrays], "perIteration");
}
