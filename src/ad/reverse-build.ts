// The reverse of `build` (./reverse.ts): a loop over the elements that recomputes element i and reverses it for the
// adjoint of element i, carrying the adjoints of the body's free variables. Costly values the reverse reads are stored
// by the primal instead: a build's own costly scalars, and (when the element runs loops) those loops' records, each
// computed by a build of its own before the primal build.

import { narrowResiduals } from "./residual-narrowing.js";
import { AnfBuilder, litIndex, mkBuild, mkIfold, mkPrim, nested, splitLets, type Binding } from "../ir/builder.js";
import { freeVars, someNode } from "../ir/free.js";
import { freshVar, mkTuple, type Atom, type Build, type Expr, type Var } from "../ir/ir.js";
import { copyFresh, substitute } from "../ir/rename.js";
import { arrayOf, DOUBLE, INT, isScalar, tupleOf, typeEq } from "../types/types.js";
import { ShapeStability } from "./shape-stability.js";
import { costly, hoistResiduals, prunedKeeping, readingResiduals } from "./reverse-support.js";
import type { Reverse, ReverseLoop } from "./reverse.js";

/**
 * When the primal reaches an active build: prepare its reverse, a loop over the elements that carries the adjoints
 * of the targets, recomputes element i and reverses it for the adjoint of element i. Scalars that are costly to
 * recompute (transcendental functions, loops, branches) and that the reverse reads are instead stored by
 * the primal build as residuals: it builds tuples (element, residuals...), whose component arrays `field` takes
 * apart at no cost; the reverse reads residual i where it would have recomputed it.
 */
export function prepareBuild(r: Reverse, v: Var, e: Build, b: AnfBuilder): ReverseLoop | undefined {
  const targets = r.targetsOf([e.body], [e.index]);
  if (targets.length === 0) {
    b.bindVar(v, e);
    return undefined;
  }
  const seed = freshVar(`d${v.name}`, e.type);
  const state = freshVar("dacc", targets.length === 1 ? targets[0]!.type : tupleOf(targets.map((t) => t.type)));
  const index = freshVar(e.index.name, INT);
  // With loops inside the element, the primal build runs them anyway: they record their costly values, and the build
  // stores those records (and its own costly values) as residuals, so that the reverse recomputes none of them.
  if (someNode(e.body, (x) => x.kind === "ifold" || x.kind === "while")) {
    const stored = r.runningAnyway(() => storingNestedResiduals(r, v, e, b, { seed, state, index, targets }));
    if (stored !== undefined) return stored;
  }
  const copy = copyFresh(e) as Build;
  let body = buildReverseBody(r, copy, targets, { seed, state, index }).body;
  // Residuals: top-level lets of the element's computation, costly, scalar, and still read by the reverse.
  const original = splitLets(e.body);
  const copied = splitLets(copy.body).bindings;
  const live = new Set(splitLets(body).bindings.map((x) => x.v.id));
  const residuals = copied.flatMap((x, k) =>
    isScalar(x.v.type) && costly(x.rhs) && live.has(x.v.id) ? [{ copy: x.v, original: original.bindings[k]!.v }] : [],
  );
  if (residuals.length === 0 || copied.length !== original.bindings.length) {
    b.bindVar(v, e);
    return { seed, state, index, body, targets };
  }
  const withResiduals = nested((bb) => {
    const value = bb.bind("y", e.body);
    return mkTuple([value, ...residuals.map((r) => r.original)]);
  });
  const all = b.bind(v.name, mkBuild(e.size, e.index, withResiduals, e.span));
  b.bindVar(v, mkPrim("field", [all, litIndex(0)]));
  const fields = new Map(residuals.map((r, k) => [r.copy.id, b.prim("field", [all, litIndex(k + 1)], r.copy.name)]));
  // The reverse reads residual i instead of recomputing it (and what only fed it is then dead).
  body = readingResiduals(body, fields, copy.index);
  return { seed, state, index, body, targets };
}

/**
 * The reverse loop body of a build: element i recomputed (a forward walk of `copy`'s body, whose lets are returned
 * too) and reversed for the adjoint of element i, carrying the targets' adjoints.
 */
export function buildReverseBody(
  r: Reverse,
  copy: Build,
  targets: readonly Var[],
  loop: { seed: Var; state: Var; index: Var },
): { body: Expr; walked: readonly Binding[] } {
  let walked: readonly Binding[] = [];
  const body = r.saving(targets, () =>
    // The element's index stays bound even if the recomputation does not read it: residuals read with it later.
    prunedKeeping(
      nested((bb) => {
        r.unpack(targets, loop.state, bb);
        bb.bindVar(copy.index, loop.index);
        const dy = bb.prim("get", [loop.seed, copy.index], "dy");
        const mark = bb.size;
        const { steps, result } = r.forward(copy.body, bb);
        walked = bb.bindingsFrom(mark);
        r.contribute(result, dy, bb);
        r.backward(steps, bb);
        return r.pack(targets, bb);
      }),
      [copy.index],
    ),
  );
  return { body, walked };
}

/**
 * A build whose element runs loops: the primal build is a forward walk of its element (so its loops record their
 * residuals), paired let by let with the reverse's recomputation; the costly values the reverse reads (scalars, and
 * arrays or tuples whose shape is the same for every element, such as an inner loop's records) become components
 * of the built tuples. Undefined when nothing is worth storing (the caller then recomputes, without records).
 */
export function storingNestedResiduals(
  r: Reverse,
  v: Var,
  e: Build,
  b: AnfBuilder,
  loop: { seed: Var; state: Var; index: Var; targets: readonly Var[] },
): ReverseLoop | undefined {
  const copy = copyFresh(e) as Build;
  const { body, walked } = buildReverseBody(r, copy, loop.targets, loop);
  const p = copyFresh(e) as Build;
  const pb = new AnfBuilder();
  const { result } = r.forward(p.body, pb);
  const primalBody = pb.finish(result);
  const primal = splitLets(primalBody);
  if (primal.bindings.length !== walked.length || walked.some((x, j) => !typeEq(x.v.type, primal.bindings[j]!.v.type)))
    return undefined;
  const live = new Set(splitLets(body).bindings.map((x) => x.v.id));
  const rhsOf = new Map(walked.map((x) => [x.v.id, x.rhs]));
  // Costly, or a part of a costly tuple (an inner loop's records are projections of its final state).
  const worth = (rhs: Expr): boolean =>
    costly(rhs) || (rhs.kind === "proj" && rhs.arg.kind === "var" && worth(rhsOf.get(rhs.arg.id) ?? rhs.arg));
  const stability = new ShapeStability(primalBody, freshVar("none", DOUBLE), p.index, true);
  const candidates = walked.flatMap((x, j) => {
    const original = primal.bindings[j]!.v;
    const ok = worth(x.rhs) && live.has(x.v.id) && (isScalar(x.v.type) || stability.stable(original));
    return ok ? [{ copy: x.v, original, stored: freshVar(x.v.name, arrayOf(x.v.type)) }] : [];
  });
  let reverseBody = readingResiduals(body, new Map(candidates.map((r) => [r.copy.id, r.stored])), copy.index);
  // A residual only needed to recompute another stored one is not read any more: it is not stored either.
  const read = candidates.length > 0 ? freeVars(reverseBody) : undefined;
  const residuals = candidates.filter((r) => read!.has(r.stored.id));
  if (residuals.length === 0) return undefined;
  if (residuals.length < candidates.length)
    reverseBody = readingResiduals(body, new Map(residuals.map((r) => [r.copy.id, r.stored])), copy.index);
  // One read only in part stores only the components read.
  const stored = residuals.map((r) => ({ copy: r.copy, original: r.original, tape: r.stored }));
  const narrowed = narrowResiduals(reverseBody, primalBody, stored, copy.index);
  reverseBody = narrowed.body;
  // The residuals are computed first, each by a build of its own; the primal build reads them.
  const element = hoistResiduals({ index: p.index, body: narrowed.loopBody }, e.size, narrowed.residuals, b, []);
  b.bindVar(v, mkBuild(e.size, p.index, element, e.span));
  return { seed: loop.seed, state: loop.state, index: loop.index, body: reverseBody, targets: loop.targets };
}

export function reverseBuild(r: Reverse, e: Build, vb: Atom, b: AnfBuilder, loop: ReverseLoop | undefined): void {
  if (loop === undefined) return;
  const init = r.pack(loop.targets, b);
  const body = substitute(loop.body, new Map([[loop.seed!.id, vb]]));
  const res = b.bind("dacc", mkIfold(init, e.size, loop.state, loop.index, body));
  r.unpack(loop.targets, res, b);
}
