// Update lanes: reverse mode's loops over a dimension j whose tuple state holds adjoint arrays, each updated at j
// (gmm's reverse sweep per point and component: `dqDiags[k][j] += ..`, `dqMeans[k][j] += ..`, and an inner loop over
// c < j adding to `dicf[k][u(c) + j]`, u(c) where column c of the lower triangle starts). They run in SIMD lanes across
// j: the terms are computed per lane as ./lanes.ts's plans compute them, each leaf's update is a load, an add and a
// store of consecutive elements, and an inner loop runs once for all lanes (count `j + c`: the first lane's steps for
// all, then the later lanes' further steps one lane at a time).
//
// Bit for bit the plain loop: every element gets the same additions with the same terms; only their order across
// lanes changes, and it may only where two lanes add to the same element. A direct update adds to element j + c of
// its lane alone (one writer per leaf). An inner loop's lane p adds at p + w(b) in step b (w uniform: computed once
// per step), which cannot meet another lane's element out of order if w rises in every step and no two steps less than
// a lane count apart are closer than that where both are taken: checked before the lanes (again only when its inputs
// change), on the integer code of w alone (nothing there can fail), with the range of every element written and of
// every read at b.
// If a check fails, no lanes: the plain loop does everything and raises its own errors.

import { freeVars } from "../ir/free.js";
import type { Atom, Ifold, Let, Prim, Var } from "../ir/ir.js";
import { primMayFail } from "../prims/table.js";
import { Analysis, type LanePlan } from "./lanes.js";

/** Where a leaf's element is: uniform indexes of its rank but the last, and the leaf itself (a state component). */
interface LeafPath {
  /** The state component updated. */
  readonly leaf: number;
  /** The addAt. */
  readonly update: Prim;
  /** The indexes before the last, bound before the loop. */
  readonly prefix: readonly Atom[];
  readonly value: Atom;
}

/** `addAt leaf (u.., j + offset) value` in the body. */
export interface DirectUpdate extends LeafPath {
  readonly kind: "direct";
  readonly offset: number;
}

/** `ifold (fun s b -> .. in addAt s (u.., j + w(b)) value) leaf count` in the body. */
export interface FoldUpdate extends LeafPath {
  readonly kind: "fold";
  readonly fold: Ifold;
  /** The inner body's lets (a path tuple's left out). */
  readonly lets: readonly Let[];
  /** The last index of the path: a shifted index of the plan. */
  readonly index: Var;
  /** The count: `j + countOffset` (a count per lane), or uniform and bound before the loop. */
  readonly countOffset?: number;
  /** The lets (of the body and of the inner body, in order) that the index is computed by. */
  readonly indexLets: readonly Let[];
  /** Vectors bound before the loop read at b in the inner body: b stays below their length. */
  readonly reads: readonly Var[];
}

/** A state component set to a uniform scalar bound before the loop (reverse mode's `dt` passed along). */
export interface KeptLeaf {
  readonly kind: "keep";
  readonly leaf: number;
  readonly atom: Atom;
}

export interface TupleUpdatePlan extends LanePlan {
  /** The body's lets that compute (not the projections of the state, paths, updates and inner loops). */
  readonly lets: readonly Let[];
  readonly leaves: readonly (DirectUpdate | FoldUpdate | KeptLeaf)[];
}

/** The `addAt acc path value` a loop body ends in (also as `let r = addAt .. in r`), with the lets before it. */
function updateTail(body: Ifold["body"]): { lets: Let[]; update: Prim } | undefined {
  const lets: Let[] = [];
  let tail = body;
  for (; tail.kind === "let"; tail = tail.body) lets.push(tail);
  const last = lets[lets.length - 1];
  if (tail.kind === "var" && last !== undefined && last.v.id === tail.id) {
    lets.pop();
    tail = last.rhs;
  }
  if (tail.kind !== "prim" || tail.op !== "addAt") return undefined;
  return { lets, update: tail };
}

const rankOf = (v: Var): number => {
  let rank = 0;
  let t = v.type;
  for (; t.k === "array"; t = t.elem) rank++;
  return t.k === "double" ? rank : 0;
};

/** Integer code that cannot fail, which the index w(b) may be computed by (dividing by a literal other than 0, -1). */
function safeIndexCode(l: Let): boolean {
  const e = l.rhs;
  if (e.kind === "var" || e.kind === "lit") return true;
  if (e.kind !== "prim" || e.type.k !== "int") return false;
  if (e.op === "div") {
    const d = e.args[1]!;
    return d.kind === "lit" && d.value !== 0 && d.value !== -1;
  }
  return !primMayFail(e.op, e.type);
}

/** The update plan of an ifold over a tuple state whose array leaves are updated at the index, if it has one. */
export function tupleUpdateLanes(e: Ifold, outside: (id: number) => boolean): TupleUpdatePlan | undefined {
  const stateType = e.acc.type;
  if (stateType.k !== "tuple") return undefined;
  const lets: Let[] = [];
  let tail = e.body;
  for (; tail.kind === "let"; tail = tail.body) lets.push(tail);
  if (tail.kind !== "tuple" || tail.elems.length !== stateType.elems.length) return undefined;
  // The projections of the state, the path tuples, and the lets that update a projection.
  const projs = new Map<number, number>();
  const paths = new Map<number, readonly Atom[]>();
  const writers = new Map<number, Let>();
  const compute: Let[] = [];
  for (const l of lets) {
    const r = l.rhs;
    if (r.kind === "proj" && r.arg.kind === "var" && r.arg.id === e.acc.id) projs.set(l.v.id, r.index);
    else if (r.kind === "tuple" && r.type.k === "tuple" && r.elems.every((x) => x.type.k === "int"))
      paths.set(l.v.id, r.elems);
    else if (r.kind === "prim" && r.op === "addAt" && r.args[0]!.kind === "var" && projs.has(r.args[0]!.id))
      writers.set(l.v.id, l);
    else if (r.kind === "ifold" && r.init.kind === "var" && projs.has(r.init.id)) writers.set(l.v.id, l);
    else compute.push(l);
  }
  // The state appears only in projections, each projection only as its writer's target, paths only as paths.
  const special = new Set<number>([e.acc.id, ...projs.keys(), ...writers.keys(), ...paths.keys()]);
  const readsSpecial = (x: Let["rhs"]) => [...freeVars(x).keys()].some((id) => special.has(id));
  if (compute.some((l) => readsSpecial(l.rhs))) return undefined;
  for (const w of writers.values()) {
    const r = w.rhs;
    if (r.kind === "prim" && readsSpecial(r.args[2]!)) return undefined;
    if (
      r.kind === "ifold" &&
      (readsSpecial(r.count) ||
        [...freeVars(r.body).keys()].some((id) => id === e.acc.id || projs.has(id) || writers.has(id)))
    )
      return undefined;
  }
  const a = new Analysis(e.index, outside);
  for (const l of compute) if (!a.let(l, false)) return undefined;
  const leaves: (DirectUpdate | FoldUpdate | KeptLeaf)[] = [];
  const written = new Set<number>();
  for (let k = 0; k < tail.elems.length; k++) {
    const x = tail.elems[k]!;
    const writer = x.kind === "var" ? writers.get(x.id) : undefined;
    if (writer === undefined) {
      if (x.type.k !== "double" && x.type.k !== "int" && x.type.k !== "bool") return undefined;
      if (!a.availableBefore(x)) return undefined;
      leaves.push({ kind: "keep", leaf: k, atom: x });
      continue;
    }
    const r = writer.rhs;
    const target = (r.kind === "ifold" ? r.init : (r as Prim).args[0]!) as Var;
    if (projs.get(target.id) !== k || written.has(target.id)) return undefined;
    written.add(target.id);
    const leaf =
      r.kind === "ifold" ? foldLeaf(a, r, k, target, paths, compute) : directLeaf(a, r as Prim, k, target, paths);
    if (leaf === undefined) return undefined;
    leaves.push(leaf);
  }
  // Every writer and projection in use is accounted for, and every projection is written once.
  if (written.size !== writers.size || written.size !== projs.size || written.size === 0) return undefined;
  const plan = a.plan();
  // No rows per lane; sums across the lanes (outer lanes) may be among the terms, and reads at a shifted index, whose
  // failed check stops the lanes at a group before any of its updates; but not in an inner loop, among its updates.
  if (plan.laneRows.size > 0) return undefined;
  const inner = leaves.flatMap((l) => (l.kind === "fold" ? l.lets : []));
  if (inner.some((l) => l.rhs.kind === "prim" && l.rhs.op === "get" && a.isShiftedIndex(l.rhs.args[1]!)))
    return undefined;
  return { ...plan, lets: compute, leaves };
}

/** The indexes of an update's path (a tuple of the leaf's rank, bound in `paths`, or the index of a vector). */
function pathIndexes(
  update: Prim,
  target: Var,
  paths: ReadonlyMap<number, readonly Atom[]>,
): readonly Atom[] | undefined {
  const path = update.args[1]!;
  const indexes = path.type.k === "tuple" ? (path.kind === "var" ? paths.get(path.id) : undefined) : [path];
  const rank = rankOf(target);
  return indexes !== undefined && rank > 0 && indexes.length === rank ? indexes : undefined;
}

function directLeaf(
  a: Analysis,
  update: Prim,
  leaf: number,
  target: Var,
  paths: ReadonlyMap<number, readonly Atom[]>,
): DirectUpdate | undefined {
  const indexes = pathIndexes(update, target, paths);
  const value = update.args[2]!;
  if (indexes === undefined || value.type.k !== "double" || !a.atomOk(value)) return undefined;
  const prefix = indexes.slice(0, -1);
  const offset = a.offsetOf(indexes[indexes.length - 1]!);
  if (offset === undefined || offset < 0 || !prefix.every((x) => a.availableBefore(x))) return undefined;
  return { kind: "direct", leaf, update, prefix, value, offset };
}

function foldLeaf(
  a: Analysis,
  fold: Ifold,
  leaf: number,
  target: Var,
  paths: ReadonlyMap<number, readonly Atom[]>,
  outerLets: readonly Let[],
): FoldUpdate | undefined {
  const found = updateTail(fold.body);
  if (found === undefined) return undefined;
  const { update } = found;
  const acc = update.args[0]!;
  if (acc.kind !== "var" || acc.id !== fold.acc.id || rankOf(fold.acc) === 0) return undefined;
  // The inner state only as the update's target.
  const innerPaths = new Map(paths);
  const lets: Let[] = [];
  for (const l of found.lets) {
    if (l.rhs.kind === "tuple" && l.rhs.type.k === "tuple") innerPaths.set(l.v.id, l.rhs.elems);
    else lets.push(l);
  }
  const value = update.args[2]!;
  const pathIds = new Set(innerPaths.keys());
  const reads = (x: Let["rhs"]) => [...freeVars(x).keys()].some((id) => id === fold.acc.id || pathIds.has(id));
  if (lets.some((l) => reads(l.rhs)) || reads(value)) return undefined;
  const indexes = pathIndexes(update, fold.acc, innerPaths);
  if (indexes === undefined || value.type.k !== "double") return undefined;
  // The count: uniform and bound before the loop, or the index plus a literal.
  const countOffset = a.offsetOf(fold.count);
  if (countOffset === undefined && !a.availableBefore(fold.count)) return undefined;
  if (countOffset !== undefined && countOffset < 0) return undefined;
  a.enter(fold.index);
  a.enter(fold.acc);
  const vectors: Var[] = [];
  for (const l of lets) {
    const r = l.rhs;
    const uniform = ![...freeVars(r).keys()].some((id) => a.varies(id));
    if (uniform) {
      // In the inner loop nothing may fail but reads at b of vectors bound before (b is bounded before the lanes).
      const atB =
        r.kind === "prim" &&
        r.op === "get" &&
        r.type.k === "double" &&
        r.args[1]!.kind === "var" &&
        r.args[1]!.id === fold.index.id &&
        a.availableBefore(r.args[0]!);
      if (atB) vectors.push(r.args[0] as Var);
      else if (!safeIndexCode(l) && !(r.kind === "prim" && !primMayFail(r.op, r.type))) return undefined;
      // Uniform and unable to fail (reads at b checked before the lanes), even after a loop whose count differs
      // between lanes (which the analysis of ./lanes.ts guards against failures after).
      a.enter(l.v);
      continue;
    }
    if (!a.let(l, false)) return undefined;
  }
  if (!a.atomOk(value)) return undefined;
  const prefix = indexes.slice(0, -1);
  const index = indexes[indexes.length - 1]!;
  if (index.kind !== "var" || !a.isShiftedIndex(index) || !prefix.every((x) => a.availableBefore(x))) return undefined;
  // The lets the index is computed by, all integer code that cannot fail.
  const all = [...outerLets, ...lets];
  const needed = new Set<number>([index.id]);
  const indexLets: Let[] = [];
  for (let k = all.length - 1; k >= 0; k--) {
    const l = all[k]!;
    if (!needed.has(l.v.id)) continue;
    // An offset of the index (a checkIndex of it included: checked by the lanes' bound) is no code.
    if (a.offsetOf(l.v) === undefined && !safeIndexCode(l)) return undefined;
    indexLets.unshift(l);
    for (const id of freeVars(l.rhs).keys()) needed.add(id);
  }
  return { kind: "fold", leaf, update, prefix, value, fold, lets, index, countOffset, indexLets, reads: vectors };
}
