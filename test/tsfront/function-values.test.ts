// Functions as values in plain TypeScript (issue 28, item 3): higher-order helpers, closures returned from functions,
// functions stored in objects and arrays, Math's functions as callbacks. Each function's value is its own (run as
// JavaScript), its gradient equals central differences of the function itself, and the compiled code holds no closure
// (the translation specialises each call to the function it calls).

import { describe, expect, it } from "vitest";
import { compile, grad, inspect } from "../../src/index.js";
import { thrown } from "../helpers.js";
import { expectClose, numericGradient } from "../library/helpers.js";

const sq = (x: number) => x * x;
const cube = (x: number) => x * x * x;
function twice(f: (x: number) => number, x: number): number {
  return f(f(x));
}
function compose(f: (x: number) => number, g: (x: number) => number): (x: number) => number {
  return (x) => f(g(x));
}
function mapArray(f: (x: number) => number, xs: Float64Array): Float64Array {
  const out = new Float64Array(xs.length);
  for (let i = 0; i < xs.length; i++) out[i] = f(xs[i]!);
  return out;
}
const scale = (a: number) => (x: number) => a * x;
const sigmoid = (z: number) => 1 / (1 + Math.exp(-z));

/** Plain functions of one Float64Array, each written with function values. */
const CASES: Record<string, (v: Float64Array) => number> = {
  twice: (v) => twice(sq, v[0]!) + twice(cube, v[1]!),
  "twice of a closure over a local": (v) => {
    const c = v[1]!;
    return twice((y) => c * y + v[0]!, v[0]!);
  },
  "compose, with Math.sin": (v) => compose(sq, Math.sin)(v[0]!) + compose(Math.exp, scale(v[1]!))(v[0]!),
  "a closure returned by a function": (v) => scale(v[0]!)(v[1]!) + scale(2)(v[0]!),
  "a map written by the user": (v) => {
    const ys = mapArray((x) => Math.tanh(x) * v[0]!, v);
    let s = 0;
    for (let i = 0; i < ys.length; i++) s += ys[i]! * ys[i]!;
    return s;
  },
  "callbacks: xs.map(Math.sin), xs.map(sq), reduce": (v) => {
    const a = Array.from(v).map(Math.sin);
    const b = Array.from(v).map(sq);
    return a.reduce((s, x) => s + x, 0) * b[1]!;
  },
  "layers of one kind in an array": (v) => {
    const layers = [
      { act: Math.tanh, w: v[0]!, b: 0.1 },
      { act: Math.tanh, w: v[1]!, b: -0.2 },
      { act: Math.tanh, w: 0.7, b: v[2]! },
    ];
    let h = 0.5;
    for (let i = 0; i < layers.length; i++) h = layers[i]!.act(layers[i]!.w * h + layers[i]!.b);
    return h;
  },
  "layers of different kinds (for-of unrolled)": (v) => {
    const layers = [
      { act: Math.tanh, w: v[0]! },
      { act: sigmoid, w: v[1]! },
      { act: (z: number) => Math.max(0, z), w: 2 },
    ];
    let h = v[2]!;
    for (const layer of layers) h = layer.act(layer.w * h);
    return h;
  },
  "an object of functions": (v) => {
    const ops = { f: sq, g: (x: number) => x * v[1]!, h: Math.cos };
    return ops.f(v[0]!) + ops.g(v[2]!) + ops.h(v[0]! * v[1]!);
  },
  "twice of twice": (v) => {
    const tw = (f: (x: number) => number) => (y: number) => f(f(y));
    return tw(tw(sq))(v[0]!) + tw(scale(v[1]!))(v[2]!);
  },
  "a captured variable assigned after the closure is made": (v) => {
    let a = 1;
    const f = (y: number) => a * y;
    a = v[0]!;
    const before = f(v[1]!);
    a = v[2]! * 2;
    return before + f(3);
  },
  "a declared helper reading the parameters": (v) => {
    function poly(x: number): number {
      return v[0]! * x * x + v[1]! * x + v[2]!;
    }
    let s = 0;
    for (let i = 0; i < 4; i++) s += poly(i / 3);
    return s;
  },
  "an ODE step given the right-hand side": (v) => {
    const k = v[0]!;
    const rhs = (t: number, y: number) => -k * y + Math.sin(t);
    const euler = (f: (t: number, y: number) => number, y0: number, h: number, n: number) => {
      let y = y0;
      for (let i = 0; i < n; i++) y += h * f(i * h, y);
      return y;
    };
    return euler(rhs, v[1]!, 0.05, 20);
  },
};

const point = new Float64Array([0.7, -0.4, 1.3]);

describe("functions as values in plain TypeScript", () => {
  it.each(Object.entries(CASES))(
    "%s: the function's own value, and its gradient against central differences",
    (_, f) => {
      expect(compile(f)(point)).toBeCloseTo(f(point), 12);
      const g = grad(f)(point);
      expectClose(
        Array.from(g),
        numericGradient((x) => f(Float64Array.from(x)), Array.from(point)),
        1e-6,
      );
    },
  );

  it("the compiled gradient holds no closure: one specialised loop", () => {
    const loss = (w: Float64Array, xs: Float64Array) => {
      let s = 0;
      for (let i = 0; i < xs.length; i++) s += twice(scale(w[0]!), xs[i]!) + twice(sq, xs[i]!);
      return s;
    };
    const { javascript, smooth } = inspect(grad(loss), new Float64Array([2]), new Float64Array([1, 2, 3]));
    // The generated function is the only function; no arrow function or lambda is left in it.
    expect(javascript.match(/function/g)).toHaveLength(1);
    expect(javascript).not.toContain("=>");
    expect(smooth).not.toMatch(/twice|scale|sq/);
    // d/dw Σ w² x_i = 2 w Σ x_i.
    expect(Array.from(grad(loss)(new Float64Array([2]), new Float64Array([1, 2, 3])))).toEqual([24]);
  });

  it("a helper taking a function is one definition per function it is given", () => {
    const f = (x: number) => twice(sq, x) + twice(cube, x) + twice(sq, 2 * x);
    const { smooth } = inspect(compile(f), 1.1);
    expect(compile(f)(1.1)).toBeCloseTo(f(1.1), 12);
    // x⁴ + x⁹ + 16x⁴: the derivative 4x³ + 9x⁸ + 64x³.
    expect(grad(f)(1.1)).toBeCloseTo(68 * 1.1 ** 3 + 9 * 1.1 ** 8, 10);
    expect(smooth).not.toMatch(/fun /);
  });
});

describe("function values the translation refuses, each at its line", () => {
  const cases: [string, (x: number) => number, RegExp, string][] = [
    [
      "a function chosen when the program runs",
      (x) => {
        const f = x > 0 ? (y: number) => y * 2 : (y: number) => y * 3;
        return f(x);
      },
      /the branches of `\?:` give the function `\(y\) => y \* 2` and the function `\(y\) => y \* 3`/,
      "x > 0 ?",
    ],
    [
      "a variable given another function in a loop",
      (x) => {
        let f = (y: number) => y;
        for (let i = 0; i < 3; i++) {
          const g = f;
          f = (y: number) => g(y) * x;
        }
        return f(1);
      },
      /`f` held the function `\(y\) => y` and is assigned the function `\(y\) => g\(y\) \* x`/,
      "f = (y",
    ],
    [
      "a local function calling itself",
      (x) => {
        const f = (n: number): number => (n <= 0 ? 1 : x * f(n - 1));
        return f(3);
      },
      /a local function that calls itself is not supported \(`f` calls `f`\)/,
      "f(n - 1)",
    ],
    [
      "Math.max as a value",
      (x) => {
        const biggest: (v: number) => number = Math.max;
        return biggest(x);
      },
      /Math.max as a value is not supported/,
      "Math.max;",
    ],
    [
      "a function returned by the function differentiated",
      ((x: number) => (y: number) => x * y) as unknown as (x: number) => number,
      /returns a function \(the function `\(y\) => x \* y`\), which has no value outside it/,
      "(x) =>",
    ],
  ];
  it.each(cases)("%s", (_, f, message, at) => {
    const e = thrown(() => grad(f)(0.5));
    expect(e.headline).toMatch(message);
    const text = f.toString();
    const span = e.span!;
    expect(span.file.text.slice(span.start, span.start + at.length)).toBe(at);
    expect(text).toContain(at);
  });
});
