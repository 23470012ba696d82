// Integer arithmetic as JavaScript computes it: JavaScript's numbers are doubles, so `100000 * 100000` is 1e10 and
// `2147483647 + 1` is 2147483648, where 32-bit Index arithmetic wraps around; `j % 0` is NaN and `j / 0` Infinity; an
// Int32Array holds the ToInt32 of what is written into it. Each function is run as JavaScript too, and its result is
// the reference (compared with Object.is, so NaN and the sign of an infinity count), on every back end.

import { describe, expect, it } from "vitest";
import { compile, grad } from "../../src/index.js";
import { SmoothError } from "../../src/syntax/diagnostics.js";

type Plain = (v: Float64Array) => number;

const BACKENDS = ["js", "wasm"] as const;

function sameAsJavaScript(f: Plain, v: Float64Array): void {
  const expected = f(v);
  for (const backend of BACKENDS) {
    const got = compile(f, { backend })(Float64Array.from(v));
    expect(Object.is(got, expected), `${backend}: ${got}, JavaScript ${expected}`).toBe(true);
  }
}

const V = Float64Array.from([0.5, -1.25, 2, 3.5, 4]);

describe("integer arithmetic beyond 32 bits, as JavaScript computes it", () => {
  it("`j * j` of a variable 100000 is 1e10", () => {
    sameAsJavaScript((v) => {
      let j = 100000;
      j = j * j;
      return j + v[0]!;
    }, V);
  });

  it("`2147483647 + 1` and a sum with a length", () => {
    sameAsJavaScript((v) => {
      const m = 2147483647;
      return m + 1 + (m + v.length) * 2;
    }, V);
  });

  it("a difference below -2^31, and its negation", () => {
    sameAsJavaScript((v) => {
      const low = -2147483647 - v.length;
      return low + -low * 3;
    }, V);
  });

  it("`++`, `+=` and `*=` past 2^31", () => {
    sameAsJavaScript((v) => {
      let j = 2147483647;
      j++;
      let k = 65536;
      k *= 65536;
      k += 2147483647;
      return j + k + v[1]!;
    }, V);
  });

  it("a product grown in a loop (3^40, rounded as JavaScript rounds it)", () => {
    sameAsJavaScript((v) => {
      let p = 1;
      for (let i = 0; i < 40; i++) p = p * 3;
      return p + v[0]!;
    }, V);
  });

  it("Math.abs of -2^31", () => {
    sameAsJavaScript((v) => Math.abs(-2147483647 - v.length + 4), V);
  });

  it("a gradient through a function whose integers overflow", () => {
    const f = (v: Float64Array) => {
      let j = 100000;
      j = j * j;
      return v[0]! * j;
    };
    const g = grad(f)(V);
    expect(g[0]).toBe(1e10);
  });
});

describe("remainder and division by zero, as JavaScript computes them", () => {
  it("`j % k` with k computed to be 0 is NaN", () => {
    sameAsJavaScript((v) => {
      const k = v.length - 5;
      const j = 7;
      return j % k;
    }, V);
  });

  it("`j / k` with k computed to be 0 is ±Infinity, `0 / 0` NaN", () => {
    sameAsJavaScript((v) => 7 / (v.length - 5), V);
    sameAsJavaScript((v) => -7 / (v.length - 5), V);
    sameAsJavaScript((v) => (v.length - 5) / (v.length - 5), V);
  });

  it("a remainder of a large integer, of negatives, and by a nonzero literal", () => {
    sameAsJavaScript((v) => {
      const big = 100000 * 100000 + v.length;
      const n = v.length - 12;
      return (big % 7) + (n % 3) + (n % -4) + (-2147483647 % v.length);
    }, V);
  });
});

describe("Int32Array holds ToInt32 of what is written", () => {
  it("`new Int32Array([0.5, 2.7, -1.5])` is [0, 2, -1]", () => {
    sameAsJavaScript((v) => {
      const a = new Int32Array([0.5, 2.7, -1.5]);
      return a[0]! * 100 + a[1]! * 10 + a[2]! + v.length;
    }, V);
  });

  it("a Double and an overflowed product written into one wrap as JavaScript's ToInt32", () => {
    sameAsJavaScript((v) => {
      const a = new Int32Array(4);
      a[0] = v[3]! * 3; // 10.5 → 10
      a[1] = 100000 * 100000; // 1e10 → 1410065408
      a[2] = -v[2]! * 2147483648; // -2^32 → 0
      a[3] = v[0]! / 0; // Infinity → 0
      return a[0] + a[1] + a[2] + a[3];
    }, V);
  });

  it("bit operators on a number beyond 32 bits wrap as JavaScript's", () => {
    sameAsJavaScript((v) => {
      const big = 100000 * 100000 + v.length;
      return (big | 0) + (big >> 3) + (~big & 255);
    }, V);
  });
});

describe("integers beyond 32 bits mixed with indexing", () => {
  it("an index that is an overflowing product minus a Double: v[100000 * 100000 - 1e10 + 2]", () => {
    sameAsJavaScript((v) => {
      const k = 100000;
      return v[k * k - 1e10 + 2]!;
    }, V);
  });

  it("an index that is a remainder of a large product: v[(j * j) % n]", () => {
    sameAsJavaScript((v) => {
      const n = v.length;
      let s = 0;
      for (let j = 46340; j < 46345; j++) s += v[(j * j * 3) % n]! * j;
      return s;
    }, V);
  });

  it("row-major indexes `i * n + j` in loops are unchanged", () => {
    sameAsJavaScript((v) => {
      const n = 2;
      let s = 0;
      for (let i = 0; i < 2; i++) for (let j = 0; j < n; j++) s += v[i * n + j]! * (i + 1) - v[2 * i + 1]!;
      return s;
    }, V);
  });

  it("an index beyond 32 bits is a located index error, not a wrapped index", () => {
    const f = (v: Float64Array) => {
      const k = 65536;
      return v[k * k + 1]!;
    };
    for (const backend of BACKENDS) expect(() => compile(f, { backend })(V)).toThrow(SmoothError);
    expect(() => compile(f)(V)).toThrow(/index/);
  });
});

describe("counted loops whose distance is beyond 32 bits", () => {
  it("`for (i = -2e9; i < 2e9; i += 1e9)` runs 4 times (b - a is 4e9)", () => {
    sameAsJavaScript((v) => {
      let s = 0;
      for (let i = -2000000000; i < 2000000000; i += 1000000000) s += v[0]! + i / 1e9;
      return s;
    }, V);
  });

  it("a counter that would pass 2^31 against a Double bound is a located index error, not a wrapped counter", () => {
    const f = (v: Float64Array) => {
      let s = 0;
      for (let i = 2147483000; i < v[4]! * 536871000; i++) s += v[0]!;
      return s;
    };
    for (const backend of BACKENDS) {
      let error: unknown;
      try {
        compile(f, { backend })(V);
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(SmoothError);
      expect((error as SmoothError).message).toMatch(/2147483999 is used as an index or a count/);
    }
  });

  it("a counter against a Double bound within 32 bits runs as JavaScript's", () => {
    sameAsJavaScript((v) => {
      let s = 0;
      for (let i = 2147483000; i < v[4]! * 536870911; i += 7) s += v[0]! * (i - 2147483000);
      for (let i = 10; i >= v[1]!; i--) s += i;
      return s;
    }, V);
  });
});
