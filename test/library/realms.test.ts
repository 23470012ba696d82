// Arrays made in another realm (an iframe's, a `vm` context's, a test runner's sandbox): their constructors are not
// this realm's, so `instanceof Float64Array` is false for them, yet they are Float64Arrays to the user. They are
// taken as arguments like this realm's arrays, with the same results; anything else is still refused by name.

import { runInNewContext } from "node:vm";
import { describe, expect, it } from "vitest";
import { grad, smooth } from "../../src/index.js";
import { thrown } from "../helpers.js";

const foreign = <T>(code: string): T => runInNewContext(code) as T;

describe("typed arrays from another realm", () => {
  const m = smooth`
let f = fun (v: Vector) -> vectorDot v v + sin v[0]
let g = fun (W: Matrix) (x: Vector) -> vectorSum (build (length W) (fun i -> vectorDot W[i] x))
let pick = fun (v: Vector) (ix: Array<Index>) -> vectorSum (build (length ix) (fun k -> v[ix[k]] * v[ix[k]]))
`;
  const [f, g, pick] = [m.f!, m.g!, m.pick!];

  it("are not this realm's arrays (the premise)", () => {
    expect(foreign<unknown>("new Float64Array(2)") instanceof Float64Array).toBe(false);
  });

  it("a Vector, a Float32Array and an Index array give the results of this realm's arrays", () => {
    const here = [...grad(f)(new Float64Array([1, 2, 3]))];
    // The gradient of v.v + sin v0, by hand: (2 + cos 1, 4, 6).
    here.forEach((x, i) => expect(x).toBeCloseTo([2 + Math.cos(1), 4, 6][i]!, 14));
    expect([...grad(f)(foreign<Float64Array>("new Float64Array([1, 2, 3])"))]).toEqual(here);
    // A Float32Array's gradient is a Float32Array, as for this realm's.
    expect([...grad(f)(foreign<Float32Array>("new Float32Array([1, 2, 3])"))]).toEqual([
      ...grad(f)(new Float32Array([1, 2, 3])),
    ]);
    const ix = foreign<Int32Array>("new Int32Array([2, 0, 2])");
    expect(pick(foreign<Float64Array>("new Float64Array([1, 2, 3])"), ix)).toBe(9 + 1 + 9);
  });

  it("rows of a Matrix", () => {
    const W = [new Float64Array([1, 2]), new Float64Array([3, 4])];
    const x = new Float64Array([0.5, -1]);
    const rows = foreign<Float64Array[]>("[new Float64Array([1, 2]), new Float64Array([3, 4])]");
    const dW = (grad(g) as (W: unknown, x: unknown) => Float64Array[])(rows, x);
    expect(dW.map((r) => [...r])).toEqual(
      (grad(g) as (W: unknown, x: unknown) => Float64Array[])(W, x).map((r) => [...r]),
    );
    // d/dW_ij of sum_i (W x)_i = x_j.
    expect(dW.map((r) => [...r])).toEqual([
      [0.5, -1],
      [0.5, -1],
    ]);
  });

  it("an object of arrays (a pytree) from another realm", () => {
    const p = foreign<Record<string, unknown>>("({ v: new Float64Array([1, 2, 3]), s: 2 })");
    const h = smooth`let h = fun (p: Vector * Double) -> vectorDot (fst p) (fst p) * snd p`.h!;
    const dp = grad(h)(p) as unknown as { v: Float64Array; s: number };
    // d/dv (v.v s) = 2 s v, d/ds = v.v.
    expect([...dp.v]).toEqual([4, 8, 12]);
    expect(dp.s).toBe(14);
  });

  it("other array views are refused by name", () => {
    expect(thrown(() => f(foreign<unknown>("new DataView(new ArrayBuffer(8))"))).message).toMatch(
      /parameter `v` of `f` cannot be passed to Smooth: it is a DataView/,
    );
    expect(thrown(() => f(foreign<unknown>("new Uint8Array(3)"))).message).toMatch(
      /cannot be passed to Smooth: it is a Uint8Array/,
    );
  });
});
