// Seeding forward mode with one-hot tangents, vectorised (paper 000 §1.2, Fig. 5, Algorithm 1): for an input x
// (a Double or a dense array of Doubles), a build over every scalar position p of x whose body sees the dual of x
// with tangent 1 at p and 0 elsewhere. The builds stay in the program, so fusion and loop-invariant code motion can
// remove the work the columns share. Also: a dual value's tangent, and a tangent's inner product with a cotangent
// (what a vector-Jacobian product made of forward-mode columns sums).

import { AnfBuilder, litDouble, mkIf, nested } from "../ir/builder.js";
import type { Atom, Expr, Var } from "../ir/ir.js";
import { mkTuple } from "../ir/ir.js";
import { fail } from "../syntax/diagnostics.js";
import type { Span } from "../syntax/source.js";
import { arrayOf, showType, tupleOf, type Type } from "../types/types.js";

/** The rank of a dense array of Doubles (0 for Double), or undefined for any other type. */
export function doubleRank(t: Type): number | undefined {
  if (t.k === "double") return 0;
  if (t.k === "array") {
    const r = doubleRank(t.elem);
    return r === undefined ? undefined : r + 1;
  }
  return undefined;
}

/**
 * `build n0 (fun p0 -> build n1 (fun p1 -> ... body(seed)))` over the scalar positions of `x`, where `seed` is the dual
 * of x (type dualType(x.type)) with a one-hot tangent at (p0, p1, ...). For a Double x it is just body((x, 1.)).
 */
export function overPositions(
  b: AnfBuilder,
  x: Atom,
  body: (b: AnfBuilder, seed: Atom) => Atom,
  what: string,
  span?: Span,
): Atom {
  const rank = doubleRank(x.type);
  if (rank === undefined)
    fail("unsupported", `cannot differentiate with respect to ${what} of type ${showType(x.type)}`, span, {
      expected: "a Double or an array of Doubles (Vector, Matrix, ...)",
      found: showType(x.type),
    });
  const positions: Var[] = [];
  const loop = (b: AnfBuilder, xs: Atom, depth: number): Atom => {
    if (depth === rank) return body(b, oneHotDual(b, x, positions));
    const n = b.prim("length", [xs], "n");
    return b.build(
      n,
      (p, inner) => {
        positions.push(p);
        const row = depth + 1 < rank ? inner.prim("get", [xs, p], "row") : xs;
        const r = loop(inner, row, depth + 1);
        positions.pop();
        return r;
      },
      "d",
      `p${depth}`,
      span,
    );
  };
  return loop(b, x, 0);
}

/** The dual of x with tangent 1 at `at` (one index per dimension) and 0 elsewhere. */
function oneHotDual(b: AnfBuilder, x: Atom, at: readonly Var[]): Atom {
  const hot = (b: AnfBuilder, xs: Atom, depth: number, index: readonly Var[]): Atom => {
    if (depth === at.length) {
      // Tangent: 1 where every index equals its position, as nested ifs so each test is a plain comparison.
      const tangent = (k: number): Expr =>
        k === at.length
          ? litDouble(1)
          : nested((c) => c.bind("t", mkIf(c.prim("eq", [index[k]!, at[k]!], "c"), tangent(k + 1), litDouble(0))));
      return b.bind("dx", mkTuple([xs, b.bind("t", tangent(0))]));
    }
    const n = b.prim("length", [xs], "n");
    return b.build(
      n,
      (i, inner) => hot(inner, inner.prim("get", [xs, i], "x"), depth + 1, [...index, i]),
      "dx",
      `j${depth}`,
    );
  };
  return hot(b, x, 0, []);
}

/** The tangent part of a dual value of primal type `t` (undefined when `t` has no Double in it). */
export function tangentOf(b: AnfBuilder, d: Atom, t: Type): Atom | undefined {
  switch (t.k) {
    case "double":
      return b.proj(1, d, "dt");
    case "int":
    case "bool":
    case "fun":
      return undefined;
    case "array": {
      const elem = t.elem;
      if (tangentType(elem) === undefined) return undefined;
      return b.build(
        b.prim("length", [d], "n"),
        (i, inner) => tangentOf(inner, inner.prim("get", [d, i], "d"), elem)!,
        "dt",
        "j",
      );
    }
    case "tuple": {
      const parts = t.elems.flatMap((e, k) => {
        const part = tangentOf(b, b.proj(k, d, "d"), e);
        return part ? [part] : [];
      });
      if (parts.length === 0) return undefined;
      return parts.length === 1 ? parts[0]! : b.bind("dt", mkTuple(parts));
    }
  }
}

/** The type `tangentOf` produces: Doubles kept, Index and Bool parts dropped (undefined if nothing is left). */
export function tangentType(t: Type): Type | undefined {
  switch (t.k) {
    case "double":
      return t;
    case "int":
    case "bool":
    case "fun":
      return undefined;
    case "array": {
      const e = tangentType(t.elem);
      return e && arrayOf(e);
    }
    case "tuple": {
      const parts = t.elems.map(tangentType).filter((x): x is Type => x !== undefined);
      return parts.length === 0 ? undefined : parts.length === 1 ? parts[0] : tupleOf(parts);
    }
  }
}

/**
 * Σ ct · t over the Doubles of a value of type `t`: `ct` of type t, `tangent` of tangentType(t) (which drops the
 * parts without Doubles, and a tuple left with one part is that part).
 */
export function innerProduct(b: AnfBuilder, ct: Atom, tangent: Atom, t: Type): Atom {
  switch (t.k) {
    case "double":
      return b.prim("mul", [ct, tangent], "ct_t");
    case "array": {
      if (tangentType(t.elem) === undefined) return litDouble(0);
      const n = b.prim("length", [ct], "n");
      return b.ifold(
        litDouble(0),
        n,
        (acc, i, bb) => {
          const term = innerProduct(bb, bb.prim("get", [ct, i], "c"), bb.prim("get", [tangent, i], "t"), t.elem);
          return bb.prim("add", [acc, term], "s");
        },
        "dot",
      );
    }
    case "tuple": {
      const withTangent = t.elems.flatMap((e, k) => (tangentType(e) === undefined ? [] : [k]));
      const terms = withTangent.map((k, q) => {
        const part = withTangent.length === 1 ? tangent : b.proj(q, tangent, "t");
        return innerProduct(b, b.proj(k, ct, "c"), part, t.elems[k]!);
      });
      return terms.reduce((s, x) => b.prim("add", [s, x], "s"));
    }
    default:
      return litDouble(0);
  }
}
