// Stacking: turning a list of equally shaped element values into one array value (what `build` produces, and what a
// JSON array becomes). The representation is the one documented in value.ts: scalars stack into a flat typed array,
// arrays stack into an array of one more dimension, tuples stack into a TupleArray of per-component stacks.

import { fail } from "../syntax/diagnostics.js";
import type { Span } from "../syntax/source.js";
import { arrayOf, type Type } from "../types/types.js";
import { arrayTooLarge, MAX_ARRAY_ELEMENTS } from "./limits.js";
import { allocFlat, shapeSize, type ArrayValue, type DenseArray, type TupleArray, type Value } from "./value.js";

/**
 * The shape of any value: its array dimensions (outermost first) and, when the innermost elements are tuples, the shape
 * of each component below those dimensions. A scalar is { dims: [] }; a 3x4 Matrix is { dims: [3, 4] }; an
 * Array<Double * Vector> of length 3 holding vectors of length 4 is { dims: [3], tuple: [{dims: []}, {dims: [4]}] }.
 */
export interface ValueShape {
  readonly dims: readonly number[];
  readonly tuple?: readonly ValueShape[];
}

export function shapeOf(v: Value): ValueShape {
  if (typeof v === "number" || typeof v === "boolean") return { dims: [] };
  switch (v.tag) {
    case "dense":
      return { dims: v.shape };
    case "tuple":
      return { dims: [], tuple: v.elems.map(shapeOf) };
    case "tuparr": {
      // Every field carries the same `depth` leading dimensions; below them each field has its component's shape.
      if (v.fields.length === 0) throw new Error("shapeOf: a TupleArray without fields has no shape");
      const fieldShapes = v.fields.map(shapeOf);
      const dims = fieldShapes[0]!.dims.slice(0, v.depth);
      return { dims, tuple: fieldShapes.map((s) => ({ ...s, dims: s.dims.slice(v.depth) })) };
    }
    case "fun":
      throw new Error("shapeOf: functions have no shape");
  }
}

export function shapesEqual(a: ValueShape, b: ValueShape): boolean {
  if (a.dims.length !== b.dims.length || a.dims.some((d, i) => d !== b.dims[i])) return false;
  if (a.tuple === undefined || b.tuple === undefined) return a.tuple === b.tuple;
  return a.tuple.length === b.tuple.length && a.tuple.every((s, i) => shapesEqual(s, b.tuple![i]!));
}

/** "[3, 4]", "scalar", "(scalar, [4])", "[3] of (scalar, [4])". */
export function showShape(s: ValueShape): string {
  const dims = s.dims.length > 0 ? `[${s.dims.join(", ")}]` : "";
  if (s.tuple === undefined) return dims || "scalar";
  const tuple = `(${s.tuple.map(showShape).join(", ")})`;
  return dims ? `${dims} of ${tuple}` : tuple;
}

export interface ShapeMismatch {
  /** The first element whose shape differs from element 0's. */
  readonly index: number;
  readonly first: ValueShape;
  readonly found: ValueShape;
}

/** The first element whose shape differs from that of element 0, if any. */
export function firstShapeMismatch(elems: readonly Value[]): ShapeMismatch | undefined {
  if (elems.length === 0) return undefined;
  const first = shapeOf(elems[0]!);
  for (let i = 1; i < elems.length; i++) {
    const found = shapeOf(elems[i]!);
    if (!shapesEqual(first, found)) return { index: i, first, found };
  }
  return undefined;
}

/**
 * The array of the given elements, all of type `elemType`. Elements must have one shape (arrays are regular), otherwise
 * a shape error located at `span` (the build) names the first two elements that differ.
 */
export function stackValues(elemType: Type, elems: readonly Value[], span?: Span): ArrayValue {
  if (containsArray(elemType)) {
    const m = firstShapeMismatch(elems);
    if (m) irregularBuild(m.index, m.first, m.found, span);
  }
  return stackUniform(elemType, elems, span);
}

/** The error of a build whose element `index` differs in shape from element 0 (both back ends raise this one). */
export function irregularBuild(index: number, first: ValueShape, found: ValueShape, span: Span | undefined): never {
  return fail(
    "shape",
    `build produced elements of different shapes: element 0 has shape ${showShape(first)} but element ${index} has shape ${showShape(found)}`,
    span,
  );
}

/** The error of a build size or ifold count below zero (both back ends raise this one). */
export function negativeLoopCount(what: "build size" | "ifold count", n: number, span: Span | undefined): never {
  // -2^31 is what a size of 2^31 becomes in 32-bit Index arithmetic (a loop's tape of count + 1 entries).
  const overflow = n === -(2 ** 31) ? " (a size of 2^31 or more overflows an Index)" : "";
  return fail("shape", `${what} must not be negative, got ${n}${overflow}`, span);
}

/** Like stackValues, for elements the caller has already checked to have one shape. */
export function stackUniform(elemType: Type, elems: readonly Value[], span?: Span): ArrayValue {
  const n = elems.length;
  // An empty stack: there is no element to take the inner dimensions from, so they are all 0 (a `build 0` of type
  // Matrix has shape [0, 0]). This is the only place an array's inner dimensions are not those of its elements.
  if (n === 0) return zeroSizeArray(arrayOf(elemType));
  switch (elemType.k) {
    case "double":
    case "int":
    case "bool": {
      const data = allocFlat(elemType.k, n);
      for (let i = 0; i < n; i++) {
        const x = elems[i]!;
        data[i] = typeof x === "boolean" ? (x ? 1 : 0) : (x as number);
      }
      return { tag: "dense", elemKind: elemType.k, shape: [n], data };
    }
    case "array": {
      const first = elems[0] as ArrayValue;
      if (first.tag === "dense") {
        const rows = elems as readonly DenseArray[];
        const size = shapeSize(first.shape);
        if (n * size > MAX_ARRAY_ELEMENTS) arrayTooLarge("a build", n * size, span);
        const data = allocFlat(first.elemKind, n * size);
        for (let i = 0; i < n; i++) data.set(rows[i]!.data, i * size);
        return { tag: "dense", elemKind: first.elemKind, shape: [n, ...first.shape], data };
      }
      // Elements are Array^d<(T1, ..., Tm)>, stored as fields Array^d<Tj>; stack each field on its own.
      const { depth, leaf } = splitArrayType(elemType);
      const parts = elems as readonly TupleArray[];
      const fields = tupleComponents(leaf).map((tj, j) =>
        stackUniform(
          wrapArrays(depth, tj),
          parts.map((p) => p.fields[j]!),
        ),
      );
      return { tag: "tuparr", depth: depth + 1, fields };
    }
    case "tuple": {
      const fields = tupleComponents(elemType).map((tj, j) =>
        stackUniform(
          tj,
          elems.map((e) => {
            if (typeof e !== "object" || e.tag !== "tuple") throw new Error("stack: expected a tuple element");
            return e.elems[j]!;
          }),
        ),
      );
      return { tag: "tuparr", depth: 1, fields };
    }
    case "fun":
    case "tape":
      throw new Error(`stack: arrays of ${elemType.k}s cannot occur (the type checker rejects them)`);
  }
}

/** The representation of an array of type `arrayType` whose dimensions are all 0. */
export function zeroSizeArray(arrayType: Type): ArrayValue {
  const { depth, leaf } = splitArrayType(arrayType);
  if (depth === 0) throw new Error("zeroSizeArray: not an array type");
  if (leaf.k === "double" || leaf.k === "int" || leaf.k === "bool") {
    return { tag: "dense", elemKind: leaf.k, shape: new Array<number>(depth).fill(0), data: allocFlat(leaf.k, 0) };
  }
  return { tag: "tuparr", depth, fields: tupleComponents(leaf).map((tj) => zeroSizeArray(wrapArrays(depth, tj))) };
}

/** True when a value of this type holds an array somewhere, so two such values can differ in shape. */
export function containsArray(t: Type): boolean {
  if (t.k === "array") return true;
  if (t.k === "tuple") return t.elems.some(containsArray);
  return false;
}

/** Array^depth<leaf> with leaf not an array. */
export function splitArrayType(t: Type): { depth: number; leaf: Type } {
  let depth = 0;
  while (t.k === "array") {
    depth++;
    t = t.elem;
  }
  return { depth, leaf: t };
}

function wrapArrays(depth: number, t: Type): Type {
  for (let i = 0; i < depth; i++) t = arrayOf(t);
  return t;
}

// A TupleArray finds its length in its first field, so an array of empty tuples has no representation. The surface
// language has no empty tuple; this guards against a transformation producing one.
function tupleComponents(t: Type): readonly Type[] {
  if (t.k === "fun") throw new Error("stack: arrays of functions cannot occur (the type checker rejects them)");
  if (t.k !== "tuple") throw new Error(`stack: expected a tuple type, got ${t.k}`);
  if (t.elems.length === 0) throw new Error("stack: arrays of empty tuples have no representation");
  return t.elems;
}
