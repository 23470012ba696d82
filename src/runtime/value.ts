// Runtime values shared by the interpreter, the compiled code's calling convention and the CLI.
//
// Arrays are regular and flat: Array<Array<Double>> is one DenseArray of rank 2 (a Float64Array and a shape), never an
// array of arrays. An array of tuples is stored as a tuple of arrays (TupleArray): Array^k<(A, B)> is
// { depth: k, fields: [rep(Array^k<A>), rep(Array^k<B>)] }.

import type { Type } from "../types/types.js";

export type ScalarKind = "double" | "int" | "bool";
export type FlatData = Float64Array | Int32Array | Uint8Array;

export interface DenseArray {
  readonly tag: "dense";
  readonly elemKind: ScalarKind;
  /** Outermost dimension first; shape.length is the rank (>= 1). */
  readonly shape: readonly number[];
  /** Row-major elements; exactly product(shape) long (a view when produced by indexing). */
  readonly data: FlatData;
}

export interface TupleArray {
  readonly tag: "tuparr";
  /** How many array levels wrap the tuple type (>= 1). */
  readonly depth: number;
  /** One array per tuple component, each with the same leading `depth` dimensions. */
  readonly fields: readonly ArrayValue[];
}

export type ArrayValue = DenseArray | TupleArray;

export interface TupleValue {
  readonly tag: "tuple";
  readonly elems: readonly Value[];
}

/** A function value (interpreter only; compiled code never sees one). */
export interface FunValue {
  readonly tag: "fun";
  readonly apply: (arg: Value) => Value;
}

export type Value = number | boolean | TupleValue | ArrayValue | FunValue;

export const tuple = (elems: readonly Value[]): TupleValue => ({ tag: "tuple", elems });

export function isArrayValue(v: Value): v is ArrayValue {
  return typeof v === "object" && (v.tag === "dense" || v.tag === "tuparr");
}

export function allocFlat(kind: ScalarKind, size: number): FlatData {
  switch (kind) {
    case "double":
      return new Float64Array(size);
    case "int":
      return new Int32Array(size);
    case "bool":
      return new Uint8Array(size);
  }
}

export function shapeSize(shape: readonly number[]): number {
  let n = 1;
  for (const d of shape) n *= d;
  return n;
}

/** Number of elements along the outermost dimension. */
export function arrayLength(a: ArrayValue): number {
  if (a.tag === "dense") return a.shape[0]!;
  return arrayLength(a.fields[0]!);
}

/** Element i of an array, without bounds checking (callers check and report with a source location). */
export function arrayGet(a: ArrayValue, i: number): Value {
  if (a.tag === "dense") {
    if (a.shape.length === 1) {
      const x = a.data[i]!;
      return a.elemKind === "bool" ? x !== 0 : x;
    }
    const inner = a.shape.slice(1);
    const size = shapeSize(inner);
    return { tag: "dense", elemKind: a.elemKind, shape: inner, data: a.data.subarray(i * size, (i + 1) * size) };
  }
  const fields = a.fields.map((f) => arrayGet(f, i));
  if (a.depth === 1) return tuple(fields);
  return { tag: "tuparr", depth: a.depth - 1, fields: fields as ArrayValue[] };
}

export function scalarKindOf(t: Type): ScalarKind | undefined {
  return t.k === "double" || t.k === "int" || t.k === "bool" ? t.k : undefined;
}
