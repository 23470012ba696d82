// The update lanes of ../lowering/update-lanes.ts: a loop over j whose tuple state's array leaves are updated at j,
// directly or by an inner loop, run two (f32: four) iterations at a time (four f64 side by side over 32 iterations).
// Before the lanes: the prefixes of the paths in range, and for each inner loop a pass over its steps computing only
// its index w(b), which checks every element written and every read at b in range and that no two lanes meet out of
// order (else no lanes); the pass is remembered with its inputs, and runs again only when they change.
// In the lanes: the body's terms as ./simd.ts computes them, then per leaf a vector load, add and store of the lanes'
// elements; an inner loop's shared steps likewise, and its further steps (count j + c: lane q takes q more) per lane.

import { freeVars } from "../ir/free.js";
import { wrapLets } from "../ir/builder.js";
import { mkTuple, type Atom, type Expr, type Ifold } from "../ir/ir.js";
import type { DirectUpdate, FoldUpdate, TupleUpdatePlan } from "../lowering/update-lanes.js";
import { leafSlotCount, leafStarts, leavesOf } from "../lowering/leaves.js";
import type { Code } from "./encoder.js";
import { extractLane, i32, load, op, store, type OpName } from "./instructions.js";
import type { WasmEmitter, WSlots } from "./emit.js";
import { indexLoop } from "./induction.js";
import { runInLanes } from "./lane-loops.js";
import { Lanes, laneCount } from "./simd.js";
import { address, iadd, iconst, imul, islot, product, slotCode, type IExpr, type WSlot } from "./slots.js";

const PRECHECK = "updatePrecheck";
const ZERO_SLOT: WSlot = { value: 0, type: "i32" };

/** A written leaf's slots and the element index where its row at the path's prefix starts. */
interface Row {
  readonly data: WSlot;
  readonly start: WSlot;
  /** The length of the rows (the leaf's last dimension). */
  readonly length: WSlot;
}

/** Runs the lanes of `plan` on the state's slots; returns the iteration the plain loop continues from. */
export function tupleUpdateInLanes(em: WasmEmitter, plan: TupleUpdatePlan, n: WSlot, state: WSlots, e: Ifold): WSlot {
  const leaves = leavesOf(e.acc.type);
  const starts = leafStarts(leaves);
  const slotsOf = (leaf: number) => state.slice(starts[leaf], starts[leaf]! + leafSlotCount(leaves[leaf]!));
  // The room the direct updates leave: j + offset below the rows' length.
  const room = em.define("i32", slotCode(n));
  const lower = (limit: Code) =>
    em.set(room, op("select", limit, slotCode(room), op("i32.lt_s", limit, slotCode(room))));
  for (const l of plan.leaves)
    if (l.kind === "direct") {
      const [, , ...dims] = slotsOf(l.leaf);
      lower(op("i32.sub", slotCode(dims[l.prefix.length]!), i32(l.offset)));
    }
  const m = Lanes.bound(em, plan, n, room);
  // Each written leaf's row: the prefix in range (else no lanes: the plain loop raises the error where it would).
  const rows = new Map<number, Row>();
  for (const l of plan.leaves) {
    if (l.kind === "keep") continue;
    const [data, offset, ...dims] = slotsOf(l.leaf) as [WSlot, WSlot, ...WSlot[]];
    let base: IExpr = islot(offset);
    l.prefix.forEach((u, d) => {
      const at = em.atom(u)[0]!;
      em.set(m, op("select", slotCode(m), i32(0), op("i32.lt_u", slotCode(at), slotCode(dims[d]!))));
      base = iadd(base, imul(islot(at), product(dims.slice(d + 1))));
    });
    rows.set(l.leaf, { data, start: em.index(base), length: dims[l.prefix.length]! });
  }
  const groups = WIDE_GROUPS[em.real];
  for (const l of plan.leaves) if (l.kind === "fold") remembered(em, plan, l, m, rows.get(l.leaf)!, groups);
  const run = (count: number) =>
    runInLanes(
      em,
      plan,
      m,
      (at, side) => {
        const lane = new Lanes(em, plan, at, side, m);
        for (const l of plan.lets) lane.let(l);
        for (const l of plan.leaves)
          if (l.kind === "direct") direct(em, lane, l, rows.get(l.leaf)!, at);
          else if (l.kind === "fold") fold(em, lane, l, rows.get(l.leaf)!, at);
      },
      count,
    );
  if (groups === 1 || !plan.leaves.some((l) => l.kind === "fold")) run(1);
  else {
    em.fb.if(op("i32.ge_s", slotCode(m), i32(WIDE_FROM)));
    run(groups);
    em.fb.else();
    // The same loops as the single groups after the wide ones: the listing counts them once.
    const counted = [em.laneLoops, em.outerLaneLoops] as const;
    run(1);
    [em.laneLoops, em.outerLaneLoops] = counted;
    em.fb.end();
  }
  // A state component set to a uniform scalar: its value once any iteration ran in lanes.
  for (const l of plan.leaves)
    if (l.kind === "keep") {
      const s = state[starts[l.leaf]!]!;
      em.set(s, op("select", slotCode(em.atom(l.atom)[0]!), slotCode(s), op("i32.gt_s", slotCode(m), i32(0))));
    }
  return m;
}

/**
 * Groups of lanes side by side when an inner loop runs over many iterations: four iterations at a time in float64, so
 * that the inner loop's uniform work (its index w(b), its reads at b) is done once for four lanes; but every four
 * iterations the inner loop then takes three steps lane by lane, which costs more than it saves over few iterations.
 * From 32 iterations. gmm's gradient, K = 25 (in-process A/B, loaded machine): d = 64 203 ms in one group, 183 in two;
 * d = 10 7.1 ms in one group, 8.9 in two.
 */
const WIDE_GROUPS = { f64: 2, f32: 1 } as const;
const WIDE_FROM = 32;

const shape = (em: WasmEmitter) => (em.real === "f64" ? "f64x2" : "f32x4");
const shift = (em: WasmEmitter) => (em.real === "f64" ? 3 : 2);

/**
 * Adds the lanes `x` to the elements from `first` + `after` of a row: one load, add and store. The groups of lanes
 * pass one `first` and their own `after` (a constant offset of the load and store, not an address each: fewer
 * registers in the loop).
 */
function addLanes(em: WasmEmitter, row: Row, first: WSlot, x: Code, after = 0): void {
  const addr = address(row.data, iadd(islot(row.start), islot(first)), shift(em));
  const bytes = after << shift(em);
  em.fb.emit(store("v128.store", addr, op(`${shape(em)}.add`, load("v128.load", addr, bytes), x), bytes));
}

function direct(em: WasmEmitter, lane: Lanes, l: DirectUpdate, row: Row, at: WSlot): void {
  const first = em.index(iadd(islot(at), iconst(l.offset)));
  for (let g = 0; g < lane.groups; g++) addLanes(em, row, first, lane.real(l.value, g), g * lane.lanes);
}

/** An inner loop's body as an expression (its lets, then the index and value it adds), for ./induction.ts. */
const foldBodies = new WeakMap<FoldUpdate, Expr>();
const foldBody = (l: FoldUpdate): Expr => {
  let body = foldBodies.get(l);
  if (body === undefined) {
    body = wrapLets(l.lets, mkTuple([l.index, l.value]));
    foldBodies.set(l, body);
  }
  return body;
};

/** The element index (from the row's start) of the first lane of the current group at an index of the lanes. */
function firstOf(lane: Lanes, index: Atom, at: WSlot): IExpr {
  const v = lane.indexValue(index);
  const moved = iadd(islot(at), iconst(v.offset));
  return v.shift === undefined ? moved : iadd(moved, islot(v.shift));
}

/**
 * An inner loop: the first lane's steps for all lanes; then, for a count per lane, lane q's further q steps (step
 * count + j for the lanes past j: whole groups as vectors, the group holding lane j lane by lane).
 */
function fold(em: WasmEmitter, lane: Lanes, l: FoldUpdate, row: Row, at: WSlot): void {
  const count =
    l.countOffset === undefined ? em.atom(l.fold.count)[0]! : em.index(iadd(islot(at), iconst(l.countOffset)));
  const width = lane.lanes * lane.groups;
  em.scoped(() =>
    indexLoop(
      em,
      l.fold.index,
      count,
      foldBody(l),
      () =>
        em.scoped(() => {
          for (const x of l.lets) lane.let(x);
          const first = em.index(firstOf(lane, l.index, at));
          for (let g = 0; g < lane.groups; g++) addLanes(em, row, first, lane.real(l.value, g), g * lane.lanes);
        }),
      undefined,
      (id) => lane.plan.varying.has(id),
    ),
  );
  if (l.countOffset === undefined) return;
  const real = em.real;
  for (let j = 0; j + 1 < width; j++)
    em.scoped(() => {
      em.bind(l.fold.index, [em.define("i32", op("i32.add", slotCode(count), i32(j)))]);
      for (const x of l.lets) lane.let(x);
      const first = em.index(firstOf(lane, l.index, at));
      for (let g = 0; g < lane.groups; g++) {
        const lead = g * lane.lanes;
        if (lead + lane.lanes - 1 <= j) continue;
        if (lead > j) {
          addLanes(em, row, first, lane.real(l.value, g), lead);
          continue;
        }
        const value = em.define("v128", lane.real(l.value, g));
        for (let q = j + 1 - lead; q < lane.lanes; q++) {
          const addr = em.define(
            "i32",
            address(row.data, iadd(iadd(islot(row.start), islot(first)), iconst(lead + q)), shift(em)),
          );
          const add = `${real}.add` as OpName;
          const element = load(`${real}.load`, slotCode(addr));
          em.fb.emit(
            store(`${real}.store`, slotCode(addr), op(add, element, extractLane(shape(em), slotCode(value), q))),
          );
        }
      }
    });
}

/**
 * The check below, unless this code ran it last on the same inputs (its lanes' count, the free variables of the
 * index's code, the lengths it checks against): the loop run again inside an outer loop, on the same sizes (gmm: once
 * per point and component), checks once. Its locals start at 0 (wasm's), so the first run checks.
 */
function remembered(em: WasmEmitter, plan: TupleUpdatePlan, l: FoldUpdate, m: WSlot, row: Row, groups: number): void {
  const own = new Set<number>([plan.index.id, l.fold.index.id, ...l.indexLets.map((x) => x.v.id)]);
  const inputs: WSlot[] = [m, row.length];
  if (l.countOffset === undefined) inputs.push(em.atom(l.fold.count)[0]!);
  for (const v of l.reads) inputs.push(em.atom(v)[2]!);
  for (const x of l.indexLets) for (const v of freeVars(x.rhs).values()) if (!own.has(v.id)) inputs.push(...em.atom(v));
  const valid = em.local("i32");
  const passed = em.local("i32");
  const kept = inputs.map((s) => em.local(s.type));
  const same = inputs
    .map((s, k) => op(`${s.type}.eq` as OpName, slotCode(s), slotCode(kept[k]!)))
    .reduce((x, y) => op("i32.and", x, y), slotCode(valid));
  em.fb.if(same);
  em.set(m, op("select", slotCode(m), i32(0), slotCode(passed)));
  em.fb.else();
  inputs.forEach((s, k) => em.set(kept[k]!, slotCode(s)));
  precheck(em, plan, l, m, row, groups);
  em.set(passed, op("i32.ne", slotCode(m), i32(0)));
  em.set(valid, i32(1));
  em.fb.end();
}

/**
 * Before the lanes, once: the inner loop's index w(b) (its first lane's element, as if j were 0) for every step the
 * lanes take, b < B (B the largest count of a lane below m). Lane p takes step b when b < its count; it writes
 * p + w(b), in range for the least and the greatest such p; w rises in every step, so two lanes p < p' of a group
 * meet out of order only at steps b' < b less than a lane count apart with w(b) - w(b') = p' - p, which must not be
 * possible.
 * Reads at b of vectors: B at most their length. A failure sets m to 0.
 */
function precheck(em: WasmEmitter, plan: TupleUpdatePlan, l: FoldUpdate, m: WSlot, row: Row, groups: number): void {
  // The lanes that run side by side: every group's.
  const lanes = laneCount(em.real) * groups;
  const cc = l.countOffset;
  const i = (code: Code) => em.define("i32", code);
  const get = (s: WSlot) => slotCode(s);
  const positive = op("i32.gt_s", get(m), i32(0));
  const total =
    cc === undefined ? get(em.atom(l.fold.count)[0]!) : op("i32.add", op("i32.sub", get(m), i32(1)), i32(cc));
  const steps = i(op("select", total, i32(0), positive));
  const fail = () => {
    em.set(m, i32(0));
    em.fb.br(PRECHECK);
  };
  const failIf = (cond: Code) => {
    em.fb.if(cond);
    fail();
    em.fb.end();
  };
  em.fb.block(PRECHECK);
  // A negative count is the plain loop's error.
  failIf(op("i32.lt_s", get(steps), i32(0)));
  for (const v of l.reads) failIf(op("i32.gt_s", get(steps), get(em.atom(v)[2]!)));
  const previous = Array.from({ length: lanes - 1 }, () => em.local("i32"));
  em.scoped(() => {
    const b = em.loopVariable(l.fold.index, steps);
    em.countedLoop(b, steps, () =>
      em.scoped(() => {
        const lane = new Lanes(em, plan, ZERO_SLOT, 1, m);
        for (const x of l.indexLets) lane.let(x);
        const w = em.index(firstOf(lane, l.index, ZERO_SLOT));
        // The lanes taking step b: from max(0, b - cc + 1) (a count per lane) or 0, up to m - 1.
        const least = cc === undefined ? ZERO_SLOT : i(op("i32.add", op("i32.sub", get(b), i32(cc)), i32(1)));
        const low = cc === undefined ? least : i(op("select", get(least), i32(0), op("i32.gt_s", get(least), i32(0))));
        // w itself below the rows' length first: then nothing below overflows.
        failIf(op("i32.ge_s", get(w), get(row.length)));
        failIf(op("i32.lt_s", op("i32.add", get(low), get(w)), i32(0)));
        failIf(op("i32.ge_s", op("i32.add", op("i32.sub", get(m), i32(1)), get(w)), get(row.length)));
        previous.forEach((prev, k) => {
          // Steps k + 1 apart (fewer than a lane count): w must rise (by one at least per step), and if by less than
          // a lane count, no group may hold both lanes (p takes b: p >= low; p' = p + delta <= m - 1).
          const delta = i(op("i32.sub", get(w), get(prev)));
          const taken = op("i32.ge_s", get(b), i32(k + 1));
          const tooClose = op("i32.lt_s", get(delta), i32(lanes));
          const meet = op("i32.le_s", op("i32.add", get(low), get(delta)), op("i32.sub", get(m), i32(1)));
          const falls = k === 0 ? op("i32.lt_s", get(delta), i32(1)) : i32(0);
          failIf(op("i32.and", taken, op("i32.or", falls, op("i32.and", tooClose, meet))));
        });
        for (let k = previous.length - 1; k > 0; k--) em.set(previous[k]!, get(previous[k - 1]!));
        if (previous.length > 0) em.set(previous[0]!, get(w));
      }),
    );
  });
  em.fb.end();
}
