// The abstract values of the sparsity analysis (./analysis.ts) and their order. A value of the program is abstracted
// by the same structure with its scalars replaced:
//  - an Index or a Bool: its value when the analysis knows it (from literals, Index arguments, loop counters), else
//    UNKNOWN;
//  - a Double: its value when it depends on no input and is known, UNKNOWN when it depends on no input, else a tracer
//    (./algebra.ts: the input positions it can depend on);
//  - an array of known length: its elements (a persistent array, ./persistent-array.ts); of unknown length (a build
//    whose size depends on a Double, the join of arrays of different lengths): a summary, one value above all its
//    elements;
//  - a tuple: its components; a function (only custom derivative rules keep lambdas in first-order IR): a closure.
// Order: a known value ⊑ UNKNOWN ⊑ a tracer ⊑ a tracer of more positions; structures componentwise; an array ⊑ a
// summary above its elements. `join` is the least upper bound, used where control flow cannot be decided.

import type { Value } from "../runtime/value.js";
import { arrayGet, arrayLength, isArrayValue } from "../runtime/value.js";
import type { Type } from "../types/types.js";
import { isTracer, type Algebra, type Tracer } from "./algebra.js";
import type { DepsReader } from "./deps.js";
import { PArray } from "./persistent-array.js";

class Unknown {}
/** A scalar the analysis does not know, which depends on no input. */
export const UNKNOWN = new Unknown();
class Bottom {}
/** No value at all: the elements of an empty array (join(BOTTOM, x) = x). */
export const BOTTOM = new Bottom();

export class TupleA {
  constructor(readonly elems: readonly Abs[]) {}
}

/** An array of unknown length, each element below `elem`. */
export class SummaryA {
  constructor(readonly elem: Abs) {}
}

/** A lambda and the frame it was made in (./analysis.ts: variables are slots of their function's frame). */
export class Closure {
  constructor(
    readonly paramSlot: number,
    readonly body: (frame: Frame) => Abs,
    readonly frame: Frame,
  ) {}
}

/**
 * A function with custom derivative rules: applied, every Double of its result depends on all of its arguments (and
 * on `extra`: the arguments of a curried function applied so far).
 */
export class Opaque {
  constructor(
    readonly fn: Abs,
    readonly extra: Tracer | undefined,
  ) {}
}

export type Frame = Abs[];

export type Abs = number | boolean | Unknown | Bottom | Tracer | TupleA | PArray<Abs> | SummaryA | Closure | Opaque;

/** Thrown when the analysis cannot go on (a tape, a function value it cannot join): the pattern is then dense. */
export class GiveUp extends Error {}

/** The tracer in a scalar, if any. */
export const tracerOf = (v: Abs): Tracer | undefined => (isTracer(v) ? v : undefined);

export class Lattice {
  private readonly summaries = new WeakMap<PArray<Abs>, Abs>();

  constructor(
    readonly algebra: Algebra,
    readonly reader: DepsReader,
  ) {}

  /** One value above every element of an array. */
  summaryOf(a: PArray<Abs> | SummaryA): Abs {
    if (a instanceof SummaryA) return a.elem;
    let s = this.summaries.get(a);
    if (s === undefined) {
      s = BOTTOM;
      for (const e of a.elements()) s = this.join(s, e);
      this.summaries.set(a, s);
    }
    return s;
  }

  join(a: Abs, b: Abs): Abs {
    if (a === b || b === BOTTOM) return a;
    if (a === BOTTOM) return b;
    if (isScalar(a) && isScalar(b)) {
      if (isTracer(a) || isTracer(b)) return this.algebra.linear(tracerOf(a), tracerOf(b)) ?? UNKNOWN;
      return UNKNOWN;
    }
    if (a instanceof TupleA && b instanceof TupleA) return new TupleA(a.elems.map((e, i) => this.join(e, b.elems[i]!)));
    if (a instanceof PArray && b instanceof PArray) {
      if (a.length !== b.length) return new SummaryA(this.join(this.summaryOf(a), this.summaryOf(b)));
      const diffs = a.differences(b);
      if (diffs === undefined) {
        const bs = b.elements().slice();
        return PArray.of(a.elements().map((e, i) => this.join(e, bs[i]!)));
      }
      const fromB = diffs.map((i) => b.get(i));
      const changes = new Map<number, Abs>();
      diffs.forEach((i, k) => changes.set(i, this.join(a.get(i), fromB[k]!)));
      return a.setMany(changes);
    }
    if ((a instanceof PArray || a instanceof SummaryA) && (b instanceof PArray || b instanceof SummaryA))
      return new SummaryA(this.join(this.summaryOf(a), this.summaryOf(b)));
    throw new GiveUp("two function values meet where the analysis cannot tell which runs");
  }

  /** Whether a ⊑ b. */
  leq(a: Abs, b: Abs): boolean {
    if (a === b || a === BOTTOM) return true;
    if (isScalar(a) && isScalar(b)) {
      if (isTracer(b)) return !isTracer(a) || this.algebra.leq(a, b, this.reader);
      if (b === UNKNOWN) return !isTracer(a);
      return false;
    }
    if (a instanceof TupleA && b instanceof TupleA) return a.elems.every((e, i) => this.leq(e, b.elems[i]!));
    if (a instanceof PArray && b instanceof PArray) {
      if (a.length !== b.length) return false;
      const diffs = b.differences(a);
      if (diffs === undefined) {
        const bs = b.elements().slice();
        return a.elements().every((e, i) => this.leq(e, bs[i]!));
      }
      const fromA = diffs.map((i) => a.get(i));
      return diffs.every((i, k) => this.leq(fromA[k]!, b.get(i)));
    }
    if ((a instanceof PArray || a instanceof SummaryA) && b instanceof SummaryA)
      return this.leq(this.summaryOf(a), b.elem);
    return false;
  }

  /** The greatest value of a type: whatever the program computes, it is below this. */
  top(t: Type): Abs {
    switch (t.k) {
      case "double":
        return this.algebra.all();
      case "int":
      case "bool":
        return UNKNOWN;
      case "array":
        return new SummaryA(this.top(t.elem));
      case "tuple":
        return new TupleA(t.elems.map((e) => this.top(e)));
      case "fun":
      case "tape":
        throw new GiveUp("a function value or a tape in a loop whose length the analysis cannot tell");
    }
  }

  /** Every Double of `v` made to depend on `deps` (and on what it depended on), keeping the structure. */
  spread(v: Abs, deps: Tracer | undefined): Abs {
    if (deps === undefined) return v;
    if (isScalar(v)) return typeof v === "number" || v === UNKNOWN || isTracer(v) ? this.withDeps(v, deps) : v;
    if (v instanceof TupleA) return new TupleA(v.elems.map((e) => this.spread(e, deps)));
    if (v instanceof PArray) return PArray.of(v.elements().map((e) => this.spread(e, deps)));
    if (v instanceof SummaryA) return new SummaryA(this.spread(v.elem, deps));
    return v;
  }

  private withDeps(v: Abs, deps: Tracer): Abs {
    return this.algebra.nonlinear(tracerOf(v), deps) ?? UNKNOWN;
  }

  /** Every tracer in `v`, united (a nonlinear combination: for Hessians, all pairs among them). */
  allDeps(v: Abs): Tracer | undefined {
    if (isTracer(v)) return v;
    if (v instanceof TupleA)
      return v.elems.reduce<Tracer | undefined>((d, e) => this.algebra.linear(d, this.allDeps(e)), undefined);
    if (v instanceof PArray || v instanceof SummaryA) return this.allDeps(this.summaryOf(v));
    return undefined;
  }
}

/** A number, a Bool, UNKNOWN or a tracer (a scalar of the program). */
export function isScalar(v: Abs): boolean {
  return typeof v === "number" || typeof v === "boolean" || v === UNKNOWN || isTracer(v);
}

/**
 * The abstraction of a runtime value of type `t`: Index and Bool values kept, Doubles UNKNOWN (the pattern holds for
 * every value of them) unless `input` gives the tracer of the k-th Double (row-major order) of a differentiated one.
 */
export function abstractOf(v: Value, t: Type, input?: (k: number) => Abs): Abs {
  let next = 0;
  const rec = (x: Value, u: Type): Abs => {
    switch (u.k) {
      case "double":
        return input ? input(next++) : UNKNOWN;
      case "int":
      case "bool":
        return x;
      case "tuple": {
        const parts = (x as { elems: readonly Value[] }).elems;
        return new TupleA(u.elems.map((e, i) => rec(parts[i]!, e)));
      }
      case "array": {
        if (!isArrayValue(x)) throw new Error("abstractOf: not an array");
        const n = arrayLength(x);
        const items: Abs[] = new Array<Abs>(n);
        for (let i = 0; i < n; i++) items[i] = rec(arrayGet(x, i), u.elem);
        return PArray.of(items);
      }
      case "fun":
      case "tape":
        throw new GiveUp("a function or tape argument");
    }
  };
  return rec(v, t);
}
