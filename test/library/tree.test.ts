// The tree utilities over the values transforms accept, and Float32Array arguments.

import { describe, expect, it } from "vitest";
import { grad, ndarray, smooth, treeFlatten, treeLeaves, treeMap, treeUnflatten, vmap } from "../../src/index.js";
import { thrown } from "../helpers.js";

describe("tree utilities", () => {
  const params = {
    W: [
      [1, 2],
      [3, 4],
    ],
    b: new Float64Array([5, 6]),
    layers: [{ s: 7 }, { s: 8 }],
    flag: true,
  };

  it("leaves are arrays the library reads as one value; objects and other JS arrays are containers", () => {
    const leaves = treeLeaves(params);
    expect(leaves).toEqual([
      [
        [1, 2],
        [3, 4],
      ],
      new Float64Array([5, 6]),
      7,
      8,
      true,
    ]);
    const [flat, def] = treeFlatten(params);
    expect(treeUnflatten(def, flat)).toEqual(params);
    expect(() => treeUnflatten(def, flat.slice(1))).toThrow(/the structure has 5 leaves, but 4 were given/);
    expect(treeLeaves([1, new Float64Array(2)])).toHaveLength(2); // a tuple
    expect(treeLeaves(ndarray([1, 2, 3, 4], [2, 2]))).toHaveLength(1);
  });

  it("treeMap over several trees of one structure: an SGD step on a gradient", () => {
    const m = smooth`let loss = fun (p: Vector * Double) (x: Vector) -> let z = vectorDot (fst p) x + snd p in z * z`;
    const p = { w: new Float64Array([1, -1]), b: 0.5 };
    const x = new Float64Array([2, 1]);
    const g = grad(m.loss!)(p, x) as typeof p;
    const next = treeMap(
      (a: Float64Array | number, d: Float64Array | number) =>
        typeof a === "number" ? a - 0.1 * (d as number) : a.map((v, i) => v - 0.1 * (d as Float64Array)[i]!),
      p,
      g,
    );
    // z = 1.5: ∇w = 2 z x = [6, 3], ∇b = 2 z = 3.
    expect(Array.from(next.w)).toEqual([1 - 0.1 * 6, -1 - 0.1 * 3]);
    expect(next.b).toBeCloseTo(0.5 - 0.3, 15);
    expect(thrown(() => treeMap((a: number) => a, p, { w: 1 })).message).toContain(
      "rest[0] does not have the structure of the first tree",
    );
    expect(() => treeLeaves({ f: () => 1 })).toThrow(/the tree at \.f holds a function/);
  });
});

describe("Float32Array arguments", () => {
  it("are computed in Float64 and results with respect to them come back as Float32Arrays", () => {
    const m = smooth`let f = fun (v: Vector) -> vectorDot v v`;
    const v = new Float32Array([0.1, 0.2, 0.3]);
    const g = grad(m.f!)(v) as Float32Array;
    expect(g).toBeInstanceOf(Float32Array);
    expect(Array.from(g)).toEqual(Array.from(v, (x) => Math.fround(2 * x)));
    // The value: sum of squares of the Float32 values, computed in Float64 (not rounded to Float32 on the way).
    const exact = Array.from(v).reduce((s, x) => s + x * x, 0);
    expect(m.f!(v)).toBe(exact);
    const rows = vmap(grad(m.f!))([new Float32Array([1, 2]), new Float32Array([3, 4])]) as Float32Array[];
    expect(rows[1]).toEqual(new Float32Array([6, 8]));
  });
});
