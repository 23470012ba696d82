// Sparsity patterns: which entries of a Jacobian or a Hessian can be non-zero, in compressed sparse row form (per row,
// its column indexes, sorted), read off the sparsity analysis' abstract result.

import { arrayGet, arrayLength, isArrayValue, type Value } from "../runtime/value.js";
import type { Type } from "../types/types.js";
import { SecondOrder, type Algebra } from "./algebra.js";
import { DepsReader, pairRows } from "./deps.js";
import { PArray } from "./persistent-array.js";
import { BOTTOM, GiveUp, SummaryA, tracerOf, TupleA, type Abs } from "./values.js";

export interface Pattern {
  readonly rows: number;
  readonly columns: number;
  /** rows + 1 offsets into columnIndexes: row r's entries are at rowPointers[r] .. rowPointers[r + 1] - 1. */
  readonly rowPointers: Int32Array;
  /** The column of each entry, ascending within a row. */
  readonly columnIndexes: Int32Array;
}

/** Past this many entries a pattern is treated as dense (the analysis' sets are not read out further). */
export const MAX_PATTERN_ENTRIES = 50_000_000;

export const entries = (p: Pattern): number => p.columnIndexes.length;

/** The fraction of entries that may be non-zero. */
export const density = (p: Pattern): number => (p.rows * p.columns === 0 ? 0 : entries(p) / (p.rows * p.columns));

export function isDense(p: Pattern): boolean {
  return entries(p) === p.rows * p.columns;
}

/** Every entry. */
export function densePattern(rows: number, columns: number): Pattern {
  const rowPointers = new Int32Array(rows + 1);
  const columnIndexes = new Int32Array(rows * columns);
  for (let r = 0; r < rows; r++) {
    rowPointers[r + 1] = (r + 1) * columns;
    for (let c = 0; c < columns; c++) columnIndexes[r * columns + c] = c;
  }
  return { rows, columns, rowPointers, columnIndexes };
}

/** The pattern of per-row column lists (unsorted, possibly repeated). */
export function fromRows(lists: readonly (readonly number[])[], columns: number): Pattern {
  const starts = new Int32Array(lists.length + 1);
  const all: number[] = [];
  lists.forEach((l, r) => {
    for (const c of l) all.push(c);
    starts[r + 1] = all.length;
  });
  return fromFlat(starts, all, columns);
}

/** The pattern of rows given as `all[starts[r] .. starts[r + 1] - 1]` (unsorted, possibly repeated). */
export function fromFlat(starts: Int32Array, all: readonly number[], columns: number): Pattern {
  const rows = starts.length - 1;
  const sorted = Int32Array.from(all);
  const rowPointers = new Int32Array(rows + 1);
  let k = 0;
  for (let r = 0; r < rows; r++) {
    const from = starts[r]!;
    const to = starts[r + 1]!;
    sortRange(sorted, from, to);
    for (let i = from; i < to; i++) if (i === from || sorted[i] !== sorted[i - 1]) sorted[k++] = sorted[i]!;
    rowPointers[r + 1] = k;
  }
  return { rows, columns, rowPointers, columnIndexes: sorted.slice(0, k) };
}

/** Sorts a[from .. to - 1] in place: insertion sort for the short rows of sparse patterns, else the built-in one. */
function sortRange(a: Int32Array, from: number, to: number): void {
  if (to - from > 32) {
    a.subarray(from, to).sort();
    return;
  }
  for (let i = from + 1; i < to; i++) {
    const v = a[i]!;
    let j = i - 1;
    while (j >= from && a[j]! > v) {
      a[j + 1] = a[j]!;
      j--;
    }
    a[j + 1] = v;
  }
}

/** The transpose (rows become columns). */
export function transpose(p: Pattern): Pattern {
  const counts = new Int32Array(p.columns + 1);
  for (const c of p.columnIndexes) counts[c + 1]!++;
  for (let c = 0; c < p.columns; c++) counts[c + 1]! += counts[c]!;
  const next = counts.slice(0, p.columns);
  const columnIndexes = new Int32Array(entries(p));
  for (let r = 0; r < p.rows; r++)
    for (let k = p.rowPointers[r]!; k < p.rowPointers[r + 1]!; k++) columnIndexes[next[p.columnIndexes[k]!]!++] = r;
  return { rows: p.columns, columns: p.rows, rowPointers: counts, columnIndexes };
}

/**
 * The Jacobian's pattern from the analysis' abstract result: one row per output Double (leaves of a tuple in order,
 * arrays in row-major order), the columns its tracer can depend on. Where the analysis could not tell an array's
 * length, `actual()` (the output computed at these arguments) gives it, each element then below the summary.
 */
export function jacobianPattern(out: Abs, t: Type, actual: () => Value, algebra: Algebra, columns: number): Pattern {
  const reader = new DepsReader(columns);
  // Rows one after the other in `all`, row r starting at starts[r].
  const all: number[] = [];
  const starts: number[] = [0];
  const row = (v: Abs) => {
    const tracer = tracerOf(v);
    if (tracer !== undefined && !reader.positions(algebra.firstOrder(tracer), all))
      for (let c = 0; c < columns; c++) all.push(c);
    if (all.length > MAX_PATTERN_ENTRIES) throw new GiveUp(`more than ${MAX_PATTERN_ENTRIES} entries`);
    starts.push(all.length);
  };
  // The actual value at the place being read (`path`: tuple components and array positions from the root) is
  // computed only where a summary needs a length.
  const path: number[] = [];
  const here = (): Value => {
    let x = actual();
    for (const k of path) x = isArrayValue(x) ? arrayGet(x, k) : (x as { elems: readonly Value[] }).elems[k]!;
    return x;
  };
  const rec = (v: Abs, u: Type) => {
    if (u.k === "double") return row(v);
    if (u.k === "tuple") {
      u.elems.forEach((e, i) => {
        path.push(i);
        rec(v instanceof TupleA ? v.elems[i]! : v, e);
        path.pop();
      });
      return;
    }
    if (u.k !== "array") return;
    const known = v instanceof PArray;
    const n = known ? v.length : arrayLength(arrayOf(here()));
    const elem = v instanceof SummaryA ? v.elem : BOTTOM;
    for (let i = 0; i < n; i++) {
      path.push(i);
      rec(known ? v.get(i) : elem, u.elem);
      path.pop();
    }
  };
  rec(out, t);
  return fromFlat(Int32Array.from(starts), all, columns);
}

function arrayOf(x: Value) {
  if (!isArrayValue(x)) throw new Error("jacobianPattern: the output is not an array");
  return x;
}

/** The Hessian's pattern from the abstract result (a Double) of a function of `size` input positions. */
export function hessianPattern(out: Abs, algebra: Algebra, size: number): Pattern {
  const tracer = tracerOf(out);
  if (tracer === undefined)
    return fromRows(
      Array.from({ length: size }, () => []),
      size,
    );
  if (algebra.order !== 2 || !(tracer instanceof SecondOrder))
    throw new Error("hessianPattern needs the second-order analysis");
  const rows = pairRows(tracer.h, size, MAX_PATTERN_ENTRIES);
  if (rows === undefined) return densePattern(size, size);
  return fromRows(rows, size);
}
