// What the sparsity analysis tracks about a Double that depends on the inputs (a "tracer"), and how each kind of
// primitive combines tracers: first order for Jacobians (the positions it depends on), first and second order for
// Hessians (also the pairs of positions its second derivative can involve, as SparseConnectivityTracer.jl's Hessian
// tracers do). A Double that depends on no input is not a tracer (the analysis keeps its value, or "unknown").

import { ALL, ALL_PAIRS, Deps, DepsReader, Leaf, pairRows, pairs, pairUnion, union, type PairDeps } from "./deps.js";

/** The first and second order dependencies of a Double (Hessian analysis). */
export class SecondOrder {
  constructor(
    readonly g: Deps,
    readonly h: PairDeps | undefined,
  ) {}
}

export type Tracer = Deps | SecondOrder;

export const isTracer = (v: unknown): v is Tracer => v instanceof SecondOrder || v instanceof Deps;

/**
 * How primitives on Doubles combine dependencies. An operand without dependencies is undefined; a result without
 * them is undefined too. Each kind says what its derivatives can be non-zero on:
 *  - linear: sums, negation, and piecewise-linear max, min, abs (second derivatives zero);
 *  - product a * b: second derivative in a × b;
 *  - quotient a / b: second derivatives in a × b and b × b;
 *  - nonlinear f(a) or f(a, b) (sin, exp, pow, ...): every pair of its operands' positions.
 */
export interface Algebra {
  readonly order: 1 | 2;
  input(position: number): Tracer;
  /** Every position (every pair): what the analysis says when it cannot tell. */
  all(): Tracer;
  linear(a: Tracer | undefined, b: Tracer | undefined): Tracer | undefined;
  product(a: Tracer | undefined, b: Tracer | undefined): Tracer | undefined;
  quotient(a: Tracer | undefined, b: Tracer | undefined): Tracer | undefined;
  nonlinear(a: Tracer | undefined, b: Tracer | undefined): Tracer | undefined;
  /** Whether a's dependencies are among b's (for the fixpoints of loops of unknown length). */
  leq(a: Tracer | undefined, b: Tracer | undefined, reader: DepsReader): boolean;
  /** The first-order positions of a tracer. */
  firstOrder(t: Tracer): Deps;
}

/** Positions as leaves, made once per position (a vector of n inputs makes n leaves). */
function leaves(): (position: number) => Leaf {
  const made: Leaf[] = [];
  return (p) => (made[p] ??= new Leaf(p));
}

/** First order: a tracer is its dependency set, and every operation unites its operands' sets. */
export function jacobianAlgebra(): Algebra {
  const leaf = leaves();
  const unite = (a: Tracer | undefined, b: Tracer | undefined) => union(a as Deps | undefined, b as Deps | undefined);
  return {
    order: 1,
    input: leaf,
    all: () => ALL,
    linear: unite,
    product: unite,
    quotient: unite,
    nonlinear: unite,
    leq: (a, b, reader) => reader.subset(a as Deps | undefined, b as Deps | undefined),
    firstOrder: (t) => t as Deps,
  };
}

/** Second order: (g, h) per tracer, with the rules above for h. */
export function hessianAlgebra(): Algebra {
  const leaf = leaves();
  const g = (t: Tracer | undefined) => (t as SecondOrder | undefined)?.g;
  const h = (t: Tracer | undefined) => (t as SecondOrder | undefined)?.h;
  const make = (first: Deps | undefined, second: PairDeps | undefined): SecondOrder | undefined =>
    first === undefined ? undefined : new SecondOrder(first, second);
  const linear = (a: Tracer | undefined, b: Tracer | undefined) => {
    if (b === undefined || a === b) return a;
    if (a === undefined) return b;
    return make(union(g(a), g(b)), pairUnion(h(a), h(b)));
  };
  return {
    order: 2,
    input: (p) => new SecondOrder(leaf(p), undefined),
    all: () => new SecondOrder(ALL, ALL_PAIRS),
    linear,
    product: (a, b) => make(union(g(a), g(b)), pairUnion(pairUnion(h(a), h(b)), pairs(g(a), g(b)))),
    quotient: (a, b) =>
      make(union(g(a), g(b)), pairUnion(pairUnion(h(a), h(b)), pairUnion(pairs(g(a), g(b)), pairs(g(b), g(b))))),
    nonlinear: (a, b) => {
      const first = union(g(a), g(b));
      return make(first, pairUnion(pairUnion(h(a), h(b)), pairs(first, first)));
    },
    leq: (a, b, reader) => reader.subset(g(a), g(b)) && pairsSubset(h(a), h(b), reader.size),
    firstOrder: (t) => (t as SecondOrder).g,
  };
}

/** Whether the pairs of a are among b's (read out: a fixpoint's check, rare; past a million pairs, "no"). */
function pairsSubset(a: PairDeps | undefined, b: PairDeps | undefined, size: number): boolean {
  if (a === undefined || a === b || b === ALL_PAIRS) return true;
  if (b === undefined) return false;
  const limit = 1_000_000;
  const rowsA = pairRows(a, size, limit);
  const rowsB = pairRows(b, size, limit);
  if (rowsA === undefined || rowsB === undefined) return false;
  return rowsA.every((row, i) => {
    const inB = new Set(rowsB[i]);
    return row.every((j) => inB.has(j));
  });
}
