// Passes that grew faster than the program (issue 15 item 2), as regression tests on sizes, never on time: the inliner
// on a chain of higher-order helpers (it doubled its work per level), the checker on many definitions (each copied
// all the earlier ones), the inliner's size guard, and the interpreter's reverse mode (it copied the adjoint array at
// every step of a sum's gradient: quadratic).

import { describe, expect, test } from "vitest";
import { loadProgram } from "../../src/api/program.js";
import { lowerEntry } from "../../src/ir/lower.js";
import { ownership } from "../../src/lowering/ownership.js";
import { inlineFunction } from "../../src/opt/inline.js";
import { runPipeline } from "../../src/opt/pass.js";
import { PASSES } from "../../src/opt/pipeline.js";
import { SmoothError } from "../../src/syntax/diagnostics.js";
import { DOUBLE } from "../../src/types/types.js";

/** g_i k x = g_{i-1} k x + 1, and main applies g_n to a lambda. */
function helperChain(n: number): string {
  const lines = ["let g0 = fun (k: Double -> Double) (x: Double) -> k x"];
  for (let i = 1; i <= n; i++) lines.push(`let g${i} = fun (k: Double -> Double) (x: Double) -> g${i - 1} k x + 1.`);
  lines.push(`let main = fun (x: Double) -> g${n} (fun y -> y * 2.) x`);
  return lines.join("\n");
}

const expanded = (text: string) => {
  const p = loadProgram({ name: "chain.smooth", text });
  return runPipeline(lowerEntry(p.checked, "main", [DOUBLE]), [PASSES["forward-ad"]!]);
};

describe("the inliner", () => {
  test("copies linearly many nodes for a chain of higher-order helpers (2^n before)", () => {
    // 60 levels within a budget of 100000 copied nodes: doubling per level would need 2^60.
    const fn = inlineFunction(expanded(helperChain(60)), { maxCopied: 100_000 });
    const p = loadProgram({ name: "chain.smooth", text: helperChain(60) });
    expect(p.runJson("main", [1], "js")).toBe(62);
    expect(p.runJson("main", [1], "interp")).toBe(62);
    expect(fn.name).toBe("main");
  });

  test("refuses a program whose inlining exceeds its budget with a clear error", () => {
    let error: unknown;
    try {
      inlineFunction(expanded(helperChain(60)), { maxCopied: 500 });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(SmoothError);
    expect((error as SmoothError).message).toContain("too large once its functions are inlined");
  });
});

describe("the checker", () => {
  test("checks 20000 definitions, each seeing all the earlier ones (a view of them, not a copy per definition)", () => {
    const lines = Array.from({ length: 20_000 }, (_, i) => `let d${i} = fun (x: Double) -> x + ${i}.`);
    lines.push("let main = fun (x: Double) -> d19999 (d0 x)");
    const p = loadProgram({ name: "defs.smooth", text: lines.join("\n") });
    expect(p.checked.defs.length).toBeGreaterThan(20_000);
    expect(p.runJson("main", [1], "js")).toBe(20_000);
  });
});

describe("the interpreter's reverse mode", () => {
  test("a sum's gradient at n = 10^5 accumulates in place (the updates the ownership analysis allows)", () => {
    const p = loadProgram({ name: "sum.smooth", text: "let f = fun (v: Vector) -> vectorSum v" });
    const n = 100_000;
    const v = Array.from({ length: n }, (_, i) => i % 7);
    const argTypes = p.argTypesFromJson("f", [v]);
    const spec = p.derivative("f", argTypes, [0], "interp", undefined, "gradient");
    // The program the interpreter runs is first-order, and its adjoint accumulation is an in-place update.
    expect(ownership(spec.lowered).inPlace.size).toBeGreaterThan(0);
    const grad = spec.run([{ tag: "dense", elemKind: "double", shape: [n], data: Float64Array.from(v) }]);
    expect(typeof grad === "object" && grad.tag === "dense" && grad.data.every((x) => x === 1)).toBe(true);
  });
});
