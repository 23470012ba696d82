// The loops of an ifold run in SIMD lanes (./simd.ts writes the lanes): a reduction `acc ⊕ x` and an in-place update
// at the loop index. Each runs whole groups of lanes up to the plan's bound and returns the iteration the plain loop
// continues from (./emit.ts `ifold`). And the loops over the groups of lanes, for these and a build's (./build.ts).

import type { LanePlan, ReductionPlan, UpdatePlan } from "../lowering/lanes.js";
import { extractLane, i32, load, localGet, localSet, op, store, type OpName } from "./instructions.js";
import type { WasmEmitter } from "./emit.js";
import { LANES_STOP, Lanes, laneCount } from "./simd.js";
import { address, iadd, iconst, imul, islot, product, slotCode, type IExpr, type Real, type WSlot } from "./slots.js";

/**
 * How many groups of lanes a plan runs side by side (a power of two): four when it holds loops across the lanes (outer
 * lanes) that read consecutive elements, whose states are chains of additions one after the other, so that four
 * chains overlap (x^T dh 64x784x128: 2.1 ms in one group, 1.5 in two, 0.95 in four), or exp or log, a chain of
 * some forty dependent operations (exp with its division: the sum of exps of 1.28M Doubles 6.2 ms in one group, 5.0
 * in two or four; in float32 four groups of exp were slower: the MLP step 1.6 -> 3.4 ms); else one. Rows per lane
 * (one element of each lane's row, a load per lane) gain nothing from more: those take one.
 */
export const groupCount = (plan: LanePlan, real: Real): number =>
  plan.laneRows.size === 0 && (plan.folds.size > 0 || (plan.transcendental && real === "f64")) ? 4 : 1;

/**
 * Writes the loops over the iterations that run in lanes, from 0 to `bound` (a multiple of the lane count): groups of
 * `groups` (by default `groupCount(plan)`) side by side, then single groups for the rest. `write` writes one
 * iteration's body for the groups of lanes starting at `at`.
 *
 * With `limit` (Lanes.reach: the iterations whose reads are in range, `bound` before rounding down), the last single
 * group ends at `limit` instead, overlapping the one before when `limit` is not a whole number of groups, and `bound`
 * is set to `limit`: only for an element computed afresh from the index and stored, where computing one twice stores
 * the same bits (a build's). A component count of 25 in lanes of 2 then runs no element in the plain loop; GMM d64's
 * objective ran its 25th component there, at 4.6x the time of one in lanes (reading a transposed row per element).
 */
export function runInLanes(
  em: WasmEmitter,
  plan: LanePlan,
  bound: WSlot,
  write: (at: WSlot, groups: number) => void,
  groups = groupCount(plan, em.real),
  limit?: WSlot,
): void {
  const lanes = laneCount(em.real);
  const at = em.local("i32");
  let start: WSlot | undefined;
  // A failed check of a shifted read (Lanes.get) sets `bound` to its group and leaves by this block.
  const checked = plan.shifted.size > 0;
  if (checked) em.fb.block(LANES_STOP);
  if (groups > 1) {
    const wide = em.define("i32", op("i32.and", slotCode(bound), i32(-lanes * groups)));
    em.countedLoop(at, wide, () => em.scoped(() => write(at, groups)), undefined, lanes * groups);
    start = wide;
  }
  if (limit === undefined) {
    em.countedLoop(at, bound, () => em.scoped(() => write(at, 1)), start, lanes);
  } else {
    // Below one group's lanes there is no group to overlap: the plain loop takes all (end = bound = 0).
    const end = em.define(
      "i32",
      op("select", slotCode(limit), slotCode(bound), op("i32.ge_s", slotCode(limit), i32(lanes))),
    );
    const last = em.define("i32", op("i32.sub", slotCode(limit), i32(lanes)));
    em.countedLoop(
      at,
      end,
      () =>
        em.scoped(() => {
          const group = em.define(
            "i32",
            op("select", slotCode(at), slotCode(last), op("i32.le_s", slotCode(at), slotCode(last))),
          );
          write(group, 1);
        }),
      start,
      lanes,
    );
    em.set(bound, slotCode(end));
  }
  if (checked) em.fb.end();
}

/**
 * The SIMD part of a reduction `acc ⊕ x` (the state's slot `acc`): x for a group of lanes at a time, added to acc
 * lane by lane, in order. Returns the iteration the plain loop continues from.
 */
export function reduceInLanes(em: WasmEmitter, plan: ReductionPlan, n: WSlot, acc: WSlot): WSlot {
  const m = Lanes.bound(em, plan, n);
  const step = `${em.real}.${plan.op}` as OpName;
  runInLanes(em, plan, m, (at, groups) => {
    const lanes = new Lanes(em, plan, at, groups, m);
    for (const l of plan.lets) lanes.let(l);
    for (let g = 0; g < groups; g++) {
      const term = em.fb.local("v128");
      em.fb.emit(localSet(term, lanes.real(plan.term, g)));
      for (let q = 0; q < lanes.lanes; q++) {
        const x = extractLane(em.real === "f64" ? "f64x2" : "f32x4", localGet(term), q);
        em.set(acc, op(step, slotCode(acc), x));
      }
    }
  });
  return m;
}

/**
 * The SIMD part of an in-place update loop `addAt a (u.., k + c) x` (the state's slots `state`: data, offset, dims): a
 * group of elements of the row at the uniform indexes u.. is loaded, x's lanes added, and stored. Lanes run only when
 * the uniform indexes are in range (else the plain loop raises the error at the first iteration, as without lanes).
 * Returns the iteration the plain loop continues from.
 */
export function updateInLanes(em: WasmEmitter, plan: UpdatePlan, n: WSlot, state: readonly WSlot[]): WSlot {
  const [data, offset, ...dims] = state as [WSlot, WSlot, ...WSlot[]];
  const m = Lanes.bound(em, plan, n);
  let base: IExpr = islot(offset);
  plan.prefix.forEach((u, d) => {
    const at = em.atom(u)[0]!;
    // Out of range (negative is a large unsigned): no lanes.
    em.set(m, op("select", slotCode(m), i32(0), op("i32.lt_u", slotCode(at), slotCode(dims[d]!))));
    base = iadd(base, imul(islot(at), product(dims.slice(d + 1))));
  });
  const row = em.index(iadd(base, iconst(plan.offset)));
  const shape = em.real === "f64" ? "f64x2" : "f32x4";
  const shift = em.real === "f64" ? 3 : 2;
  runInLanes(em, plan, m, (at, groups) => {
    const lanes = new Lanes(em, plan, at, groups, m);
    for (const l of plan.lets) lanes.let(l);
    // One address for all groups, each group's load and store at its own constant offset.
    const addr = em.define("i32", address(data, iadd(islot(row), islot(at)), shift));
    for (let g = 0; g < groups; g++) {
      const x = lanes.real(plan.value, g);
      const bytes = (g * lanes.lanes) << shift;
      em.fb.emit(
        store("v128.store", slotCode(addr), op(`${shape}.add`, load("v128.load", slotCode(addr), bytes), x), bytes),
      );
    }
  });
  return m;
}
