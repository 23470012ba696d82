// Persistent arrays (src/sparse/persistent-array.ts): every version keeps its elements whatever is written to others,
// compared with plain copies on random sequences of writes and reads of random versions.

import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { PArray } from "../../src/sparse/persistent-array.js";

describe("persistent arrays", () => {
  test("every version reads as the copy it stands for", () => {
    const op = fc.record({ version: fc.nat(), at: fc.nat(7), value: fc.integer(), read: fc.boolean() });
    fc.assert(
      fc.property(fc.array(op, { maxLength: 60 }), (ops) => {
        const versions = [PArray.of([0, 1, 2, 3, 4, 5, 6, 7])];
        const copies = [[0, 1, 2, 3, 4, 5, 6, 7]];
        for (const o of ops) {
          const k = o.version % versions.length;
          if (o.read) expect(versions[k]!.get(o.at)).toBe(copies[k]![o.at]);
          else {
            versions.push(versions[k]!.set(o.at, o.value));
            copies.push(copies[k]!.map((x, i) => (i === o.at ? o.value : x)));
          }
        }
        versions.forEach((v, k) => expect([...v.elements()]).toEqual(copies[k]));
      }),
    );
  });

  test("differences lists the positions written between two versions of one array, and none for another array", () => {
    const a = PArray.of([1, 2, 3, 4]);
    const b = a.set(1, 20).set(3, 40);
    expect(new Set(a.differences(b))).toEqual(new Set([1, 3]));
    expect(new Set(b.differences(a))).toEqual(new Set([1, 3]));
    expect(a.differences(PArray.of([1, 2, 3, 4]))).toBeUndefined();
    expect([...a.elements()]).toEqual([1, 2, 3, 4]);
  });
});
