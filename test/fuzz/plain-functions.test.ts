// Generated plain functions (issue 28, "a property test"): loops, branches, a while loop, a switch, local helpers,
// closures returned by functions, objects, arrays made by map and push, a number captured from the enclosing scope,
// integers beyond 32 bits and divisors that are 0. No gradient may come back wrong without an error: either the value
// is the function's own (NaN and infinities too) and the gradient equals central differences of the function run as
// JavaScript, or a SmoothError located in the function is thrown.
// The fixed seed of test/setup.ts in CI; `npm run fuzz` runs SMOOTH_FUZZ_SCALE (10; 100 with --long) times as many.

import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { compile, grad } from "../../src/index.js";
import { SmoothError } from "../../src/syntax/diagnostics.js";

type Plain = (v: Float64Array, y: number) => number;

const SCALE = Number(process.env.SMOOTH_FUZZ_SCALE ?? 1);

/** Statement templates; `k` makes the names a statement declares unique. `s` is the Double state, `j` an integer. */
const STATEMENTS: ((k: number) => string)[] = [
  () => "for (let i = 0; i < n; i++) s += Math.sin(v[i] * c + s) * y;",
  () => "if (s > c) s = s * y; else s = s - y * y;",
  (k) => `const w${k} = v.map((x) => x * y + c);\ns += w${k}.reduce((a, b) => a + b, 0) * 0.1;`,
  (k) => `const h${k} = (a) => a * a * c + y;\ns = h${k}(s * 0.1);`,
  (k) => `let t${k} = 0;\nwhile (t${k} < 3) { s = Math.tanh(s) + v[t${k}] * c; t${k}++; }`,
  () => "s = Math.max(s, y * c);",
  (k) => `const p${k} = { a: s, b: y };\ns = p${k}.a * p${k}.b + c;`,
  () => "switch (j % 3) { case 0: s += y; break; case 1: s *= c; break; default: s -= v[0]; }",
  () => "j = j + 1;",
  () => "s = s / (1 + y * y);",
  (k) => `const mul${k} = (a) => (x) => a * x;\ns += mul${k}(c)(y) + mul${k}(s)(0.5);`,
  () => "s += Math.exp(-s * s) * v[j % n];",
  (k) => `const q${k} = [];\nfor (const x of v) q${k}.push(x * s);\ns = q${k}[1] + y;`,
  (k) => `const twice${k} = (f, x) => f(f(x));\ns = twice${k}((z) => z * c + Math.cos(z), s);`,
  () => "for (let i = n - 1; i >= 0; i--) { if (v[i] > 0) s += v[i] * y; else s -= Math.sqrt(v[i] * v[i] + 1); }",
  () => "s = Math.abs(s - c) + Math.hypot(s, y);",
  // Integers beyond 32 bits, and divisors that are 0 (n is 4): JavaScript computes them in doubles (NaN, Infinity).
  () => "j = (j * 46341 + 7) % 1000003;",
  () => "j = j + 2147483647;",
  () => "s += v[(j * 46341) % n] * y;",
  () => "s += j % (n - 4) === j % (n - 4) ? 0 : y;",
  () => "s += Math.atan((j + 1) / (n - 4)) * y;",
];

/** The text of a factory taking the captured number `c` and returning the function. */
const arbFactory = fc
  .record({
    body: fc.array(fc.nat(STATEMENTS.length - 1), { minLength: 1, maxLength: 6 }),
    result: fc.constantFrom("s + y", "s * y + j", "j > 1 ? s : s * c"),
  })
  .map(({ body, result }) =>
    [
      "return function generated(v, y) {",
      "  const n = v.length;",
      "  let s = 0;",
      "  let j = 0;",
      ...body.map((t, k) => STATEMENTS[t]!(k)),
      `  return ${result};`,
      "};",
    ].join("\n"),
  );

/** Central differences of g at x along each coordinate, with step h. */
function differences(g: (x: number[]) => number, x: readonly number[], h: number): number[] {
  return x.map((_, i) => {
    const up = [...x];
    const down = [...x];
    up[i]! += h;
    down[i]! -= h;
    return (g(up) - g(down)) / (2 * h);
  });
}

const close = (a: number, b: number, tol: number) => Math.abs(a - b) <= tol * (1 + Math.abs(b));

/** The property: the function's own value and a gradient equal to central differences, or a located SmoothError. */
function check(factory: string, c: number): void {
  // eslint-disable-next-line @typescript-eslint/no-implied-eval -- the generated function is the test's input
  const f = (new Function("c", factory) as (c: number) => Plain)(c);
  const v = new Float64Array([0.3, -0.8, 1.1, 0.6]);
  const y = 0.7;
  const own = f(v, y);
  let value: number;
  let dv: Float64Array;
  let dy: number;
  try {
    value = compile(f)(v, y);
    [dv, dy] = grad(f, { argnums: [0, 1] })(v, y);
  } catch (e) {
    if (!(e instanceof SmoothError)) throw e;
    // A refusal says where, in the function's text.
    expect(e.span, e.message).toBeDefined();
    expect(e.span!.file.text).toContain("function generated");
    return;
  }
  if (!Number.isFinite(own)) {
    expect(Object.is(value, own), `value ${value} ≠ ${own}`).toBe(true);
    return;
  }
  expect(close(value, own, 1e-9), `value ${value} ≠ ${own}`).toBe(true);
  // Central differences with step 1e-6 lose |f| · 2^-52 / 1e-6 to rounding: no reference where the value is so large
  // (an integer beyond 32 bits added to the result) that this is not small.
  if ((Math.abs(own) * Number.EPSILON) / 1e-6 > 1e-7) return;
  const at = (x: number[]) => f(Float64Array.from(x.slice(0, 4)), x[4]!);
  const point = [...v, y];
  const coarse = differences(at, point, 1e-5);
  const fine = differences(at, point, 1e-6);
  [...dv, dy].forEach((d, i) => {
    // Where the two steps disagree the point is at a kink or a jump (a branch flips): no reference there.
    if (!close(coarse[i]!, fine[i]!, 1e-4)) return;
    expect(close(d, fine[i]!, 1e-5), `∂${i}: ${d} ≠ ${fine[i]} (central differences)`).toBe(true);
  });
}

describe("generated plain functions: a right gradient or a located error", () => {
  it("loops, branches, helpers, closures, objects and arrays (fixed seed)", () => {
    fc.assert(
      fc.property(arbFactory, fc.constantFrom(0.5, -1.3, 2), (factory, c) => check(factory, c)),
      { numRuns: Math.max(1, Math.round(40 * SCALE)) },
    );
  });
});
