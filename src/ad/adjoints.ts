// Adjoints (cotangents) as the reverse transformation holds them while it writes the reverse sweep
// (src/ad/reverse.ts): absent (a zero that costs nothing), an atom of the primal's type, or, for a tuple, one adjoint
// per component, so that `fst t` contributing to t does not build a tuple of zeros. An adjoint has the type of its
// primal; its Index and Bool parts are never read (they stay 0 / false).

import type { AnfBuilder } from "../ir/builder.js";
import { lit, mkTuple, type Atom } from "../ir/ir.js";
import { BOOL, DOUBLE, INT, type Type } from "../types/types.js";

export interface AdjTuple {
  readonly kind: "adj-tuple";
  readonly parts: readonly Adj[];
}

export type Adj = Atom | AdjTuple | undefined;

export const adjTuple = (parts: readonly Adj[]): AdjTuple => ({ kind: "adj-tuple", parts });

const isAdjTuple = (a: Adj): a is AdjTuple => a !== undefined && a.kind === "adj-tuple";

/** The adjoint with `c` in component k of an n-tuple and nothing elsewhere. */
export function onlyComponent(k: number, n: number, c: Adj): Adj {
  if (c === undefined) return undefined;
  const parts: Adj[] = new Array<Adj>(n).fill(undefined);
  parts[k] = c;
  return adjTuple(parts);
}

/** The zero of type t, shaped like the value `primal` (arrays of zeros take its shape). */
export function zeroOf(t: Type, primal: Atom, b: AnfBuilder): Atom {
  switch (t.k) {
    case "double":
      return lit(0, DOUBLE);
    case "int":
      return lit(0, INT);
    case "bool":
      return lit(false, BOOL);
    case "array":
      return b.prim("zerosLike", [primal], "zero");
    case "tuple":
      return b.bind("zero", mkTuple(t.elems.map((e, k) => zeroOf(e, b.proj(k, primal, "x"), b))));
    case "fun":
    case "tape":
      throw new Error(`adjoints: a ${t.k} has no adjoint`);
  }
}

/** The adjoint as one atom of type t (zeros where absent, shaped like `primal`). */
export function materialize(a: Adj, t: Type, primal: Atom, b: AnfBuilder): Atom {
  if (a === undefined) return zeroOf(t, primal, b);
  if (!isAdjTuple(a)) return a;
  if (t.k !== "tuple") throw new Error("adjoints: a tuple adjoint of a non-tuple");
  return b.bind(
    "dt",
    mkTuple(
      t.elems.map((e, k) => {
        const part = a.parts[k];
        return part !== undefined && !isAdjTuple(part) ? part : materialize(part, e, b.proj(k, primal, "x"), b);
      }),
    ),
  );
}

/** The components of a tuple adjoint. */
export function partsOf(a: Adj, t: Type, b: AnfBuilder): Adj[] {
  if (t.k !== "tuple") throw new Error("adjoints: parts of a non-tuple");
  if (a === undefined) return new Array<Adj>(t.elems.length).fill(undefined);
  if (isAdjTuple(a)) return [...a.parts];
  return t.elems.map((_, k) => b.proj(k, a, "dt"));
}

/** a + c, for adjoints of type t. */
export function addAdjoints(a: Adj, c: Adj, t: Type, b: AnfBuilder): Adj {
  if (a === undefined) return c;
  if (c === undefined) return a;
  switch (t.k) {
    case "double":
      return b.prim("add", [a as Atom, c as Atom], "d");
    case "int":
    case "bool":
      return a;
    case "array":
      return b.prim("addArray", [a as Atom, c as Atom], "d");
    case "tuple": {
      const [pa, pc] = [partsOf(a, t, b), partsOf(c, t, b)];
      return adjTuple(t.elems.map((e, k) => addAdjoints(pa[k], pc[k], e, b)));
    }
    case "fun":
      throw new Error("adjoints: a function has no adjoint");
  }
}
