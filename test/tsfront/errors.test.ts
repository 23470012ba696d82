// What is outside the TypeScript subset is one located SmoothError pointing at the TypeScript line and column, with
// the line and a caret; and nothing of the user's text reaches the generated JavaScript.

import { describe, expect, it } from "vitest";
import { compile, grad, inspect, typescriptModule } from "../../src/index.js";
import { SmoothError } from "../../src/syntax/diagnostics.js";
import { thrown } from "../helpers.js";

/** The error of translating `text` (a module) and calling its function `f` on the arguments. */
function errorOf(text: string, ...args: unknown[]): SmoothError {
  return thrown(() => grad(typescriptModule(text, { fileName: "model.ts" }).f!)(...args));
}

describe("located errors", () => {
  it("a construct outside the subset points at its line and column", () => {
    const e = errorOf(["export function f(x: number) {", "  const s = 'text';", "  return x;", "}"].join("\n"), 1);
    expect(e.headline).toBe(
      "model.ts:2:13: unsupported error: strings are not supported: Smooth computes with numbers, booleans and arrays",
    );
    expect(e.message).toContain("2 |   const s = 'text';");
    expect(e.message).toContain("^^^^^^");
  });

  it("writing into a parameter, and into an array stored elsewhere", () => {
    const e = errorOf("export function f(x: Float64Array) {\n  x[0] = 1;\n  return x[0];\n}", new Float64Array(2));
    expect(e.headline).toMatch(/^model\.ts:2:3: unsupported error: `x` is not an array or object this function made/);
    expect(e.message).toContain("copy it first (const y = x.slice())");
    const shared = errorOf(
      "export function f(x: number) {\n  const a = new Float64Array(2);\n  const b = { a };\n  a[0] = x;\n  return b.a[0];\n}",
      1,
    );
    expect(shared.headline).toMatch(/^model\.ts:4:3: unsupported error: `a` was stored elsewhere before this write/);
  });

  it("type errors: a boolean as a number, branches of different kinds, a missing property", () => {
    expect(errorOf("export function f(x: number) { return x + (x > 0); }", 1).headline).toMatch(
      /^model\.ts:1:44: type error: the right operand of `\+` must be a number, but it is boolean/,
    );
    expect(errorOf("export function f(p: {w: number}) { return p.v; }", { w: 1 }).headline).toMatch(
      /^model\.ts:1:46: type error: the object has no property `v`/,
    );
  });

  it("what is not supported: Math.random, try, unknown names", () => {
    expect(errorOf("export function f(x: number) { return Math.random() * x; }", 1).headline).toMatch(
      /^model\.ts:1:39: unsupported error: Math\.random\(\) is not a function of the arguments/,
    );
    expect(errorOf("export function f(x: number) { try { return x; } catch { return 0; } }", 1).headline).toMatch(
      /^model\.ts:1:32: unsupported error: exceptions are not supported/,
    );
    expect(errorOf("export function f(x: number) { return x * unknownScale; }", 1).headline).toMatch(
      /^model\.ts:1:43: unsupported error: `unknownScale` is not defined here/,
    );
  });

  it("a recursive function whose calls were taken to return the wrong type: a located hint to annotate it", () => {
    const e = errorOf(
      "export function f(n: number) {\n  if (n === 0) return new Float64Array(2);\n  const r = f(n - 1).slice();\n  return r;\n}",
      2,
    );
    expect(e.headline).toMatch(/^model\.ts:3:\d+: type error/);
    expect(e.message).toMatch(/`f` calls itself, and its calls were taken to return number: annotate its return type/);
  });

  it("a function value's errors give its script, line and column in the JavaScript the runtime runs, and its name", () => {
    function withString(x: number) {
      const label = "x";
      return label.length * x;
    }
    const e = thrown(() => grad(withString)(1));
    // (The script is this file as the test runner runs it, its types stripped: its lines are that JavaScript's.)
    expect(e.headline).toMatch(
      /^\/.*test\/tsfront\/errors\.test\.ts:\d+:\d+ \(in `withString`\): unsupported error: strings are not supported/,
    );
    expect(e.message).toMatch(/\d+ \| +const label = "x";\n.*\^\^\^/);
  });
});

describe("the generated JavaScript", () => {
  it("holds none of the user's names or text", () => {
    function userSecretName(userInputVector: Float64Array) {
      let accumulatorWithALongName = 0;
      for (let indexNamedOddly = 0; indexNamedOddly < userInputVector.length; indexNamedOddly++)
        accumulatorWithALongName += Math.sin(userInputVector[indexNamedOddly]!) * 1.2345678;
      return accumulatorWithALongName;
    }
    const js =
      inspect(grad(userSecretName), new Float64Array(3)).javascript +
      inspect(compile(userSecretName), new Float64Array(3)).javascript;
    for (const name of ["userSecretName", "userInputVector", "accumulatorWithALongName", "indexNamedOddly"])
      expect(js).not.toContain(name);
  });
});
