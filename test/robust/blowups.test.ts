// Issue 29's compile-time blow-ups, at the sizes it names, with their values: nested `vectorSum (build 1 ...)` 40
// levels deep (it doubled per level: depth 20 took 53 s), a loop body of 10⁴ lets (3,000 overflowed the stack in the
// optimiser, and its gradient's JavaScript then needed a stack frame larger than the stack), and 10⁴ lets with `if`
// (quadratic in sinking; their Hessian one simplify iteration per let). How the costs grow is
// ./growth.test.ts's; here the programs compile and compute what the recurrences below compute.

import { describe, expect, test } from "vitest";
import { loadProgram } from "../../src/api/program.js";
import { valueToJson } from "../../src/runtime/json.js";
import { DOUBLE } from "../../src/types/types.js";
import { constructSource } from "./constructs.js";

const X = 0.3;

function derivative(text: string, kind: "gradient" | "forward" | "hessian", engine: "js" | "wasm" = "js"): number {
  const d = loadProgram({ name: "blowup.smooth", text }).derivative("main", [DOUBLE], [0], engine, undefined, kind);
  return valueToJson(d.run([X]), d.resultType) as number;
}

describe("issue 29's blow-ups compile and compute", () => {
  test("nested vectorSum (build 1 ...) 40 levels deep: x + 40, derivative 1", () => {
    const text = constructSource("nestedSum", 40);
    for (const engine of ["js", "wasm"] as const) {
      expect(loadProgram({ name: "nested.smooth", text }).runJson("main", [X], engine)).toBeCloseTo(X + 40, 12);
    }
    expect(derivative(text, "gradient")).toBe(1);
    expect(derivative(text, "forward")).toBe(1);
  });

  test("nested (build 3 ...)[1] 40 levels deep: 2^40 x, derivative 2^40", () => {
    const text = constructSource("nestedGet", 40);
    expect(loadProgram({ name: "nested.smooth", text }).runJson("main", [X], "js")).toBe(X * 2 ** 40);
    expect(derivative(text, "gradient")).toBe(2 ** 40);
  });

  test("a loop body of 10⁴ lets: its value (js, wasm) and gradient against the recurrence and the chain rule", () => {
    const k = 10_000;
    // ifold (fun s i -> a0 = s, a_{j+1} = a_j + 10⁻⁴ sin a_j, ..., a_k) x 3
    let [a, da] = [X, 1];
    for (let i = 0; i < 3 * k; i++) [a, da] = [a + 1e-4 * Math.sin(a), (1 + 1e-4 * Math.cos(a)) * da];
    const text = constructSource("loopLets", k);
    for (const engine of ["js", "wasm"] as const) {
      expect(loadProgram({ name: "loop.smooth", text }).runJson("main", [X], engine)).toBeCloseTo(a, 12);
    }
    // Its JavaScript has 10⁵ locals in loop bodies: they live in heap contexts, not in the stack frame.
    expect(derivative(text, "gradient")).toBeCloseTo(da, 12);
  });

  test("10⁴ lets with if: value and gradient against the recurrence; the Hessian of 2,000", () => {
    // a_{j+1} = if a_j > 0 then 0.999 a_j else a_j + 0.001: from 0.3 every step takes the first branch.
    const recurrence = (k: number) => {
      let [a, da] = [X, 1];
      for (let i = 0; i < k; i++) [a, da] = a > 0 ? [a * 0.999, da * 0.999] : [a + 0.001, da];
      return { a, da };
    };
    const { a, da } = recurrence(10_000);
    const text = constructSource("ifLets", 10_000);
    expect(loadProgram({ name: "ifs.smooth", text }).runJson("main", [X], "js")).toBeCloseTo(a, 14);
    expect(derivative(text, "gradient")).toBeCloseTo(da, 14);
    // Piecewise linear: the second derivative is 0 (its forward-over-reverse program folds to the literal).
    expect(derivative(constructSource("ifLets", 2000), "hessian")).toBe(0);
  });
});
