// The structure of a library argument ("pytree"): how a JavaScript value maps to a Smooth type, and how it was written,
// so that results can be given back in the same form (a gradient with respect to `{w, b}` is `{w, b}`).
//
// The rules (documented in the README):
//  - a number is a Double, or an Index where the function's parameter type says so; a boolean is a Bool;
//  - a Float64Array is a Vector, an Int32Array an Array<Index>, an NDArray a dense array of its rank;
//  - a JS array is a Smooth array when its elements are all of one kind (numbers, arrays, or objects), which must then
//    have the same shape (a matrix is an array of rows); a JS array mixing kinds (`[2, v]`) is a tuple, and so is any
// JS
//    array where the parameter type of a Smooth function expects a tuple;
//  - a plain object is a tuple of its values in `Object.keys` order (insertion order for non-numeric keys).

import type { MType } from "../types/mtype.js";
import { prune } from "../types/mtype.js";
import { arrayOf, BOOL, DOUBLE, INT, showType, tupleOf, type Type } from "../types/types.js";
import type { ScalarKind } from "../runtime/value.js";
import { fail } from "../syntax/diagnostics.js";
import { MAX_ARGUMENT_NESTING } from "../runtime/limits.js";
import type { Span } from "../syntax/source.js";
import { NDArray } from "./ndarray.js";
import { isDetached } from "./detached.js";

/**
 * How an array was written: a Float64Array (or JS array of them as rows), a Float32Array (computed in Float64, given
 * back as Float32Arrays), plain nested numbers, or an NDArray.
 */
export type Style = "typed" | "float32" | "nested" | "ndarray";

export type Tree =
  | { readonly k: "double" }
  | { readonly k: "index" }
  | { readonly k: "bool" }
  /** A regular array of scalars of any rank (`shape.length`). */
  | { readonly k: "dense"; readonly elem: ScalarKind; readonly shape: readonly number[]; readonly style: Style }
  /** A tuple: a JS array, or an object (then `keys` gives its property names in order). */
  | { readonly k: "tuple"; readonly elems: readonly Tree[]; readonly keys?: readonly string[] }
  /** An array whose elements are tuples, written as a JS array of them. */
  | { readonly k: "list"; readonly elem: Tree; readonly length: number };

export const DOUBLE_TREE: Tree = { k: "double" };
export const INDEX_TREE: Tree = { k: "index" };
export const BOOL_TREE: Tree = { k: "bool" };

/** What an argument is called in messages ("argument 2 (`X`) of `loss`"), and where its function is defined. */
export interface Where {
  readonly what: string;
  readonly span?: Span;
}

/** The Smooth type of a value with this structure. */
export function treeType(t: Tree): Type {
  switch (t.k) {
    case "double":
      return DOUBLE;
    case "index":
      return INT;
    case "bool":
      return BOOL;
    case "dense": {
      let ty: Type = t.elem === "double" ? DOUBLE : t.elem === "int" ? INT : BOOL;
      for (let i = 0; i < t.shape.length; i++) ty = arrayOf(ty);
      return ty;
    }
    case "tuple":
      return tupleOf(t.elems.map(treeType));
    case "list":
      return arrayOf(treeType(t.elem));
  }
}

/** A cache key: the type and object keys, and with `shapes` also every array's shape. */
export function treeKey(t: Tree, shapes: boolean): string {
  switch (t.k) {
    case "double":
      return "D";
    case "index":
      return "I";
    case "bool":
      return "B";
    case "dense":
      return `A${t.shape.length}${t.elem[0]}${shapes ? `[${t.shape.join(",")}]` : ""}`;
    case "tuple":
      return `${t.keys ? JSON.stringify(t.keys) : ""}(${t.elems.map((e) => treeKey(e, shapes)).join(",")})`;
    case "list":
      return `L${shapes ? t.length : ""}(${treeKey(t.elem, shapes)})`;
  }
}

/** A readable description for messages: "Vector of length 3", "{w: Vector of length 2, b: Double}". */
export function showTree(t: Tree): string {
  switch (t.k) {
    case "double":
      return "Double";
    case "index":
      return "Index";
    case "bool":
      return "Bool";
    case "dense": {
      const type = showType(treeType(t));
      return t.shape.length === 1 ? `${type} of length ${t.shape[0]}` : `${type} of shape [${t.shape.join(", ")}]`;
    }
    case "tuple": {
      const parts = t.elems.map((e, i) => (t.keys ? `${t.keys[i]}: ${showTree(e)}` : showTree(e)));
      return t.keys ? `{${parts.join(", ")}}` : `(${parts.join(", ")})`;
    }
    case "list":
      return `an array of ${t.length} × ${showTree(t.elem)}`;
  }
}

/** A key for several arguments. */
export const keyOf = (trees: readonly Tree[], shapes: boolean): string =>
  trees.map((t) => treeKey(t, shapes)).join("|");

/**
 * The structure of `value`; `hint` is the parameter's type in a Smooth function's scheme (undefined for staged ones).
 */
export function describe(value: unknown, hint: MType | undefined, where: Where, path = "", depth = 0): Tree {
  // (Nesting is bounded before it can exhaust the stack: no Smooth value is nested that deeply.)
  if (depth > MAX_ARGUMENT_NESTING)
    fail("argument", `${where.what} is nested more than ${MAX_ARGUMENT_NESTING} levels deep`, where.span, {
      expected: "a number, a boolean, an array or an object of these, nested as deeply as the parameter's type",
    });
  const h = hint === undefined ? undefined : prune(hint);
  const expected = h === undefined || h.k === "tvar" ? undefined : h;
  if (typeof value === "number") return expected?.k === "int" ? INDEX_TREE : DOUBLE_TREE;
  if (typeof value === "boolean") return BOOL_TREE;
  // (A transferred buffer's views read as empty, and copying from them throws: refused here, by name.)
  if (ArrayBuffer.isView(value) && isDetached(value)) return cannotPass(value, where, path);
  if (value instanceof NDArray && isDetached(value.data)) return cannotPass(value.data, where, `${path}.data`);
  if (value instanceof Float64Array) return { k: "dense", elem: "double", shape: [value.length], style: "typed" };
  if (value instanceof Int32Array) return { k: "dense", elem: "int", shape: [value.length], style: "typed" };
  if (value instanceof Float32Array) return { k: "dense", elem: "double", shape: [value.length], style: "float32" };
  if (value instanceof NDArray)
    return {
      k: "dense",
      elem: value.data instanceof Int32Array ? "int" : "double",
      shape: value.shape,
      style: "ndarray",
    };
  if (Array.isArray(value)) return describeArray(value, expected, where, path, depth);
  if (isPlainObject(value)) {
    const keys = Object.keys(value);
    if (keys.length === 0) return cannotPass(value, where, path);
    const hints = expected?.k === "tuple" && expected.elems.length === keys.length ? expected.elems : undefined;
    const elems = keys.map((key, i) => describe(value[key], hints?.[i], where, `${path}.${key}`, depth + 1));
    return { k: "tuple", elems, keys };
  }
  // (This realm's typed arrays were taken above, without the name lookup: only another realm's reach here.)
  const name = typedArrayName(value);
  if (name !== undefined)
    return {
      k: "dense",
      elem: name === "Int32Array" ? "int" : "double",
      shape: [(value as Float64Array).length],
      style: name === "Float32Array" ? "float32" : "typed",
    };
  return cannotPass(value, where, path);
}

/**
 * The name of a Float64Array, Float32Array or Int32Array of this realm or another (an iframe's, a `vm` context's, a
 * test runner's sandbox, for which `instanceof` this realm's constructor is false); undefined for anything else.
 * Another realm's array is read element by element, into this realm's arrays (`encode`'s general case).
 */
export function typedArrayName(value: unknown): "Float64Array" | "Float32Array" | "Int32Array" | undefined {
  if (!ArrayBuffer.isView(value)) return undefined;
  // The typed arrays' own @@toStringTag getter reads the array's internal name, whichever realm made it.
  const name = Object.prototype.toString.call(value).slice(8, -1);
  return name === "Float64Array" || name === "Float32Array" || name === "Int32Array" ? name : undefined;
}

function describeArray(
  xs: readonly unknown[],
  expected: MType | undefined,
  where: Where,
  path: string,
  depth: number,
): Tree {
  // A sparse array (`[1, , 3]`): array methods skip its holes, so a hole is refused here, where it can be named.
  for (let i = 0; i < xs.length; i++) if (!(i in xs)) return cannotPass(undefined, where, `${path}[${i}]`);
  if (expected?.k === "tuple" && xs.length === expected.elems.length)
    return { k: "tuple", elems: xs.map((x, i) => describe(x, expected.elems[i], where, `${path}[${i}]`, depth + 1)) };
  const elemHint = expected?.k === "array" ? expected.elem : undefined;
  if (xs.length === 0) return { k: "dense", elem: scalarKindOfHint(elemHint), shape: [0], style: "nested" };
  if (xs.every((x) => typeof x === "number"))
    return {
      k: "dense",
      elem: scalarKindOfHint(elemHint) === "int" ? "int" : "double",
      shape: [xs.length],
      style: "nested",
    };
  // Rows of Doubles (where the definition expects nothing else of a row): a matrix, without describing each row.
  const rowHint = elemHint === undefined ? undefined : prune(elemHint);
  const rowsOfDoubles =
    rowHint === undefined ||
    rowHint.k === "tvar" ||
    (rowHint.k === "array" && scalarKindOfHint(rowHint.elem) === "double" && prune(rowHint.elem).k !== "array");
  const rows = rowsOfDoubles ? regularRows(xs) : undefined;
  if (rows) return { k: "dense", elem: "double", shape: [xs.length, rows.length], style: rows.style };
  const items = xs.map((x, i) => describe(x, elemHint, where, `${path}[${i}]`, depth + 1));
  const first = items[0]!;
  const kind = kindOf(first);
  if (expected?.k !== "array" && items.some((t) => kindOf(t) !== kind)) return { k: "tuple", elems: items };
  const key = treeKey(first, true);
  const odd = items.findIndex((t) => treeKey(t, true) !== key);
  if (odd >= 0) {
    const label = first.k === "dense" ? "row" : "element";
    fail(
      "argument",
      `${at(where, path)} must be a regular array: ${label} 0 is ${shapeText(first)} but ${label} ${odd} is ${shapeText(items[odd]!)}`,
      where.span,
    );
  }
  switch (first.k) {
    case "double":
    case "index":
    case "bool":
      return { k: "dense", elem: first.k === "index" ? "int" : first.k, shape: [xs.length], style: "nested" };
    case "dense":
      return {
        k: "dense",
        elem: first.elem,
        shape: [xs.length, ...first.shape],
        style: first.style === "nested" || first.style === "float32" ? first.style : "typed",
      };
    default:
      return { k: "list", elem: first, length: xs.length };
  }
}

/**
 * A matrix written as rows of one kind and length — all Float64Arrays (or Float32Arrays), or all JS arrays of numbers —
 * recognised without describing each row (the common case, and the one worth doing fast on every call).
 */
function regularRows(xs: readonly unknown[]): { length: number; style: Style } | undefined {
  const first = xs[0];
  if (first instanceof Float64Array || first instanceof Float32Array) {
    const ctor = first.constructor;
    const n = first.length;
    for (const r of xs) if (!(r instanceof ctor) || (r as Float64Array).length !== n) return undefined;
    // Empty rows may be detached ones: described one by one, which names them.
    if (n === 0) return undefined;
    return { length: n, style: first instanceof Float32Array ? "float32" : "typed" };
  }
  if (Array.isArray(first)) {
    const n = first.length;
    if (n === 0) return undefined;
    for (const r of xs) {
      if (!Array.isArray(r) || r.length !== n) return undefined;
      for (let j = 0; j < n; j++) if (typeof r[j] !== "number") return undefined;
    }
    return { length: n, style: "nested" };
  }
  return undefined;
}

const kindOf = (t: Tree): string => (t.k === "double" || t.k === "index" ? "number" : t.k);

function scalarKindOfHint(h: MType | undefined): ScalarKind {
  const t = h === undefined ? undefined : prune(h);
  return t?.k === "int" ? "int" : t?.k === "bool" ? "bool" : "double";
}

function shapeText(t: Tree): string {
  switch (t.k) {
    case "double":
    case "index":
      return "a number";
    case "bool":
      return "a boolean";
    case "dense":
      return t.shape.length === 1 ? `of length ${t.shape[0]}` : `of shape [${t.shape.join(", ")}]`;
    case "tuple":
      return t.keys ? `an object with keys ${t.keys.join(", ")}` : `a tuple of ${t.elems.length}`;
    case "list":
      return `a list of ${t.length}`;
  }
}

export function isPlainObject(x: unknown): x is Record<string, unknown> {
  if (typeof x !== "object" || x === null) return false;
  const proto: unknown = Object.getPrototypeOf(x);
  return proto === Object.prototype || proto === null || isForeignObjectPrototype(proto);
}

/** Another realm's Object.prototype: the end of a prototype chain whose constructor is that realm's Object. */
function isForeignObjectPrototype(proto: unknown): boolean {
  if (typeof proto !== "object" || proto === null || Object.getPrototypeOf(proto) !== null) return false;
  const ctor = (proto as { constructor?: unknown }).constructor;
  return typeof ctor === "function" && ctor.name === "Object" && ctor.prototype === proto;
}

/** "argument 1 (`x`) of `f`", with the path inside it when there is one. */
export const at = (where: Where, path: string): string => (path ? `${where.what} at ${path}` : where.what);

function cannotPass(value: unknown, where: Where, path: string): never {
  return fail("argument", `${at(where, path)} cannot be passed to Smooth: it is ${describeJs(value)}`, where.span, {
    expected: "a number, a boolean, a Float64Array, an Int32Array, an NDArray, or an array or object of these",
    found: describeJs(value),
  });
}

/** A short description of a JavaScript value for messages. */
export function describeJs(value: unknown): string {
  if (value === null) return "null";
  if (ArrayBuffer.isView(value) && isDetached(value))
    return `${article(typedArrayName(value) ?? value.constructor.name)} whose buffer was transferred (detached): it has no elements any more`;
  if (value === undefined) return "undefined";
  if (typeof value === "string")
    return `the string ${JSON.stringify(value.length > 20 ? `${value.slice(0, 20)}…` : value)}`;
  if (typeof value === "function") return "a function";
  if (typeof value === "object") {
    if (isPlainObject(value) && Object.keys(value).length === 0) return "an empty object";
    const name = value.constructor?.name;
    return name ? article(name) : "an object";
  }
  return article(typeof value);
}

/** "a Map", "an Int32Array", "a Uint8Array". */
const article = (noun: string): string => `${/^([AEIOaeio]|[Uu](?!i))/.test(noun) ? "an" : "a"} ${noun}`;
