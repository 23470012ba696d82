// The whole function as one kernel run by one thread: every construct the webgpu back end compiles, in the order the
// other back ends run it. It is the plan for a program that has no parallel loops at its top level, and the rerun that
// finds the first error of a call whose parallel plan failed a check (./emit.ts).

import { typeOf, type IrFunction } from "../ir/ir.js";
import { ownership } from "../lowering/ownership.js";
import { slotNames, varName } from "../codegen/writer.js";
import type { ErrorSite } from "./control.js";
import type { ScalarKind } from "../runtime/value.js";
import { WgslEmitter } from "./emit.js";
import { envStore, kernelModule, ONE_THREAD, param } from "./kernel.js";
import { offsetPositions, slotKinds, type Plan } from "./plan.js";

export function serialPlan(fn: IrFunction): Plan {
  const sites: ErrorSite[] = [];
  const em = new WgslEmitter(sites, false);
  const owned = ownership(fn);
  em.inPlace = owned.inPlace;
  em.copyOnEntry = owned.copyOnEntry;
  const argParams: (number | undefined)[] = [];
  const paramKinds: ScalarKind[] = [];
  for (const p of fn.params) {
    const names = slotNames(varName(p.id), p.type);
    const kinds = slotKinds(p.type);
    const offsets = offsetPositions(p.type);
    const slots = names.map((name, i) => {
      if (offsets.has(i)) {
        argParams.push(undefined);
        return "0";
      }
      const k = paramKinds.push(kinds[i]!) - 1;
      argParams.push(k);
      em.out.line(`let ${name} = ${param(k, kinds[i]!)};`);
      return name;
    });
    em.bind(p, slots);
    em.markDimensions(slots, p.type);
  }
  const resultType = typeOf(fn.body);
  const result = em.expr(fn.body, em.fresh());
  const kinds = slotKinds(resultType);
  result.forEach((s, i) => em.out.line(envStore(i, kinds[i]!, s)));
  return {
    kernels: [{ wgsl: kernelModule(em, ONE_THREAD), what: "the whole function, on one thread" }],
    steps: [{ kind: "dispatch", kernel: 0, groups: () => [1, 1, 1] }],
    paramCount: paramKinds.length,
    argParams,
    paramKinds,
    envCount: result.length,
    result: result.map((_, at) => ({ from: "env", at })),
    resultType,
    paramTypes: fn.params.map((p) => p.type),
    sites,
  };
}
