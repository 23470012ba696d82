// Code as people write it (issue 28 item 6), construct by construct: each function's value is the function's own (run
// as JavaScript) and its gradient central differences of the function itself.

import { describe, expect, it } from "vitest";
import { compile, grad, type AnyFunction } from "../../src/index.js";
import { expectClose, numericGradient } from "../library/helpers.js";

/** The function's value through Smooth, and its gradient in the arguments `wrt`, against the function itself. */
function agrees(f: AnyFunction, args: unknown[], wrt: number[] = [0]): void {
  expect(compile(f)(...args)).toBeCloseTo(f(...args) as number, 10);
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

const v = new Float64Array([0.7, -1.2, 1.9, 0.4, -0.3]);

describe("local arrays", () => {
  it("written element by element in a loop bounded by their own length", () => {
    // (Its bound reads the array the body writes: TypeScript's compiler crashed on it with "Debug Failure".)
    function f(x: Float64Array) {
      const a = new Float64Array(x.length);
      for (let i = 0; i < a.length; i++) a[i] = x[i]! * x[i]! + i;
      let s = 0;
      for (let i = 0; i < a.length; i++) s += a[i]! * x[i]!;
      return s;
    }
    agrees(f, [v]);
  });

  it("push onto an empty array, of numbers and of objects, in loops and branches", () => {
    function positives(x: Float64Array) {
      const out: number[] = [];
      for (let i = 0; i < x.length; i++) if (x[i]! > 0) out.push(x[i]! * x[i]!);
      let s = 0;
      for (const y of out) s += y;
      return s + out.length;
    }
    agrees(positives, [v]);
    function points(x: Float64Array) {
      const pts: { a: number; b: number }[] = [];
      for (let i = 0; i + 1 < x.length; i++) pts.push({ a: x[i]!, b: x[i + 1]! * 2 });
      pts.push({ a: 1, b: x[0]! });
      return pts.reduce((s, p) => s + p.a * p.b, 0);
    }
    agrees(points, [v]);
  });

  it("push onto a parameter is a located error (JavaScript would change the caller's array)", () => {
    function f(x: number[]) {
      x.push(1);
      return x[0]!;
    }
    expect(() => grad(f)([1, 2])).toThrow(
      /\(in `f`\): unsupported error: `x` is not an array or object this function made/,
    );
  });
});

describe("switch", () => {
  it("cases, fall-through, a default in the middle, break", () => {
    // (JavaScript made at run time: the test's TypeScript settings refuse a case that falls through.)
    // eslint-disable-next-line @typescript-eslint/no-implied-eval -- the function under test
    const f = new Function(
      "x",
      "mode",
      `let s = x[0];
      switch (mode) {
        case 0:
          s = x[1] * 3;
          break;
        default:
          s *= 2;
        case 1:
        case 2:
          s += x[2] * x[3];
          break;
        case 3: {
          const t = Math.sin(x[4]);
          s = t * s;
        }
      }
      return s;`,
    ) as (x: Float64Array, mode: number) => number;
    for (const mode of [0, 1, 2, 3, 4, 7]) agrees(f, [v, mode]);
  });

  it("in a loop, with continue and return in its cases", () => {
    function f(x: Float64Array) {
      let s = 0;
      for (let i = 0; i < x.length; i++) {
        switch (i % 3) {
          case 0:
            s += x[i]!;
            break;
          case 1:
            continue;
          default:
            if (i > 3) return s * x[i]!;
        }
        s *= 1.5;
      }
      return s;
    }
    agrees(f, [v]);
    agrees(f, [v.slice(0, 3)]);
  });
});

describe("spread", () => {
  it("of arrays into an array literal", () => {
    function f(x: Float64Array) {
      const w = [...x, 1, ...x.map((y) => y * 2), x[0]! * x[1]!];
      return w.reduce((s, y) => s + y * y, 0) + w.length;
    }
    agrees(f, [v]);
  });

  it("of objects into an object literal, a later property replacing an earlier one", () => {
    function f(x: Float64Array) {
      const p = { a: x[0]!, b: x[1]!, c: 2 };
      const q = { ...p, b: p.b * 3 };
      const r = { ...q, d: q.a + q.c };
      return r.a * r.b + r.c * r.d;
    }
    agrees(f, [v]);
  });
});

describe("destructuring", () => {
  it("arrays and objects, nested, with defaults and rests", () => {
    function f(x: Float64Array) {
      const [a, b = 2, ...rest] = x;
      const [p, , q = 5] = [a! * b, 0];
      const total = rest.reduce((s, y) => s + y * y, 0);
      const { pos, mass = 1.5, ...others } = { pos: [a!, b], spin: b * b, charge: total };
      const [px, py] = pos;
      const { spin, charge } = others;
      return px! * py! * mass + spin * charge + p * q + rest.length;
    }
    agrees(f, [v]);
    agrees(f, [v.slice(0, 1)]);
  });

  it("assignments of patterns: a swap, and the parts of an object", () => {
    function f(x: Float64Array) {
      let a = x[0]!;
      let b = x[1]!;
      for (let i = 0; i < 3; i++) [a, b] = [b, a * 2 + b];
      let c: number;
      let d: number;
      // eslint-disable-next-line prefer-const -- the assignment of a pattern is what is tested
      ({ c, d } = { c: a * b, d: a - b });
      return c + d * d;
    }
    agrees(f, [v]);
  });

  it("parameters with default values, in a function the entry calls", () => {
    function scaled(x: number, k = 2, shift = k * 0.5) {
      return x * k + shift;
    }
    function f(x: Float64Array) {
      return scaled(x[0]!) + scaled(x[1]!, 3) + scaled(x[2]!, x[3], 1);
    }
    agrees(f, [v]);
  });
});

describe("Math", () => {
  it("atan2, atan, asin, acos and the inverse hyperbolic functions, against JavaScript's, on both back ends", () => {
    function f(x: Float64Array) {
      return (
        Math.atan2(x[0]!, x[1]!) +
        Math.atan2(-x[2]!, x[3]!) * 2 +
        Math.atan(x[0]! * 3) +
        Math.asin(x[3]! / 2) +
        Math.acos(x[4]!) +
        Math.asinh(x[1]! * 4) +
        Math.acosh(2 + x[2]!) +
        Math.atanh(x[4]!) +
        Math.hypot(x[0]!, x[1]!) * Math.sign(x[1]!) +
        Math.cbrt(x[1]!)
      );
    }
    agrees(f, [v]);
    expect(compile(f, { backend: "js" })(v)).toBeCloseTo(f(v), 12);
    expect(compile(f, { backend: "wasm" })(v)).toBeCloseTo(f(v), 12);
  });

  it("second derivatives of atan2 and asin, against their closed forms", () => {
    // d²/dx² atan2(x, 2) = -4x / (x² + 4)², d²/dx² asin(x) = x / (1 - x²)^(3/2).
    const g = grad(grad((x: number) => Math.atan2(x, 2) + Math.asin(x / 3)));
    for (const x of [-1.3, 0.2, 0.9]) {
      const y = x / 3;
      expect(g(x)).toBeCloseTo((-4 * x) / (x * x + 4) ** 2 + y / (1 - y * y) ** 1.5 / 9, 12);
    }
  });
});

describe("bit operators", () => {
  it("on integers, as JavaScript computes them in 32 bits, on every back end", () => {
    function f(x: Float64Array, n: number) {
      let s = 0;
      for (let i = 0; i < x.length; i++) {
        const k = ((i * 7) ^ (i >> 1)) & 3;
        s += x[k]! * ((k << 2) | 1) + x[i]! * (~i + (-i >>> 28) + (i << 3));
      }
      let h = n | 0;
      h ^= h << 13;
      h ^= h >>> 17;
      h |= 1;
      // (h << 30 wraps around to a negative number, as in JavaScript.)
      return s + (h >>> 0) * 1e-9 + ((x[0]! * 100 + 0.5) | 0) + ((h << 30) >> 28);
    }
    agrees(f, [v, 12345]);
    for (const backend of ["js", "wasm"] as const) expect(compile(f, { backend })(v, 99)).toBe(f(v, 99));
  });
});
