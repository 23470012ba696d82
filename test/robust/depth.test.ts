// Program size without stack depth (issue 15 item 1), on the IR side: a function of 10⁵ lets goes through the
// verifier, the printer, the interpreter, the optimiser, the code generator and both derivative transformations within
// Node's default stack (let chains are walked with loops). Its values are checked against the recurrence computed
// here, its derivatives against the chain rule. (The compiled gradient's values do not fit in a stack frame: they
// are kept in a heap context.) A program nested deeper than the compiler's recursive walks of nested
// scopes reach is a SmoothError saying so, not an internal error.

import { describe, expect, test } from "vitest";
import { loadProgram } from "../../src/api/program.js";
import { forwardDerivative } from "../../src/api/derivative-programs.js";
import { reverseGradient } from "../../src/api/reverse-programs.js";
import { AnfBuilder, litDouble } from "../../src/ir/builder.js";
import { freshVar, type Atom, type IrFunction } from "../../src/ir/ir.js";
import { printIr } from "../../src/ir/print.js";
import { verify } from "../../src/ir/verify.js";
import { compileFunction } from "../../src/codegen/compile.js";
import { runFunction } from "../../src/eval/interpreter.js";
import { runPipeline } from "../../src/opt/pass.js";
import { DERIVATIVE_PIPELINE, REVERSE_PRIMAL_PIPELINE, STANDARD_PIPELINE } from "../../src/opt/pipeline.js";
import { DOUBLE } from "../../src/types/types.js";
import { thrown } from "../helpers.js";
import { add, compile, grad, inspect, mul, sin, typescriptModule, type Tensor } from "../../src/index.js";
import { lowerEntry } from "../../src/ir/lower.js";
import { exprSize } from "../../src/ir/free.js";
import { valueToJson } from "../../src/runtime/json.js";
import { parseProgram } from "../../src/syntax/parser.js";
import { printProgram } from "../../src/syntax/printer.js";

/** a₀ = x, aᵢ₊₁ = aᵢ + 10⁻⁴ sin aᵢ, as 3 lets per step: `steps` steps (the derivative stays of order 1). */
function chain(steps: number): IrFunction {
  const x = freshVar("x", DOUBLE);
  const b = new AnfBuilder();
  let a: Atom = x;
  for (let i = 0; i < steps; i++) a = b.prim("add", [a, b.prim("mul", [b.prim("sin", [a]), litDouble(1e-4)])], "a");
  return { name: "main", params: [x], body: b.finish(a) };
}

/** The value and the derivative of the chain at x, by the recurrence and the chain rule. */
function reference(steps: number, x: number): { value: number; derivative: number } {
  let [a, da] = [x, 1];
  for (let i = 0; i < steps; i++) [a, da] = [a + 1e-4 * Math.sin(a), (1 + 1e-4 * Math.cos(a)) * da];
  return { value: a, derivative: da };
}

describe("a function of 10⁵ lets", () => {
  const steps = 33_334;
  const fn = chain(steps);
  const ref = reference(steps, 0.3);

  test("is verified, printed, interpreted, optimised and compiled", () => {
    verify(fn);
    expect(printIr(fn).split("\n").length).toBeGreaterThan(steps);
    expect(runFunction(fn, [0.3])).toBe(ref.value);
    expect(compileFunction(fn)([0.3])).toBe(ref.value);
    const optimised = runPipeline(fn, STANDARD_PIPELINE, { verify: true });
    expect(compileFunction(optimised)([0.3])).toBe(ref.value);
  });

  test("has its gradient taken in reverse mode, equal to the chain rule's, compiled and interpreted", () => {
    const primal = runPipeline(fn, REVERSE_PRIMAL_PIPELINE);
    const gradient = runPipeline(reverseGradient(primal, { wrt: [0] }), DERIVATIVE_PIPELINE);
    expect(ref.derivative).toBeGreaterThan(1);
    expect(runFunction(gradient, [0.3])).toBeCloseTo(ref.derivative, 12);
    // Its 2·10⁵ values would not fit in one stack frame: the generated code keeps them in a heap context.
    const compiled = compileFunction(gradient);
    expect(compiled.source).toContain("function $locals()");
    expect(compiled([0.3])).toBeCloseTo(ref.derivative, 12);
  });

  test("has its gradient compiled and run at 10⁴ lets, equal to the chain rule's", () => {
    const short = runPipeline(chain(3334), REVERSE_PRIMAL_PIPELINE);
    const gradient = runPipeline(reverseGradient(short, { wrt: [0] }), DERIVATIVE_PIPELINE);
    expect(compileFunction(gradient)([0.3])).toBeCloseTo(reference(3334, 0.3).derivative, 12);
  });

  test("has its derivative taken in forward mode (10⁴ lets), equal to the chain rule's", () => {
    const short = chain(3334);
    const derivative = runPipeline(forwardDerivative(short, { wrt: [0] }), DERIVATIVE_PIPELINE);
    expect(compileFunction(derivative)([0.3])).toBeCloseTo(reference(3334, 0.3).derivative, 12);
  });
});

/** `let main = fun (x: Double) ->` and n lets a_i = a_{i-1} + sin a_{i-1} · 10⁻⁴, in the layout form or with `in`. */
function letsSource(n: number, layout: boolean): string {
  const lets = Array.from({ length: n - 1 }, (_, i) => `let a${i + 1} = a${i} + sin a${i} * 0.0001`);
  return layout
    ? ["let main = fun (x: Double) ->", "  let a0 = x", ...lets.map((l) => `  ${l}`), `  a${n - 1}`].join("\n")
    : `let main = fun (x: Double) -> let a0 = x in ${lets.map((l) => `${l} in `).join("")}a${n - 1}`;
}

describe("programs of that size from source, within the default stack", () => {
  test("10⁵ lets in the layout form: parsed, printed (and parsed back the same), checked and lowered", () => {
    const text = letsSource(100_000, true);
    const ast = parseProgram({ name: "lets.smooth", text });
    // Printed, parsed back and printed again, the same text (a structural comparison would itself recurse).
    const printed = printProgram(ast);
    expect(printed.split("\n").length).toBeGreaterThan(100_000);
    expect(printProgram(parseProgram({ name: "printed.smooth", text: printed }))).toBe(printed);
    const p = loadProgram({ name: "lets.smooth", text });
    expect(p.definition("main").scheme).toBeDefined();
    const ir = lowerEntry(p.checked, "main", [DOUBLE]);
    // Each let a surface node or more (the lambda of `main` is applied to the parameter; inlining comes later).
    expect(exprSize(ir.body)).toBeGreaterThan(100_000);
  });

  test("10⁴ lets with `in`: run in both engines and differentiated in both modes, against the chain rule", () => {
    const n = 10_000;
    const p = loadProgram({ name: "lets.smooth", text: letsSource(n, false) });
    const ref = reference(n - 1, 0.3);
    for (const engine of ["interp", "js"] as const) expect(p.runJson("main", [0.3], engine)).toBeCloseTo(ref.value, 12);
    for (const kind of ["gradient", "forward"] as const) {
      const d = p.derivative("main", [DOUBLE], [0], "js", undefined, kind);
      expect(valueToJson(d.run([0.3]), d.resultType)).toBeCloseTo(ref.derivative, 12);
    }
  });

  test("10⁴ definitions, each calling the one before, and a sum of 10⁴ terms", () => {
    const defs = ["let d0 = fun (x: Double) -> x"];
    for (let i = 1; i < 10_000; i++) defs.push(`let d${i} = fun (x: Double) -> d${i - 1} x + 1.`);
    defs.push("let main = fun (x: Double) -> d9999 x");
    const chain = loadProgram({ name: "defs.smooth", text: defs.join("\n") });
    expect(chain.runJson("main", [0.5], "js")).toBe(9999.5);
    // The interpreter nests one JavaScript call per function call: that deep, a located error, not a RangeError.
    expect(thrown(() => chain.runJson("main", [0.5], "interp")).kind).toBe("recursion");
    const terms = Array.from({ length: 10_000 }, (_, i) => `x * ${i + 1}.`).join(" + ");
    const sum = loadProgram({ name: "sum.smooth", text: `let main = fun (x: Double) -> ${terms}` });
    for (const engine of ["interp", "js"] as const) expect(sum.runJson("main", [2], engine)).toBe(10_000 * 10_001);
    const printed = printProgram(parseProgram({ name: "sum.smooth", text: `let main = fun (x: Double) -> ${terms}` }));
    expect(printed.length).toBeGreaterThan(terms.length);
  });

  test("a traced TypeScript function of 10⁴ operations has its gradient, against the chain rule", () => {
    const steps = 3334;
    const f = (x: Tensor) => {
      let a = x;
      for (let i = 0; i < steps; i++) a = add(a, mul(sin(a), 1e-4));
      return a;
    };
    expect(grad(f)(0.3) as number).toBeCloseTo(reference(steps, 0.3).derivative, 12);
  });
});

describe("the sizes that used to overflow the stack (issue 15's repros)", () => {
  const run = (text: string, args: unknown[], engine: "interp" | "js" = "js") =>
    loadProgram({ name: "repro.smooth", text }).runJson("main", args, engine);

  test("10⁴ nested parentheses, and 10⁴ operations each wrapped around the previous ones", () => {
    const n = 10_000;
    expect(run(`let main = fun (x: Double) -> ${"(".repeat(n)}x + 1.${")".repeat(n)}`, [1])).toBe(2);
    // ((((x + 1.) + 1.) + 1.) ...): the parser closes each level and continues its expression from the value inside.
    expect(run(`let main = fun (x: Double) -> ${"(".repeat(n)}x${" + 1.)".repeat(n)}`, [1])).toBe(n + 1);
    expect(run(`let main = fun (x: Double) -> ${"(".repeat(n)}x${" * 1.)".repeat(n)} + 1.`, [1], "interp")).toBe(2);
  });

  test("700 lets, a 3,000-term sum and 500 chained definitions, in both engines", () => {
    const lets = Array.from({ length: 700 }, (_, i) => `  let a${i + 1} = ${i === 0 ? "x" : `a${i}`} + 1.`);
    const defs = ["let d0 = fun (x: Double) -> x"];
    for (let i = 1; i <= 500; i++) defs.push(`let d${i} = fun (x: Double) -> d${i - 1} x + 1.`);
    for (const engine of ["interp", "js"] as const) {
      expect(run(["let main = fun (x: Double) ->", ...lets, "  a700"].join("\n"), [1], engine)).toBe(701);
      expect(run(`let main = fun (x: Double) -> ${Array(3000).fill("x").join(" + ")}`, [2], engine)).toBe(6000);
      expect(run([...defs, "let main = fun (x: Double) -> d500 x"].join("\n"), [1], engine)).toBe(501);
    }
  });

  test("arguments nested 10⁴ deep are an argument error, from JSON and from JavaScript", () => {
    const n = 10_000;
    const nested = JSON.parse("[".repeat(n) + "1" + "]".repeat(n)) as unknown;
    for (const text of [
      "let main = fun (x: Double) -> x",
      "let main = fun x -> x",
      "let main = fun (v: Vector) -> v",
    ]) {
      const e = thrown(() => run(text, [nested]));
      expect(e.kind).toBe("argument");
      expect(e.headline).toMatch(/parameter `[xv]` of `main` (is nested more than 256 levels deep|.*expects)/);
    }
    const e = thrown(() => compile((x: Tensor) => mul(x, 2))(nested));
    expect(e.headline).toBe("argument error: argument 0 of a TypeScript function is nested more than 256 levels deep");
  });

  test("a TypeScript function of 10⁴ statements, translated from its source, has its gradient", () => {
    const n = 10_000;
    const body = Array.from({ length: n }, (_, i) => `  const a${i + 1} = a${i} + Math.sin(a${i}) * 0.0001;`);
    const m = typescriptModule(
      ["export function g(x: number): number {", "  const a0 = x;", ...body, `  return a${n};`, "}"].join("\n"),
    );
    const g = m.g as (x: number) => number;
    expect(grad(g)(0.3)).toBeCloseTo(reference(n, 0.3).derivative, 12);
    // Its gradient has more values than a wasm function may have locals: the default (wasm) engine runs it as js.
    expect(inspect(grad(g), 0.3).javascript).toMatch(
      /^\/\/ The wasm back end cannot compile this program \(too many values for one wasm function: \d+ locals\)/,
    );
  });
});

describe("nesting deeper than the compiler walks", () => {
  test("an else-if chain 10⁴ deep is a SmoothError saying so, in both engines", () => {
    const lines = ["let main = fun (x: Double) ->"];
    for (let i = 1; i <= 10_000; i++) lines.push(`  ${i === 1 ? "" : "else "}if x < ${i}. then x * ${i}.`);
    lines.push("  else x");
    for (const engine of ["interp", "js"] as const) {
      const e = thrown(() =>
        loadProgram({ name: "deep.smooth", text: lines.join("\n") }).runJson("main", [0.5], engine),
      );
      expect(e.kind).toBe("unsupported");
      expect(e.headline).toMatch(/is nested too deeply for the compiler \(it ran out of stack\)$/);
    }
  });
});
