// Tuple partial evaluation (paper 000, Fig. 7d): projecting a component of a let-bound tuple is that component.
// The dual numbers of forward-mode AD leave many such pairs behind.

import { rule } from "./rule.js";

export const projOfTuple = rule({
  name: "proj-of-tuple",
  head: "proj",
  doc: "let t = (a0, ..., an) in ... proj k t -> ak   (fst (a, b) -> a, snd (a, b) -> b)",
  apply(node, ctx) {
    const def = ctx.definition(node.arg);
    return def?.kind === "tuple" ? def.elems[node.index] : undefined;
  },
});
