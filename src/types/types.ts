// Concrete (monomorphic) types: what every IR node, runtime value and back end works with.
// Index and Card are one integer type ("int") after type checking; the checker keeps the two names for display only.

export type Type =
  | { readonly k: "double" }
  | { readonly k: "int" }
  | { readonly k: "bool" }
  | { readonly k: "array"; readonly elem: Type }
  | { readonly k: "tuple"; readonly elems: readonly Type[] }
  | { readonly k: "fun"; readonly param: Type; readonly result: Type }
  /**
   * A stack of values of any types (reverse mode's record of what recursive calls need in their reverse sweep,
   * src/ad/reverse-functions.ts): pushed and popped in LIFO order, used linearly (each version once).
   */
  | { readonly k: "tape" };

export const DOUBLE: Type = { k: "double" };
export const TAPE: Type = { k: "tape" };
export const INT: Type = { k: "int" };
export const BOOL: Type = { k: "bool" };
export const arrayOf = (elem: Type): Type => ({ k: "array", elem });
export const tupleOf = (elems: readonly Type[]): Type => ({ k: "tuple", elems });
export const funOf = (param: Type, result: Type): Type => ({ k: "fun", param, result });
export const VECTOR: Type = arrayOf(DOUBLE);
export const MATRIX: Type = arrayOf(VECTOR);

export function typeEq(a: Type, b: Type): boolean {
  if (a === b) return true;
  switch (a.k) {
    case "double":
    case "int":
    case "bool":
    case "tape":
      return a.k === b.k;
    case "array":
      return b.k === "array" && typeEq(a.elem, b.elem);
    case "tuple":
      return b.k === "tuple" && a.elems.length === b.elems.length && a.elems.every((t, i) => typeEq(t, b.elems[i]!));
    case "fun":
      return b.k === "fun" && typeEq(a.param, b.param) && typeEq(a.result, b.result);
  }
}

export const isScalar = (t: Type): boolean => t.k === "double" || t.k === "int" || t.k === "bool";

/**
 * True when the type contains a function anywhere (such values cannot be stored in arrays or passed to compiled code).
 */
export function containsFun(t: Type): boolean {
  switch (t.k) {
    case "fun":
      return true;
    case "array":
      return containsFun(t.elem);
    case "tuple":
      return t.elems.some(containsFun);
    default:
      return false;
  }
}

/** Smooth syntax for a type, using the Vector and Matrix aliases. Parses back with the annotation parser. */
export function showType(t: Type): string {
  return show(t, 0);
}

// prec: 0 = top, 1 = function parameter (a function needs parens), 2 = tuple element (a tuple needs parens too)
function show(t: Type, prec: number): string {
  switch (t.k) {
    case "double":
      return "Double";
    case "int":
      return "Index";
    case "bool":
      return "Bool";
    case "tape":
      return "Tape";
    case "array":
      if (t.elem.k === "double") return "Vector";
      if (t.elem.k === "array" && t.elem.elem.k === "double") return "Matrix";
      return `Array<${show(t.elem, 0)}>`;
    case "tuple": {
      const s = t.elems.map((e) => show(e, 2)).join(" * ");
      return prec >= 2 ? `(${s})` : s;
    }
    case "fun": {
      const s = `${show(t.param, 1)} -> ${show(t.result, 0)}`;
      return prec >= 1 ? `(${s})` : s;
    }
  }
}
