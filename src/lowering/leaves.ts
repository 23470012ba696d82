// Leaf layout: how compiled code holds a value of a first-order type, shared by the compiled back ends. A value is a
// list of *slots* grouped into *leaves*:
//
//   - a scalar leaf (Double, Index, Bool) is one slot: the number or boolean itself;
//   - an array leaf of rank r is 2 + r slots: [data, offset, dim0, ..., dim(r-1)]: a flat array of its scalars, the
//     position of element 0 in it, and the dimensions (outermost first). Indexing the outer dimension gives a view:
//     the same data at offset + i * (dim1 * ... * dim(r-1)), never a copy.
//
// A tuple is the concatenation of its components' leaves (never an object), and Array<T> is T's leaves each lifted by
// one dimension, so an array of tuples is a tuple of arrays, exactly as src/runtime/value.ts stores it.
//
// This file also converts between runtime Values and slots, in the same leaf order: the calling convention of
// compiled functions. What a slot is called in generated code is the back end's (the JavaScript names: writer.ts in
// src/codegen/).

import { invariantShapes } from "../ir/invariant-shapes.js";
import { fail } from "../syntax/diagnostics.js";
import { showType, type Type } from "../types/types.js";
import { isArrayValue, shapeSize, tuple, type FlatData, type ScalarKind, type Value } from "../runtime/value.js";

/**
 * One leaf: a scalar (rank 0) or a dense array of `rank` dimensions whose elements are of `kind`. A tape (reverse mode
 * through recursion, ./tape.ts) is a leaf of rank 0 whose one slot holds the tape object; there are no arrays of tapes.
 */
export interface Leaf {
  readonly kind: ScalarKind | "tape";
  readonly rank: number;
}

/** The element kind of an array leaf (never a tape). */
export function elemKind(l: Leaf): ScalarKind {
  if (l.kind === "tape") throw new Error("leaves: a tape is not an array element");
  return l.kind;
}

/** The leaves of a scalar type, one shared array each. */
const SCALAR_LEAVES = {
  double: [{ kind: "double", rank: 0 }],
  int: [{ kind: "int", rank: 0 }],
  bool: [{ kind: "bool", rank: 0 }],
  tape: [{ kind: "tape", rank: 0 }],
} as const satisfies Record<string, readonly Leaf[]>;

/**
 * The leaves and slot count of each tuple or array type asked about: the code generators ask again for every
 * variable bound, read or updated (types are immutable, and shared by a variable's uses).
 */
const layouts = new WeakMap<Type, { readonly leaves: readonly Leaf[]; readonly slots: number }>();

function layoutOf(t: Type): { readonly leaves: readonly Leaf[]; readonly slots: number } {
  let layout = layouts.get(t);
  if (layout === undefined) {
    const leaves = computeLeaves(t);
    layout = { leaves, slots: leaves.reduce((n, l) => n + leafSlotCount(l), 0) };
    layouts.set(t, layout);
  }
  return layout;
}

/** The one leaf of a scalar type, or undefined for a tuple, array or function type. */
function scalarLeaves(t: Type): readonly Leaf[] | undefined {
  switch (t.k) {
    case "double":
    case "int":
    case "bool":
    case "tape":
      return SCALAR_LEAVES[t.k];
    default:
      return undefined;
  }
}

export function leavesOf(t: Type): readonly Leaf[] {
  return scalarLeaves(t) ?? layoutOf(t).leaves;
}

function computeLeaves(t: Type): readonly Leaf[] {
  switch (t.k) {
    case "double":
    case "int":
    case "bool":
    case "tape":
      return scalarLeaves(t)!;
    case "tuple":
      return t.elems.flatMap(leavesOf);
    case "array": {
      const inner = leavesOf(t.elem).map((l) => ({ kind: elemKind(l), rank: l.rank }));
      // An array finds its length in its first leaf; an array of empty tuples has none (value.ts cannot store it).
      if (inner.length === 0) fail("unsupported", `cannot compile an array of empty tuples (${showType(t)})`);
      return inner.map((l) => ({ kind: l.kind, rank: l.rank + 1 }));
    }
    case "fun":
      return fail("unsupported", `cannot compile a function value here (a value of type ${showType(t)})`, undefined, {
        hint: "the compiled back end takes first-order programs: functions must be inlined away first",
      });
  }
}

export const leafSlotCount = (l: Leaf): number => (l.rank === 0 ? 1 : 2 + l.rank);

export function slotCount(t: Type): number {
  return scalarLeaves(t) === undefined ? layoutOf(t).slots : 1;
}

/**
 * Where each component's slots start among the slots of a tuple type, made once per type: a wide tuple is projected
 * once per component, and summing the slots before each would be quadratic in its width.
 */
const componentStartsOf = new WeakMap<Type, readonly number[]>();

/** The slots of component `index` of a value of tuple type `t`, as a range [start, end) of its slots. */
export function componentSlots(t: Type & { k: "tuple" }, index: number): { start: number; end: number } {
  let starts = componentStartsOf.get(t);
  if (starts === undefined) {
    const s = [0];
    for (const e of t.elems) s.push(s[s.length - 1]! + slotCount(e));
    componentStartsOf.set(t, (starts = s));
  }
  return { start: starts[index]!, end: starts[index + 1]! };
}

/** Where each leaf's slots start in the slot list of a type. */
export function leafStarts(leaves: readonly Leaf[]): number[] {
  const starts: number[] = [];
  let at = 0;
  for (const l of leaves) {
    starts.push(at);
    at += leafSlotCount(l);
  }
  return starts;
}

/**
 * The positions, among the slots of a loop's state, of the dimensions of the components whose shape never changes
 * (src/ir/invariant-shapes.ts): a back end can hold them in the initial value's own slots, which are never reassigned,
 * so bounds checks against them are known.
 */
export function invariantDimensionSlots(loop: Parameters<typeof invariantShapes>[0]): Set<number> {
  const fixed = new Set<number>();
  const parts = loop.acc.type.k === "tuple" ? loop.acc.type.elems : [loop.acc.type];
  let at = 0;
  invariantShapes(loop).forEach((inv, k) => {
    for (const l of leavesOf(parts[k]!)) {
      if (inv) for (let d = 0; d < l.rank; d++) fixed.add(at + 2 + d);
      at += leafSlotCount(l);
    }
  });
  return fixed;
}

// ---- runtime conversion (the calling convention of compiled functions) ----

export type Slot = number | boolean | FlatData;

const FLAT_CLASS = { double: Float64Array, int: Int32Array, bool: Uint8Array } as const;

/** Appends the slots of `v` (a value of type `t`) to `out`; a value that does not fit the type is an argument error. */
export function valueToSlots(v: Value, t: Type, out: Slot[], what: string): void {
  const bad = (): never =>
    fail("argument", `${what} does not match its type`, undefined, { expected: showType(t), found: describe(v) });
  switch (t.k) {
    case "double":
      if (typeof v !== "number") return bad();
      out.push(v);
      return;
    case "int":
      if (typeof v !== "number" || !Number.isInteger(v) || (v | 0) !== v) return bad();
      out.push(v);
      return;
    case "bool":
      if (typeof v !== "boolean") return bad();
      out.push(v);
      return;
    case "tuple":
      if (typeof v !== "object" || v.tag !== "tuple" || v.elems.length !== t.elems.length) return bad();
      t.elems.forEach((et, i) => valueToSlots((v as { elems: readonly Value[] }).elems[i]!, et, out, what));
      return;
    case "array":
      if (arrayToSlots(v, t.elem, 1, out) === undefined) return bad();
      return;
    case "fun":
      leavesOf(t); // reports the unsupported function type
      return;
    case "tape":
      return bad();
  }
}

// `v` holds Array^depth<t>. Returns the dimensions of its first leaf, or undefined when `v` does not fit.
function arrayToSlots(v: Value, t: Type, depth: number, out: Slot[]): readonly number[] | undefined {
  if (t.k === "array") return arrayToSlots(v, t.elem, depth + 1, out);
  if (!isArrayValue(v)) return undefined;
  if (t.k === "tuple") {
    if (v.tag !== "tuparr" || v.depth !== depth || v.fields.length !== t.elems.length || t.elems.length === 0) {
      return undefined;
    }
    let first: readonly number[] | undefined;
    for (let j = 0; j < t.elems.length; j++) {
      const dims = arrayToSlots(v.fields[j]!, t.elems[j]!, depth, out);
      if (dims === undefined) return undefined;
      // Every field of an array of tuples has the same leading dimensions (compiled code reads the length from the
      // first one, so a malformed argument must not get through).
      if (first === undefined) first = dims;
      else for (let d = 0; d < depth; d++) if (dims[d] !== first[d]) return undefined;
    }
    return first;
  }
  if (t.k === "fun") return undefined;
  if (v.tag !== "dense" || v.elemKind !== t.k || v.shape.length !== depth) return undefined;
  if (!(v.data instanceof FLAT_CLASS[t.k]) || !v.shape.every((d) => Number.isInteger(d) && d >= 0 && d <= 0x7fffffff)) {
    return undefined;
  }
  if (v.data.length !== shapeSize(v.shape)) return undefined;
  out.push(v.data, 0, ...v.shape);
  return v.shape;
}

/** The value of type `t` held in `slots` (in leaf order). Views are cut out of their typed arrays with subarray. */
export function slotsToValue(slots: readonly Slot[], t: Type): Value {
  let at = 0;
  const read = (ty: Type, depth: number): Value => {
    switch (ty.k) {
      case "double":
      case "int":
      case "bool": {
        if (depth === 0) return slots[at++] as number | boolean;
        const data = slots[at] as FlatData;
        const offset = slots[at + 1] as number;
        const shape = slots.slice(at + 2, at + 2 + depth) as number[];
        at += 2 + depth;
        const size = shapeSize(shape);
        const view = offset === 0 && data.length === size ? data : data.subarray(offset, offset + size);
        return { tag: "dense", elemKind: ty.k, shape, data: view };
      }
      case "tuple": {
        if (depth === 0) return tuple(ty.elems.map((e) => read(e, 0)));
        return { tag: "tuparr", depth, fields: ty.elems.map((e) => read(e, depth) as never) };
      }
      case "array":
        return read(ty.elem, depth + 1);
      case "fun":
      case "tape":
        throw new Error(`slotsToValue: a ${ty.k} is never an argument or a result of compiled code`);
    }
  };
  const v = read(t, 0);
  if (at !== slots.length) throw new Error(`slotsToValue: ${slots.length} slots for ${showType(t)}, which has ${at}`);
  return v;
}

function describe(v: Value): string {
  if (typeof v === "number" || typeof v === "boolean") return String(v);
  switch (v.tag) {
    case "dense":
      return `an array of ${v.elemKind} with shape [${v.shape.join(", ")}]`;
    case "tuparr":
      return `an array of tuples of depth ${v.depth}`;
    case "tuple":
      return `a tuple of ${v.elems.length} elements`;
    case "fun":
      return "a function";
  }
}
