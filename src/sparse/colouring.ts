// Colourings of a sparsity pattern, so that one derivative pass per colour gives every non-zero (Gebremedhin, Manne
// and Pothen, "What color is your Jacobian? Graph coloring for computing derivatives", SIAM Review 47(4), 2005):
//  - columns (forward mode, column compression): a distance-2 colouring of the bipartite graph, i.e. columns that
//    share a row get different colours, so the sum of the columns of one colour shows each row's entry alone;
//  - rows (reverse mode, row compression): the same on the transpose;
//  - symmetric (Hessians): a star colouring (a distance-1 colouring in which every path on four vertices uses at least
//    three colours), which needs fewer colours than a distance-2 one by using the symmetry: each off-diagonal entry
//    is read either in its row or in its column (./decompress.ts).
// All are greedy in largest-first order (by an upper bound of each vertex's degree; ties by position), so a colouring
// is a deterministic function of the pattern.

import { transpose, type Pattern } from "./pattern.js";

export interface Colouring {
  /** The colour of each column (each row, for a row colouring), from 0. */
  readonly colours: Int32Array;
  readonly count: number;
}

/** Vertices ordered by `degree`, largest first (ties: lower position first). */
function largestFirst(n: number, degree: (v: number) => number): Int32Array {
  const degrees = new Float64Array(n);
  for (let v = 0; v < n; v++) degrees[v] = degree(v);
  return Int32Array.from({ length: n }, (_, v) => v).sort((a, b) => degrees[b]! - degrees[a]! || a - b);
}

/** The smallest colour not stamped `stamp` in `forbidden`; colour `v` gets it. */
function firstFree(forbidden: Int32Array, stamp: number): number {
  let c = 0;
  while (forbidden[c] === stamp) c++;
  return c;
}

/** Distance-2 colouring of the columns: two columns with an entry in the same row get different colours. */
export function columnColouring(p: Pattern): Colouring {
  const byColumn = transpose(p);
  const { rowPointers: rp, columnIndexes: ci } = p;
  const { rowPointers: cp, columnIndexes: ri } = byColumn;
  const order = largestFirst(p.columns, (c) => {
    let d = 0;
    for (let k = cp[c]!; k < cp[c + 1]!; k++) d += rp[ri[k]! + 1]! - rp[ri[k]!]! - 1;
    return d;
  });
  const colours = new Int32Array(p.columns).fill(-1);
  const forbidden = new Int32Array(p.columns + 1).fill(-1);
  let count = 0;
  for (const c of order) {
    for (let k = cp[c]!; k < cp[c + 1]!; k++) {
      const r = ri[k]!;
      for (let q = rp[r]!; q < rp[r + 1]!; q++) {
        const other = colours[ci[q]!]!;
        if (other >= 0) forbidden[other] = c;
      }
    }
    const colour = firstFree(forbidden, c);
    colours[c] = colour;
    if (colour + 1 > count) count = colour + 1;
  }
  return { colours, count };
}

/** Distance-2 colouring of the rows: two rows with an entry in the same column get different colours. */
export function rowColouring(p: Pattern): Colouring {
  return columnColouring(transpose(p));
}

/** The most entries in one row: no column colouring has fewer colours (a row's columns all differ). */
export function maxRowLength(p: Pattern): number {
  let m = 0;
  for (let r = 0; r < p.rows; r++) m = Math.max(m, p.rowPointers[r + 1]! - p.rowPointers[r]!);
  return m;
}

/**
 * Star colouring of a symmetric pattern (GMP 2005, Algorithm 4.1): a vertex v may not take the colour of a neighbour
 * w; of a vertex x two steps away through an uncoloured w (a later colour of w would make v-w-x two-coloured); nor
 * of x two steps away through a coloured w when x has another neighbour of w's colour (the path v-w-x-y would use two
 * colours). The diagonal is not an edge.
 */
export function starColouring(p: Pattern): Colouring {
  const n = p.rows;
  const { rowPointers: rp, columnIndexes: ci } = p;
  const order = largestFirst(n, (v) => rp[v + 1]! - rp[v]!);
  const colours = new Int32Array(n).fill(-1);
  const forbidden = new Int32Array(n + 1).fill(-1);
  let count = 0;
  for (const v of order) {
    for (let a = rp[v]!; a < rp[v + 1]!; a++) {
      const w = ci[a]!;
      if (w === v) continue;
      const cw = colours[w]!;
      if (cw >= 0) forbidden[cw] = v;
      for (let b = rp[w]!; b < rp[w + 1]!; b++) {
        const x = ci[b]!;
        const cx = colours[x]!;
        if (x === v || x === w || cx < 0) continue;
        if (cw < 0) forbidden[cx] = v;
        else if (hasNeighbourColoured(p, colours, x, w, cw)) forbidden[cx] = v;
      }
    }
    const colour = firstFree(forbidden, v);
    colours[v] = colour;
    if (colour + 1 > count) count = colour + 1;
  }
  return { colours, count };
}

/** Whether x has a neighbour other than `except` (and itself) of colour c. */
function hasNeighbourColoured(p: Pattern, colours: Int32Array, x: number, except: number, c: number): boolean {
  for (let k = p.rowPointers[x]!; k < p.rowPointers[x + 1]!; k++) {
    const y = p.columnIndexes[k]!;
    if (y !== x && y !== except && colours[y] === c) return true;
  }
  return false;
}

/** One colour per column: what a dense pattern gets (no greedy colouring of a dense graph needed). */
export function trivialColouring(n: number): Colouring {
  return { colours: Int32Array.from({ length: n }, (_, i) => i), count: n };
}
