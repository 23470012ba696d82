// Arrays of integers JavaScript made (`xs.map(() => 0)`, `[0, 0]`, `new Float64Array([0, 1])`) that are later given
// Doubles (an element written, the variable assigned, a loop's state) become arrays of Doubles, as in JavaScript;
// an Int32Array keeps its integers: a Double written into one is converted as JavaScript converts it (ToInt32).

import { describe, expect, it } from "vitest";
import { compile, grad } from "../../src/index.js";
import { expectClose, numericGradient } from "../library/helpers.js";

const CASES: Record<string, (v: Float64Array) => number> = {
  "an element written in a loop": (v) => {
    const state = [0, 0, 0].map(() => 0);
    for (let k = 0; k < 3; k++) state[k] = Math.tanh(v[k]! + (k > 0 ? state[k - 1]! : 0));
    return state[2]! + state[0]!;
  },
  "a variable assigned in a loop": (v) => {
    let h = [0, 1].map(() => 1);
    for (let t = 0; t < 4; t++) h = h.map((x, i) => Math.sin(x * v[i]! + 0.1));
    return h[0]! + h[1]!;
  },
  "a row of a matrix of integers": (v) => {
    const m = [0, 1].map(() => [0, 0].map((_, j) => j));
    m[1]![0] = v[2]! * v[0]!;
    return m[1]![0] + m[0]![1]! + v[1]!;
  },
  "a branch": (v) => {
    const xs = v[0]! > 0 ? [1, 2].map((x) => x * 2) : [v[1]!, 0.5];
    return xs[0]! * v[2]! + xs[1]!;
  },
  "a Float64Array copied from integers": (v) => {
    const a = new Float64Array(Array.from({ length: 3 }, (_, i) => i));
    a[1] = v[0]! * v[1]!;
    return a[1] + a[2]! * v[2]!;
  },
};

describe("arrays of integers given Doubles", () => {
  const point = new Float64Array([0.6, -0.3, 0.9]);
  it.each(Object.entries(CASES))("%s: the function's value, its gradient against central differences", (_, f) => {
    expect(compile(f)(point)).toBeCloseTo(f(point), 14);
    expectClose(
      Array.from(grad(f)(point)),
      numericGradient((x) => f(Float64Array.from(x)), Array.from(point)),
      1e-7,
    );
  });

  it("an Int32Array keeps its integers: a Double written into one is truncated, as JavaScript does", () => {
    const f = (x: number) => {
      const counts = new Int32Array(2);
      counts[0] = x * 0.5;
      counts[1] = -x * 0.5;
      return counts[0] * 10 + counts[1] + x;
    };
    expect(f(3)).toBe(12);
    expect(compile(f)(3)).toBe(f(3));
    expect(grad(f)(3)).toBe(1);
  });
});
