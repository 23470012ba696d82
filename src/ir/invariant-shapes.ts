// Which array components of an ifold's state keep their shape from one iteration to the next: those the body
// returns as the state's own component after only updates (setAt, addAt, addArray keep their operand's shape), also
// through an inner loop that keeps the shape of the component it started from. The
// code generator then holds their dimensions in the initial value's locals instead of reassigned ones, so bounds
// checks against them are known (e.g. an adjoint accumulated with addAt at the loop index needs none).

import { splitLets } from "./builder.js";
import type { Atom, Expr, Ifold, While } from "./ir.js";
import type { Type } from "../types/types.js";
import { PRIMS } from "../prims/table.js";

/** What the analysis needs of a loop: its state binder and body (an ifold's or a while's). */
export type StateLoop = Pick<Ifold | While, "acc" | "body">;

/** An inner loop with a state (ifold or while). */
const isStateLoop = (e: Expr | undefined): e is Ifold | While => e?.kind === "ifold" || e?.kind === "while";

/** Answers by loop node (IR is immutable): back ends ask again for each loop nested in another. */
const answers = new WeakMap<StateLoop, boolean[]>();

/** For each top-level component of the state (one entry when the state is not a tuple): its shape is invariant. */
export function invariantShapes(loop: StateLoop): boolean[] {
  const known = answers.get(loop);
  if (known !== undefined) return known;
  const answer = shapesKept(loop);
  answers.set(loop, answer);
  return answer;
}

function shapesKept(loop: StateLoop): boolean[] {
  const t = loop.acc.type;
  const n = t.k === "tuple" ? t.elems.length : 1;
  const { bindings, tail } = splitLets(loop.body);
  const defs = new Map(bindings.map((x) => [x.v.id, x.rhs]));
  const def = (a: Atom): Expr | undefined => (a.kind === "var" ? defs.get(a.id) : undefined);
  /** `a` is component k of the state after a chain of updates (k = -1: the whole state). */
  const fromComponent = (a: Atom, k: number, depth = 0): boolean => {
    if (a.kind !== "var" || depth > 64) return false;
    if (k < 0 && a.id === loop.acc.id) return true;
    const d = def(a);
    if (d === undefined) return false;
    if (d.kind === "proj") {
      if (d.arg.kind !== "var") return false;
      if (d.arg.id === loop.acc.id) return k >= 0 && d.index === k;
      // A component of an inner loop that keeps its shape, started from this one: `snd (ifold f (x, s) n)`.
      const inner = def(d.arg);
      if (!isStateLoop(inner) || !invariantShapes(inner)[d.index]) return false;
      const init = inner.init.kind === "var" ? def(inner.init) : undefined;
      const start = init?.kind === "tuple" ? init.elems[d.index] : inner.type.k === "tuple" ? undefined : inner.init;
      return start !== undefined && fromComponent(start, k, depth + 1);
    }
    if (d.kind === "prim" && PRIMS[d.op].update === "in-shape") return fromComponent(d.args[0]!, k, depth + 1);
    // An inner loop on this component alone that keeps its shape: `ifold f s n`.
    if (isStateLoop(d) && d.type.k !== "tuple" && invariantShapes(d)[0]) return fromComponent(d.init, k, depth + 1);
    if (d.kind === "var") return fromComponent(d, k, depth + 1);
    return false;
  };
  if (t.k !== "tuple") {
    // The body's value is the state after updates: named (`let r = addAt acc p v in r`) or the update itself.
    const updated = tail.kind === "prim" && PRIMS[tail.op].update === "in-shape" ? tail.args[0]! : tail;
    return [t.k === "array" && (updated.kind === "var" || updated.kind === "lit") && fromComponent(updated, -1)];
  }
  const tuple = tail.kind === "tuple" ? tail : tail.kind === "var" ? def(tail) : undefined;
  const result: readonly Atom[] = tuple?.kind === "tuple" ? tuple.elems : [];
  return Array.from(
    { length: n },
    (_, k) => t.elems[k]!.k === "array" && k < result.length && fromComponent(result[k]!, k),
  );
}

/** Per leaf of a state's type (nested like its tuples): the shape at that place never changes (scalars: true). */
export type ShapeFlags = boolean | readonly ShapeFlags[];

export const allFlags = (f: ShapeFlags): boolean => (typeof f === "boolean" ? f : f.every(allFlags));

/**
 * Like `invariantShapes`, down to every place inside tuples: a place keeps its shape when the body's new value there
 * is the state's value at the same place after updates only, or comes out of an inner loop that keeps the shape at
 * that place and started from it.
 */
export function invariantShapePaths(loop: StateLoop): ShapeFlags {
  const known = pathAnswers.get(loop);
  if (known !== undefined) return known;
  const answer = shapePathsKept(loop);
  pathAnswers.set(loop, answer);
  return answer;
}
const pathAnswers = new WeakMap<StateLoop, ShapeFlags>();

function shapePathsKept(loop: StateLoop): ShapeFlags {
  // Definitions in the body and its branches (not in inner loops, whose variables are per iteration of those).
  const defs = new Map<number, Expr>();
  const collect = (e: Expr): void => {
    const { bindings: bs, tail: t } = splitLets(e);
    for (const { v, rhs } of bs) {
      defs.set(v.id, rhs);
      if (rhs.kind === "if") [rhs.then, rhs.else].forEach(collect);
    }
    if (t.kind === "if") [t.then, t.else].forEach(collect);
  };
  collect(loop.body);
  const def = (a: Atom): Expr | undefined => (a.kind === "var" ? defs.get(a.id) : undefined);
  const tailOf = (e: Expr): Atom | undefined => {
    const t = splitLets(e).tail;
    return t.kind === "var" || t.kind === "lit" ? t : undefined;
  };
  /** `a` as a chain of projections out of `root`: the projection path, or undefined. */
  const projections = (a: Atom, depth = 0): { root: Atom; path: number[] } => {
    const d = def(a);
    if (d?.kind === "proj" && depth < 64) {
      const inner = projections(d.arg, depth + 1);
      return { root: inner.root, path: [...inner.path, d.index] };
    }
    if (d?.kind === "var" && depth < 64) return projections(d, depth + 1);
    if (d?.kind === "prim" && PRIMS[d.op].update === "in-shape" && depth < 64)
      return projections(d.args[0]!, depth + 1);
    return { root: a, path: [] };
  };
  /** The element at `path` of a tuple built in the body (following tuple constructions), if visible. */
  const elementAt = (a: Atom, path: readonly number[]): Atom | undefined => {
    let cur: Atom | undefined = a;
    for (const j of path) {
      const d: Expr | undefined = cur === undefined ? undefined : def(cur);
      cur = d?.kind === "tuple" ? d.elems[j] : undefined;
    }
    return cur;
  };
  const flagAt = (f: ShapeFlags, path: readonly number[]): boolean => {
    let cur: ShapeFlags = f;
    for (const j of path) {
      if (typeof cur === "boolean") return cur;
      cur = cur[j] ?? false;
    }
    return allFlags(cur);
  };
  /** `a` is the state's value at `path`, up to updates. */
  const fromPath = (a: Atom, path: readonly number[], depth = 0): boolean => {
    if (depth > 16) return false;
    const { root, path: q } = projections(a);
    if (root.kind !== "var") return false;
    if (root.id === loop.acc.id) return q.length === path.length && q.every((j, i) => j === path[i]);
    const inner = def(root);
    // A branch whose two results are both that place (`if ok then setAt t i x else t`).
    if (inner?.kind === "if" && q.length === 0)
      return [inner.then, inner.else].every((br) => {
        const t = tailOf(br);
        return t !== undefined && fromPath(t, path, depth + 1);
      });
    if (!isStateLoop(inner) || !flagAt(invariantShapePaths(inner), q)) return false;
    const start = q.length === 0 ? inner.init : elementAt(inner.init, q);
    return start !== undefined && fromPath(start, path, depth + 1);
  };
  const flags = (t: Type, value: Atom | undefined, path: readonly number[]): ShapeFlags => {
    if (t.k !== "array" && t.k !== "tuple") return true;
    if (value !== undefined && fromPath(value, path)) return t.k === "tuple" ? t.elems.map(() => true) : true;
    if (t.k === "array") return false;
    const elems = value === undefined ? undefined : def(value);
    return t.elems.map((u, j) => flags(u, elems?.kind === "tuple" ? elems.elems[j] : undefined, [...path, j]));
  };
  /** The flags of `e`, the body or a branch of it, as the loop's next state. */
  const resultFlags = (e: Expr, depth = 0): ShapeFlags => {
    const t = splitLets(e).tail;
    // A body that branches (a chunked loop's `if i < lo then s else ...`): a place keeps its shape in both branches.
    if (t.kind === "if" && depth < 16) return bothFlags(resultFlags(t.then, depth + 1), resultFlags(t.else, depth + 1));
    if (t.kind === "tuple")
      return loop.acc.type.k === "tuple" ? loop.acc.type.elems.map((u, j) => flags(u, t.elems[j], [j])) : false;
    // The state after an update in tail position (`addAt s at x`) has the shape of the state it updated.
    const value = t.kind === "prim" && PRIMS[t.op].update === "in-shape" ? t.args[0]! : t;
    return flags(loop.acc.type, value.kind === "var" || value.kind === "lit" ? value : undefined, []);
  };
  return resultFlags(loop.body);
}

/** The places that keep their shape in both `a` and `b`. */
function bothFlags(a: ShapeFlags, b: ShapeFlags): ShapeFlags {
  if (typeof a === "boolean") return a && allFlags(b);
  if (typeof b === "boolean") return b && allFlags(a);
  return a.map((x, j) => bothFlags(x, b[j] ?? false));
}
