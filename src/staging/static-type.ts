// Static types: Smooth types with the array lengths that are known when a function is traced. A length known at
// trace time becomes a constant of the staged program (and a plain number for the user's JavaScript); an unknown one
// is computed when the program runs.

import { arrayOf, showType, tupleOf, type Type } from "../types/types.js";
import { stagingFail } from "./errors.js";

/** A Smooth type with the array lengths known at trace time (undefined: known only when the program runs). */
export type StaticType =
  | { readonly k: "double" | "int" | "bool" }
  | { readonly k: "array"; readonly length: number | undefined; readonly elem: StaticType }
  | { readonly k: "tuple"; readonly elems: readonly StaticType[] };

export const S_DOUBLE: StaticType = { k: "double" };
export const S_INT: StaticType = { k: "int" };
export const S_BOOL: StaticType = { k: "bool" };
export type ArrayStatic = Extract<StaticType, { k: "array" }>;

export const sArray = (length: number | undefined, elem: StaticType): ArrayStatic => ({ k: "array", length, elem });

export function typeOfStatic(s: StaticType): Type {
  switch (s.k) {
    case "array":
      return arrayOf(typeOfStatic(s.elem));
    case "tuple":
      return tupleOf(s.elems.map(typeOfStatic));
    default:
      return { k: s.k };
  }
}

/** The static type of a value of type `t` whose lengths are not known at trace time. */
export function staticOfType(t: Type): StaticType {
  switch (t.k) {
    case "double":
    case "int":
    case "bool":
      return { k: t.k };
    case "array":
      return sArray(undefined, staticOfType(t.elem));
    case "tuple":
      return { k: "tuple", elems: t.elems.map(staticOfType) };
    case "fun":
    case "tape":
      return stagingFail(`a function type (${showType(t)}) cannot be the type of a staged value`);
  }
}

/** Same Smooth type (lengths ignored). */
export function sameType(a: StaticType, b: StaticType): boolean {
  if (a.k !== b.k) return false;
  if (a.k === "array") return sameType(a.elem, (b as typeof a).elem);
  if (a.k === "tuple") {
    const be = (b as typeof a).elems;
    return a.elems.length === be.length && a.elems.every((e, i) => sameType(e, be[i]!));
  }
  return true;
}

/** The static type describing both (lengths that differ become unknown); the types must be the same. */
export function joinStatic(a: StaticType, b: StaticType): StaticType {
  if (a.k === "array" && b.k === "array") {
    return sArray(a.length === b.length ? a.length : undefined, joinStatic(a.elem, b.elem));
  }
  if (a.k === "tuple" && b.k === "tuple")
    return { k: "tuple", elems: a.elems.map((e, i) => joinStatic(e, b.elems[i]!)) };
  return a;
}

export function sameStatic(a: StaticType, b: StaticType): boolean {
  if (a.k === "array" && b.k === "array") return a.length === b.length && sameStatic(a.elem, b.elem);
  if (a.k === "tuple" && b.k === "tuple") return a.elems.every((e, i) => sameStatic(e, b.elems[i]!));
  return a.k === b.k;
}

/** For messages: the type, with the known lengths (`Vector of length 3`, `Matrix of 2 × ? elements`). */
export function describeStatic(s: StaticType): string {
  const dims: (number | undefined)[] = [];
  let t = s;
  while (t.k === "array") {
    dims.push(t.length);
    t = t.elem;
  }
  const type = showType(typeOfStatic(s));
  if (dims.length === 0) return type;
  if (dims.length === 1) return dims[0] === undefined ? type : `${type} of length ${dims[0]}`;
  return `${type} of ${dims.map((d) => (d === undefined ? "?" : String(d))).join(" × ")} elements`;
}

/** describeStatic with its article: "a Vector of length 3", "an Index". */
export function aStatic(s: StaticType): string {
  const d = describeStatic(s);
  return `${/^[AEIOU]/.test(d) ? "an" : "a"} ${d}`;
}
