// The dual-number type translation D_T of paper 000 Fig. 6, with one deliberate difference: integers and booleans
// carry no tangent (DESIGN.md: integer values are constants to differentiation), so Index and Bool map to themselves
// instead of to pairs. Double becomes (primal, tangent); arrays and tuples map structurally; functions map both sides.

import { arrayOf, funOf, tupleOf, type Type } from "../types/types.js";

export function dualType(t: Type): Type {
  switch (t.k) {
    case "double":
      return tupleOf([t, t]);
    case "int":
    case "bool":
    case "tape": // a tape of duals (forward over reverse) is a tape
      return t;
    case "array":
      return arrayOf(dualType(t.elem));
    case "tuple":
      return tupleOf(t.elems.map(dualType));
    case "fun":
      return funOf(dualType(t.param), dualType(t.result));
  }
}

/** True when the type contains a Double somewhere (something to differentiate with respect to). */
export function hasTangent(t: Type): boolean {
  switch (t.k) {
    case "double":
      return true;
    case "int":
    case "bool":
    case "tape":
      return false;
    case "array":
      return hasTangent(t.elem);
    case "tuple":
      return t.elems.some(hasTangent);
    case "fun":
      return hasTangent(t.param) || hasTangent(t.result);
  }
}
