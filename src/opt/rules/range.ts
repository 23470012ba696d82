// Rules that use range facts (../facts.ts): what enclosing loops and conditions tell about a value.
//  - comparisons decided by the facts fold (so a guard `0 <= j && j < n` disappears where j indexes a loop over n);
//  - `max 0 n` is n where n is known not to be negative (a loop counted up to a length held in a variable);
//  - `checkIndex j n` is j where 0 <= j < n is known, and is not needed in front of a get that checks the same;
//  - the length of a row, `length a[k]`, is written `length a[0]` where a is known not to be empty: arrays are regular,
//    so every row has the same length, and one spelling lets equal sizes be recognised as equal.

import { AnfBuilder, litIndex, mkPrim } from "../../ir/builder.js";
import { lit, type Expr } from "../../ir/ir.js";
import { BOOL } from "../../types/types.js";
import { rule } from "./rule.js";

const COMPARISONS = new Set(["eq", "ne", "lt", "le", "gt", "ge"]);

export const compareByFacts = rule({
  name: "compare-by-facts",
  head: "prim",
  doc: "i < n -> true inside a loop over i < n; i = j -> true under `if i = j`; likewise every decided comparison",
  apply(node, ctx) {
    if (node.type.k !== "bool") return undefined;
    if (node.args.every((a) => a.kind === "lit")) return undefined; // constant folding's job
    const byCondition = ctx.facts.knownPrim(node);
    if (byCondition !== undefined) return lit(byCondition, BOOL);
    if (!COMPARISONS.has(node.op) || node.args[0]!.type.k !== "int") return undefined;
    const v = ctx.facts.compare(node.op, node.args[0]!, node.args[1]!);
    return v === undefined ? undefined : lit(v, BOOL);
  },
});

export const maxOfNonNegative = rule({
  name: "max-of-non-negative",
  head: "prim",
  ops: ["max"],
  doc: "max 0 n -> n   where n >= 0 is known (an Index: a length, a loop index)",
  apply(node, ctx) {
    if (node.op !== "max" || node.type.k !== "int") return undefined;
    const [a, b] = node.args;
    const zero = (x: typeof a) => x?.kind === "lit" && x.value === 0;
    if (zero(a) && ctx.facts.isNonNegative(b!)) return b;
    if (zero(b) && ctx.facts.isNonNegative(a!)) return a;
    return undefined;
  },
});

export const checkIndexInRange = rule({
  name: "check-index-in-range",
  head: "prim",
  ops: ["checkIndex"],
  doc: "checkIndex j n -> j   where 0 <= j < n is known",
  apply(node, ctx) {
    if (node.op !== "checkIndex") return undefined;
    const [j, n] = node.args;
    return ctx.facts.inRange(j!, n!) ? j : undefined;
  },
});

export const getChecked = rule({
  name: "get-checked",
  head: "prim",
  ops: ["get"],
  doc: "a[checkIndex j (length a)] -> a[j]   (the get raises the same error)",
  apply(node, ctx) {
    if (node.op !== "get") return undefined;
    const [a, c] = node.args;
    const d = ctx.definition(c!);
    if (d?.kind !== "prim" || d.op !== "checkIndex" || !ctx.facts.isLengthOf(d.args[1]!, a!)) return undefined;
    return { ...node, args: [a!, d.args[0]!] };
  },
});

export const lengthOfRow = rule({
  name: "length-of-row",
  head: "prim",
  ops: ["length"],
  doc: "length a[k] -> length a[0]   where 0 <= k < length a is known (arrays are regular)",
  apply(node, ctx): Expr | undefined {
    if (node.op !== "length") return undefined;
    const d = ctx.definition(node.args[0]!);
    if (d?.kind !== "prim" || d.op !== "get") return undefined;
    const [a, k] = d.args;
    if (k!.kind === "lit" && k!.value === 0) return undefined;
    if (!ctx.facts.inRangeOf(k!, a!)) return undefined;
    const b = new AnfBuilder();
    const row = b.bind("row", mkPrim("get", [a!, litIndex(0)]));
    return b.finish(mkPrim("length", [row]));
  },
});

export const RANGE_RULES = [compareByFacts, maxOfNonNegative, checkIndexInRange, getChecked, lengthOfRow];
