// The functional array updates, as primitives: what reverse mode accumulates adjoints with (src/ad/reverse.ts), and
// what the combinators of the prelude (scanl, scatter) are written with.
//
//   zerosLike a        an array of a's shape, all zeros
//   setAt a p v        a with the element at p replaced by v
//   addAt a p v        a with v added to the element at p (Doubles and Indexes add; Bools are left alone)
//   addArray a b       a + b, elementwise, same shapes
//   record t i v n     setAt t i v, where an empty t first becomes n copies of v: a tape whose element shape is
//                      only known once the first value is recorded (reverse mode's residuals of loops)
//   sameShape a b      whether two values of one type have the same array dimensions (guards reverse mode's tapes)
//   field a k          the array of the k-th components of an array of tuples (k a literal): reverse mode's
//                      residuals, stored by a build alongside its elements
//
// p is one Index, or (inside derivative programs) a tuple of Indexes: a path into nested arrays, so that a read
// `m[i][j]` has its adjoint added at (i, j) without forming the adjoint of the row m[i].
// All four are functions of values (the interpreter copies: src/runtime/update.ts); the compiled code updates in
// place when the array operand is used nowhere else (src/lowering/ownership.ts, src/codegen/update.ts).

import { arrayOf, BOOL, showType, typeEq, type Type } from "../types/types.js";
import { addArrays, pathOf, updateAt, zerosLike } from "../runtime/update.js";
import { arrayLength, isArrayValue, type ArrayValue, type Value } from "../runtime/value.js";
import { shapeOf, shapesEqual, stackValues } from "../runtime/stack.js";
import type { PrimRule } from "./table.js";
import * as D from "../ad/derivatives.js";

/** The number of indexes in a path operand's type, or undefined if it is not Index or a tuple of Indexes. */
export function pathLength(t: Type): number | undefined {
  if (t.k === "int") return 1;
  if (t.k === "tuple" && t.elems.length >= 1 && t.elems.every((e) => e.k === "int")) return t.elems.length;
  return undefined;
}

/** The element type reached from an array type by `depth` indexes, if there are that many array levels. */
export function elementAt(t: Type, depth: number): Type | undefined {
  let cur = t;
  for (let d = 0; d < depth; d++) {
    if (cur.k !== "array") return undefined;
    cur = cur.elem;
  }
  return cur;
}

const asArray = (v: unknown): ArrayValue => {
  if (!isArrayValue(v as never)) throw new Error("update: not an array");
  return v as ArrayValue;
};

function update(name: "setAt" | "addAt"): PrimRule {
  return {
    arity: 3,
    syntax: { prefix: name },
    // Linear in the array and the value, structure-preserving: applied as is to dual values (pairs add pairwise).
    derivative: D.STRUCTURAL,
    fails: "operands",
    cost: "array",
    domain: "array",
    update: "in-shape",
    shapeOfFirst: true,
    type: ([a, p, v]) => {
      const m = pathLength(p!);
      const elem = m === undefined ? undefined : elementAt(a!, m);
      if (a!.k === "array" && elem !== undefined && typeEq(elem, v!)) return a!;
      return {
        expected: `an array, an Index (or a tuple of Indexes) and a value of its element type${elem ? ` ${showType(elem)}` : ""}`,
      };
    },
    evaluate: ([a, p, v], _types, span) => updateAt(asArray(a), pathOf(p!), v!, name === "setAt" ? "set" : "add", span),
  };
}

export const UPDATE_PRIMS = {
  zerosLike: {
    arity: 1,
    syntax: { prefix: "zerosLike" },
    derivative: D.STRUCTURAL,
    fails: "never",
    cost: "array",
    domain: "array",
    shapeOfFirst: true,
    type: ([a]) => (a!.k === "array" ? a! : { expected: "an array" }),
    evaluate: ([a]) => zerosLike(asArray(a)),
  },
  setAt: update("setAt"),
  addAt: update("addAt"),
  field: {
    arity: 2,
    syntax: { prefix: "field" },
    derivative: D.STRUCTURAL,
    fails: "never",
    cost: "cheap",
    domain: "array",
    shapeOfFirst: true,
    type: ([a, k], literals) => {
      const n = literals?.[1];
      if (
        a!.k === "array" &&
        a!.elem.k === "tuple" &&
        k!.k === "int" &&
        typeof n === "number" &&
        n >= 0 &&
        n < a!.elem.elems.length
      )
        return arrayOf(a!.elem.elems[n]!);
      return { expected: "an array of tuples and a literal component number" };
    },
    evaluate: ([a, k]) => {
      const arr = asArray(a);
      if (arr.tag !== "tuparr" || arr.depth !== 1) throw new Error("field: not an array of tuples");
      return arr.fields[k as number]!;
    },
  },
  record: {
    arity: 4,
    syntax: { prefix: "record" },
    derivative: D.STRUCTURAL,
    fails: "operands",
    cost: "array",
    domain: "array",
    update: "may-reshape",
    type: ([a, i, v, n]) =>
      a!.k === "array" && i!.k === "int" && n!.k === "int" && typeEq(a!.elem, v!)
        ? a!
        : { expected: "an array, an Index, a value of its element type and a size" },
    evaluate: ([a, i, v, n], types, span) => {
      const tape = asArray(a);
      const base =
        arrayLength(tape) === 0 ? stackValues(types[2]!, new Array<Value>(n as number).fill(v!), span) : tape;
      return updateAt(base, [i as number], v!, "set", span);
    },
  },
  sameShape: {
    arity: 2,
    syntax: { prefix: "sameShape" },
    derivative: D.NO_TANGENT,
    fails: "never",
    cost: "cheap",
    domain: "array",
    type: ([a, b]) => (typeEq(a!, b!) ? BOOL : { expected: "two values of the same type" }),
    evaluate: ([a, b]) => shapesEqual(shapeOf(a!), shapeOf(b!)),
  },
  addArray: {
    arity: 2,
    syntax: { prefix: "addArray" },
    derivative: D.STRUCTURAL,
    fails: "operands",
    cost: "array",
    domain: "array",
    update: "in-shape",
    shapeOfFirst: true,
    type: ([a, b]) => (a!.k === "array" && typeEq(a!, b!) ? a! : { expected: "two arrays of the same type" }),
    evaluate: ([a, b], _types, span) => addArrays(asArray(a), asArray(b), span),
  },
} satisfies Record<string, PrimRule>;
