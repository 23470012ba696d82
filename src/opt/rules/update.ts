// Rules on in-place updates (`addAt`).
//
// `add-negative-zero`: adding -0 changes no Double (x + -0 is x for every x: -0 + -0 = -0, 0 + -0 = 0, NaN stays NaN),
// so `addAt a path v` with every leaf of v a literal -0 is a. Reverse mode over a branch not taken adds zero adjoints
// (symbolic zeros, Prim.tangent, negated on the way: `-(0 + 0)`), and forward over reverse adds tangents of them; with
// this rule such an update loop becomes the identity and goes (kmeans' Newton direction: the centroids a point is not
// closest to). Exact; like dead-code elimination it may remove the update's index error (../dce.ts).

import type { Atom } from "../../ir/ir.js";
import type { RuleContext } from "./rule.js";
import { rule } from "./rule.js";

/** Whether every Double in `a` is a literal -0 (through let-bound tuples). */
function allNegativeZero(a: Atom, ctx: RuleContext, depth = 0): boolean {
  if (a.kind === "lit") return Object.is(a.value, -0);
  const d = ctx.definition(a);
  return d?.kind === "tuple" && depth < 8 && d.elems.every((x) => allNegativeZero(x, ctx, depth + 1));
}

export const addNegativeZero = rule({
  name: "add-negative-zero",
  head: "prim",
  ops: ["addAt"],
  doc: "addAt a path v -> a   (every leaf of v a literal -0)",
  apply(node, ctx) {
    if (node.op !== "addAt") return undefined;
    const [target, , value] = node.args as [Atom, Atom, Atom];
    return allNegativeZero(value, ctx) ? target : undefined;
  },
});
