// The SIMD part of a combine loop (../lowering/lanes.ts `combineLanes`): for each group of lanes, the terms of every
// lane at once, then the scalar step lane by lane, in the loop's order — each lane's term extracted, the loop index
// bound to the lane's iteration, and the step written as ordinary code on the state. Bit for bit the plain loop: the
// same terms, and the same steps in the same order.

import type { CombinePlan } from "../lowering/lanes.js";
import { extractLane, localGet, localSet } from "./instructions.js";
import type { WasmEmitter, WSlots } from "./emit.js";
import { runInLanes } from "./lane-loops.js";
import { Lanes } from "./simd.js";
import { iadd, iconst, islot, type WSlot } from "./slots.js";

/** Runs the lanes of `plan` over the state's slots; returns the iteration the plain loop continues from. */
export function combineInLanes(em: WasmEmitter, plan: CombinePlan, n: WSlot, state: WSlots): WSlot {
  const m = Lanes.bound(em, plan, n);
  const shape = em.real === "f64" ? "f64x2" : "f32x4";
  runInLanes(em, plan, m, (at, groups) => {
    const lanes = new Lanes(em, plan, at, groups, m);
    for (const l of plan.lets) lanes.let(l);
    // Every group's terms are computed (and kept) before the first step: the step may not come between them.
    const kept = Array.from({ length: groups }, (_, g) =>
      plan.terms.map((t) => {
        const local = em.fb.local("v128");
        em.fb.emit(localSet(local, lanes.real(t, g)));
        return local;
      }),
    );
    for (let g = 0; g < groups; g++)
      for (let q = 0; q < lanes.lanes; q++)
        em.scoped(() => {
          plan.terms.forEach((t, k) => em.bind(t, [em.define(em.real, extractLane(shape, localGet(kept[g]![k]!), q))]));
          em.bind(plan.index, [em.index(iadd(islot(at), iconst(g * lanes.lanes + q)))]);
          em.assign(state, em.expr(plan.step));
        });
  });
  return m;
}
