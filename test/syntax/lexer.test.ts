import { describe, expect, it } from "vitest";
import { tokenize } from "../../src/syntax/lexer.js";
import { caret, src, thrown } from "./helpers.js";

const texts = (text: string) => tokenize(src(text)).map((t) => t.text);

describe("lexer", () => {
  it("splits operators longest first", () => {
    expect(texts("a**b->c<=d>=e<>f&&g||h")).toEqual([
      "a",
      "**",
      "b",
      "->",
      "c",
      "<=",
      "d",
      ">=",
      "e",
      "<>",
      "f",
      "&&",
      "g",
      "||",
      "h",
      "",
    ]);
    expect(texts("x-1 * -y")).toEqual(["x", "-", "1", "*", "-", "y", ""]);
  });

  it("reads names with digits, _ and ' and tells keywords from names", () => {
    const toks = tokenize(src("let x' = _a1 in fun then M"));
    expect(toks.map((t) => [t.kind, t.text])).toEqual([
      ["keyword", "let"],
      ["name", "x'"],
      ["punct", "="],
      ["name", "_a1"],
      ["keyword", "in"],
      ["keyword", "fun"],
      ["keyword", "then"],
      ["name", "M"],
      ["eof", ""],
    ]);
  });

  it("reads numbers: integers, fractions, a bare point and exponents", () => {
    const nums = tokenize(src("3 1.5 2. 1e-3 1.5e+3 2E10 3.e2 007")).filter((t) => t.kind === "number");
    expect(nums.map((t) => [t.value, t.isInt])).toEqual([
      [3, true],
      [1.5, false],
      [2, false],
      [0.001, false],
      [1500, false],
      [2e10, false],
      [300, false],
      [7, true],
    ]);
  });

  it("skips both kinds of comment but keeps (*) and (**) as operators", () => {
    expect(texts("a // rest\nb (* x\n y *) c")).toEqual(["a", "b", "c", ""]);
    expect(texts("(*) (**) (* c *)")).toEqual(["(", "*", ")", "(", "**", ")", ""]);
    expect(texts("( * )")).toEqual(["(", "*", ")", ""]);
  });

  it("records line, column and whether a token starts its line", () => {
    const toks = tokenize(src("let a =\n  (* c\n *) b c\n"));
    const b = toks.find((t) => t.text === "b")!;
    const c = toks.find((t) => t.text === "c")!;
    expect([b.line, b.col, b.firstOnLine]).toEqual([3, 5, true]);
    expect([c.line, c.col, c.firstOnLine]).toEqual([3, 7, false]);
    expect(toks.at(-1)).toMatchObject({ kind: "eof", start: 23 });
  });

  it("reports an unterminated comment at its opening", () => {
    const err = thrown(() => tokenize(src("a\n  (* never closed\n")));
    expect(err.headline).toBe("t:2:3: syntax error: unterminated comment");
    expect(caret(err)).toEqual({ col: 3, width: 2 });
  });

  it.each([
    ["x + 1e+", "bad number `1e+`", 5, 3],
    ["f 3x", "bad number `3x`", 3, 2],
    ["1.5.2 + y", "bad number `1.5.2`", 1, 5],
    ["2e", "bad number `2e`", 1, 2],
  ])("reports a bad number in %j", (text, summary, col, width) => {
    const err = thrown(() => tokenize(src(text)));
    expect(err.headline).toBe(`t:1:${col}: syntax error: ${summary}`);
    expect(caret(err)).toEqual({ col, width });
  });

  it("names an unknown character, with a hint for look-alikes", () => {
    const err = thrown(() => tokenize(src("a $ b")));
    expect(err.headline).toBe("t:1:3: syntax error: unknown character `$` (U+0024)");
    expect(caret(err).col).toBe(3);
    const times = thrown(() => tokenize(src("fun a s -> a × s")));
    expect(times.headline).toBe("t:1:14: syntax error: unknown character `×` (U+00D7)");
    expect(times.message).toContain("multiplication is written `*`");
  });

  it("rejects == and != with the Smooth spelling", () => {
    const eq = thrown(() => tokenize(src("a == b")));
    expect(eq.headline).toBe("t:1:3: syntax error: unknown operator `==`");
    expect(eq.message).toContain("equality is written `=`");
    expect(caret(eq)).toEqual({ col: 3, width: 2 });
    expect(thrown(() => tokenize(src("a != b"))).message).toContain("inequality is written `<>`");
  });
});
