// Pull-array fusion (paper 000, Fig. 7c): an array built by `build n (fun i -> body)` need not exist when it is only
// indexed and measured. `length` of it is its size; indexing it at j computes `body[i := j]` in place.
//
// Cost guard for indexing: the body is copied to every use, so a build is fused only when every use of it is a `get`
// or a `length` (then the array itself disappears), and one of:
//  - the element is cheap: the body contains no loop and no transcendental;
//  - the element is itself a pull array of cheap elements that read, compare and choose with at most a few operations
//    (a row of a transpose, of a one-hot matrix, of a dual outer product) and the element read is only indexed and
//    measured in turn, so that it is fused too and no loop runs per access (an element that computes more, such as a
//    row of a product of 4 x 4 matrices, is not fused into reads inside a loop: it would be recomputed in every
//    iteration of it); except a
//    transposed view whose rows the consumer walks with its innermost loop, reading elements more than once: it stays
//    an array, so that the loop reads memory by rows (./transposed-view.ts);
//  - the array is read by a single get that reads each element once: at the array's own loop depth, or in the
//    consumer's own loop (the get's index is the index of the one loop between the array and the get). An element
//    with a transcendental is fused only so (exp of a row read in a loop over points would be recomputed per point).
// Otherwise recomputing a loop per access could change the complexity of the program.
//
// Semantics: `(build n f)[j]` raises an index error when j is out of range; the fused form keeps that error by indexing
// with `checkIndex j n` (same message), which the range facts remove where 0 <= j < n is known.

import { AnfBuilder, litDouble, mkPrim, splitLets, wrapLets } from "../../ir/builder.js";
import { someNode } from "../../ir/free.js";
import { typeOf, type Atom, type Build, type Expr } from "../../ir/ir.js";
import { arrayOf, type Type } from "../../types/types.js";
import { isTranscendental } from "../materialise.js";
import type { RuleContext } from "./rule.js";
import { rule } from "./rule.js";
import { keepTransposedView } from "./transposed-view.js";

const hasLoop = (e: Expr) => someNode(e, (n) => n.kind === "build" || n.kind === "ifold" || n.kind === "while");
/** An element costing a transcendental is not recomputed at each of several reads (../materialise.ts shares it). */
const hasTranscendental = (e: Expr) => someNode(e, (n) => n.kind === "prim" && isTranscendental(n.op));

/** The element of the build is a pull array whose elements are cheap (or again such pull arrays). */
function isPullOfCheap(body: Expr, depth = 0): boolean {
  const { bindings, tail } = splitLets(body);
  if (tail.kind !== "build" || depth > 3) return false;
  if (bindings.some((b) => hasLoop(b.rhs))) return false;
  return !hasLoop(tail.body) || isPullOfCheap(tail.body, depth + 1);
}

/** The most Double operations (besides reads) an element recomputed at every read may cost. */
const MAX_RECOMPUTED_OPERATIONS = 3;

/**
 * The element costs about what reading it from memory would: it reads, compares and chooses (a transpose's row, a
 * one-hot row, a slice) with at most a few operations (a dual number's `u * v` and its one-hot tangent). An element
 * that computes more (a row of a product of 4 x 4 matrices: 7 operations) would be recomputed at every read, in every
 * iteration of the loops around the reads.
 */
function nearlyAView(e: Expr): boolean {
  let operations = 0;
  someNode(e, (n) => {
    if (n.kind === "prim" && n.type.k === "double" && n.op !== "get") operations++;
    return operations > MAX_RECOMPUTED_OPERATIONS;
  });
  return operations <= MAX_RECOMPUTED_OPERATIONS;
}

function worthFusing(xs: Atom & { kind: "var" }, def: Build, ctx: RuleContext): boolean {
  const uses = ctx.uses(xs);
  if (uses === undefined || uses.asArray !== uses.total) return false;
  // Each element read once: fused whatever it costs (asked first, as the tests below walk the body).
  if (uses.gets === 1 && uses.getsOncePerElement === 1) return true;
  // A transcendental is recomputed at every read: fused only where each element is read once (not, say, from inside
  // a loop the array was built outside of).
  if (hasTranscendental(def.body)) return false;
  if (!hasLoop(def.body)) return true;
  if (isPullOfCheap(def.body) && nearlyAView(def.body)) {
    const r = ctx.binder === undefined ? undefined : ctx.uses(ctx.binder);
    if (r !== undefined && r.asArray === r.total && !keepTransposedView(def, uses, r)) return true;
  }
  return false;
}

export const lengthOfBuild = rule({
  name: "length-of-build",
  head: "prim",
  ops: ["length"],
  doc: "let xs = build n f in ... length xs -> n",
  apply(node, ctx) {
    if (node.op !== "length") return undefined;
    const def = ctx.definition(node.args[0]!);
    return def?.kind === "build" ? def.size : undefined;
  },
});

export const lengthOfRowOfBuild = rule({
  name: "length-of-row-of-build",
  head: "prim",
  ops: ["length"],
  doc: "length (build n (fun i -> build m g))[k] -> m   (m bound outside the build)",
  apply(node, ctx) {
    if (node.op !== "length") return undefined;
    const row = ctx.definition(node.args[0]!);
    if (row?.kind !== "prim" || row.op !== "get") return undefined;
    const def = ctx.definition(row.args[0]!);
    if (def?.kind !== "build") return undefined;
    const { bindings, tail } = splitLets(def.body);
    if (tail.kind !== "build") return undefined;
    const m = tail.size;
    // The row's size must not depend on the row: not the index, nor anything bound in the body.
    if (m.kind === "var" && (m.id === def.index.id || bindings.some((b) => b.v.id === m.id))) return undefined;
    return m;
  },
});

export const getOfBuild = rule({
  name: "get-of-build",
  head: "prim",
  ops: ["get"],
  doc: "let xs = build n (fun i -> body) in ... xs[j] -> body[i := checkIndex j n]   (xs only indexed or measured; see cost guard)",
  apply(node, ctx) {
    if (node.op !== "get") return undefined;
    const xs = node.args[0]!;
    const def = ctx.definition(xs);
    if (def?.kind !== "build" || xs.kind !== "var" || !worthFusing(xs, def, ctx)) return undefined;
    const j = node.args[1]!;
    const b = new AnfBuilder();
    const index = ctx.facts.inRange(j, def.size) ? j : b.bind("j", mkPrim("checkIndex", [j, def.size], node.span));
    return b.finish(ctx.copy(def.body, new Map<number, Atom>([[def.index.id, index]])));
  },
});

/**
 * A build that reads each element of an array at its own index, over that array's length, is the array (arrays are
 * values; every read is in range). Reverse mode leaves such copies (`let h = build n (fun i -> r[i])`) where a primal
 * was named twice; left alone, the copy hides from CSE that what is computed from it equals what is computed from r.
 */
export const buildCopy = rule({
  name: "build-copy",
  head: "build",
  doc: "build n (fun i -> a[i]) -> a   where n = length a is known (or a = build n ...) and a is bound outside",
  apply(node, ctx) {
    // The body is `a[i]`, or `let x = a[i] in x`: nothing else is bound in it.
    const { bindings, tail } = splitLets(node.body);
    const named = bindings.length === 1 && tail.kind === "var" && tail.id === bindings[0]!.v.id;
    const read = named ? bindings[0]!.rhs : tail;
    if ((bindings.length > 0 && !named) || read.kind !== "prim" || read.op !== "get") return undefined;
    const [a, i] = read.args;
    if (i!.kind !== "var" || i!.id !== node.index.id || a!.kind !== "var" || a!.id === node.index.id) return undefined;
    const def = ctx.definition(a!);
    const sameLength =
      ctx.facts.isLengthOf(node.size, a!) || (def?.kind === "build" && ctx.facts.sameValue(node.size, def.size));
    return sameLength ? a : undefined;
  },
});

/** Zeros of an element type of Doubles (and tuples of them), or undefined for any other type. */
function zeroElement(t: Type, b: AnfBuilder): Atom | undefined {
  if (t.k === "double") return litDouble(0);
  if (t.k !== "tuple") return undefined;
  const parts: Atom[] = [];
  for (const u of t.elems) {
    const part = zeroElement(u, b);
    if (part === undefined) return undefined;
    parts.push(part);
  }
  return b.tuple(parts, "zero");
}

/** The body of a pull array with its elements replaced by zeros (its sizes' lets kept), if it is a cheap one. */
function zeroedBody(body: Expr): Expr | undefined {
  const { bindings, tail } = splitLets(body);
  if (bindings.some((x) => hasLoop(x.rhs))) return undefined;
  if (tail.kind === "build") {
    const inner = zeroedBody(tail.body);
    return inner && wrapLets(bindings, { ...tail, body: inner, type: arrayOf(typeOf(inner)) });
  }
  if (hasLoop(tail)) return undefined;
  const b = new AnfBuilder();
  const zero = zeroElement(typeOf(tail), b);
  return zero && wrapLets(bindings, b.finish(zero));
}

/**
 * Zeros shaped like a pull array need not make it: the same loops with zero elements. Reverse mode's zero adjoint of
 * a dual input (`zerosLike xs'`, xs' = the zip of a point and its tangent) otherwise keeps the zip alive as an array,
 * and with it a pair per read where the reads would fuse to the point itself and a constant tangent. Only cheap pulls
 * (no loop but the nested builds); the lets giving inner sizes stay, dead code elimination drops the rest.
 */
export const zerosOfBuild = rule({
  name: "zeros-of-build",
  head: "prim",
  ops: ["zerosLike"],
  doc: "zerosLike (build n (fun i -> .. build m (fun k -> e))) -> build n (fun i -> .. build m (fun k -> 0.))",
  apply(node, ctx) {
    if (node.op !== "zerosLike") return undefined;
    const def = ctx.definition(node.args[0]!);
    if (def?.kind !== "build") return undefined;
    const body = zeroedBody(def.body);
    return body && ctx.copy({ ...def, body });
  },
});

export const FUSION_RULES = [lengthOfBuild, lengthOfRowOfBuild, getOfBuild, buildCopy, zerosOfBuild];
