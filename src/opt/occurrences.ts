// Occurrence analysis for rewrite rules: how each variable is used, computed once per simplifier iteration.

import { forEachNode, operands } from "../ir/free.js";
import type { Expr } from "../ir/ir.js";

export interface UseInfo {
  /** Uses as an operand anywhere. */
  total: number;
  /** Uses as the array of `get` (a[i]) or the operand of `length`: the uses pull-array fusion can remove. */
  asArray: number;
}

export function analyseUses(e: Expr): Map<number, UseInfo> {
  const info = new Map<number, UseInfo>();
  const entry = (id: number) => {
    let u = info.get(id);
    if (u === undefined) info.set(id, (u = { total: 0, asArray: 0 }));
    return u;
  };
  forEachNode(e, (node) => {
    for (const a of operands(node)) if (a.kind === "var") entry(a.id).total++;
    if (node.kind === "prim" && (node.op === "get" || node.op === "length")) {
      const arr = node.args[0]!;
      if (arr.kind === "var") entry(arr.id).asArray++;
    }
  });
  return info;
}
