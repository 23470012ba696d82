// Every class of syntax error: the exact headline (file:line:col: kind error: summary), what was expected and found,
// and the caret under the right column of the right line.

import { describe, expect, it } from "vitest";
import { parseExpr, parseProgram, parseType } from "../../src/syntax/parser.js";
import { caret, excerptLine, src, thrown } from "./helpers.js";

const exprError = (text: string) => thrown(() => parseExpr(src(text)));
const programError = (text: string) => thrown(() => parseProgram(src(text)));

describe("syntax errors", () => {
  it("unexpected token where an expression should be", () => {
    const err = exprError("(a + )");
    expect(err.headline).toBe("t:1:6: syntax error: unexpected `)`");
    expect(err.kind).toBe("syntax");
    expect(err.details).toMatchObject({ expected: "an expression", found: "`)`" });
    expect(caret(err)).toEqual({ col: 6, width: 1 });
  });

  it("unexpected end of input points just after the last token", () => {
    const err = exprError("f x +  \n");
    expect(err.headline).toBe("t:1:6: syntax error: unexpected end of input");
    expect(err.details).toMatchObject({ expected: "an expression", found: "end of input" });
    expect(caret(err).col).toBe(6);
    expect(excerptLine(err)).toBe("f x +  ");
  });

  it("trailing tokens after a whole expression", () => {
    const err = exprError("f x )");
    expect(err.headline).toBe("t:1:5: syntax error: unexpected `)`");
  });

  it("unclosed bracket: points at the opening bracket", () => {
    const err = exprError("g 1\n  (f (a + b)\n");
    expect(err.headline).toBe("t:2:3: syntax error: unclosed `(`");
    expect(err.details).toMatchObject({ expected: "`)`", found: "end of input" });
    expect(caret(err)).toEqual({ col: 3, width: 1 });
    const index = exprError("v[i + 1");
    expect(index.headline).toBe("t:1:2: syntax error: unclosed `[`");
  });

  it("mismatched bracket: names the bracket it should close", () => {
    const err = exprError("(a + b]");
    expect(err.headline).toBe("t:1:7: syntax error: unexpected `]`");
    expect(err.details.expected).toBe("`)` to close the `(` at 1:1");
    expect(caret(err).col).toBe(7);
  });

  it("let without a body", () => {
    const err = exprError("let x = 1");
    expect(err.headline).toBe("t:1:1: syntax error: `let` has no body");
    expect(err.details).toMatchObject({
      expected: "`in`, or the body on the next line at column 1",
      found: "end of input",
    });
    expect(caret(err)).toEqual({ col: 1, width: 3 });

    const nested = programError("let f = fun x ->\n  let y = x\nlet g = 1");
    expect(nested.headline).toBe("t:2:3: syntax error: `let` has no body");
    expect(nested.details.found).toBe("`let` at 3:1, on a new line not indented past the `let` at 1:1");
    expect(caret(nested)).toEqual({ col: 3, width: 3 });

    const inParens = exprError("(let y = 2) + 1");
    expect(inParens.headline).toBe("t:1:2: syntax error: `let` has no body");
    expect(inParens.details.found).toBe("`)`");

    const deeper = exprError("f (\n  let y = 2\n    )");
    expect(deeper.headline).toBe("t:2:3: syntax error: `let` has no body");
    expect(deeper.details.found).toBe("`)`");

    const shallow = exprError("f (\n    let y = 2\n  y)");
    expect(shallow.headline).toBe("t:2:5: syntax error: `let` has no body");
    expect(shallow.details.found).toBe("`y`");
  });

  it("missing ->", () => {
    const err = exprError("fun x y = x");
    expect(err.headline).toBe("t:1:9: syntax error: missing `->` in `fun`");
    expect(err.details).toMatchObject({ expected: "`->` after the parameters", found: "`=`" });
    expect(caret(err).col).toBe(9);
    expect(exprError("fun -> 1").headline).toBe("t:1:5: syntax error: unexpected `->`");
  });

  it("missing then / else", () => {
    const noThen = exprError("if a\n  1 else 2");
    expect(noThen.headline).toBe("t:2:5: syntax error: missing `then` in `if`");
    expect(noThen.details.found).toBe("`else`");
    expect(caret(noThen).col).toBe(5);
    const noElse = exprError("if a then b");
    expect(noElse.headline).toBe("t:1:12: syntax error: missing `else` in `if`");
    expect(noElse.details.found).toBe("end of input");
    expect(caret(noElse).col).toBe(12);
  });

  it("missing = in let", () => {
    const err = exprError("let x 1 in x");
    expect(err.headline).toBe("t:1:7: syntax error: missing `=` in `let`");
  });

  it("a right-hand side cut short by layout says which let ended", () => {
    const err = programError("let f =\nlet g = 1");
    expect(err.headline).toBe("t:1:8: syntax error: unexpected end of the `let` at 1:1");
    expect(err.details).toMatchObject({
      expected: "an expression",
      found: "`let` at 2:1, on a new line not indented past the `let` at 1:1",
    });
    expect(caret(err).col).toBe(8);
  });

  it("comparisons do not chain", () => {
    const err = exprError("a < b <= c");
    expect(err.headline).toBe("t:1:7: syntax error: comparisons do not chain");
    expect(caret(err)).toEqual({ col: 7, width: 2 });
  });

  it("top-level mistakes", () => {
    const notLet = programError("let a = 1\nb = 2");
    expect(notLet.headline).toBe("t:2:1: syntax error: unexpected `b`");
    expect(notLet.details.expected).toBe("a top-level definition `let name = ...`");
    const withIn = programError("let a = 1 in a");
    expect(withIn.headline).toBe("t:1:11: syntax error: a top-level definition has no `in`");
    const tuple = programError("let (a, b) = p");
    expect(tuple.headline).toBe("t:1:5: syntax error: a top-level definition must bind a single name");
  });

  it("misused _ and ()", () => {
    expect(exprError("f _").headline).toBe("t:1:3: syntax error: `_` is not a value");
    const unit = exprError("f ()");
    expect(unit.headline).toBe("t:1:3: syntax error: `()` is not a value in Smooth");
    expect(caret(unit)).toEqual({ col: 3, width: 2 });
  });

  it("parameters are single names", () => {
    const err = exprError("fun (a, b) -> a");
    expect(err.headline).toBe("t:1:7: syntax error: a parameter is a single name");
  });

  it("a result type needs annotated parameters", () => {
    const err = programError("let f (x: Double) y: Double = x");
    expect(err.headline).toBe("t:1:19: syntax error: a result type needs every parameter annotated");
    expect(caret(err)).toEqual({ col: 19, width: 1 });
  });

  it("bad types", () => {
    const unknown = thrown(() => parseType(src("Array<Float>")));
    expect(unknown.headline).toBe("t:1:7: name error: unknown type `Float`");
    expect(caret(unknown)).toEqual({ col: 7, width: 5 });
    const open = thrown(() => parseType(src("Array<Double -> Bool")));
    expect(open.headline).toBe("t:1:21: syntax error: unclosed `Array<` at 1:1");
    expect(thrown(() => parseType(src("Array Double"))).headline).toBe(
      "t:1:7: syntax error: missing `<` after `Array`",
    );
    expect(thrown(() => parseType(src("Double ->"))).headline).toBe("t:1:10: syntax error: unexpected end of input");
  });

  it("lexical errors surface through the parser with their positions", () => {
    expect(exprError("a +\n  (* open").headline).toBe("t:2:3: syntax error: unterminated comment");
    expect(exprError("1.2.3").headline).toBe("t:1:1: syntax error: bad number `1.2.3`");
    expect(programError("let f = fun a -> a → a").headline).toBe(
      "t:1:20: syntax error: unknown character `→` (U+2192)",
    );
  });

  it("renders the full message with expected, found and the excerpt", () => {
    const err = exprError("let y = 2 in\n  y + )");
    expect(err.message).toBe(
      [
        "t:2:7: syntax error: unexpected `)`",
        "  expected: an expression",
        "  found:    `)`",
        "  |",
        "2 |   y + )",
        "  |       ^",
      ].join("\n"),
    );
  });
});
