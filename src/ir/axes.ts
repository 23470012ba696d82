// Array axes as IR: the dimensions of a regular array, reading a slice along any axis, and permuting axes. Jacobian
// and Hessian blocks (output dimensions first) and vmap's in/out axes are built from these; the optimiser fuses the
// builds they make with what produces and consumes them.

import { AnfBuilder, litIndex, mkIf, nested } from "./builder.js";
import type { Atom, Var } from "./ir.js";

/**
 * The first `rank` dimensions of the regular array `x`, as Index atoms computed once: dimension d is the length of
 * x[0]...[0] (d zeros), or 0 when an outer dimension is 0 (then nothing can be read; inner lengths of an empty array
 * are 0, as an empty build gives).
 */
export function arrayDims(b: AnfBuilder, x: Atom, rank: number): Atom[] {
  if (rank === 0) return [];
  const dims: Atom[] = [b.prim("length", [x], "n0")];
  let empty: Atom | undefined;
  for (let d = 1; d < rank; d++) {
    const zero = b.prim("eq", [dims[d - 1]!, litIndex(0)], "empty");
    empty = empty === undefined ? zero : b.bind("empty", mkIf(empty, empty, zero));
    const depth = d;
    const inner = nested((bb) => {
      const row = readAt(
        bb,
        x,
        Array.from({ length: depth }, () => litIndex(0)),
      );
      return bb.prim("length", [row], `n${depth}`);
    });
    dims.push(b.bind(`n${d}`, mkIf(empty, litIndex(0), inner)));
  }
  return dims.slice(0, rank);
}

/** x[i_0][i_1]... for the indexes given (fewer than x's rank reads a sub-array). */
export function readAt(b: AnfBuilder, x: Atom, at: readonly Atom[]): Atom {
  let r = x;
  for (const i of at) r = b.prim("get", [r, i], "x");
  return r;
}

/**
 * x with its first `rank` axes permuted: axis d of the result is axis `perm[d]` of x (perm a permutation of
 * 0 .. rank-1; what lies below those axes moves with the elements).
 */
export function permuteAxes(b: AnfBuilder, x: Atom, rank: number, perm: readonly number[]): Atom {
  if (perm.every((p, d) => p === d)) return x;
  const dims = arrayDims(b, x, rank);
  const index: Var[] = [];
  const level = (bb: AnfBuilder, d: number): Atom => {
    if (d === rank) {
      // Result position (i_0, ..., i_{r-1}) reads x at the index whose axis perm[d] is i_d.
      const at: Atom[] = [];
      perm.forEach((p, k) => (at[p] = index[k]!));
      return readAt(bb, x, at);
    }
    return bb.build(
      dims[perm[d]!]!,
      (i, inner) => {
        index.push(i);
        const r = level(inner, d + 1);
        index.pop();
        return r;
      },
      "t",
      `i${d}`,
    );
  };
  return level(b, 0);
}

/** The permutation moving the first `leading` of `rank` axes after the others (A ++ B → B ++ A). */
export const swapPermutation = (leading: number, rank: number): number[] =>
  Array.from({ length: rank }, (_, d) => (d < rank - leading ? leading + d : d - (rank - leading)));

/** The permutation moving axis `from` to position `to` (the others keep their order). */
export function movePermutation(from: number, to: number, rank: number): number[] {
  const others = Array.from({ length: rank }, (_, d) => d).filter((d) => d !== from);
  others.splice(to, 0, from);
  return others;
}

/** x with index `i` fixed along axis `axis` (x[i] for axis 0; for axis 1, the column i of a matrix; ...). */
export function sliceAxis(b: AnfBuilder, x: Atom, axis: number, i: Atom): Atom {
  if (axis === 0) return b.prim("get", [x, i], "x");
  const dims = arrayDims(b, x, axis);
  const index: Var[] = [];
  const level = (bb: AnfBuilder, d: number): Atom => {
    if (d === axis) return bb.prim("get", [readAt(bb, x, index), i], "x");
    return bb.build(
      dims[d]!,
      (j, inner) => {
        index.push(j);
        const r = level(inner, d + 1);
        index.pop();
        return r;
      },
      "s",
      `j${d}`,
    );
  };
  return level(b, 0);
}

/** The array of f(element) over the first `depth` axes of x (x itself, mapped, for depth 0). */
export function mapElements(b: AnfBuilder, x: Atom, depth: number, f: (b: AnfBuilder, element: Atom) => Atom): Atom {
  if (depth === 0) return f(b, x);
  const n = b.prim("length", [x], "n");
  return b.build(n, (i, inner) => mapElements(inner, inner.prim("get", [x, i], "x"), depth - 1, f), "m", "i");
}
