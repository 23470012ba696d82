// The TypeScript subset construct by construct: each function's value equals the function's own (run as JavaScript),
// and its gradient central differences of itself.

import { describe, expect, it } from "vitest";
import { compile, grad, inspect, typescriptModule, vmap, type AnyFunction } from "../../src/index.js";
import { expectClose, numericGradient } from "../library/helpers.js";

/** The function's value through Smooth, and its gradient along its number arguments, against the function itself. */
function agrees(f: AnyFunction, args: unknown[], wrt: number[] = [0]): void {
  expect(compile(f)(...args)).toBeCloseTo(f(...args) as number, 11);
  const grads = grad(f, { argnums: wrt })(...args) as unknown[];
  wrt.forEach((k, i) => {
    const arg = args[k];
    const flat = typeof arg === "number" ? [arg] : Array.from(arg as Float64Array);
    const at = (x: number[]) =>
      f(...args.map((a, j) => (j !== k ? a : typeof arg === "number" ? x[0] : Float64Array.from(x)))) as number;
    const g = grads[i];
    expectClose(typeof g === "number" ? [g] : Array.from(g as Float64Array), numericGradient(at, flat), 1e-6);
  });
}

describe("statements", () => {
  it("let, reassignment, compound assignment, ++ and --", () => {
    function f(x: number) {
      let y = x;
      y *= 3;
      y -= 1;
      let n = 0;
      n++;
      n += 2;
      n--;
      y /= n;
      return y ** 2;
    }
    agrees(f, [0.7]);
  });

  it("if / else with assignments in both branches, and without else", () => {
    function f(x: number, y: number) {
      let a = x;
      let b = 0.25;
      if (x > y) {
        a = x * y;
        b = 1;
      } else b += Math.sin(y);
      if (b > 0.5) a += b;
      return a * b;
    }
    agrees(f, [0.3, 1.2], [0, 1]);
    agrees(f, [1.5, 0.2], [0, 1]);
  });

  it("early returns, in branches and in a loop", () => {
    function firstAbove(x: Float64Array, t: number) {
      for (let i = 0; i < x.length; i++) if (x[i]! > t) return x[i]! * t;
      return -t;
    }
    agrees(firstAbove, [new Float64Array([0.1, 0.5, 0.9, 2]), 0.6], [0, 1]);
    agrees(firstAbove, [new Float64Array([0.1, 0.5]), 0.6], [0, 1]);
  });

  it("break and continue", () => {
    function f(x: Float64Array) {
      let s = 0;
      for (let i = 0; i < x.length; i++) {
        if (x[i]! < 0) continue;
        if (s > 2) break;
        s += x[i]! * x[i]!;
      }
      return s;
    }
    agrees(f, [new Float64Array([0.5, -1, 0.8, 1.2, 0.9, 2])]);
  });

  it("decreasing loops, steps, <=, a loop counter against a Double bound, for-of, forEach", () => {
    function f(x: Float64Array, t: number) {
      let s = 0;
      for (let i = x.length - 1; i >= 0; i -= 2) s += x[i]!;
      for (let i = 0; i <= 3; i++) s *= 1.1;
      for (let i = 0; i < t; i++) s += i * t;
      for (const v of x) s += Math.exp(v);
      x.forEach((v, i) => {
        s += v * i;
      });
      return s;
    }
    agrees(f, [new Float64Array([0.1, 0.2, 0.3, 0.4, 0.5]), 2.5], [0, 1]);
  });

  it('several variables in a for loop\'s initialiser, and p["key"]', () => {
    function f(p: { w: Float64Array; b: number }) {
      let s = p["b"];
      for (let i = 0, n = p.w.length; i < n; i++) s += p["w"][i]! * (i + 1);
      return s * s;
    }
    const g = grad(f)({ w: new Float64Array([1, 2]), b: 0.5 });
    // s = b + w0 + 2 w1 = 5.5: ∂w = 2 s (1, 2), ∂b = 2 s.
    expect(g).toEqual({ w: new Float64Array([11, 22]), b: 11 });
  });

  it("destructuring of objects and tuples; objects returned as objects", () => {
    function split(p: { w: Float64Array; b: number }) {
      const { w, b } = p;
      const [first, second] = w;
      return { head: first! * b, tail: second! + b };
    }
    expect(compile(split)({ w: new Float64Array([2, 3]), b: 4 })).toEqual({ head: 8, tail: 7 });
    const g = grad((p: { w: Float64Array; b: number }) => {
      const { head, tail } = split(p);
      return head * tail;
    })({ w: new Float64Array([2, 3]), b: 4 });
    // head tail = w0 b (w1 + b): ∂w0 = b (w1 + b), ∂w1 = w0 b, ∂b = w0 (w1 + b) + w0 b
    expect(g).toEqual({ w: new Float64Array([28, 8]), b: 22 });
  });

  it("writes into a local Float64Array, element by element and nested", () => {
    function f(x: Float64Array) {
      const y = new Float64Array(x.length);
      for (let i = 0; i < x.length; i++) y[i] = x[i]! * (i + 1);
      y[0]! += 1;
      const m = Array.from({ length: 2 }, () => new Float64Array(2));
      m[1]![0] = y[1]!;
      m[0]![1] = y[0]! * y[2]!;
      return m[0]![1] + m[1]![0] * 3;
    }
    agrees(f, [new Float64Array([0.5, 1.5, 2.5])]);
  });

  it("local functions, map, reduce (with and without a start), Array.from, fill, slice", () => {
    function f(x: Float64Array) {
      const square = (v: number) => v * v;
      const ys = Array.from(x, (v, i) => square(v) + i);
      const total = ys.reduce((a, b) => a + b);
      const doubled = x.map((v) => 2 * v);
      const head = doubled.slice(1, 3).reduce((a, v) => a + v, 0);
      const ones = new Float64Array(3).fill(1);
      return total * head + ones[2]! + Math.max(...x);
    }
    agrees(f, [new Float64Array([0.3, 0.7, 1.1, 0.2])]);
  });

  it("Math: the supported functions against JavaScript's", () => {
    function f(x: number) {
      return (
        Math.abs(x - 1) +
        Math.ceil(x * 3) +
        Math.round(x * 7) +
        Math.trunc(-x * 5) +
        Math.sign(x - 2) +
        Math.cbrt(x - 2) +
        Math.log1p(x) +
        Math.expm1(x / 2) +
        Math.log2(x + 1) +
        Math.log10(x + 2) +
        Math.sinh(x) +
        Math.cosh(x / 3) +
        Math.hypot(x, 2, 0.5) +
        Math.pow(x, 3) +
        Math.min(x, 1, 0.5 * x) +
        Math.tan(x / 4) +
        (x % 0.3) +
        Math.PI * Math.E
      );
    }
    for (const x of [0.37, 1.61, 2.3]) agrees(f, [x]);
  });
});

describe("programs", () => {
  it("are compiled once per argument types, for any sizes, and read like the source", () => {
    function norm2(v: Float64Array) {
      let s = 0;
      for (let i = 0; i < v.length; i++) s += v[i]! * v[i]!;
      return s;
    }
    const g = grad(norm2);
    expect(g(new Float64Array([1, 2]))).toEqual(new Float64Array([2, 4]));
    expect(g(new Float64Array([1, 2, 3]))).toEqual(new Float64Array([2, 4, 6]));
    expect(inspect(compile(norm2), new Float64Array(3)).smooth).toMatch(/^let norm2 \(v: Vector\) =/);
  });

  it("a module's functions call each other and read its constants (typescriptModule)", () => {
    const m = typescriptModule(`
      const SCALE = 2.5;
      function inner(x: number): number { return SCALE * x * x; }
      export const outer = (x: number, y: number) => inner(x) + inner(y) * x;
    `);
    expect(m.outer!(2, 3)).toBe(2.5 * 4 + 2.5 * 9 * 2);
    expect(grad(m.outer!, { argnums: [0, 1] })(2, 3)).toEqual([2.5 * 4 + 2.5 * 9, 2.5 * 2 * 3 * 2]);
  });

  it("vmap of the gradient of a plain function", () => {
    const f = (x: Float64Array) => x[0]! * x[1]! + Math.sin(x[0]!);
    const rows = vmap(grad(f))([new Float64Array([1, 2]), new Float64Array([3, 4])]) as Float64Array[];
    expectClose(Array.from(rows[1]!), [4 + Math.cos(3), 3], 1e-14);
  });
});

describe("variables declared without a value", () => {
  it("are assigned on every path before they are read", () => {
    function f(x: number) {
      let y: number;
      if (x > 0) y = Math.sqrt(x);
      else y = -x * x;
      return y * 3;
    }
    agrees(f, [2]);
    agrees(f, [-2]);
    const m = typescriptModule(
      "export function g(x: number) {\n  let y: number;\n  if (x > 0) y = x;\n  return y;\n}",
      { fileName: "g.ts" },
    );
    expect(() => m.g!(1)).toThrow(/g\.ts:3:3: type error: `y` is not assigned a value on every path/);
    const read = typescriptModule("export function h(x: number) {\n  let y: number;\n  return y + x;\n}", {
      fileName: "h.ts",
    });
    expect(() => read.h!(1)).toThrow(/h\.ts:3:10: type error: `y` is read before it is assigned a value/);
  });
});
