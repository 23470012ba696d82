// Type annotations as written (`Vector`, `Array<Index>`, `Double * Double -> Double`) to inference types.

import type { TypeAnn } from "../syntax/ast.js";
import { fail } from "../syntax/diagnostics.js";
import { M_BOOL, M_CARD, M_DOUBLE, M_INDEX, M_TAPE, mArray, mFun, mTuple, type MType } from "./mtype.js";

const NAMED: Record<string, MType> = {
  Double: M_DOUBLE,
  Index: M_INDEX,
  Card: M_CARD,
  Bool: M_BOOL,
  // Reverse mode's record of recursive calls (src/ad/reverse-functions.ts), so that derivative programs print as
  // Smooth.
  Tape: M_TAPE,
  Vector: mArray(M_DOUBLE),
  Matrix: mArray(mArray(M_DOUBLE)),
};

export function annotationType(a: TypeAnn): MType {
  switch (a.kind) {
    case "tname": {
      const t = NAMED[a.name];
      if (!t)
        fail("type", `unknown type \`${a.name}\``, a.span, {
          expected: "Double, Index, Card, Bool, Vector, Matrix, Array<T>, a tuple T1 * T2 or a function T1 -> T2",
          found: a.name,
        });
      return t;
    }
    case "tarray":
      return mArray(annotationType(a.elem));
    case "ttuple":
      return mTuple(a.elems.map(annotationType));
    case "tfun":
      return mFun(annotationType(a.param), annotationType(a.result));
  }
}
