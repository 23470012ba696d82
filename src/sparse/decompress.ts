// From the compressed derivative (one pass per colour) to the values of the pattern's entries. A compressed result
// is read as B[k · length + i]: colour k, position i (a row of the Jacobian in forward mode, a column in reverse
// mode; a row of the Hessian). Where each entry is read from is worked out once per pattern and colouring (`sources`),
// so a call only gathers.

import type { Colouring } from "./colouring.js";
import type { Pattern } from "./pattern.js";

export type Compression = "columns" | "rows" | "star";

/**
 * For each entry of the pattern, its index in B:
 *  - columns: J[r][c] = B[colour(c)][r] (no other column of that colour has an entry in row r);
 *  - rows: J[r][c] = B[colour(r)][c];
 *  - star (a symmetric pattern): H[r][c] = B[colour(c)][r] when c is the only column of its colour in row r, else
 *    H[c][r] = B[colour(r)][c] (a star colouring makes r the only one of its colour in row c: otherwise two
 *    neighbours of r and c would make a two-coloured path of four vertices). The diagonal is always read in its row.
 */
export function entrySources(p: Pattern, colouring: Colouring, how: Compression): Int32Array {
  const { rowPointers: rp, columnIndexes: ci } = p;
  const colour = colouring.colours;
  const sources = new Int32Array(ci.length);
  if (how === "columns") {
    for (let r = 0; r < p.rows; r++)
      for (let k = rp[r]!; k < rp[r + 1]!; k++) sources[k] = colour[ci[k]!]! * p.rows + r;
    return sources;
  }
  if (how === "rows") {
    for (let r = 0; r < p.rows; r++)
      for (let k = rp[r]!; k < rp[r + 1]!; k++) sources[k] = colour[r]! * p.columns + ci[k]!;
    return sources;
  }
  const alone = uniqueInRow(p, colour);
  for (let r = 0; r < p.rows; r++)
    for (let k = rp[r]!; k < rp[r + 1]!; k++) {
      const c = ci[k]!;
      if (alone[k] === 1) sources[k] = colour[c]! * p.rows + r;
      else if (alone[find(p, c, r)] === 1) sources[k] = colour[r]! * p.rows + c;
      else throw new Error(`entry (${r}, ${c}) cannot be recovered: the colouring is not a star colouring`);
    }
  return sources;
}

/** Per entry (r, c): 1 when c is the only column of its colour in row r. */
function uniqueInRow(p: Pattern, colour: Int32Array): Uint8Array {
  const alone = new Uint8Array(p.columnIndexes.length);
  const counts = new Int32Array(p.columns);
  for (let r = 0; r < p.rows; r++) {
    const from = p.rowPointers[r]!;
    const to = p.rowPointers[r + 1]!;
    for (let k = from; k < to; k++) counts[colour[p.columnIndexes[k]!]!]!++;
    for (let k = from; k < to; k++) alone[k] = counts[colour[p.columnIndexes[k]!]!] === 1 ? 1 : 0;
    for (let k = from; k < to; k++) counts[colour[p.columnIndexes[k]!]!] = 0;
  }
  return alone;
}

/** The index of entry (r, c), which must exist (the pattern is symmetric). */
function find(p: Pattern, r: number, c: number): number {
  let lo = p.rowPointers[r]!;
  let hi = p.rowPointers[r + 1]! - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const v = p.columnIndexes[mid]!;
    if (v === c) return mid;
    if (v < c) lo = mid + 1;
    else hi = mid - 1;
  }
  throw new Error(`the Hessian's pattern is not symmetric at (${r}, ${c})`);
}

/** The entries' values from the compressed result (into `values` when given). */
export function gather(
  compressed: Float64Array,
  sources: Int32Array,
  values: Float64Array = new Float64Array(sources.length),
): Float64Array {
  for (let k = 0; k < sources.length; k++) values[k] = compressed[sources[k]!]!;
  return values;
}
