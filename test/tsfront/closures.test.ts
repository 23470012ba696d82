// Data plain functions read from their closures (issue 28, item 2): numbers, number[], number[][], typed arrays of any
// length, arrays of typed arrays and objects of these — read directly, through a helper function, or by a helper from
// its module — are hidden parameters of the compiled program, read at each call: a closure sees the arrays' current
// contents and a `let` variable's current value, without compiling again. Every gradient is checked against central
// differences of the JavaScript function itself, on both compiled back ends.

import { describe, expect, it } from "vitest";
import { compilations, compile, grad, hessian, jacobian, jvp, vjp, vmap, withClosure } from "../../src/index.js";
import { thrown } from "../helpers.js";
import { expectClose, flat, numericGradient, rng } from "../library/helpers.js";

const backends = ["js", "wasm"] as const;
const random = rng(7);
const matrixOf = (n: number, m: number) => Array.from({ length: n }, () => Array.from({ length: m }, random));

/** Central differences of f at a Float64Array point. */
const numeric = (f: (w: Float64Array) => number, w: Float64Array) =>
  numericGradient((p) => f(Float64Array.from(p)), Array.from(w));

// A module-level constant read by a helper, which the differentiated closure calls.
const SCALE = [0.5, -2, 1.5];
function scaled(w: Float64Array, i: number): number {
  return w[i]! * SCALE[i]!;
}

describe.each(backends)("data a plain function reads from its closure (%s)", (backend) => {
  it("a number[][] and a Float64Array: their current contents at each call, one compilation", () => {
    const X = matrixOf(5, 3);
    const y = Float64Array.from({ length: 5 }, random);
    const loss = (w: Float64Array) => {
      let total = 0;
      for (let i = 0; i < X.length; i++) {
        let z = 0;
        for (let j = 0; j < w.length; j++) z += X[i]![j]! * w[j]!;
        total += Math.log(1 + Math.exp(z)) - y[i]! * z;
      }
      return total;
    };
    const g = grad(loss, { backend });
    const f = compile(loss, { backend });
    const w = Float64Array.from([0.3, -0.2, 0.1]);
    expect(f(w)).toBeCloseTo(loss(w), 12);
    expectClose(flat(g(w)), numeric(loss, w), 1e-7);
    // New contents (rows written in place, a row replaced, the labels changed): the next call sees them.
    X[0]![1] = 4;
    X[3] = [1, 1, 1];
    y.set([1, 0, 1, 0, 1]);
    expect(f(w)).toBeCloseTo(loss(w), 12);
    expectClose(flat(g(w)), numeric(loss, w), 1e-7);
    expect(compilations(g)).toBe(1);
    expect(compilations(f)).toBe(1);
  });

  it("a `let` number and a `let` array: the value the variable holds at the call", () => {
    let k = 2;
    let v = new Float64Array([1, 2, 3]);
    const f = (x: number) => x * k + v[0]! * Math.sin(x);
    const df = grad(f, { backend });
    expect(df(0.5)).toBeCloseTo(2 + Math.cos(0.5), 13);
    k = -3;
    v = new Float64Array([10, 0, 0]);
    expect(df(0.5)).toBeCloseTo(-3 + 10 * Math.cos(0.5), 13);
    expect(compile(f, { backend })(0.5)).toBeCloseTo(f(0.5), 13);
    expect(compilations(df)).toBe(1);
  });

  it("a variable assigned anywhere (by another function, a destructuring, ++, for-of) is read at each call", () => {
    let a = 1;
    let b = 1;
    let c = 1;
    let d = 1;
    const setA = (v: number) => {
      a = v;
    };
    const f = (x: number) => x * a + x * x * b + c * Math.sin(x) + d;
    const df = grad(f, { backend });
    const check = () => expect(df(0.5)).toBeCloseTo(a + b + c * Math.cos(0.5), 12);
    check();
    setA(4);
    check();
    [b] = [3];
    check();
    c++;
    check();
    for (d of [7]) check();
    expect(compilations(df)).toBe(1);
  });

  it("a number used as an index or a length is an Index; a changed value is read, a fraction refused", () => {
    let at = 1;
    let n = 3;
    const f = (w: Float64Array) => {
      const ys = new Float64Array(n);
      for (let i = 0; i < n; i++) ys[i] = w[i]! * w[at]!;
      return ys.reduce((s, t) => s + t, 0);
    };
    const g = grad(f, { backend });
    const w = Float64Array.from([1, 2, 3, 4]);
    expectClose(flat(g(w)), numeric(f, w), 1e-7);
    at = 3;
    n = 4;
    expectClose(flat(g(w)), numeric(f, w), 1e-7);
    expect(compilations(g)).toBe(1);
    at = 1.5;
    expect(thrown(() => g(w)).message).toMatch(/`at`, which the TypeScript function `f` reads from outside/);
  });

  it("arrays of typed arrays, objects of data, and a helper reading its module's constant", () => {
    const rows = [Float64Array.from([1, 2]), Float64Array.from([3, -1])];
    const params = { bias: 0.25, weights: [0.5, -1] };
    const f = (x: Float64Array) => {
      let s = params.bias;
      for (let i = 0; i < rows.length; i++) s += (rows[i]![0]! * x[0]! + rows[i]![1]! * x[1]!) * params.weights[i]!;
      return s * s + scaled(x, 0) + scaled(x, 2);
    };
    const g = grad(f, { backend });
    const x = Float64Array.from([0.7, -0.4, 1.1]);
    expectClose(flat(g(x)), numeric(f, x), 1e-7);
    rows[1]![0] = -5;
    params.bias = -1;
    SCALE[2] = 4;
    expectClose(flat(g(x)), numeric(f, x), 1e-7);
    SCALE[2] = 1.5;
    expect(compilations(g)).toBe(1);
  });

  it("a whole object passed to a helper, and changed shapes reuse the program (it is size-polymorphic)", () => {
    let data = { X: matrixOf(4, 2), t: Float64Array.from({ length: 4 }, random) };
    const residual = (w: Float64Array, d: { X: number[][]; t: Float64Array }) => {
      let s = 0;
      for (let i = 0; i < d.X.length; i++) {
        const r = d.X[i]![0]! * w[0]! + d.X[i]![1]! * w[1]! - d.t[i]!;
        s += r * r;
      }
      return s;
    };
    const loss = (w: Float64Array) => residual(w, data);
    const g = grad(loss, { backend });
    const w = Float64Array.from([0.2, 0.9]);
    expectClose(flat(g(w)), numeric(loss, w), 1e-7);
    const before = compilations();
    data = { X: matrixOf(9, 2), t: Float64Array.from({ length: 9 }, random) };
    expectClose(flat(g(w)), numeric(loss, w), 1e-7);
    expect(compilations()).toBe(before);
  });

  it("a captured Float64Array of a million numbers (refused before: at most 4,096)", () => {
    const n = 1_000_000;
    const X = Float64Array.from({ length: n }, (_, i) => Math.sin(i));
    const loss = (w: number) => {
      let s = 0;
      for (let i = 0; i < X.length; i++) s += (w * X[i]! - 1) ** 2;
      return s;
    };
    const g = grad(loss, { backend });
    const byHand = (w: number) => X.reduce((s, x) => s + 2 * (w * x - 1) * x, 0);
    expect(g(0.5)).toBeCloseTo(byHand(0.5), 4);
    X.fill(0.5);
    expect(g(0.5)).toBeCloseTo(byHand(0.5), 4);
    expect(compilations(g)).toBe(1);
  });

  it("every transform passes the data on", () => {
    const A = matrixOf(3, 3);
    const f = (x: Float64Array) => A.map((row) => row[0]! * x[0]! + row[1]! * Math.sin(x[1]!) + row[2]! * x[2]! ** 2);
    const x = Float64Array.from([0.3, 0.8, -0.5]);
    const J = jacobian(f, { backend })(x) as Float64Array[];
    const Jnum = [0, 1, 2].map((i) => numericGradient((p) => f(Float64Array.from(p))[i]!, Array.from(x)));
    expectClose(
      J.flatMap((r) => Array.from(r)),
      Jnum.flat(),
      1e-7,
    );
    const s = (x: Float64Array) => f(x).reduce((a, b) => a + b * b, 0);
    const H = hessian(s, { backend })(x) as Float64Array[];
    const Hnum = [0, 1, 2].map((i) =>
      numericGradient((p) => numeric(s, Float64Array.from(p))[i]!, Array.from(x), 1e-4),
    );
    expectClose(
      H.flatMap((r) => Array.from(r)),
      Hnum.flat(),
      1e-4,
    );
    const [, t] = jvp(s, [x], [Float64Array.from([1, 0, 0])]);
    expect(t).toBeCloseTo(numeric(s, x)[0]!, 6);
    const [, pullback] = vjp(s, x);
    expectClose(flat(pullback(1)), numeric(s, x), 1e-7);
    const batch = [x, Float64Array.from([1, 2, 3])];
    expectClose(flat(vmap(s, { backend })(batch)), batch.map(s), 1e-12);
  });
});

describe("the compile cache: keyed by source and the types of the data read", () => {
  it("a closure made afresh in a loop compiles once, and every closure sees its own k", () => {
    const before = compilations();
    for (let k = 0; k < 200; k++) {
      const d = grad((x: number) => x * k + Math.sin(x))(1);
      expect(d).toBeCloseTo(k + Math.cos(1), 13);
    }
    expect(compilations() - before).toBe(1);
  });

  it("another type of the data read is another program; back to the first type reuses it", () => {
    const make = (scale: unknown) => (x: Float64Array) => x[0]! * (scale as number[])[0]! + x[1]!;
    const before = compilations();
    const x = Float64Array.from([2, 3]);
    // A JS array of numbers and a Float64Array are both a Vector; an Int32Array is an array of Indexes.
    expect(flat(grad(make([3]))(x))).toEqual([3, 1]);
    expect(flat(grad(make(Float64Array.from([4])))(x))).toEqual([4, 1]);
    expect(compilations() - before).toBe(1);
    expect(flat(grad(make(Int32Array.from([5])))(x))).toEqual([5, 1]);
    expect(flat(grad(make([6]))(x))).toEqual([6, 1]);
    expect(compilations() - before).toBe(2);
  });

  it("the same text at another place, or calling another helper, is translated for itself", () => {
    const h1 = (x: number) => x * 2;
    const h2 = (x: number) => x * x;
    const make = (h: (x: number) => number) => (x: number) => h(x) + 1;
    expect(grad(make(h1))(3)).toBe(2);
    expect(grad(make(h2))(3)).toBe(6);
    expect(grad(make(h1))(3)).toBe(2);
  });
});

describe("data that cannot be read is a located error", () => {
  it("a string, a function value, and data that is no longer there", () => {
    const label = "a";
    const e = thrown(() => grad((x: number) => x * (label as unknown as number))(1));
    expect(e.message).toMatch(/`label` is a string, which Smooth cannot read/);
    let data: { X?: number[] } = { X: [1, 2] };
    const g = grad((x: number) => x * data.X![0]!);
    expect(g(2)).toBe(1);
    data = {};
    expect(thrown(() => g(2)).message).toMatch(/data\.X/);
  });

  it("withClosure marks a function's variables by hand (what the bundler plugin writes)", () => {
    let c = 3;
    const f = withClosure(
      (x: number) => c * x * x,
      () => ({ c }),
    );
    expect(grad(f)(2)).toBe(12);
    c = 1;
    expect(grad(f)(2)).toBe(4);
  });
});
