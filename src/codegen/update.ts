// JavaScript for the functional array updates (src/prims/updates.ts). Each array leaf of the operand is either updated
// in place (ownership.ts proved the old value unobservable) or first copied with `slice`, so the generated code has
// the semantics of the interpreter's copying version either way. Path indexes are bounds-checked like `get`.

import type { Atom, Prim } from "../ir/ir.js";
import { allocation, sliceOf } from "./build.js";
import type { ScalarKind } from "../runtime/value.js";
import { elemKind, leafSlotCount, leafStarts, leavesOf } from "../lowering/leaves.js";
import { slotNames } from "./writer.js";
import { plus, times, type Emitter, type Slots } from "./emit.js";

interface LeafSlots {
  readonly kind: ScalarKind;
  readonly data: string;
  readonly offset: string;
  readonly dims: readonly string[];
}

function arrayLeaves(em: Emitter, a: Atom): LeafSlots[] {
  const slots = em.atom(a);
  const leaves = leavesOf(a.type);
  return leafStarts(leaves).map((s, k) => {
    const leaf = leaves[k]!;
    const own = slots.slice(s, s + leafSlotCount(leaf));
    return { kind: elemKind(leaf), data: own[0]!, offset: own[1]!, dims: own.slice(2) };
  });
}

/** Slots of the result, leaf by leaf: in place the operand's own, otherwise fresh copies named after `base`. */
function target(em: Emitter, e: Prim, base: string, inPlace: boolean): { leaves: LeafSlots[]; slots: Slots } {
  const src = arrayLeaves(em, e.args[0]!);
  if (inPlace) return { leaves: src, slots: em.atom(e.args[0]!) };
  const names = slotNames(base, e.type);
  const starts = leafStarts(leavesOf(e.type));
  const leaves = src.map((l, k) => {
    const data = names[starts[k]!]!;
    em.out.line(`const ${data} = ${sliceOf(l.kind, l.data, l.offset, plus(l.offset, times(l.dims)))};`);
    return { ...l, data, offset: "0" };
  });
  return { leaves, slots: leaves.flatMap((l) => [l.data, l.offset, ...l.dims]) };
}

export function emitZerosLike(em: Emitter, e: Prim, base: string): Slots {
  const names = slotNames(base, e.type);
  const starts = leafStarts(leavesOf(e.type));
  return arrayLeaves(em, e.args[0]!).flatMap((l, k) => {
    const data = names[starts[k]!]!;
    em.out.line(`const ${data} = ${allocation(l.kind, times(l.dims))};`);
    return [data, "0", ...l.dims];
  });
}

/**
 * Stores (or adds) the value whose slots are `vs` into leaf `l` at element offset `at`: a scalar, or an array of
 * dimensions `inner` (checked against the value's, the interpreter's shape error otherwise). Bools are only stored.
 */
function writeElement(
  em: Emitter,
  e: Prim,
  l: LeafSlots,
  at: string,
  inner: readonly string[],
  vs: Slots,
  how: "set" | "add",
): void {
  const set = how === "set";
  if (inner.length === 0) {
    if (l.kind === "bool") {
      if (set) em.out.line(`${l.data}[${at}] = ${vs[0]} ? 1 : 0;`);
    } else em.out.line(`${l.data}[${at}] ${set ? "=" : "+="} ${vs[0]};`);
    return;
  }
  const [vdata, voff, ...vdims] = vs.slice(0, 2 + inner.length) as [string, string, ...string[]];
  const differs = inner.map((n, d) => `${vdims[d]} !== ${n}`).join(" || ");
  const span = em.spanRef(e.span);
  em.failIf(
    differs,
    [...vdims, ...inner],
    (saved) =>
      `$rt.updateShapeError(${set}, [${saved.slice(0, inner.length).join(", ")}], [${saved.slice(inner.length).join(", ")}], ${span})`,
  );
  if (l.kind === "bool" && !set) return;
  const q = em.fresh();
  const from = em.fresh();
  em.out.line(`const ${from} = ${at};`);
  em.out.line(
    `for (let ${q} = 0; ${q} < ${times(inner)}; ${q}++) ${l.data}[${from} + ${q}] ${set ? "=" : "+="} ${vdata}[${plus(voff, q)}];`,
  );
}

/** setAt / addAt a p v. */
export function emitUpdateAt(em: Emitter, e: Prim, base: string, inPlace: boolean): Slots {
  const set = e.op === "setAt";
  const path = em.atom(e.args[1]!);
  const first = arrayLeaves(em, e.args[0]!)[0]!;
  path.forEach((p, d) => em.boundsCheck(p, first.dims[d]!, e.span));
  const { leaves, slots } = target(em, e, base, inPlace);
  const v = em.atom(e.args[2]!);
  const vStarts = leafStarts(leavesOf(e.args[2]!.type));
  leaves.forEach((l, k) => {
    const strides = path.map((_, d) => times(l.dims.slice(d + 1)));
    const at = path.reduce((acc, p, d) => plus(acc, times([p, strides[d]!])), l.offset);
    const inner = l.dims.slice(path.length);
    writeElement(em, e, l, at, inner, v.slice(vStarts[k]), set ? "set" : "add");
  });
  return slots;
}

/** addArray a b. */
export function emitAddArray(em: Emitter, e: Prim, base: string, inPlace: boolean): Slots {
  const b = arrayLeaves(em, e.args[1]!);
  const a = arrayLeaves(em, e.args[0]!);
  const at0 = em.spanRef(e.span);
  a.forEach((l, k) => {
    const r = b[k]!;
    const differs = l.dims.map((n, d) => `${r.dims[d]} !== ${n}`).join(" || ");
    em.failIf(
      differs,
      [...l.dims, ...r.dims],
      (saved) =>
        `$rt.addShapeError([${saved.slice(0, l.dims.length).join(", ")}], [${saved.slice(l.dims.length).join(", ")}], ${at0})`,
    );
  });
  const { leaves, slots } = target(em, e, base, inPlace);
  leaves.forEach((l, k) => {
    if (l.kind === "bool") return;
    const r = b[k]!;
    const q = em.fresh();
    em.out.line(
      `for (let ${q} = 0; ${q} < ${times(l.dims)}; ${q}++) ${l.data}[${plus(l.offset, q)}] += ${r.data}[${plus(r.offset, q)}];`,
    );
  });
  return slots;
}

/**
 * record tape i v n: the tape's slots in `let` locals; an empty tape is replaced by a fresh one of n elements shaped
 * like v (allocated, not filled: every element is recorded before it is read); then element i is set to v.
 */
export function emitRecord(em: Emitter, e: Prim, base: string, inPlace: boolean): Slots {
  const src = arrayLeaves(em, e.args[0]!);
  const i = em.atom(e.args[1]!)[0]!;
  const v = em.atom(e.args[2]!);
  const n = em.atom(e.args[3]!)[0]!;
  const vLeaves = leavesOf(e.args[2]!.type);
  const vStarts = leafStarts(vLeaves);
  const names = slotNames(base, e.type);
  const starts = leafStarts(leavesOf(e.type));
  const out = src.map((l, k) => {
    const s = starts[k]!;
    return { kind: l.kind, data: names[s]!, offset: names[s + 1]!, dims: names.slice(s + 2, s + 2 + l.dims.length) };
  });
  const empty = `${src[0]!.dims[0]} === 0`;
  src.forEach((l, k) => {
    const r = out[k]!;
    const copy = inPlace
      ? l.data
      : `(${empty} ? ${l.data} : ${l.data}.slice(${l.offset}, ${plus(l.offset, times(l.dims))}))`;
    const from = [copy, inPlace ? l.offset : `(${empty} ? ${l.offset} : 0)`, ...l.dims];
    em.out.line(`let ${[r.data, r.offset, ...r.dims].map((x, q) => `${x} = ${from[q]}`).join(", ")};`);
  });
  em.out.open(`if (${empty}) {`);
  src.forEach((l, k) => {
    const r = out[k]!;
    const vs = v.slice(vStarts[k]);
    const vDims = vLeaves[k]!.rank === 0 ? [] : vs.slice(2, 2 + vLeaves[k]!.rank);
    em.out.line(`${r.data} = ${allocation(l.kind, times([n, ...vDims]))}; ${r.offset} = 0; ${r.dims[0]} = ${n};`);
    vDims.forEach((d, q) => em.out.line(`${r.dims[q + 1]} = ${d};`));
  });
  em.out.close();
  em.markDimensionNames(out.flatMap((r) => r.dims));
  em.boundsCheck(i, out[0]!.dims[0]!, e.span);
  out.forEach((r, k) => {
    const inner = r.dims.slice(1);
    writeElement(em, e, r, plus(r.offset, times([i, ...inner])), inner, v.slice(vStarts[k]), "set");
  });
  return out.flatMap((r) => [r.data, r.offset, ...r.dims]);
}
