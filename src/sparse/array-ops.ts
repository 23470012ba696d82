// The array primitives of the sparsity analysis on abstract values (./values.ts): the functional updates (setAt,
// addAt, addArray) through persistent arrays, zeros, and the value of a path where the program fails.

import type { Type } from "../types/types.js";
import { PArray } from "./persistent-array.js";
import { BOTTOM, GiveUp, isScalar, SummaryA, tracerOf, TupleA, UNKNOWN, type Abs, type Lattice } from "./values.js";

/** A value of type `t` with no dependencies: what flows out of a path on which the program fails. */
export function emptyOf(t: Type): Abs {
  switch (t.k) {
    case "array":
      return new SummaryA(emptyOf(t.elem));
    case "tuple":
      return new TupleA(t.elems.map(emptyOf));
    default:
      return UNKNOWN;
  }
}

/** zerosLike: `v`'s structure, each scalar zero. */
export function zerosOf(v: Abs, t: Type): Abs {
  if (t.k === "array") {
    if (v instanceof PArray) return PArray.of(v.elements().map((e) => zerosOf(e, t.elem)));
    if (v instanceof SummaryA) return new SummaryA(zerosOf(v.elem, t.elem));
    return new SummaryA(zerosOf(BOTTOM, t.elem));
  }
  if (t.k === "tuple") return new TupleA(t.elems.map((e, i) => zerosOf(v instanceof TupleA ? v.elems[i]! : BOTTOM, e)));
  return t.k === "bool" ? false : 0;
}

/** a + b, elementwise (addAt's element, addArray): Doubles unite their dependencies, Bools keep a's. */
export function addValues(lattice: Lattice, a: Abs, b: Abs): Abs {
  if (a === BOTTOM) return b;
  if (b === BOTTOM) return a;
  if (isScalar(a) && isScalar(b)) {
    if (typeof a === "boolean" || typeof b === "boolean") return a;
    if (typeof a === "number" && typeof b === "number") return a + b;
    return lattice.algebra.linear(tracerOf(a), tracerOf(b)) ?? UNKNOWN;
  }
  if (a instanceof TupleA && b instanceof TupleA)
    return new TupleA(a.elems.map((e, i) => addValues(lattice, e, b.elems[i]!)));
  if (a instanceof PArray && b instanceof PArray && a.length === b.length) {
    const bs = b.elements().slice();
    return PArray.of(a.elements().map((e, i) => addValues(lattice, e, bs[i]!)));
  }
  if ((a instanceof PArray || a instanceof SummaryA) && (b instanceof PArray || b instanceof SummaryA))
    return new SummaryA(addValues(lattice, lattice.summaryOf(a), lattice.summaryOf(b)));
  throw new GiveUp("an addition of values that are not numbers or arrays");
}

/**
 * setAt / addAt of `v` at `path` in `a`. A known index updates one element (a new version of a persistent array); an
 * unknown one may update any, so every element becomes the join of itself and its update.
 */
export function updatePath(lattice: Lattice, a: Abs, path: readonly Abs[], v: Abs, how: "set" | "add", t: Type): Abs {
  if (path.length === 0) return how === "set" ? v : addValues(lattice, a, v);
  if (t.k !== "array") throw new GiveUp("an update of a value that is not an array");
  const [i, ...rest] = path;
  const inner = (e: Abs) => updatePath(lattice, e, rest, v, how, t.elem);
  if (a instanceof PArray) {
    if (typeof i === "number") return i >= 0 && i < a.length ? a.set(i, inner(a.get(i))) : a;
    return PArray.of(a.elements().map((e) => lattice.join(e, inner(e))));
  }
  if (a instanceof SummaryA)
    return new SummaryA(lattice.join(a.elem, inner(a.elem === BOTTOM ? emptyOf(t.elem) : a.elem)));
  throw new GiveUp("an update of a value that is not an array");
}
