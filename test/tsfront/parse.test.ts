// The parser (src/tsfront/parse.ts): acorn, with binary operators of one precedence read in a loop (a sum of 10⁴
// terms), must give acorn's own trees; acorn's stack overflow is the program nested too deeply, located.

import { tsPlugin } from "@sveltejs/acorn-typescript";
import { Parser } from "acorn";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseModuleText } from "../../src/tsfront/parse.js";
import { thrown } from "../helpers.js";

const OPERATORS = ["+", "-", "*", "/", "%", "**", "<", "<=", "===", "!==", "&&", "||", "??", "&", "|", "^", "<<", ">>"];

/** Random expressions over a few names, operators and parentheses, as text. */
const arbExpression: fc.Arbitrary<string> = fc.letrec<{ e: string }>((tie) => ({
  e: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    fc.constantFrom("a", "b", "1", "2.5", "f(a)", "x[i]", "-a", "!b"),
    fc.tuple(tie("e"), fc.constantFrom(...OPERATORS), tie("e")).map(([l, op, r]) => `${l} ${op} ${r}`),
    tie("e").map((e) => `(${e})`),
    fc.tuple(tie("e"), tie("e"), tie("e")).map(([c, a, b]) => `${c} ? ${a} : ${b}`),
  ),
})).e;

/** Does acorn accept the text? (`a ?? b || c` is a syntax error, as it should stay.) */
function acornTree(parser: typeof Parser, text: string, ts: boolean): string {
  try {
    return JSON.stringify(parser.parse(text, { ecmaVersion: "latest", sourceType: "module", locations: ts }));
  } catch (e) {
    return `error: ${(e as Error).message}`;
  }
}

function ourTree(text: string, name: string): string {
  try {
    return JSON.stringify(parseModuleText({ name, text }));
  } catch (e) {
    return `error: ${(e as Error).message}`;
  }
}

describe("the parser", () => {
  it("gives acorn's trees for JavaScript and for TypeScript (generated expressions, fixed seed)", () => {
    const typescript = Parser.extend(tsPlugin());
    fc.assert(
      fc.property(arbExpression, (e) => {
        // (A for loop's initialiser reads `in` as the loop's, not as an operator.)
        const text = `const r = ${e};\nfor (const k in o) for (let i = a < b ? 0 : 1; i < n; i++) s = (i as number) * 2;\n`;
        const failed = (t: string) => t.replace(/^error: [\s\S]*/, "error");
        const js = text.replace(" as number", "");
        expect(failed(ourTree(js, "m.js"))).toBe(failed(acornTree(Parser, js, false)));
        expect(failed(ourTree(text, "m.ts"))).toBe(failed(acornTree(typescript, text, true)));
      }),
      { seed: 8, numRuns: 300 },
    );
  });

  it("reads a sum of 10⁵ terms", () => {
    const text = `const s = ${Array.from({ length: 100_000 }, (_, i) => (i % 2 === 0 ? "a" : "1")).join(" + ")};`;
    const program = parseModuleText({ name: "sum.ts", text });
    expect(program.body).toHaveLength(1);
  });

  it("reports nesting deeper than it reaches as the program nested too deeply, at the file", () => {
    const e = thrown(() =>
      parseModuleText({ name: "deep.js", text: `const x = ${"(".repeat(5000)}1${")".repeat(5000)};` }),
    );
    expect(e.kind).toBe("unsupported");
    expect(e.headline).toMatch(/^deep\.js:1:1: unsupported error: deep\.js is nested too deeply for the compiler/);
  });

  it("reports a syntax error at its place", () => {
    const e = thrown(() =>
      parseModuleText({ name: "bad.ts", text: "export function f(x: number) {\n  return x +;\n}" }),
    );
    expect(e.headline).toBe("bad.ts:2:13: syntax error: Unexpected token");
  });
});
