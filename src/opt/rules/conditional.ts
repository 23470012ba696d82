// Conditional rules (paper 000, Fig. 7f).

import { alphaEqual } from "../../ir/equal.js";
import { rule } from "./rule.js";

export const ifLiteral = rule({
  name: "if-literal",
  head: "if",
  doc: "if true then e1 else e2 -> e1;  if false then e1 else e2 -> e2",
  apply(node) {
    if (node.cond.kind !== "lit") return undefined;
    return node.cond.value === true ? node.then : node.else;
  },
});

export const ifSameBranches = rule({
  name: "if-same-branches",
  head: "if",
  doc: "if c then e else e -> e   (branches equal up to bound names)",
  apply(node) {
    return alphaEqual(node.then, node.else) ? node.then : undefined;
  },
});
