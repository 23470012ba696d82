// The reference semantics of the functional array updates (src/prims/updates.ts): zerosLike, setAt, addAt, addArray.
// Each returns a NEW array and leaves its operands untouched; the compiled code (and the interpreter, on first-order
// code) does the same update in place (`inPlace`) when the array operand is not used again
// (src/lowering/ownership.ts), which is what makes reverse-mode accumulation O(1) per element.
//
// addAt and addArray add Double and Index elements; Bool elements are left as they are (an adjoint has nothing in a
// Bool, and this keeps the operations total on arrays of tuples with Bool components).

import { fail } from "../syntax/diagnostics.js";
import type { Span } from "../syntax/source.js";
import { indexOutOfRange } from "../prims/table.js";
import {
  allocFlat,
  arrayLength,
  isArrayValue,
  shapeSize,
  type ArrayValue,
  type DenseArray,
  type Value,
} from "./value.js";

/** An array of the same shape as `a`, every element 0 (false for Bools). */
export function zerosLike(a: ArrayValue): ArrayValue {
  if (a.tag === "tuparr") return { ...a, fields: a.fields.map(zerosLike) };
  return { ...a, data: allocFlat(a.elemKind, shapeSize(a.shape)) };
}

/** A fresh copy of `a` (its data no longer shared with any view). */
export function copyArray(a: ArrayValue): ArrayValue {
  if (a.tag === "tuparr") return { ...a, fields: a.fields.map(copyArray) };
  return { ...a, data: a.data.slice() };
}

type Combine = "set" | "add";

/** `a` with the element at `path` (one index per outer dimension) replaced by, or increased by, `v`. */
export function updateAt(
  a: ArrayValue,
  path: readonly number[],
  v: Value,
  how: Combine,
  span: Span | undefined,
  inPlace = false,
): ArrayValue {
  checkPath(a, path, span);
  const out = inPlace ? a : copyArray(a);
  write(out, path, v, how, span);
  return out;
}

/** a + b elementwise (same shapes). */
export function addArrays(a: ArrayValue, b: ArrayValue, span: Span | undefined, inPlace = false): ArrayValue {
  const [la, lb] = [denseLeaves(a), denseLeaves(b)];
  la.forEach((x, k) => {
    const y = lb[k]!;
    if (x.shape.length !== y.shape.length || x.shape.some((n, d) => n !== y.shape[d]))
      addShapeError(x.shape, y.shape, span);
  });
  const out = inPlace ? a : copyArray(a);
  combineInto(out, 0, b, "add", span);
  return out;
}

function denseLeaves(a: ArrayValue): DenseArray[] {
  return a.tag === "dense" ? [a] : a.fields.flatMap(denseLeaves);
}

/** The error of addArray on arrays of different shapes (the compiled code raises it too). */
export function addShapeError(a: readonly number[], b: readonly number[], span: Span | undefined): never {
  return fail("shape", `cannot add arrays of shapes [${a.join(", ")}] and [${b.join(", ")}]`, span);
}

/** The error of setAt or addAt given a value whose shape is not the element's (the compiled code raises it too). */
export function updateShapeError(
  set: boolean,
  value: readonly number[],
  element: readonly number[],
  span: Span | undefined,
): never {
  return fail(
    "shape",
    `cannot ${set ? "store" : "add"} an array of shape [${value.join(", ")}] into an element of shape [${element.join(", ")}]`,
    span,
  );
}

function checkPath(a: ArrayValue, path: readonly number[], span: Span | undefined): void {
  let cur: ArrayValue = a;
  path.forEach((i, d) => {
    const n = arrayLength(cur);
    if (!(i >= 0 && i < n)) indexOutOfRange(i, n, span);
    if (d + 1 < path.length) cur = innerOf(cur);
  });
}

// The array one level in (element 0), only to learn the lengths of the next dimension.
function innerOf(a: ArrayValue): ArrayValue {
  if (a.tag === "tuparr") return { tag: "tuparr", depth: a.depth - 1, fields: a.fields.map(innerOf) };
  const inner = a.shape.slice(1);
  return { ...a, shape: inner, data: a.data.subarray(0, shapeSize(inner)) };
}

function write(a: ArrayValue, path: readonly number[], v: Value, how: Combine, span: Span | undefined): void {
  if (a.tag === "tuparr") {
    // The element at `path` is a tuple (path reaches the tuple level) or a smaller array of tuples: either way its
    // components are the fields' elements, and v has one component per field.
    const parts = componentsOf(v);
    a.fields.forEach((f, k) => write(f, path, parts[k]!, how, span));
    return;
  }
  let offset = 0;
  path.forEach((i, d) => (offset += i * shapeSize(a.shape.slice(d + 1))));
  const inner = a.shape.slice(path.length);
  if (inner.length === 0) {
    writeScalar(a, offset, v as number | boolean, how);
    return;
  }
  if (!isArrayValue(v) || v.tag !== "dense") throw new Error("updateAt: an array element needs an array value");
  if (v.shape.length !== inner.length || v.shape.some((n, d) => n !== inner[d]))
    updateShapeError(how === "set", v.shape, inner, span);
  combineInto(a, offset, v, how, span);
}

function componentsOf(v: Value): readonly Value[] {
  if (typeof v === "object" && v.tag === "tuple") return v.elems;
  if (typeof v === "object" && v.tag === "tuparr") {
    return v.fields;
  }
  throw new Error("updateAt: expected a tuple value");
}

function writeScalar(a: DenseArray, at: number, x: number | boolean, how: Combine): void {
  if (a.elemKind === "bool") {
    if (how === "set") a.data[at] = x ? 1 : 0;
    return;
  }
  if (how === "set") a.data[at] = x as number;
  else if (a.elemKind === "int") a.data[at] = (a.data[at]! + (x as number)) | 0;
  else a.data[at] = a.data[at]! + (x as number);
}

/** Adds (or stores) all of `v` into `a` starting at element offset `at`; shapes were checked by the caller or here. */
function combineInto(a: ArrayValue, at: number, v: ArrayValue, how: Combine, span: Span | undefined): void {
  if (a.tag === "tuparr") {
    if (v.tag !== "tuparr") throw new Error("combineInto: field mismatch");
    a.fields.forEach((f, k) => combineInto(f, at, v.fields[k]!, how, span));
    return;
  }
  if (v.tag !== "dense") throw new Error("combineInto: field mismatch");
  const size = shapeSize(v.shape);
  for (let q = 0; q < size; q++) writeScalar(a, at + q, a.elemKind === "bool" ? v.data[q] !== 0 : v.data[q]!, how);
}

/** The indexes of a path operand: one Index, or a tuple of Indexes. */
export function pathOf(p: Value): number[] {
  if (typeof p === "number") return [p];
  if (typeof p === "object" && p.tag === "tuple") return p.elems.map((x) => x as number);
  throw new Error("updateAt: bad path");
}
