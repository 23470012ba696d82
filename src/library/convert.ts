// Library values <-> runtime values (src/runtime/value.ts). Encoding follows the structure `describe` found
// (./pytree.ts); typed arrays and NDArrays are passed without copying, nested JS arrays are copied into one buffer.
// Decoding gives results back in the form of the argument they correspond to (its Tree), or by default:
// Double → number, Bool → boolean, Vector → Float64Array, higher ranks → JS arrays of Float64Array rows,
// tuples → JS arrays (objects where the structure has keys), arrays of tuples → JS arrays of them.

import { stackUniform } from "../runtime/stack.js";
import {
  allocFlat,
  arrayGet,
  arrayLength,
  shapeSize,
  tuple,
  type DenseArray,
  type FlatData,
  type TupleArray,
  type Value,
} from "../runtime/value.js";
import { fail } from "../syntax/diagnostics.js";
import type { Type } from "../types/types.js";
import { NDArray, type NDData } from "./ndarray.js";
import { at, describeJs, treeType, type Style, type Tree, type Where } from "./pytree.js";

const INT32_MIN = -2147483648;
const INT32_MAX = 2147483647;

/** The runtime value of `value`, whose structure is `tree`. Indexes are checked to be 32-bit integers. */
export function encode(value: unknown, tree: Tree, where: () => Where, path = ""): Value {
  switch (tree.k) {
    case "double":
      return value as number;
    case "index":
      return checkIndex(value as number, where, path);
    case "bool":
      return value as boolean;
    case "dense": {
      if (value instanceof NDArray) return dense(tree.elem, tree.shape, value.data);
      if (tree.shape.length === 1 && (value instanceof Float64Array || value instanceof Int32Array))
        return dense(tree.elem, tree.shape, value);
      // Anything else (nested JS arrays, Float32Arrays, rows) is copied into one Float64 (or Int32) buffer.
      const data = allocFlat(tree.elem, shapeSize(tree.shape));
      fill(value, data, 0, tree.elem === "int", where, path);
      return dense(tree.elem, tree.shape, data);
    }
    case "tuple": {
      const parts = tree.keys ? tree.keys.map((k) => (value as Record<string, unknown>)[k]) : (value as unknown[]);
      const sub = (i: number) => (tree.keys ? `${path}.${tree.keys[i]}` : `${path}[${i}]`);
      return tuple(tree.elems.map((t, i) => encode(parts[i], t, where, sub(i))));
    }
    case "list": {
      const items = (value as unknown[]).map((x, i) => encode(x, tree.elem, where, `${path}[${i}]`));
      return stackUniform(treeType(tree.elem), items);
    }
  }
}

const dense = (elemKind: DenseArray["elemKind"], shape: readonly number[], data: FlatData): DenseArray => ({
  tag: "dense",
  elemKind,
  shape,
  data,
});

/** Copies a regular nested array (of numbers, booleans, typed rows or NDArrays) into `data` from `offset`. */
function fill(value: unknown, data: FlatData, offset: number, ints: boolean, where: () => Where, path: string): number {
  if (
    value instanceof NDArray ||
    value instanceof Float64Array ||
    value instanceof Int32Array ||
    value instanceof Float32Array
  ) {
    const src = value instanceof NDArray ? value.data : value;
    data.set(src, offset);
    return offset + src.length;
  }
  const xs = value as readonly unknown[];
  for (let i = 0; i < xs.length; i++) {
    const x = xs[i];
    // A row of Doubles (its numbers checked by `describe`): copied without a path or a check per element.
    if (!ints && Array.isArray(x) && typeof x[0] === "number") {
      for (let j = 0; j < x.length; j++) data[offset++] = x[j] as number;
      continue;
    }
    if (typeof x === "number") data[offset++] = ints ? checkIndex(x, where, `${path}[${i}]`) : x;
    else if (typeof x === "boolean") data[offset++] = x ? 1 : 0;
    else offset = fill(x, data, offset, ints, where, `${path}[${i}]`);
  }
  return offset;
}

function checkIndex(x: number, where: () => Where, path: string): number {
  if (Number.isInteger(x) && x >= INT32_MIN && x <= INT32_MAX) return x | 0;
  const w = where();
  return fail("argument", `${at(w, path)} must be an integer (an Index), got ${describeNumber(x)}`, w.span, {
    expected: "an integer from -2147483648 to 2147483647",
    found: describeNumber(x),
  });
}

const describeNumber = (x: unknown): string => (typeof x === "number" ? String(x) : describeJs(x));

/**
 * A result as a library value. `tree` (the structure of the argument the result corresponds to, or of the function's
 * result) decides the form; without one the default form is used. `inputs` are the arguments' buffers: a result
 * sharing one (a function returning its argument) is copied, so results never alias arguments.
 */
export function decode(v: Value, type: Type, tree?: Tree, inputs: readonly ArrayBufferLike[] = []): unknown {
  // A list of one (argnums: [k]) is the one value itself in the program.
  if (tree?.k === "tuple" && tree.elems.length === 1 && !tree.keys) return [decode(v, type, tree.elems[0], inputs)];
  switch (type.k) {
    case "double":
    case "int":
    case "bool":
      return v;
    case "tuple": {
      const sub = tree?.k === "tuple" ? tree : undefined;
      const elems = (v as { elems: readonly Value[] }).elems.map((e, i) =>
        decode(e, type.elems[i]!, sub?.elems[i], inputs),
      );
      return sub?.keys ? Object.fromEntries(sub.keys.map((k, i) => [k, elems[i]])) : elems;
    }
    case "array": {
      if (typeof v === "object" && v.tag === "dense")
        return decodeDense(v, tree?.k === "dense" ? tree.style : "typed", inputs);
      const a = v as TupleArray;
      // A tuple form for an array of tuples: the tuple of its component arrays (a batch of objects is an object of
      // batches, as JAX gives it).
      if (tree?.k === "tuple") {
        const fields = a.fields.map((f, i) =>
          decode(f, wrapArrays(componentType(type, i), a.depth), tree.elems[i], inputs),
        );
        return tree.keys ? Object.fromEntries(tree.keys.map((k, i) => [k, fields[i]])) : fields;
      }
      const elemTree = tree?.k === "list" ? tree.elem : undefined;
      return Array.from({ length: arrayLength(a) }, (_, i) => decode(arrayGet(a, i), type.elem, elemTree, inputs));
    }
    case "fun":
      throw new Error("decode: a function value cannot be returned");
  }
}

/** A dense array in the given style (Bool arrays are always nested JS arrays of booleans). */
export function decodeDense(v: DenseArray, style: Style, inputs: readonly ArrayBufferLike[] = []): unknown {
  let data = v.data;
  if (inputs.includes(data.buffer)) data = data.slice();
  const shape = v.shape;
  if (v.elemKind === "bool") return nestedOf(data, shape, (x) => x !== 0);
  if (style === "ndarray") return new NDArray(data as NDData, shape);
  if (style === "nested") return nestedOf(data, shape, (x) => x);
  if (style === "float32") return rowsOf(Float32Array.from(data), shape);
  return rowsOf(data as NDData, shape);
}

function nestedOf(data: FlatData, shape: readonly number[], elem: (x: number) => unknown): unknown[] {
  const rec = (d: number, offset: number): unknown[] => {
    const n = shape[d]!;
    if (d === shape.length - 1) return Array.from({ length: n }, (_, i) => elem(data[offset + i]!));
    const stride = shapeSize(shape.slice(d + 1));
    return Array.from({ length: n }, (_, i) => rec(d + 1, offset + i * stride));
  };
  return rec(0, 0);
}

/** Rank 1: the typed array itself; higher ranks: JS arrays down to typed-array rows (views of one buffer). */
function rowsOf(data: NDData | Float32Array, shape: readonly number[]): unknown {
  if (shape.length === 1) return data;
  const rec = (d: number, offset: number): unknown => {
    const n = shape[d]!;
    const stride = shapeSize(shape.slice(d + 1));
    if (d === shape.length - 1) return data.subarray(offset, offset + n);
    return Array.from({ length: n }, (_, i) => rec(d + 1, offset + i * stride));
  };
  return rec(0, 0);
}

/** The tuple component i of the innermost tuple of an array-of-tuples type. */
function componentType(t: Type, i: number): Type {
  let u = t;
  while (u.k === "array") u = u.elem;
  if (u.k !== "tuple") throw new Error("componentType: not an array of tuples");
  return u.elems[i]!;
}

const wrapArrays = (t: Type, depth: number): Type => {
  let u = t;
  for (let d = 0; d < depth; d++) u = { k: "array", elem: u };
  return u;
};
