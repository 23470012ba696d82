// What the translation cannot read is one located error at the user's construct, never a silent trace or a wrong
// number: each construct below, written inside a module's function, gives a SmoothError whose location is the line and
// column of that construct (found in the text, not counted by hand) and whose message names it.

import { describe, expect, it } from "vitest";
import { grad, typescriptModule } from "../../src/index.js";
import { thrown } from "../helpers.js";

interface Case {
  /** Statements of `f(x: number, v: Float64Array)` (its `return` included, or a whole function with `header`). */
  readonly body: string;
  /** The text the error points at: its first occurrence in the module (after the header). */
  readonly at: string;
  readonly message: RegExp;
  /** A function header other than `export function f(x: number, v: Float64Array) {`. */
  readonly header?: string;
}

const CASES: Record<string, Case> = {
  "a string": { body: 'const s = "text";\n  return x;', at: '"text"', message: /strings are not supported/ },
  "a template literal": {
    body: "const s = `a${x}`;\n  return x;",
    at: "`a${x}`",
    message: /strings are not supported/,
  },
  null: { body: "const n = null;\n  return x;", at: "null", message: /`null` has no value in Smooth/ },
  undefined: { body: "const n = undefined;\n  return x;", at: "undefined", message: /`undefined` has no value/ },
  "a bigint": { body: "const n = 1n;\n  return x;", at: "1n", message: /`1n` has no value in Smooth/ },
  "a regular expression": { body: "const r = /a+/;\n  return x;", at: "/a+/", message: /`\/a\+\/` has no value/ },
  try: { body: "try {\n    return x;\n  } catch {\n    return 0;\n  }", at: "try", message: /exceptions are not/ },
  throw: { body: 'if (x < 0) throw new Error("no");\n  return x;', at: "throw", message: /exceptions are not/ },
  "a labelled loop": {
    body: "outer: for (let i = 0; i < 3; i++) break outer;\n  return x;",
    at: "outer:",
    message: /this statement is not in the TypeScript subset/,
  },
  "for-in": {
    body: "let s = 0;\n  for (const k in v) s += 1;\n  return s;",
    at: "for (const k",
    message: /for-in loops/,
  },
  "console.log": {
    body: "console.log(x);\n  return x;",
    at: "console.log(x)",
    message: /console\.log inside a function Smooth compiles is not supported/,
  },
  "console.log in a loop that assigns nothing": {
    body: "for (let i = 0; i < 3; i++) console.log(i);\n  return x;",
    at: "console.log(i)",
    message: /console\.log inside a function Smooth compiles is not supported/,
  },
  "Math.random": {
    body: "return x * Math.random();",
    at: "Math.random()",
    message: /Math\.random\(\) is not a function/,
  },
  "Math.fround": { body: "return Math.fround(x);", at: "Math.fround(x)", message: /Math\.fround is not supported/ },
  "??": { body: "return x ?? 1;", at: "x ?? 1", message: /`\?\?` is not supported/ },
  typeof: {
    body: "const t = typeof x;\n  return x;",
    at: "typeof x",
    message: /the operator `typeof` is not supported/,
  },
  delete: {
    body: "const o = { a: x };\n  delete o.a;\n  return x;",
    at: "delete o.a",
    message: /no effect Smooth can keep/,
  },
  in: { body: "return 0 in v ? x : 1;", at: "0 in v", message: /the operator `in` is not supported/ },
  instanceof: {
    body: "return v instanceof Float64Array ? x : 1;",
    at: "v instanceof Float64Array",
    message: /the operator `instanceof` is not supported/,
  },
  "an assignment inside an expression": {
    body: "let y = 0;\n  const z = (y = x);\n  return z;",
    at: "y = x",
    message: /an assignment inside an expression/,
  },
  "++ inside an expression": {
    body: "let y = 0;\n  const z = y++;\n  return z;",
    at: "y++",
    message: /an assignment inside/,
  },
  "a function chosen when the program runs": {
    body: "const f = x > 0 ? (t: number) => t * x : (t: number) => t;\n  return f(x);",
    at: "x > 0 ? (t: number) => t * x : (t: number) => t",
    message: /the branches of `\?:` give the function `\(t: number\) => t \* x` and the function `\(t: number\) => t`/,
  },
  "writing into a parameter": {
    body: "v[0] = x;\n  return v[0];",
    at: "v[0] =",
    message: /`v` is not an array or object this function made/,
  },
  "pushing onto a parameter": {
    body: "const a = [x];\n  const w = Array.from(v);\n  w.push(1);\n  a.push(x);\n  const p = v;\n  p.fill(x);\n  return a[0];",
    at: "p.fill(x)",
    message: /`p` is not an array or object this function made/,
  },
  "an unknown name": {
    body: "return x * unknownScale;",
    at: "unknownScale",
    message: /`unknownScale` is not defined here/,
  },
  arguments: { body: "return arguments.length;", at: "arguments", message: /`arguments` is not defined here/ },
  "new Map": { body: "const m = new Map();\n  return x;", at: "new Map()", message: /`new Map` is not supported/ },
  "a class inside": {
    body: "class P {}\n  return x;",
    at: "class P",
    message: /this statement is not in the TypeScript subset/,
  },
  "an object's getter": {
    body: "const o = { get m() { return 1; } };\n  return x;",
    at: "get m() { return 1; }",
    message: /this kind of object property is not supported/,
  },
  this: { body: "return this.x;", at: "this.x", message: /is not in the TypeScript subset/ },
  "a local function calling itself": {
    body: "const g = (n: number): number => (n <= 0 ? 0 : g(n - 1));\n  return g(3) + x;",
    at: "g(n - 1)",
    message: /a local function that calls itself is not supported/,
  },
  "reading an element of an empty array": {
    body: "const e: number[] = [];\n  return e[0]! + x;",
    at: "e[0]",
    message: /index error: `e` has no elements here/,
  },
  "spreading a number": {
    body: "const a = [...[x], ...x];\n  return x;",
    at: "...x]",
    message: /spread \(`...`\) needs an array/,
  },
  "break inside do-while": {
    body: "let s = x;\n  do {\n    s *= 2;\n    if (s > 4) break;\n  } while (s < 10);\n  return s;",
    at: "do {",
    message: /break, continue and return inside do-while are not supported/,
  },
  "a generator": {
    header: "export function* f(x: number, v: Float64Array) {",
    body: "return x;",
    at: "function*",
    message: /generator functions are not supported/,
  },
  "an async function": {
    header: "export async function f(x: number, v: Float64Array) {",
    body: "return x;",
    at: "async",
    message: /async functions are not supported/,
  },
};

/** 1-based line and column of the first occurrence of `at` after the header. */
function place(text: string, at: string, from: number): string {
  const offset = text.indexOf(at, from);
  if (offset < 0) throw new Error(`the test's text has no ${at}`);
  const before = text.slice(0, offset).split("\n");
  return `${before.length}:${before[before.length - 1]!.length + 1}`;
}

describe("constructs outside the subset", () => {
  it.each(Object.entries(CASES))("%s: one error at its line and column", (_name, c) => {
    const header = c.header ?? "export function f(x: number, v: Float64Array) {";
    const text = `// a model\n${header}\n  ${c.body}\n}\n`;
    const e = thrown(() => grad(typescriptModule(text, { fileName: "m.ts" }).f!)(1.5, new Float64Array([1, 2, 3])));
    const from = c.header ? 0 : text.indexOf("{");
    expect(e.headline.startsWith(`m.ts:${place(text, c.at, from)}: `), e.headline).toBe(true);
    expect(e.headline).toMatch(c.message);
    // The message shows the line with a caret under the construct.
    expect(e.message).toMatch(/\n\d+ \| .*\n +\| +\^+/);
  });

  it("the same in a function value: its script's line and column, and its name", () => {
    function plain(x: number) {
      console.log(x);
      return x;
    }
    const e = thrown(() => grad(plain)(1));
    expect(e.headline).toMatch(
      /^\/.*unsupported\.test\.ts:\d+:7 \(in `plain`\): unsupported error: console\.log inside/,
    );
    expect(e.message).toMatch(/\d+ \| +console\.log\(x\);\n +\| +\^{14}/);
  });
});
