// Pieces of the reverse sweep (./reverse.ts) that are plain functions of IR: what is worth storing, reading stored
// residuals back, empty tapes, running a reverse loop forwards, projections of a saved state.

import { AnfBuilder, litIndex, mkBuild, mkPrim, splitLets, wrapLets, type Binding } from "../ir/builder.js";
import { freeVars, mapNode } from "../ir/free.js";
import { freshVar, lit, type Atom, type Expr, type Var } from "../ir/ir.js";
import { copyFresh } from "../ir/rename.js";
import { INT } from "../types/types.js";
import { removeDeadLets } from "../opt/dce.js";
import { PRIMS } from "../prims/table.js";
import { isScalar, type Type } from "../types/types.js";

/**
 * Worth storing rather than recomputing: a transcendental function, a loop or a branch (a division is not: storing it
 * costs about as much as recomputing it).
 */
export function costly(rhs: Expr): boolean {
  if (rhs.kind === "prim") return PRIMS[rhs.op].cost === "transcendental" && rhs.type.k === "double";
  if (rhs.kind === "build") return !(rhs.size.kind === "lit" && rhs.size.value === 0);
  return rhs.kind === "ifold" || rhs.kind === "while" || rhs.kind === "if";
}

/** `body` with each let of a stored residual reading element i of its array instead, and what only fed it dropped. */
export function readingResiduals(body: Expr, stored: ReadonlyMap<number, Atom>, i: Atom): Expr {
  const { bindings, tail } = splitLets(body);
  return pruned(
    wrapLets(
      bindings.map((x) => {
        const arr = stored.get(x.v.id);
        return arr === undefined ? x : { v: x.v, rhs: mkPrim("get", [arr, i]) };
      }),
      tail,
    ),
  );
}

/** Which of `of` (lets of a loop body) do not depend on the loop state `acc`, directly or through other lets. */
export function stateIndependent(body: Expr, acc: Var, of: readonly Var[]): Set<number> {
  const dependent = new Set([acc.id]);
  for (const { v, rhs } of splitLets(body).bindings)
    if ([...freeVars(rhs).keys()].some((id) => dependent.has(id))) dependent.add(v.id);
  return new Set(of.filter((v) => !dependent.has(v.id)).map((v) => v.id));
}

/** An empty array of element type t (`build 0 ...`), for `record` to replace with its first value's shape. */
export function emptyTape(b: AnfBuilder, t: Type): Atom {
  const zero = (bb: AnfBuilder, u: Type): Atom => {
    if (isScalar(u)) return zeroScalar(u);
    if (u.k === "array") return bb.build(litIndex(0), (_i, inner) => zero(inner, u.elem), "empty");
    if (u.k === "tuple")
      return bb.tuple(
        u.elems.map((x) => zero(bb, x)),
        "empty",
      );
    throw new Error("reverse: no empty value of a function type");
  };
  return b.build(litIndex(0), (_i, bb) => zero(bb, t), "tape0");
}

/** The zero of a scalar type. */
export function zeroScalar(t: Type): Atom {
  return t.k === "bool" ? lit(false, t) : lit(0, t);
}

/** arr[p] for a path p (an Index or a tuple of Indexes). */
export function elementAt(arr: Atom, p: Atom, b: AnfBuilder): Atom {
  if (p.type.k === "int") return b.prim("get", [arr, p], "d");
  const n = p.type.k === "tuple" ? p.type.elems.length : 0;
  let cur = arr;
  for (let k = 0; k < n; k++) cur = b.prim("get", [cur, b.proj(k, p, "j")], "d");
  return cur;
}

/** `body` with each projection `proj(k, acc)` replaced by parts[k] (so unused parts of a saved state go unread). */
export function projectionsOf(body: Expr, acc: Var, parts: readonly Atom[]): Expr {
  const walk = (e: Expr): Expr => {
    if (e.kind === "let") {
      const { bindings, tail } = splitLets(e);
      return wrapLets(
        bindings.map(({ v, rhs }) => ({ v, rhs: walk(rhs) })),
        walk(tail),
      );
    }
    if (e.kind === "proj" && e.arg.kind === "var" && e.arg.id === acc.id) return parts[e.index]!;
    return mapNode(e, (a) => a, walk);
  };
  return walk(body);
}

/**
 * True when a reverse loop body passes the adjoint of the state through unchanged (a reduction such as a sum, whose
 * state enters each step with derivative 1): then its iterations are independent and may run in any order.
 */
export function stateAdjointInvariant(body: Expr, state: Var, withTargets: boolean): boolean {
  const { bindings, tail } = splitLets(body);
  const def = (a: Atom | undefined) => (a?.kind === "var" ? bindings.find((x) => x.v.id === a.id)?.rhs : undefined);
  const first = tail.kind === "tuple" ? tail.elems[0] : tail.kind === "var" ? tail : undefined;
  if (!withTargets) return first?.kind === "var" && first.id === state.id;
  if (tail.kind !== "tuple") return false;
  const d = def(first);
  return d?.kind === "proj" && d.index === 0 && d.arg.kind === "var" && d.arg.id === state.id;
}

/** The reverse loop body with its iteration index running forwards (`i = k` instead of `i = last - k`). */
export function forwardOrder(body: Expr, k: Var): Expr {
  const { bindings, tail } = splitLets(body);
  return wrapLets(
    bindings.map(({ v, rhs }) =>
      rhs.kind === "prim" && rhs.op === "sub" && rhs.args[1]!.kind === "var" && rhs.args[1]!.id === k.id
        ? { v, rhs: k }
        : { v, rhs },
    ),
    tail,
  );
}

/**
 * Drops the recomputed primal code a reverse body does not use (it ran once already, so removing it hides no error).
 */
export function pruned(e: Expr): Expr {
  return removeDeadLets(e).expr;
}

/** `pruned`, keeping the lets of `kept` even where nothing reads them (yet). */
export function prunedKeeping(e: Expr, kept: readonly (Atom | undefined)[]): Expr {
  const ids = new Set(kept.flatMap((a) => (a?.kind === "var" ? [a.id] : [])));
  return removeDeadLets(e, (v) => !ids.has(v.id)).expr;
}

/**
 * Emits, before a loop, one `build count (fun i -> residual of iteration i)` per residual that does not depend on the
 * loop state (binding the residual's tape to its array; a residual's build reads the earlier residuals' arrays), and
 * returns the loop body reading them instead. One build per residual, not a build of tuples, so that a residual
 * array is written in place into its build's storage. `recorded`: the residuals the loop still records.
 */
export function hoistResiduals(
  loop: { index: Var; body: Expr },
  count: Atom,
  hoisted: readonly { original: Var; tape: Var }[],
  b: AnfBuilder,
  recorded: readonly Var[],
): Expr {
  const { bindings, tail } = splitLets(loop.body);
  const reading = new Map<number, Var>();
  const readingAt = (xs: readonly Binding[], i: Var) =>
    xs.map((x) => (reading.has(x.v.id) ? { v: x.v, rhs: mkPrim("get", [reading.get(x.v.id)!, i]) } : x));
  for (const r of hoisted) {
    const needed = new Set([r.original.id]);
    for (let j = bindings.length - 1; j >= 0; j--) {
      const x = bindings[j]!;
      if (needed.has(x.v.id) && !reading.has(x.v.id)) for (const id of freeVars(x.rhs).keys()) needed.add(id);
    }
    const slice = readingAt(
      bindings.filter((x) => needed.has(x.v.id)),
      loop.index,
    );
    const i = freshVar(loop.index.name, INT);
    const element = copyFresh(pruned(wrapLets(slice, r.original)), new Map([[loop.index.id, i]]));
    b.bindVar(r.tape, mkBuild(count, i, element));
    reading.set(r.original.id, r.tape);
  }
  // The residuals still recorded by the loop are live even if nothing in the body reads them.
  return prunedKeeping(wrapLets(readingAt(bindings, loop.index), tail), recorded);
}
