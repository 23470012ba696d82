// Rules on the primitives that only say how a value is differentiated (stopGradient, withDerivativeOf): both are
// their first operand's value, so where the derivative they describe cannot matter, the mark's other work goes.
//
// `stop-derivative-of`: stopGradient (withDerivativeOf a b) -> stopGradient a. The derivative is zero either way, and
// b (the selected element a min fold recomputes for its derivative, ../../ad/selection-folds.ts) is then dead: a
// max over a vector under stopGradient (logsumexp's shift) keeps no index and recomputes nothing.

import type { Atom } from "../../ir/ir.js";
import { mkPrim } from "../../ir/builder.js";
import { rule } from "./rule.js";

export const stopDerivativeOf = rule({
  name: "stop-derivative-of",
  head: "prim",
  ops: ["stopGradient"],
  doc: "stopGradient (withDerivativeOf a b) -> stopGradient a",
  apply(node, ctx) {
    if (node.op !== "stopGradient") return undefined;
    const def = ctx.definition(node.args[0] as Atom);
    if (def?.kind !== "prim" || def.op !== "withDerivativeOf") return undefined;
    return mkPrim("stopGradient", [def.args[0]!]);
  },
});
