// WebAssembly for the functional array updates (src/prims/updates.ts) and the other array primitives that work on
// leaves (field, sameShape). Each array leaf of the operand is updated in place (ownership.ts proved the old value
// unobservable) or first copied, so the code has the semantics of the interpreter's copying version either way. Path
// indexes are bounds-checked like `get`. The same structure as the JavaScript back end's src/codegen/update.ts.

import type { Atom, Prim } from "../ir/ir.js";
import type { ScalarKind } from "../runtime/value.js";
import { arrayOf } from "../types/types.js";
import { elemKind, leafSlotCount, leafStarts, leavesOf, slotCount } from "../lowering/leaves.js";
import { i32, op, store } from "./instructions.js";
import type { Code } from "./encoder.js";
import { loadScalar, savedSlot, type WasmEmitter, type WSlots } from "./emit.js";
import { allocate, copyLeaf } from "./memory.js";
import {
  address,
  i32Const,
  elementShift,
  iadd,
  imul,
  islot,
  ishl,
  product,
  slotCode,
  ZERO,
  type IExpr,
  type WSlot,
} from "./slots.js";

interface LeafSlots {
  readonly kind: ScalarKind;
  readonly data: WSlot;
  readonly offset: WSlot;
  readonly dims: readonly WSlot[];
}

function arrayLeaves(em: WasmEmitter, a: Atom): LeafSlots[] {
  const slots = em.atom(a);
  const leaves = leavesOf(a.type);
  return leafStarts(leaves).map((s, k) => {
    const own = slots.slice(s, s + leafSlotCount(leaves[k]!));
    return { kind: elemKind(leaves[k]!), data: own[0]!, offset: own[1]!, dims: own.slice(2) };
  });
}

const slotsOf = (leaves: readonly LeafSlots[]): WSlot[] => leaves.flatMap((l) => [l.data, l.offset, ...l.dims]);

/** The leaves of the result: in place the operand's own, otherwise fresh copies. */
function target(em: WasmEmitter, e: Prim, inPlace: boolean): LeafSlots[] {
  const src = arrayLeaves(em, e.args[0]!);
  if (inPlace) return src;
  return src.map((l) => ({ ...l, data: copyLeaf(em, l.kind, l.data, l.offset, l.dims), offset: ZERO }));
}

export function emitZerosLike(em: WasmEmitter, e: Prim): WSlots {
  return slotsOf(
    arrayLeaves(em, e.args[0]!).map((l) => ({
      ...l,
      data: allocate(em, l.kind, [em.index(product(l.dims))], true),
      offset: ZERO,
    })),
  );
}

/** The value of a scalar of this kind at element index `at` of `data`, stored or added. */
function storeScalar(em: WasmEmitter, kind: ScalarKind, data: WSlot, at: IExpr, value: Code): Code {
  const shift = elementShift(kind, em.real);
  const addr = address(data, at, shift);
  if (kind === "bool") return store("i32.store8", addr, value);
  if (kind === "int") return store("i32.store", addr, value);
  return store(em.real === "f64" ? "f64.store" : "f32.store", addr, value);
}

/** data[at] += value (Doubles and Indexes). */
function addScalar(em: WasmEmitter, kind: ScalarKind, data: WSlot, at: IExpr, value: Code): Code {
  const sum = op(
    kind === "int" ? "i32.add" : em.real === "f64" ? "f64.add" : "f32.add",
    loadScalar(kind, em.real, data, at),
    value,
  );
  return storeScalar(em, kind, data, at, sum);
}

/** `for (q = 0; q < n; q++) body(q)`. */
export function elementLoop(em: WasmEmitter, n: IExpr, body: (q: WSlot) => void): void {
  if (n.value === 0) return;
  const count = em.index(n);
  const q = em.local("i32");
  em.countedLoop(q, count, () => body(q));
}

/**
 * Stores (or adds) the value `vs` into leaf `l` at element index `at`: a scalar, or an array of dimensions `inner`
 * (checked against the value's: the interpreter's shape error otherwise). Bools are only stored.
 */
function writeElement(
  em: WasmEmitter,
  e: Prim,
  l: LeafSlots,
  at: IExpr,
  inner: readonly WSlot[],
  vs: WSlots,
  set: boolean,
): void {
  if (inner.length === 0) {
    if (set) em.fb.emit(storeScalar(em, l.kind, l.data, at, slotCode(vs[0]!)));
    else if (l.kind !== "bool") em.fb.emit(addScalar(em, l.kind, l.data, at, slotCode(vs[0]!)));
    return;
  }
  const [vdata, voff, ...vdims] = vs.slice(0, 2 + inner.length) as [WSlot, WSlot, ...WSlot[]];
  const differs = inner
    .map((n, d) => op("i32.ne", slotCode(vdims[d]!), slotCode(n)))
    .reduce((a, b) => op("i32.or", a, b));
  em.failIf(differs, [...vdims, ...inner].map(savedSlot), (saved) =>
    em.helpers.raise.updateShapeError(set, saved.slice(0, inner.length), saved.slice(inner.length), e.span),
  );
  if (l.kind === "bool" && !set) return;
  const from = em.index(at);
  const n = product(inner);
  const shift = elementShift(l.kind, em.real);
  if (set) {
    em.fb.emit(
      op("memory.copy", address(l.data, islot(from), shift), address(vdata, islot(voff), shift), ishl(n, shift).code),
    );
    return;
  }
  elementLoop(em, n, (q) =>
    em.fb.emit(
      addScalar(
        em,
        l.kind,
        l.data,
        iadd(islot(from), islot(q)),
        loadScalar(l.kind, em.real, vdata, iadd(islot(voff), islot(q))),
      ),
    ),
  );
}

/** setAt / addAt a p v. */
export function emitUpdateAt(em: WasmEmitter, e: Prim, inPlace: boolean): WSlots {
  const set = e.op === "setAt";
  const path = em.atom(e.args[1]!);
  const first = arrayLeaves(em, e.args[0]!)[0]!;
  path.forEach((p, d) => em.boundsCheck(p, first.dims[d]!, e.span));
  const leaves = target(em, e, inPlace);
  const v = em.atom(e.args[2]!);
  const vStarts = leafStarts(leavesOf(e.args[2]!.type));
  leaves.forEach((l, k) => {
    const at = path.reduce<IExpr>(
      (acc, p, d) => iadd(acc, imul(islot(p), product(l.dims.slice(d + 1)))),
      islot(l.offset),
    );
    writeElement(em, e, l, at, l.dims.slice(path.length), v.slice(vStarts[k]), set);
  });
  return slotsOf(leaves);
}

/** addArray a b. */
export function emitAddArray(em: WasmEmitter, e: Prim, inPlace: boolean): WSlots {
  const b = arrayLeaves(em, e.args[1]!);
  const a = arrayLeaves(em, e.args[0]!);
  a.forEach((l, k) => {
    const r = b[k]!;
    const differs = l.dims
      .map((n, d) => op("i32.ne", slotCode(r.dims[d]!), slotCode(n)))
      .reduce((x, y) => op("i32.or", x, y));
    em.failIf(differs, [...l.dims, ...r.dims].map(savedSlot), (saved) =>
      em.helpers.raise.addShapeError(saved.slice(0, l.dims.length), saved.slice(l.dims.length), e.span),
    );
  });
  const leaves = target(em, e, inPlace);
  leaves.forEach((l, k) => {
    if (l.kind === "bool") return;
    const r = b[k]!;
    elementLoop(em, product(l.dims), (q) =>
      em.fb.emit(
        addScalar(
          em,
          l.kind,
          l.data,
          iadd(islot(l.offset), islot(q)),
          loadScalar(l.kind, em.real, r.data, iadd(islot(r.offset), islot(q))),
        ),
      ),
    );
  });
  return slotsOf(leaves);
}

/**
 * record tape i v n: the tape's slots in new locals; an empty tape is replaced by a fresh one of n elements shaped
 * like v (not cleared: every element is recorded before it is read); then element i is set to v.
 */
export function emitRecord(em: WasmEmitter, e: Prim, inPlace: boolean): WSlots {
  const src = arrayLeaves(em, e.args[0]!);
  const i = em.atom(e.args[1]!)[0]!;
  const v = em.atom(e.args[2]!);
  const n = em.atom(e.args[3]!)[0]!;
  const vLeaves = leavesOf(e.args[2]!.type);
  const vStarts = leafStarts(vLeaves);
  const empty = op("i32.eqz", slotCode(src[0]!.dims[0]!));
  const out = src.map((l) => {
    const dims = l.dims.map((d) => em.define("i32", slotCode(d)));
    if (inPlace)
      return {
        kind: l.kind,
        data: em.define("i32", slotCode(l.data)),
        offset: em.define("i32", slotCode(l.offset)),
        dims,
      };
    const data = em.local("i32");
    const offset = em.local("i32");
    em.fb.if(empty);
    em.set(data, slotCode(l.data));
    em.set(offset, slotCode(l.offset));
    em.fb.else();
    em.set(data, slotCode(copyLeaf(em, l.kind, l.data, l.offset, l.dims)));
    em.set(offset, i32(0));
    em.fb.end();
    return { kind: l.kind, data, offset, dims };
  });
  em.fb.if(empty);
  src.forEach((l, k) => {
    const r = out[k]!;
    const vs = v.slice(vStarts[k]);
    const vDims = vLeaves[k]!.rank === 0 ? [] : vs.slice(2, 2 + vLeaves[k]!.rank);
    em.set(r.data, slotCode(allocate(em, l.kind, [n, ...vDims], false)));
    em.set(r.offset, i32(0));
    em.set(r.dims[0]!, slotCode(n));
    vDims.forEach((d, q) => em.set(r.dims[q + 1]!, slotCode(d)));
  });
  em.fb.end();
  em.markDimensionSlots(out.flatMap((r) => r.dims));
  em.boundsCheck(i, out[0]!.dims[0]!, e.span);
  out.forEach((r, k) => {
    const inner = r.dims.slice(1);
    writeElement(em, e, r, iadd(islot(r.offset), imul(islot(i), product(inner))), inner, v.slice(vStarts[k]), true);
  });
  return slotsOf(out);
}

/** An array of tuples is held as its components' arrays, one after the other: component k's slots are the field. */
export function emitField(em: WasmEmitter, e: Prim): WSlots {
  const arr = e.args[0]!;
  const comps = arr.type.k === "array" && arr.type.elem.k === "tuple" ? arr.type.elem.elems : [];
  const k = e.args[1]!.kind === "lit" ? (e.args[1]!.value as number) : -1;
  const start = comps.slice(0, k).reduce((n, t) => n + slotCount(arrayOf(t)), 0);
  return em.atom(arr).slice(start, start + slotCount(e.type));
}

/** Equal dimensions, leaf by leaf (data and offsets are not shape). */
export function emitSameShape(em: WasmEmitter, e: Prim): WSlots {
  const [a, b] = e.args.map((x) => em.atom(x));
  const leaves = leavesOf(e.args[0]!.type);
  const tests = leafStarts(leaves).flatMap((s, l) =>
    Array.from({ length: leaves[l]!.rank }, (_, d) => op("i32.eq", slotCode(a![s + 2 + d]!), slotCode(b![s + 2 + d]!))),
  );
  return [
    tests.length === 0
      ? i32Const(1)
      : em.define(
          "i32",
          tests.reduce((x, y) => op("i32.and", x, y)),
        ),
  ];
}
