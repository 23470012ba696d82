// The translator's types: what a TypeScript value of the subset is as a Smooth value. The translator decides them
// itself (JavaScript has one number type; Smooth has two): a number is an Index when it is integer-valued by
// construction (an integer literal, a loop counter, a length, integer arithmetic on those), a Double otherwise; a
// variable assigned both is a Double. Objects are records (tuples with keys), JS arrays of numbers and typed arrays
// are arrays, and a JS array literal mixing kinds is a tuple. A function value's type says which function it is (so
// every call of it is known when it is translated: ./function-values.ts) and holds the types of what it captured,
// which are its data: as a Smooth value it is the tuple of those (an Index 0 when it captured nothing).

import { arrayOf, BOOL, DOUBLE, INT, tupleOf, type Type } from "../types/types.js";
import type { ClassInfo } from "./classes.js";
import type { FnRef } from "./function-refs.js";

/** A variable a function value captured: its name and the declaration it belongs to (./function-values.ts). */
export interface Capture {
  readonly name: string;
  readonly decl: object;
}

export type TsType =
  | { readonly k: "double" }
  | { readonly k: "int" }
  | { readonly k: "bool" }
  /** int32: an Int32Array (`new Int32Array(n)`, or given as one), whose elements stay integers when written. */
  | { readonly k: "array"; readonly elem: TsType; readonly int32?: true }
  | {
      readonly k: "record";
      readonly keys: readonly string[];
      readonly fields: readonly TsType[];
      /** The class of objects made by `new` (./classes.ts). */
      readonly cls?: ClassInfo;
    }
  | { readonly k: "tuple"; readonly elems: readonly TsType[] }
  /** A variable declared without a value (`let y: number;`), until it is assigned. */
  | { readonly k: "unset" }
  /** The element type of an array with no elements yet (`const xs = []`, until something is pushed). */
  | { readonly k: "nothing" }
  /**
   * A function value: which function (`ref`), and its parts — the values it captured (`captures[i]` names part i; an
   * undefined capture is a part that is not a variable: the function a transform of it holds, or the Index 0 of a
   * function that captured nothing).
   */
  | FnType;

export interface FnType {
  readonly k: "fn";
  readonly ref: FnRef;
  readonly captures: readonly (Capture | undefined)[];
  readonly parts: readonly TsType[];
}

export const T_UNSET: TsType = { k: "unset" };
export const T_NOTHING: TsType = { k: "nothing" };
export const T_DOUBLE: TsType = { k: "double" };
export const T_INT: TsType = { k: "int" };
export const T_BOOL: TsType = { k: "bool" };
export const tArray = (elem: TsType): TsType => ({ k: "array", elem });

export const isNumber = (t: TsType): boolean => t.k === "double" || t.k === "int";

/** Numbers, or arrays (of arrays) of numbers. */
export const isNumeric = (t: TsType): boolean => isNumber(t) || (t.k === "array" && isNumeric(t.elem));

export function smoothType(t: TsType): Type {
  switch (t.k) {
    case "double":
      return DOUBLE;
    case "int":
      return INT;
    case "bool":
      return BOOL;
    case "array":
      return arrayOf(smoothType(t.elem));
    case "record":
      return tupleOf(t.fields.map(smoothType));
    case "tuple":
      return tupleOf(t.elems.map(smoothType));
    case "fn":
      return tupleOf(t.parts.map(smoothType));
    case "unset":
      throw new Error("smoothType: an unassigned variable has no type (the translator reports its use)");
    case "nothing":
      // An array that never has an element is a Vector.
      return DOUBLE;
  }
}

export function sameType(a: TsType, b: TsType): boolean {
  if (a.k !== b.k) return false;
  switch (a.k) {
    case "array":
      return sameType(a.elem, (b as typeof a).elem);
    case "record": {
      const r = b as typeof a;
      return (
        a.cls === r.cls &&
        a.keys.length === r.keys.length &&
        a.keys.every((k, i) => k === r.keys[i] && sameType(a.fields[i]!, r.fields[i]!))
      );
    }
    case "tuple": {
      const r = b as typeof a;
      return a.elems.length === r.elems.length && a.elems.every((e, i) => sameType(e, r.elems[i]!));
    }
    case "fn": {
      const r = b as FnType;
      return (
        a.ref === r.ref &&
        sameCaptures(a, r) &&
        a.parts.length === r.parts.length &&
        a.parts.every((p, i) => sameType(p, r.parts[i]!))
      );
    }
    default:
      return true;
  }
}

/** Do two function types capture variables of the same names (their declarations may differ: see joinType)? */
const sameCaptures = (a: FnType, b: FnType): boolean =>
  a.captures.length === b.captures.length && a.captures.every((c, i) => c?.name === b.captures[i]?.name);

/**
 * The type of a value that is sometimes of type a and sometimes of type b (a variable assigned in a branch or a loop):
 * an Index and a Double make a Double; anything else must agree. Undefined when they cannot be joined.
 */
export function joinType(a: TsType, b: TsType): TsType | undefined {
  if (isNumber(a) && isNumber(b)) return a.k === "int" && b.k === "int" ? T_INT : T_DOUBLE;
  // (An unassigned variable joins only with itself: a path that assigns it and one that does not disagree.)
  if (a.k !== b.k) return undefined;
  switch (a.k) {
    case "array": {
      // An empty array (`[]`) joins an array of anything: it is made anew at the joined type.
      if (a.elem.k === "nothing") return b;
      if ((b as typeof a).elem.k === "nothing") return a;
      const r = b as typeof a;
      const e = joinType(a.elem, r.elem);
      // (An Int32Array on either path keeps its integers.)
      if (e && sameType(e, a.elem) && sameType(e, r.elem)) return a.int32 || !r.int32 ? a : r;
      // An array of integers made by JavaScript (`xs.map(() => 0)`) joins an array of Doubles: it is converted
      // element by element (./expressions.ts `packAs`). An Int32Array keeps its integers, as JavaScript does.
      return e && !a.int32 && !r.int32 && isNumeric(e) ? { k: "array", elem: e } : undefined;
    }
    case "record": {
      const r = b as typeof a;
      if (a.cls !== r.cls || a.keys.length !== r.keys.length || a.keys.some((k, i) => k !== r.keys[i]))
        return undefined;
      const fields = a.fields.map((f, i) => joinType(f, r.fields[i]!));
      return fields.every((f) => f !== undefined) ? { ...a, fields: fields } : undefined;
    }
    case "tuple": {
      const r = b as typeof a;
      if (a.elems.length !== r.elems.length) return undefined;
      const elems = a.elems.map((e, i) => joinType(e, r.elems[i]!));
      return elems.every((e) => e !== undefined) ? { k: "tuple", elems: elems } : undefined;
    }
    case "fn": {
      // The same function, its captured values joined (a closure made by one function in two calls holds variables
      // of different declarations, none of them in scope where the two meet: a's are kept).
      const r = b as FnType;
      if (a.ref !== r.ref || !sameCaptures(a, r) || a.parts.length !== r.parts.length) return undefined;
      const parts = a.parts.map((p, i) => joinType(p, r.parts[i]!));
      return parts.every((p) => p !== undefined) ? { ...a, parts } : undefined;
    }
    default:
      return a;
  }
}

/** Does the type hold an array with no element type yet? */
export const hasNothing = (t: TsType): boolean =>
  t.k === "nothing" ||
  (t.k === "array" && hasNothing(t.elem)) ||
  (t.k === "record" && t.fields.some(hasNothing)) ||
  (t.k === "tuple" && t.elems.some(hasNothing)) ||
  (t.k === "fn" && t.parts.some(hasNothing));

/** Does the type hold a function value? */
export const hasFunction = (t: TsType): boolean =>
  t.k === "fn" ||
  (t.k === "array" && hasFunction(t.elem)) ||
  (t.k === "record" && t.fields.some(hasFunction)) ||
  (t.k === "tuple" && t.elems.some(hasFunction));

/** For messages: `number`, `Float64Array`, `{w: Float64Array, b: number}`. */
export function showTsType(t: TsType): string {
  switch (t.k) {
    case "double":
      return "number";
    case "int":
      return "number (an integer)";
    case "bool":
      return "boolean";
    case "array":
      if (t.elem.k === "nothing") return "an empty array";
      return t.elem.k === "double"
        ? "Float64Array"
        : t.elem.k === "int"
          ? "Int32Array"
          : `${wrap(showTsType(t.elem))}[]`;
    case "record":
      return `${t.cls ? `${t.cls.name} ` : ""}{${t.keys.map((k, i) => `${k}: ${showTsType(t.fields[i]!)}`).join(", ")}}`;
    case "tuple":
      return `[${t.elems.map(showTsType).join(", ")}]`;
    case "fn":
      return t.ref.label;
    case "unset":
      return "no value (declared without one)";
    case "nothing":
      return "nothing";
  }
}

const wrap = (s: string) => (/^[\w{[]/.test(s) && !s.includes(" ") ? s : `(${s})`);

const REF_IDS = new WeakMap<object, number>();
let refCount = 0;

/** A number naming a class (or a function) in keys. */
export function classId(c: object): number {
  let id = REF_IDS.get(c);
  if (id === undefined) REF_IDS.set(c, (id = ++refCount));
  return id;
}

/**
 * A key that tells types apart (a definition is made once per argument key): `showTsType`'s, with each function
 * value's function named by a number of its own (two functions can look alike) and what it captured.
 */
export function typeKey(t: TsType): string {
  switch (t.k) {
    case "array":
      return `${t.int32 ? "i32" : ""}[${typeKey(t.elem)}]`;
    case "record":
      return `${t.cls ? `class${classId(t.cls)}` : ""}{${t.keys.map((k, i) => `${k}:${typeKey(t.fields[i]!)}`).join(",")}}`;
    case "tuple":
      return `(${t.elems.map(typeKey).join(",")})`;
    case "fn": {
      let id = REF_IDS.get(t.ref);
      if (id === undefined) REF_IDS.set(t.ref, (id = ++refCount));
      return `fn${id}<${t.parts.map((p, i) => `${t.captures[i]?.name ?? ""}:${typeKey(p)}`).join(",")}>`;
    }
    default:
      return t.k;
  }
}
