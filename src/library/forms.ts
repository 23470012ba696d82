// The forms results are given back in (a Tree read by `decode`, ./convert.ts): the default form of a type, and the
// forms transforms derive from their arguments' — a gradient in the form of its argument, a Jacobian block in the
// argument's form with the output's dimensions first, a batch (vmap) as the form of one result with every leaf batched
// (a batch of objects is an object of batches).

import type { Type } from "../types/types.js";
import { BOOL_TREE, DOUBLE_TREE, INDEX_TREE, type Style, type Tree } from "./pytree.js";

const dense = (style: Style, elem: "double" | "int" | "bool" = "double"): Tree => ({
  k: "dense",
  elem,
  shape: [],
  style,
});

/** Double → number, Vector → Float64Array, higher ranks → rows, tuples → JS arrays, arrays of tuples → JS arrays. */
export function defaultForm(t: Type): Tree {
  switch (t.k) {
    case "double":
      return DOUBLE_TREE;
    case "int":
      return INDEX_TREE;
    case "bool":
      return BOOL_TREE;
    case "tuple":
      return { k: "tuple", elems: t.elems.map(defaultForm) };
    case "array": {
      let e: Type = t.elem;
      while (e.k === "array") e = e.elem;
      if (e.k === "tuple" || e.k === "fun" || e.k === "tape")
        return { k: "list", elem: defaultForm(t.elem), length: 0 };
      return dense("typed", e.k);
    }
    case "fun":
    case "tape":
      throw new Error(`defaultForm: a ${t.k} has no form`);
  }
}

/** The form of `t`'s values: `form` where given, else the default. */
export const formOr = (form: Tree | undefined, t: Type): Tree => form ?? defaultForm(t);

const styleOf = (t: Tree): Style => (t.k === "dense" ? t.style : "typed");

/** The form of an array of results of form `t` (one more leading axis on every leaf). */
export function batchedForm(t: Tree): Tree {
  switch (t.k) {
    case "double":
      return dense("typed");
    case "index":
      return dense("typed", "int");
    case "bool":
      return dense("nested", "bool");
    case "dense":
      return t;
    case "tuple":
      return { ...t, elems: t.elems.map(batchedForm) };
    case "list":
      return { k: "list", elem: t, length: 0 };
  }
}

/**
 * A Jacobian block with respect to an argument of form `arg`, for an output of `outRank` dimensions: the argument's
 * form, each leaf with the output's dimensions in front (a Double argument of a vector output gives a vector).
 */
export function blockForm(arg: Tree, outRank: number): Tree {
  if (outRank === 0) return arg;
  switch (arg.k) {
    case "double":
    case "index":
    case "bool":
      return dense("typed");
    case "dense":
      return arg;
    case "tuple":
      return { ...arg, elems: arg.elems.map((e) => blockForm(e, outRank)) };
    case "list":
      return { k: "list", elem: arg, length: 0 };
  }
}

/** The leaves of a form (a tuple's leaves depth first; anything else is one leaf). */
export function formLeaves(t: Tree): Tree[] {
  return t.k === "tuple" ? t.elems.flatMap(formLeaves) : [t];
}

/** A form of the structure of `t` (its tuples and keys) whose leaf i is `leaf(i)`. */
export function rebuildForm(t: Tree, leaf: (i: number) => Tree): Tree {
  let next = 0;
  const rec = (u: Tree): Tree => (u.k === "tuple" ? { ...u, elems: u.elems.map(rec) } : leaf(next++));
  return rec(t);
}

/** The form of a Hessian block between leaves of forms a and b (shape I_a ++ I_b): a's style, or b's for a Double. */
export function hessianBlockForm(a: Tree, b: Tree): Tree {
  if (a.k !== "dense" && b.k !== "dense") return DOUBLE_TREE;
  return dense(a.k === "dense" ? styleOf(a) : styleOf(b));
}
