// `constant-state-leaf`: a Double of a loop's tuple state that starts as a literal c and that every iteration either
// passes on or sets to c again holds c in every iteration (by induction over them), so its reads in the body are c.
// Forward mode over a loop on values leaves such a leaf: the tangent of the running minimum of a selection fold
// (../../ad/selection-folds.ts), whose elements are stopped (tangent 0), is `if kept then <its tangent> else 0.` from
// 0. With its reads replaced, the choice is between two zeros and goes; the leaf is then a constant the loop carries.

import { splitLets, wrapLets, type Binding } from "../../ir/builder.js";
import type { Ifold } from "../../ir/ir.js";
import { sameLiteral } from "../../ir/equal.js";
import { initialLeaf, leafKeeps, samePath, statePaths } from "../state-leaves.js";
import type { Type } from "../../types/types.js";
import { rule } from "./rule.js";

/** The paths of the Double leaves of a tuple type. */
function doubleLeaves(t: Type, at: number[] = [], out: number[][] = []): number[][] {
  if (t.k === "double") out.push(at);
  else if (t.k === "tuple") t.elems.forEach((e, k) => doubleLeaves(e, [...at, k], out));
  return out;
}

export const constantStateLeaf = rule({
  name: "constant-state-leaf",
  head: "ifold",
  doc: "a Double leaf of the state starting as literal c, only passed on or set to c: its reads in the body are c",
  apply(node, ctx) {
    if (node.acc.type.k !== "tuple") return undefined;
    const { bindings, tail } = splitLets(node.body);
    const pathOf = statePaths(node);
    for (const leaf of doubleLeaves(node.acc.type)) {
      const c = initialLeaf(node, leaf, (a) => ctx.definition(a));
      if (c?.kind !== "lit") continue;
      const value = c.value;
      if (!leafKeeps(node, leaf, (a) => a.kind === "lit" && sameLiteral(a.value, value), pathOf)) continue;
      // Something reads it (else there is nothing to replace).
      const reads = bindings.filter((b) => {
        const at = pathOf.get(b.v.id);
        return at !== undefined && samePath(at, leaf);
      });
      if (reads.length === 0) continue;
      const readIds = new Set(reads.map((b) => b.v.id));
      const out: Binding[] = bindings.map((b) => (readIds.has(b.v.id) ? { v: b.v, rhs: c } : b));
      return { ...node, body: wrapLets(out, tail) } satisfies Ifold;
    }
    return undefined;
  },
});
