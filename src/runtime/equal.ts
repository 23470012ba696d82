// Value equality for tests and differential checks (interpreter vs compiled code, AD modes against each other).

import type { Type } from "../types/types.js";
import { shapeOf, shapesEqual } from "./stack.js";
import { arrayGet, arrayLength, isArrayValue, type Value } from "./value.js";

/**
 * True when two values of `type` are equal: same shapes, and Doubles equal up to the relative tolerance `tol`
 * (|a - b| <= tol * max(1, |a|, |b|): relative for large numbers, absolute near zero). NaN equals NaN; infinities
 * equal only themselves. Index and Bool compare exactly. Functions are equal only when they are the same object.
 */
export function valuesEqual(a: Value, b: Value, type: Type, tol = 0): boolean {
  switch (type.k) {
    case "double":
      return numbersClose(a as number, b as number, tol);
    case "int":
    case "bool":
      return a === b;
    case "tuple": {
      if (typeof a !== "object" || typeof b !== "object" || a.tag !== "tuple" || b.tag !== "tuple") return false;
      return type.elems.every((t, i) => valuesEqual(a.elems[i]!, b.elems[i]!, t, tol));
    }
    case "array": {
      if (!isArrayValue(a) || !isArrayValue(b)) return false;
      // Comparing shapes first also tells empty arrays apart by their inner dimensions.
      if (!shapesEqual(shapeOf(a), shapeOf(b))) return false;
      const n = arrayLength(a);
      for (let i = 0; i < n; i++) {
        if (!valuesEqual(arrayGet(a, i), arrayGet(b, i), type.elem, tol)) return false;
      }
      return true;
    }
    case "fun":
    case "tape":
      return a === b;
  }
}

export function numbersClose(a: number, b: number, tol = 0): boolean {
  if (a === b) return true;
  if (Number.isNaN(a) && Number.isNaN(b)) return true;
  if (!Number.isFinite(a) || !Number.isFinite(b)) return false;
  return Math.abs(a - b) <= tol * Math.max(1, Math.abs(a), Math.abs(b));
}
