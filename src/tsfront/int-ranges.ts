// What the translator knows of an Index's value: an interval. JavaScript computes integer arithmetic in doubles,
// Smooth in 32-bit Indexes; `a + b`, `a - b`, `a * b` and `-a` stay Index arithmetic only where the interval proves
// the result within 32 bits (./operators.ts), and become Double arithmetic (what JavaScript computes) otherwise. A
// literal's interval is its value; a length's, a counted loop's counter's and a callback's index's are recorded when
// they are bound; any other Index (a parameter, a loop's state, a join of branches) may be any 32-bit integer.

import type { Expr } from "../syntax/ast.js";

export interface Range {
  readonly lo: number;
  readonly hi: number;
}

export const INT32: Range = { lo: -(2 ** 31), hi: 2 ** 31 - 1 };
/** A length (of an array, or a count): Smooth's are Indexes from 0. */
export const LENGTH: Range = { lo: 0, hi: 2 ** 31 - 1 };
/** An index of an element (a callback's `i`): below a length. */
export const ELEMENT_INDEX: Range = { lo: 0, hi: 2 ** 31 - 2 };

/** Intervals of variables bound once (a Smooth variable never changes: the same Expr is always the same value). */
const known = new WeakMap<Expr, Range>();

/** The interval of an Index atom (a variable or a literal). */
export function rangeOf(x: Expr): Range {
  if (x.kind === "num") return { lo: x.value, hi: x.value };
  return known.get(x) ?? INT32;
}

/** Records that the variable `x` (an Index atom) lies in r; a literal needs nothing, it is its own interval. */
export function recordRange(x: Expr, r: Range): void {
  if (x.kind === "var") known.set(x, r);
}

export const withinInt32 = (r: Range): boolean => r.lo >= INT32.lo && r.hi <= INT32.hi;

/** The interval of `a op b` computed exactly (as JavaScript computes integers, in doubles, exact to 2^53). */
export function arithmeticRange(op: "+" | "-" | "*", a: Range, b: Range): Range {
  if (op === "+") return { lo: a.lo + b.lo, hi: a.hi + b.hi };
  if (op === "-") return { lo: a.lo - b.hi, hi: a.hi - b.lo };
  const products = [a.lo * b.lo, a.lo * b.hi, a.hi * b.lo, a.hi * b.hi];
  return { lo: Math.min(...products), hi: Math.max(...products) };
}

export const negatedRange = (a: Range): Range => ({ lo: -a.hi, hi: -a.lo });

/** Does the interval hold 0 (a divisor that may be zero)? */
export const mayBeZero = (r: Range): boolean => r.lo <= 0 && r.hi >= 0;
