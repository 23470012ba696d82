// The front end at program sizes and nesting depths generated and traced programs reach (issue 15 item 1), within
// Node's default stack: the parser, the surface printer, the type checker and the lowering to the IR, each run on its
// own (later stages have their own tests: test/robust/depth.test.ts), the JSON argument reader, and the TypeScript
// front end. Structure is checked by printing and parsing back to the same tree, by the checker's type of `main` and
// by counting the lowered IR's nodes; values by running the lowered IR in the interpreter against closed forms.

import { describe, expect, test } from "vitest";
import { preludeFile } from "../../src/api/program.js";
import { runFunction } from "../../src/eval/interpreter.js";
import type { IrFunction } from "../../src/ir/ir.js";
import { lowerEntry } from "../../src/ir/lower.js";
import { valueFromJson } from "../../src/runtime/json.js";
import type { Program } from "../../src/syntax/ast.js";
import { parseProgram } from "../../src/syntax/parser.js";
import { astEqual, printProgram } from "../../src/syntax/printer.js";
import { parseModule } from "../../src/tsfront/source.js";
import { translateFunction } from "../../src/tsfront/program.js";
import { T_DOUBLE } from "../../src/tsfront/ts-types.js";
import { checkProgram, showDefinitionType, type CheckedProgram } from "../../src/types/infer.js";
import { arrayOf, DOUBLE, INT, tupleOf } from "../../src/types/types.js";
import { thrown } from "../helpers.js";

const prelude = parseProgram(preludeFile());
const HEAD = "let main = fun (x: Double) ->";

function parse(lines: readonly string[]): Program {
  return parseProgram({ name: "deep.smooth", text: lines.join("\n") });
}

function check(program: Program): CheckedProgram {
  return checkProgram([prelude, program]);
}

/** The lowered IR's nodes by kind, counted from an explicit stack (the IR nests as deeply as the program). */
function countNodes(fn: IrFunction): Map<string, number> {
  const counts = new Map<string, number>();
  const work: unknown[] = [fn.body];
  while (work.length > 0) {
    const node = work.pop() as Record<string, unknown>;
    const kind = node.kind as string;
    counts.set(kind, (counts.get(kind) ?? 0) + 1);
    for (const [key, value] of Object.entries(node)) {
      if (key === "type" || key === "span") continue;
      for (const child of Array.isArray(value) ? value : [value])
        if (typeof child === "object" && child !== null && typeof (child as { kind?: unknown }).kind === "string")
          work.push(child);
    }
  }
  return counts;
}

/** Parses, prints and parses back (the same tree), checks (`main : Double -> Double`) and lowers `main`. */
function throughFrontEnd(lines: readonly string[]): IrFunction {
  const program = parse(lines);
  const printed = printProgram(program);
  expect(astEqual(parseProgram({ name: "printed.smooth", text: printed }), program)).toBe(true);
  const checked = check(program);
  expect(showDefinitionType(checked.lookup("main")!)).toBe("main : Double -> Double");
  return lowerEntry(checked, "main", [DOUBLE]);
}

const seq = (from: number, to: number, line: (i: number) => string) =>
  Array.from({ length: to - from }, (_, k) => line(from + k));

describe("10⁵ lets and 10⁴ definitions", () => {
  test("10⁵ lets with `in`: parsed, checked and lowered (one primitive per let)", () => {
    const n = 100_000;
    const program = parse([
      `${HEAD} let a0 = x in`,
      ...seq(1, n, (i) => `  let a${i} = a${i - 1} + 1. in`),
      `  a${n - 1}`,
    ]);
    let [e, lets] = [program.defs[0]!.value, 0];
    if (e.kind === "lam") for (e = e.body; e.kind === "let"; e = e.body) lets++;
    expect(lets).toBe(n);
    const ir = lowerEntry(check(program), "main", [DOUBLE]);
    expect(countNodes(ir).get("prim")).toBe(n - 1);
    expect(runFunction(ir, [0.5])).toBe(n - 0.5);
  });

  test("10⁴ polymorphic definitions, each calling the one before, specialised at Double one after another", () => {
    const n = 10_000;
    const program = parse([
      "let d0 = fun x -> x",
      ...seq(1, n, (i) => `let d${i} = fun x -> d${i - 1} x + 1`),
      "let main = fun (x: Double) -> d9999 x",
    ]);
    const checked = check(program);
    expect(showDefinitionType(checked.lookup("d9999")!)).toBe("d9999 : Num 'a => 'a -> 'a");
    const ir = lowerEntry(checked, "main", [DOUBLE]);
    // Each definition lowered once (a lambda, and one for `main`), at Double: d_i's `+ 1` is one Double addition.
    expect(countNodes(ir).get("lam")).toBe(n + 1);
    expect(countNodes(ir).get("prim")).toBe(n - 1);
    expect(
      printProgram(program)
        .split("\n")
        .filter((l) => l.startsWith("let d")).length,
    ).toBe(n);
  });
});

describe("10⁴ levels of nesting", () => {
  const n = 10_000;

  test("a sum of 10⁴ terms, left nested and right nested (in parentheses)", () => {
    expect(runFunction(throughFrontEnd([`${HEAD} ${Array(n).fill("x").join(" + ")}`]), [1.5])).toBe(1.5 * n);
    const right = throughFrontEnd([`${HEAD} ${"x + (".repeat(n - 1)}x${")".repeat(n - 1)}`]);
    expect(countNodes(right).get("prim")).toBe(n - 1);
    expect(runFunction(right, [1.5])).toBe(1.5 * n);
  });

  test("10⁴ nested parentheses: around one expression, and around each operation", () => {
    expect(runFunction(throughFrontEnd([`${HEAD} ${"(".repeat(n)}x + 1.${")".repeat(n)}`]), [0.5])).toBe(1.5);
    expect(runFunction(throughFrontEnd([`${HEAD} ${"(".repeat(n)}x${" * 1. + 1.)".repeat(n)}`]), [0.5])).toBe(n + 0.5);
  });

  test("an else-if chain of 10⁴ branches", () => {
    const ir = throughFrontEnd([
      HEAD,
      ...seq(1, n + 1, (i) => `  ${i === 1 ? "" : "else "}if x < ${i}. then x * ${i}.`),
      "  else x",
    ]);
    expect(countNodes(ir).get("if")).toBe(n);
  });

  test("10⁴ applications nested as arguments, negations, powers and lets inside let values", () => {
    const f = "let f = fun (y: Double) -> y + 1.";
    expect(runFunction(throughFrontEnd([f, `${HEAD} ${"f (".repeat(n)}x${")".repeat(n)}`]), [0.5])).toBe(n + 0.5);
    expect(runFunction(throughFrontEnd([`${HEAD} ${"- ".repeat(n + 1)}x`]), [0.5])).toBe(-0.5);
    const powers = throughFrontEnd([`${HEAD} ${Array(n).fill("x").join(" ** ")}`]);
    expect(countNodes(powers).get("prim")).toBe(n - 1);
    expect(runFunction(powers, [1])).toBe(1);
    const lets = throughFrontEnd([`${HEAD} ${"let y = ".repeat(n)}x * 2.${" in y".repeat(n)}`]);
    expect(runFunction(lets, [0.5])).toBe(1);
  });
});

describe("nesting the front end does not follow", () => {
  const n = 10_000;

  test("types and patterns nested past 256 levels are a syntax error where the limit is passed", () => {
    for (const [text, what, col] of [
      [`let main = fun (x: ${"Array<".repeat(n)}Double${">".repeat(n)}) -> 1.`, "a type", 20 + 6 * 257],
      [`let main = fun (x: Double) -> let ${"(".repeat(n)}a${", b)".repeat(n)} = x in a`, "a pattern", 35 + 257],
    ] as const) {
      const e = thrown(() => parseProgram({ name: "deep.smooth", text }));
      expect(e.headline).toBe(`deep.smooth:1:${col}: syntax error: ${what} nested more than 256 levels deep`);
    }
  });

  test("a type 10⁴ levels deep (nested tuples) is an error at its definition", () => {
    const text = `let main = fun (x: Double) -> fst (${"(".repeat(n)}x${", 1.)".repeat(n)})`;
    const e = thrown(() => check(parseProgram({ name: "deep.smooth", text })));
    expect(e.headline).toBe(
      "deep.smooth:1:5: unsupported error: `main` is nested too deeply for the compiler (it ran out of stack)",
    );
  });
});

describe("arguments nested 10⁴ deep", () => {
  const n = 10_000;
  const arrays = JSON.parse("[".repeat(n) + "1" + "]".repeat(n)) as unknown;
  let objects: unknown = 1;
  for (let i = 0; i < n; i++) objects = { a: objects };

  test("are an argument error naming what was expected, whatever the parameter's type", () => {
    for (const type of [DOUBLE, INT, arrayOf(DOUBLE), arrayOf(arrayOf(DOUBLE)), tupleOf([DOUBLE, DOUBLE])]) {
      for (const json of [arrays, objects]) {
        const e = thrown(() => valueFromJson(json, type, "parameter `x`"));
        expect(e.kind).toBe("argument");
        expect(e.headline).toMatch(
          /^argument error: parameter `x`( at (\[0\])+)? expects an? (Double|Index|Vector|Matrix|\()/,
        );
        // The value is shown as its first characters, not written out (JSON.stringify would recurse through it).
        expect(e.headline.length).toBeLessThan(200);
      }
    }
  });
});

describe("a TypeScript function of 10⁴ statements", () => {
  const n = 10_000;
  const lowered = (body: readonly string[]) => {
    const text = ["export function g(a0: number): number {", ...body, "}"].join("\n");
    const { program, name } = translateFunction(parseModule({ name: "g.ts", text }).functions.get("g")!, [T_DOUBLE]);
    return lowerEntry(program.checked, name, [DOUBLE]);
  };

  test("if statements and loops in a row, translated, checked and lowered", () => {
    const ifs = lowered(["  let a = a0;", ...seq(0, n, (i) => `  if (a > ${i}) { a = a + 1; }`), "  return a;"]);
    expect(countNodes(ifs).get("if")).toBe(n);
    expect(runFunction(ifs, [0.5])).toBe(n + 0.5);
    const m = 3000;
    const loops = lowered([
      "  let a = a0;",
      ...seq(0, m, () => `  for (let i = 0; i < 2; i++) a += i;`),
      "  return a;",
    ]);
    expect(countNodes(loops).get("ifold")).toBe(m);
    expect(runFunction(loops, [0.5])).toBe(m + 0.5);
  });

  test("a sum of 10⁴ terms in one expression", () => {
    const sum = lowered([`  return ${seq(0, n, (i) => (i % 2 === 0 ? "a0" : "1")).join(" + ")};`]);
    expect(runFunction(sum, [0.5])).toBe(n / 2 + 0.25 * n);
  });

  test("nesting deeper than the TypeScript parser reaches is a located SmoothError", () => {
    const text = `export function g(a0: number): number {\n  return ${"(".repeat(n)}a0${")".repeat(n)};\n}`;
    const e = thrown(() => parseModule({ name: "g.ts", text }));
    expect(e.kind).toBe("unsupported");
    expect(e.headline).toMatch(/g\.ts is nested too deeply for the compiler/);
    expect(e.span?.file.name).toBe("g.ts");
  });
});
