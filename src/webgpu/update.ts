// WGSL for the functional array updates (src/prims/updates.ts), following src/codegen/update.ts: each array leaf of the
// operand is updated in place where src/lowering/ownership.ts proved the old value unobservable, and copied into a new
// allocation otherwise. Path indexes are bounds-checked like `get`.

import type { Atom, Prim } from "../ir/ir.js";
import type { ScalarKind } from "../runtime/value.js";
import { elemKind, leafSlotCount, leafStarts, leavesOf } from "../lowering/leaves.js";
import { plus, times, type Slots, type WgslEmitter } from "./emit.js";

interface LeafSlots {
  readonly kind: ScalarKind;
  readonly data: string;
  readonly offset: string;
  readonly dims: readonly string[];
}

function arrayLeaves(em: WgslEmitter, a: Atom): LeafSlots[] {
  const slots = em.atom(a);
  const leaves = leavesOf(a.type);
  return leafStarts(leaves).map((s, k) => {
    const leaf = leaves[k]!;
    const own = slots.slice(s, s + leafSlotCount(leaf));
    return { kind: elemKind(leaf), data: own[0]!, offset: own[1]!, dims: own.slice(2) };
  });
}

/** A copy of the leaf in a new allocation (offset 0). */
function copyLeaf(em: WgslEmitter, l: LeafSlots): LeafSlots {
  const n = times(l.dims);
  const data = em.allocate(n, false);
  em.copyWords(data, plus(l.data, l.offset), n);
  return { ...l, data, offset: "0" };
}

function target(em: WgslEmitter, e: Prim, inPlace: boolean): { leaves: LeafSlots[]; slots: Slots } {
  const src = arrayLeaves(em, e.args[0]!);
  // The accumulators a kernel's threads share are updated where they are (atomically: ./emit.ts addTo).
  if (inPlace || src.every((l) => em.shared.has(l.data))) return { leaves: src, slots: em.atom(e.args[0]!) };
  const leaves = src.map((l) => copyLeaf(em, l));
  return { leaves, slots: leaves.flatMap((l) => [l.data, l.offset, ...l.dims]) };
}

export function emitZerosLike(em: WgslEmitter, e: Prim, _base: string): Slots {
  return arrayLeaves(em, e.args[0]!).flatMap((l) => [em.allocate(times(l.dims), true), "0", ...l.dims]);
}

/** Stores (or adds) the value `vs` into leaf `l` at element offset `at` (a scalar, or an array of dims `inner`). */
function writeElement(
  em: WgslEmitter,
  e: Prim,
  l: LeafSlots,
  at: string,
  inner: readonly string[],
  vs: Slots,
  how: "set" | "add",
): void {
  const set = how === "set";
  if (inner.length === 0) {
    if (set) em.store(l.kind, at, vs[0]!);
    else em.addTo(l.kind, at, vs[0]!);
    return;
  }
  const [vdata, voff, ...vdims] = vs.slice(0, 2 + inner.length) as [string, string, ...string[]];
  const differs = inner.map((n, d) => `${vdims[d]} != ${n}`).join(" || ");
  em.failIf(
    differs,
    [...vdims.slice(0, inner.length), ...inner].map((slot) => ({ slot, kind: "int" as const })),
    { error: { kind: "updateShape", set, rank: inner.length }, span: e.span },
  );
  if (l.kind === "bool" && !set) return;
  const q = em.fresh();
  const from = em.fresh();
  em.out.line(`let ${from} = ${at};`);
  em.out.open(`for (var ${q} = 0; ${q} < ${times(inner)}; ${q}++) {`);
  const value = em.load(l.kind, `${plus(vdata, voff)} + ${q}`);
  if (set) em.store(l.kind, `${from} + ${q}`, value);
  else em.addTo(l.kind, `${from} + ${q}`, value);
  em.out.close();
}

/** setAt / addAt a p v. */
export function emitUpdateAt(em: WgslEmitter, e: Prim, _base: string, inPlace: boolean): Slots {
  const set = e.op === "setAt";
  const path = em.atom(e.args[1]!);
  const first = arrayLeaves(em, e.args[0]!)[0]!;
  path.forEach((p, d) => em.boundsCheck(p, first.dims[d]!, e.span));
  const { leaves, slots } = target(em, e, inPlace);
  const v = em.atom(e.args[2]!);
  const vStarts = leafStarts(leavesOf(e.args[2]!.type));
  leaves.forEach((l, k) => {
    const strides = path.map((_, d) => times(l.dims.slice(d + 1)));
    const at = path.reduce((acc, p, d) => plus(acc, times([p, strides[d]!])), plus(l.data, l.offset));
    const inner = l.dims.slice(path.length);
    writeElement(em, e, l, at, inner, v.slice(vStarts[k]), set ? "set" : "add");
  });
  return slots;
}

/** addArray a b. */
export function emitAddArray(em: WgslEmitter, e: Prim, _base: string, inPlace: boolean): Slots {
  const b = arrayLeaves(em, e.args[1]!);
  const a = arrayLeaves(em, e.args[0]!);
  a.forEach((l, k) => {
    const r = b[k]!;
    const differs = l.dims.map((n, d) => `${r.dims[d]} != ${n}`).join(" || ");
    em.failIf(
      differs,
      [...l.dims, ...r.dims].map((slot) => ({ slot, kind: "int" as const })),
      { error: { kind: "addShape", rank: l.dims.length }, span: e.span },
    );
  });
  const { leaves, slots } = target(em, e, inPlace);
  leaves.forEach((l, k) => {
    if (l.kind === "bool") return;
    const r = b[k]!;
    const q = em.fresh();
    em.out.open(`for (var ${q} = 0; ${q} < ${times(l.dims)}; ${q}++) {`);
    em.addTo(l.kind, `${plus(l.data, l.offset)} + ${q}`, em.load(l.kind, `${plus(r.data, r.offset)} + ${q}`));
    em.out.close();
  });
  return slots;
}

/**
 * record tape i v n: the tape's slots in `var`s; an empty tape is replaced by a new one of n elements shaped like v
 * (not filled: every element is recorded before it is read); then element i is set to v.
 */
export function emitRecord(em: WgslEmitter, e: Prim, base: string, inPlace: boolean): Slots {
  const src = arrayLeaves(em, e.args[0]!);
  const i = em.atom(e.args[1]!)[0]!;
  const v = em.atom(e.args[2]!);
  const n = em.atom(e.args[3]!)[0]!;
  const vLeaves = leavesOf(e.args[2]!.type);
  const vStarts = leafStarts(vLeaves);
  const empty = `${src[0]!.dims[0]} == 0`;
  const out = src.map((l, k) => {
    const r = {
      kind: l.kind,
      data: `${base}_${k}_d`,
      offset: `${base}_${k}_o`,
      dims: l.dims.map((_, d) => `${base}_${k}_n${d}`),
    };
    const copy = inPlace ? l : copyLeafUnlessEmpty(em, l, empty);
    em.out.line(`var ${r.data}: i32 = ${copy.data};`);
    em.out.line(`var ${r.offset}: i32 = ${copy.offset};`);
    r.dims.forEach((d, q) => em.out.line(`var ${d}: i32 = ${l.dims[q]};`));
    return r;
  });
  em.out.open(`if (${empty}) {`);
  src.forEach((l, k) => {
    const r = out[k]!;
    const vs = v.slice(vStarts[k]);
    const vDims = vLeaves[k]!.rank === 0 ? [] : vs.slice(2, 2 + vLeaves[k]!.rank);
    const fresh = em.allocate(times([n, ...vDims]), false);
    em.out.line(`${r.data} = ${fresh}; ${r.offset} = 0; ${r.dims[0]} = ${n};`);
    vDims.forEach((d, q) => em.out.line(`${r.dims[q + 1]} = ${d};`));
  });
  em.out.close();
  em.markDimensionNames(out.flatMap((r) => r.dims));
  em.boundsCheck(i, out[0]!.dims[0]!, e.span);
  out.forEach((r, k) => {
    const inner = r.dims.slice(1);
    const at = plus(plus(r.data, r.offset), times([i, ...inner]));
    writeElement(em, e, r, at, inner, v.slice(vStarts[k]), "set");
  });
  return out.flatMap((r) => [r.data, r.offset, ...r.dims]);
}

/** A copy of the leaf, unless `empty` holds at run time (then the leaf itself: nothing to overwrite). */
function copyLeafUnlessEmpty(em: WgslEmitter, l: LeafSlots, empty: string): LeafSlots {
  const data = em.fresh();
  const offset = em.fresh();
  em.out.line(`var ${data}: i32 = ${l.data};`);
  em.out.line(`var ${offset}: i32 = ${l.offset};`);
  em.out.open(`if (!(${empty})) {`);
  const copy = copyLeaf(em, l);
  em.out.line(`${data} = ${copy.data}; ${offset} = 0;`);
  em.out.close();
  return { ...l, data, offset };
}
