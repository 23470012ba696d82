// Row-major access (issue 4): arrays are stored by rows, so a loop should walk memory with its innermost index in the
// innermost dimension. Fusing a *transposed view* into a consumer can break that: the prelude's matrixMul reads its
// transpose `m2T = build c (fun i -> build r (fun k -> m2[k][i]))` row by row (`m2T[j][k]`, k innermost); fused, the
// innermost loop reads `m2[k][j]`, a stride of a whole row per step, for every one of the n² dot products. At 1000²
// that thrashes the cache (the gradient of <w, a b> took 11 s, against 4 s with the transpose materialised).
//
// The rule (the fusion cost guard, ./fusion.ts, asks it): a rank-2 pull array is kept as an array, not fused at a
// read `xs[j]`, when all three hold:
//  1. xs is a transposed view: its element (i, k) reads some array with its inner index k in a non-innermost
//     dimension (`a[k][i]`, `a[k]` being a row), so walking a row of xs walks a column of that array;
//  2. the consumer walks the row `xs[j]` with its innermost loop (a get of the row at that loop's index), so the fused
//     read would put the consumer's innermost loop variable in a non-innermost dimension;
//  3. the consumer reads elements of xs more than once (a read not at xs's own depth nor in its own loop), so
//     materialising (one strided pass over the elements) costs less than the strided reads it saves.
// Materialising keeps the work the same (each element is computed once instead of at each read) and costs one array;
// in reverse mode the transpose's adjoint is then added back once, O(elements), instead of column-wise in the inner
// loop.

import { splitLets } from "../../ir/builder.js";
import { someNode } from "../../ir/free.js";
import type { Build } from "../../ir/ir.js";
import type { Type } from "../../types/types.js";
import type { UseInfo } from "../occurrences.js";

const hasArray = (t: Type): boolean => t.k === "array" || (t.k === "tuple" && t.elems.some(hasArray));

/**
 * `def` is `build n (fun i -> lets; build m (fun k -> e))` with elements free of arrays, and e reads some array at k
 * (or at `checkIndex k _`) getting an array back: k indexes a dimension that is not the innermost.
 */
export function isTransposedView(def: Build): boolean {
  const { bindings: outer, tail } = splitLets(def.body);
  // `let xs = build ... in xs` (before the let-tail rewrite) ends with the build too.
  const inner = tail.kind === "var" ? (outer.find((b) => b.v.id === tail.id)?.rhs ?? tail) : tail;
  if (inner.kind !== "build" || hasArray(typeOfElement(inner))) return false;
  const k = inner.index;
  const aliases = new Set<number>([k.id]);
  const { bindings } = splitLets(inner.body);
  for (const { v, rhs } of bindings) {
    if (rhs.kind === "prim" && rhs.op === "checkIndex" && rhs.args[0]!.kind === "var" && aliases.has(rhs.args[0]!.id))
      aliases.add(v.id);
  }
  return someNode(inner.body, (n) => {
    if (n.kind !== "prim" || n.op !== "get") return false;
    const index = n.args[1]!;
    return index.kind === "var" && aliases.has(index.id) && n.type.k === "array";
  });
}

const typeOfElement = (b: Build): Type => (b.type.k === "array" ? b.type.elem : b.type);

/**
 * The read `row = xs[j]` of a transposed view `xs` should not be fused (conditions 1-3 above). `xsUses` and `rowUses`
 * are the occurrence information of xs and of the variable the row is bound to (undefined: not let-bound, or unknown).
 */
export function keepTransposedView(def: Build, xsUses: UseInfo, rowUses: UseInfo | undefined): boolean {
  if (rowUses === undefined || rowUses.getsInInnerLoop === 0) return false;
  if (xsUses.gets <= xsUses.getsOncePerElement) return false;
  return isTransposedView(def);
}
