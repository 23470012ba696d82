// Colourings (src/sparse/colouring.ts) checked against their definitions by brute force on random patterns, and
// decompression (src/sparse/decompress.ts) recovering every entry of random matrices from their compressed products.

import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { columnColouring, rowColouring, starColouring } from "../../src/sparse/colouring.js";
import { entrySources, gather } from "../../src/sparse/decompress.js";
import { fromRows, type Pattern } from "../../src/sparse/pattern.js";

const entriesOf = (p: Pattern): [number, number][] => {
  const out: [number, number][] = [];
  for (let r = 0; r < p.rows; r++)
    for (let k = p.rowPointers[r]!; k < p.rowPointers[r + 1]!; k++) out.push([r, p.columnIndexes[k]!]);
  return out;
};

const randomPattern = fc
  .record({ rows: fc.integer({ min: 1, max: 12 }), columns: fc.integer({ min: 1, max: 12 }) })
  .chain(({ rows, columns }) =>
    fc.array(fc.tuple(fc.nat(rows - 1), fc.nat(columns - 1)), { maxLength: rows * columns }).map((pairs) => {
      const lists = Array.from({ length: rows }, () => [] as number[]);
      for (const [r, c] of pairs) lists[r]!.push(c);
      return fromRows(lists, columns);
    }),
  );

const symmetricPattern = fc.integer({ min: 1, max: 14 }).chain((n) =>
  fc.array(fc.tuple(fc.nat(n - 1), fc.nat(n - 1)), { maxLength: 3 * n }).map((pairs) => {
    const lists = Array.from({ length: n }, (_, i) => [i]);
    for (const [r, c] of pairs) {
      lists[r]!.push(c);
      lists[c]!.push(r);
    }
    return fromRows(lists, n);
  }),
);

describe("colourings", () => {
  test("a column colouring gives different colours to two columns with an entry in one row", () => {
    fc.assert(
      fc.property(randomPattern, (p) => {
        const { colours, count } = columnColouring(p);
        for (const [r, c] of entriesOf(p))
          for (const [r2, c2] of entriesOf(p)) if (r === r2 && c !== c2) expect(colours[c]).not.toBe(colours[c2]);
        expect(Math.max(-1, ...colours) + 1).toBe(count);
      }),
    );
  });

  test("a row colouring gives different colours to two rows with an entry in one column", () => {
    fc.assert(
      fc.property(randomPattern, (p) => {
        const { colours } = rowColouring(p);
        for (const [r, c] of entriesOf(p))
          for (const [r2, c2] of entriesOf(p)) if (c === c2 && r !== r2) expect(colours[r]).not.toBe(colours[r2]);
      }),
    );
  });

  test("a star colouring is proper and leaves no path on four vertices two-coloured", () => {
    fc.assert(
      fc.property(symmetricPattern, (p) => {
        const { colours } = starColouring(p);
        const adjacent = (a: number, b: number) => a !== b && entriesOf(p).some(([r, c]) => r === a && c === b);
        const n = p.rows;
        for (let a = 0; a < n; a++)
          for (let b = 0; b < n; b++) {
            if (!adjacent(a, b)) continue;
            expect(colours[a]).not.toBe(colours[b]);
            for (let c = 0; c < n; c++)
              for (let d = 0; d < n; d++)
                if (new Set([a, b, c, d]).size === 4 && adjacent(b, c) && adjacent(c, d))
                  expect(colours[a] === colours[c] && colours[b] === colours[d]).toBe(false);
          }
      }),
    );
  });

  test("the path, the tridiagonal pattern, takes three colours for columns and for a star colouring", () => {
    const n = 50;
    const tridiagonal = fromRows(
      Array.from({ length: n }, (_, i) => [i - 1, i, i + 1].filter((j) => j >= 0 && j < n)),
      n,
    );
    expect(columnColouring(tridiagonal).count).toBe(3);
    expect(starColouring(tridiagonal).count).toBe(3);
  });
});

/** The compressed product of a matrix (rows x columns, entries on the pattern) with the colouring's seed matrix. */
function compress(
  p: Pattern,
  value: (r: number, c: number) => number,
  colours: Int32Array,
  count: number,
  byRows: boolean,
) {
  const length = byRows ? p.columns : p.rows;
  const out = new Float64Array(count * length);
  for (const [r, c] of entriesOf(p)) {
    const at = byRows ? colours[r]! * length + c : colours[c]! * length + r;
    out[at] = out[at]! + value(r, c);
  }
  return out;
}

describe("decompression", () => {
  const value = (r: number, c: number) => 1 + r * 31 + c * 7;
  test("column and row compression give back every entry", () => {
    fc.assert(
      fc.property(randomPattern, (p) => {
        const expected = entriesOf(p).map(([r, c]) => value(r, c));
        const byColumns = columnColouring(p);
        const b = compress(p, value, byColumns.colours, byColumns.count, false);
        expect([...gather(b, entrySources(p, byColumns, "columns"))]).toEqual(expected);
        const byRows = rowColouring(p);
        const b2 = compress(p, value, byRows.colours, byRows.count, true);
        expect([...gather(b2, entrySources(p, byRows, "rows"))]).toEqual(expected);
      }),
    );
  });

  test("star compression gives back every entry of a symmetric matrix", () => {
    const symmetric = (r: number, c: number) => value(Math.min(r, c), Math.max(r, c));
    fc.assert(
      fc.property(symmetricPattern, (p) => {
        const star = starColouring(p);
        const b = compress(p, symmetric, star.colours, star.count, false);
        expect([...gather(b, entrySources(p, star, "star"))]).toEqual(entriesOf(p).map(([r, c]) => symmetric(r, c)));
      }),
    );
  });
});
