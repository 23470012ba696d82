// Integers and doubles in one function (issue 29): JavaScript has one number type, the translation two. The cases the
// probe found, then generated functions that mix integer constants, variables assigned both an integer and a double,
// and integers used as indexes: each one's value is the function's own and its gradient central differences of it.

import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { compile, grad } from "../../src/index.js";
import { expectClose, numericGradient } from "../library/helpers.js";

type Plain = (v: Float64Array, y: number) => number;

/** The function's value through Smooth, and its gradient in both arguments, against the function itself. */
function agrees(f: Plain, v: Float64Array, y: number): void {
  expect(compile(f)(v, y)).toBeCloseTo(f(v, y), 10);
  const [dv, dy] = grad(f, { argnums: [0, 1] })(v, y) as [Float64Array, number];
  const at = (x: number[]) => f(Float64Array.from(x.slice(0, v.length)), x[v.length]!);
  expectClose([...dv, dy], numericGradient(at, [...v, y]), 1e-5);
}

describe("integers and doubles", () => {
  it("a variable assigned an integer constant, then a double: `let a = k; a = a * y`", () => {
    // "wrong argument types for double": the literal 3 of `k` was one node, typed in `double 3` and in `3 > 1`.
    const f = (_v: Float64Array, y: number) => {
      const k = 3;
      let a = k;
      a = a * y;
      return k > 1 ? a : y;
    };
    agrees(f, new Float64Array([1]), 0.7);
  });

  it("a remainder of integers only literals decide: `let j = 0; j = j + 1; switch (j % 3)`", () => {
    // The language types an integer literal nothing else decides as a Double: j % 3 divided 1. / 3. and was 0, so the
    // switch took case 0 (a wrong value, silently; found by test/fuzz/plain-functions.test.ts).
    const f = (v: Float64Array, y: number) => {
      let s = 0;
      let j = 0;
      j = j + 1;
      switch (j % 3) {
        case 0:
          s += y;
          break;
        case 1:
          s *= v[0]!;
          break;
        default:
          s -= v[0]!;
      }
      let m = 7;
      m = m - 12;
      return s + y + (m % 3 === -2 ? 10 * y : 0);
    };
    agrees(f, new Float64Array([0.5]), 0.7);
  });

  it("an index computed from a constant: `v[(i + k) % n]`", () => {
    const f = (v: Float64Array, y: number) => {
      const k = 2;
      const n = v.length;
      let s = k * y;
      for (let i = 0; i < n; i++) s += v[(i + k) % n]! * v[i]! * (k > 1 ? y : 1);
      return s;
    };
    agrees(f, new Float64Array([0.5, -1, 2, 0.25]), 1.3);
  });
});

/** Statements over `v` (an array), `y` (a number), `n = v.length`, integer constants and `a`, `s`, `j`. */
const STATEMENTS: readonly ((c: number) => string)[] = [
  (c) => `a = a * y + ${c};`,
  (c) => `a = a + ${c};`,
  () => "a = k;",
  () => "s += a * y;",
  () => "s += v[(j + k) % n] * y;",
  (c) => `j = (j + ${c}) % n;`,
  () => "for (let i = 0; i < n; i++) s += v[(i + k) % n] * a;",
  (c) => `for (let i = ${c}; i < n; i++) { a = a + v[i]; j = i; }`,
  () => "if (k > 1) a = a * v[j]; else a = k;",
  () => "s += Math.sin(a) * (j + 1);",
  (c) => `const b${c} = k > 1 ? a : ${c}; s += b${c} * y;`,
  (c) => `let m${c} = ${c}; m${c} = m${c} * 2 + j; s += v[m${c} % n] + m${c};`,
  () => "s += Math.sqrt(a * a + 1) * k;",
];

const arbFunction = fc
  .record({
    k: fc.integer({ min: 0, max: 4 }),
    a: fc.oneof(fc.integer({ min: -3, max: 3 }).map(String), fc.constant("k"), fc.constant("y")),
    body: fc.array(fc.tuple(fc.nat(STATEMENTS.length - 1), fc.integer({ min: 0, max: 3 })), { maxLength: 6 }),
    result: fc.constantFrom("s + a", "k > 1 ? a + s : y + s", "s * y + j", "a * j + s"),
  })
  .map(({ k, a, body, result }) => {
    // Each statement's constant is made unique, so that declarations inside do not clash.
    const statements = body.map(([t, c], i) => STATEMENTS[t]!(c + 4 * i));
    return [
      "const n = v.length;",
      `const k = ${k};`,
      `let a = ${a};`,
      "let s = 0;",
      "let j = 0;",
      ...statements,
      `return ${result};`,
    ].join("\n");
  });

describe("generated functions mixing integers and doubles", () => {
  it("compute their own values and gradients (fixed seed)", () => {
    const v = new Float64Array([0.3, -0.8, 1.1, 0.6, -0.2]);
    fc.assert(
      fc.property(arbFunction, (body) => {
        // eslint-disable-next-line @typescript-eslint/no-implied-eval -- the generated function is the test's input
        const f = new Function("v", "y", body) as Plain;
        agrees(f, v, 0.9);
      }),
      { seed: 29, numRuns: 40 },
    );
  });
});
