// parse -> print -> parse gives the same tree: for the prelude, the corpus in test/programs, and random trees
// (the real test of the printer's parentheses and layout).

import { readdirSync, readFileSync } from "node:fs";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { BinaryOp, Definition, Expr, Param, Pattern, Program, TypeAnn } from "../../src/syntax/ast.js";
import { parseExpr, parseProgram } from "../../src/syntax/parser.js";
import { astEqual, formatNumber, printExpr, printProgram, stripSpans } from "../../src/syntax/printer.js";
import type { Span } from "../../src/syntax/source.js";
import { sexp, src } from "./helpers.js";

const root = new URL("../../", import.meta.url);
const corpus = [
  "prelude/prelude.smooth",
  ...readdirSync(new URL("test/programs/", root))
    .filter((f) => f.endsWith(".smooth"))
    .sort()
    .map((f) => `test/programs/${f}`),
];

describe("corpus round trip", () => {
  it("has the prelude and at least ten programs", () => expect(corpus.length).toBeGreaterThanOrEqual(11));

  it.each(corpus)("%s parses, prints and parses back to the same tree", (path) => {
    const text = readFileSync(new URL(path, root), "utf8");
    const program = parseProgram(src(text, path));
    expect(program.defs.length).toBeGreaterThan(0);
    const printed = printProgram(program);
    const again = parseProgram(src(printed, `printed ${path}`));
    expect(stripSpans(again)).toEqual(stripSpans(program));
    // Printing is a fixed point after one round.
    expect(printProgram(again)).toBe(printed);
  });

  it("the prelude defines every Fig. 4 function and the extras, each using only earlier ones", () => {
    const text = readFileSync(new URL("prelude/prelude.smooth", root), "utf8");
    const names = parseProgram(src(text)).defs.map((d) => d.name);
    const required = [
      "vectorRange",
      "vectorFill",
      "vectorHot",
      "vectorMap",
      "vectorMap2",
      "vectorZip",
      "vectorAdd",
      "vectorEMul",
      "vectorSMul",
      "vectorSum",
      "vectorDot",
      "vectorNorm",
      "vectorSlice",
      "vectorToMatrix",
      "vectorOutProd",
      "matrixRows",
      "matrixCols",
      "matrixZeros",
      "matrixOnes",
      "matrixEye",
      "matrixHot",
      "matrixMap",
      "matrixMap2",
      "matrixAdd",
      "matrixTranspose",
      "matrixMul",
      "matrixTrace",
      "matrixMult",
      "vectorZeros",
      "vectorMax",
      "matrixZip",
      "logsumexp",
      // Bulk operations and combinators (paper 003 Fig. 7, paper 001 §1).
      "replicate",
      "map2",
      "reduce",
      "sum",
      "prod",
      "gather",
      "transpose",
      "reshape",
      "scatter",
      "scanl",
      "scanr",
    ];
    expect([...names].sort()).toEqual([...required].sort());
    // No definition mentions a prelude name defined after it.
    const defs = parseProgram(src(text)).defs;
    defs.forEach((def, i) => {
      const later = new Set(names.slice(i));
      const used = sexp(def.value).match(/[A-Za-z_][A-Za-z0-9_']*/g) ?? [];
      expect(
        used.filter((n) => later.has(n)),
        def.name,
      ).toEqual([]);
    });
  });
});

// ---------------------------------------------------------------------------------------------------------------
// Random trees

const FILE = src("", "gen");
const span: Span = { file: FILE, start: 0, end: 0 };
const OPS: BinaryOp[] = ["+", "-", "*", "/", "**", "<", ">", "<=", ">=", "=", "<>", "&&", "||"];
const NAMES = ["x", "y", "f", "v", "M", "x'", "_a", "a1", "build", "ifold"];

const name = fc.constantFrom(...NAMES);
const binderName = fc.constantFrom(...NAMES, "_");

const typeAnn: fc.Arbitrary<TypeAnn> = fc.letrec<{ t: TypeAnn }>((tie) => ({
  t: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    fc
      .constantFrom("Double", "Index", "Card", "Bool", "Vector", "Matrix")
      .map((n): TypeAnn => ({ kind: "tname", name: n, span })),
    tie("t").map((elem): TypeAnn => ({ kind: "tarray", elem, span })),
    fc.array(tie("t"), { minLength: 2, maxLength: 3 }).map((elems): TypeAnn => ({ kind: "ttuple", elems, span })),
    fc.tuple(tie("t"), tie("t")).map(([param, result]): TypeAnn => ({ kind: "tfun", param, result, span })),
  ),
})).t;

const pattern: fc.Arbitrary<Pattern> = fc.letrec<{ p: Pattern }>((tie) => ({
  p: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    binderName.map((n): Pattern => ({ kind: "pvar", name: n, span })),
    fc.array(tie("p"), { minLength: 2, maxLength: 3 }).map((elems): Pattern => ({ kind: "ptuple", elems, span })),
  ),
})).p;

const param: fc.Arbitrary<Param> = fc
  .tuple(binderName, fc.option(typeAnn, { nil: undefined }))
  .map(([n, annot]) => (annot === undefined ? { name: n, span } : { name: n, annot, span }));

const literal: fc.Arbitrary<Expr> = fc.oneof(
  fc.oneof(fc.nat(), fc.constant(2 ** 60)).map((value): Expr => ({ kind: "num", value, isInt: true, span })),
  fc
    .oneof(
      fc.double({ min: 0, max: 1e300, noNaN: true, noDefaultInfinity: true }),
      fc.constantFrom(0, 2, 0.5, 1e-7, 1e21, 5e-324, 1.7976931348623157e308),
    )
    .filter((value) => !Object.is(value, -0))
    .map((value): Expr => ({ kind: "num", value, isInt: false, span })),
  fc.boolean().map((value): Expr => ({ kind: "bool", value, span })),
  fc.constantFrom(...OPS).map((op): Expr => ({ kind: "opfun", op, span })),
);

const expr: fc.Arbitrary<Expr> = fc.letrec<{ e: Expr }>((tie) => {
  const e = tie("e");
  return {
    e: fc.oneof(
      { depthSize: "small", withCrossShrink: true },
      name.map((n): Expr => ({ kind: "var", name: n, span })),
      literal,
      fc
        .tuple(fc.array(param, { minLength: 1, maxLength: 3 }), e)
        .map(([params, body]): Expr => ({ kind: "lam", params, body, span })),
      fc.tuple(e, e).map(([fn, arg]): Expr => ({ kind: "app", fn, arg, span })),
      fc
        .tuple(pattern, fc.option(typeAnn, { nil: undefined }), e, e)
        .map(([pat, annot, value, body]): Expr =>
          annot === undefined
            ? { kind: "let", pattern: pat, value, body, span }
            : { kind: "let", pattern: pat, annot, value, body, span },
        ),
      fc.tuple(e, e, e).map(([cond, then, otherwise]): Expr => ({ kind: "if", cond, then, else: otherwise, span })),
      fc.array(e, { minLength: 2, maxLength: 3 }).map((elems): Expr => ({ kind: "tuple", elems, span })),
      fc
        .tuple(fc.constantFrom(...OPS), e, e)
        .map(([op, left, right]): Expr => ({ kind: "binop", op, left, right, span, opSpan: span })),
      fc.tuple(fc.constantFrom<"-" | "not">("-", "not"), e).map(([op, arg]): Expr => ({ kind: "unop", op, arg, span })),
      fc.tuple(e, e).map(([array, index]): Expr => ({ kind: "index", array, index, span })),
    ),
  };
}).e;

const definition: fc.Arbitrary<Definition> = fc
  .tuple(name, fc.option(typeAnn, { nil: undefined }), expr)
  .map(([n, annot, value]) =>
    annot === undefined ? { name: n, nameSpan: span, value, span } : { name: n, nameSpan: span, annot, value, span },
  );
const program: fc.Arbitrary<Program> = fc.array(definition, { maxLength: 4 }).map((defs) => ({ defs }));

/** Every expression node of a tree, with its parent chain ignored. */
function* nodes(e: Expr): Generator<Expr> {
  yield e;
  switch (e.kind) {
    case "lam":
      yield* nodes(e.body);
      break;
    case "app":
      yield* nodes(e.fn);
      yield* nodes(e.arg);
      break;
    case "let":
      yield* nodes(e.value);
      yield* nodes(e.body);
      break;
    case "if":
      yield* nodes(e.cond);
      yield* nodes(e.then);
      yield* nodes(e.else);
      break;
    case "tuple":
      for (const x of e.elems) yield* nodes(x);
      break;
    case "binop":
      yield* nodes(e.left);
      yield* nodes(e.right);
      break;
    case "unop":
      yield* nodes(e.arg);
      break;
    case "index":
      yield* nodes(e.array);
      yield* nodes(e.index);
      break;
    default:
      break;
  }
}

describe("random round trip", () => {
  it("print then parse gives the same expression", () => {
    fc.assert(
      fc.property(expr, (e) => {
        const printed = printExpr(e);
        const parsed = parseExpr(src(printed, "printed"));
        if (!astEqual(parsed, e)) expect(stripSpans(parsed), printed).toEqual(stripSpans(e));
      }),
      { numRuns: 1500 },
    );
  });

  it("print then parse gives the same program", () => {
    fc.assert(
      fc.property(program, (p) => {
        const printed = printProgram(p);
        const parsed = parseProgram(src(printed, "printed"));
        if (!astEqual(parsed, p)) expect(stripSpans(parsed), printed).toEqual(stripSpans(p));
      }),
      { numRuns: 500 },
    );
  });

  it("the span of every parsed node is source text that parses to that node", () => {
    fc.assert(
      fc.property(expr, (e) => {
        const text = printExpr(e);
        const parsed = parseExpr(src(text));
        for (const node of nodes(parsed)) {
          const piece = text.slice(node.span.start, node.span.end);
          expect(stripSpans(parseExpr(src(piece))), piece).toEqual(stripSpans(node));
        }
      }),
      { numRuns: 300 },
    );
  });
});

describe("printer details", () => {
  it("prints doubles so they read back as doubles, integers as integers", () => {
    expect(formatNumber(2, false)).toBe("2.");
    expect(formatNumber(0, false)).toBe("0.");
    expect(formatNumber(1e-7, false)).toBe("1e-7");
    expect(formatNumber(1e21, false)).toBe("1e+21");
    expect(formatNumber(0.5, false)).toBe("0.5");
    expect(formatNumber(3, true)).toBe("3");
    expect(formatNumber(2 ** 70, true)).toBe("1180591620717411303424");
    expect(() => formatNumber(NaN, false)).toThrow();
    expect(() => formatNumber(Infinity, false)).toThrow();
  });

  it("keeps a[i] and get a i apart, and uses minimal parentheses", () => {
    const show = (text: string) => printExpr(parseExpr(src(text)));
    expect(show("get v i + v[i]")).toBe("get v i + v[i]");
    expect(show("((a + b) * (c))")).toBe("(a + b) * c");
    expect(show("(a - (b - c)) - (d - e)")).toBe("a - (b - c) - (d - e)");
    expect(show("(a ** b) ** (c ** d)")).toBe("(a ** b) ** c ** d");
    expect(show("(a < b) = (c < d)")).toBe("(a < b) = (c < d)");
    expect(show("f (g x) (y[0])")).toBe("f (g x) y[0]");
    expect(show("(f x)[0]")).toBe("(f x)[0]");
    expect(show("a + (if c then 1 else 2)")).toBe("a + if c then 1 else 2");
    expect(show("(if c then 1 else 2) + a")).toBe("(if c then 1 else 2) + a");
    expect(show("((fun x -> x), (fun y -> y))")).toBe("((fun x -> x), fun y -> y)");
    expect(show("-(-x)")).toBe("- -x");
    expect(show("(-x) ** 2")).toBe("(-x) ** 2");
    expect(show("(*) a ((**) b c)")).toBe("(*) a ((**) b c)");
  });

  it("never starts a line at or left of an enclosing let, even for constructs far to the right", () => {
    // The `if` is short enough to stay in the lambda's line but too long to fit there, so it breaks; its `else`
    // must still land right of the `let` whose right-hand side it is in.
    const long = "a".repeat(60);
    const parenthesised = "(a + b) * ".repeat(5); // the width estimate leaves out parentheses
    for (const text of [
      `let g = fun q -> ${parenthesised}if c then 1 else 2 in g`,
      `${long} + let g = fun q -> if c then 1 else 2 in g`,
      `let x = ${long} + let g = fun q -> if c then 1 else 2 in g in x`,
    ]) {
      const e = parseExpr(src(text));
      const printed = printExpr(e);
      expect(printed).toContain("\n");
      expect(stripSpans(parseExpr(src(printed))), printed).toEqual(stripSpans(e));
    }
    const def = parseProgram(src(`let top = fun q -> ${long} (if c then 1 else 2)`));
    expect(stripSpans(parseProgram(src(printProgram(def))))).toEqual(stripSpans(def));
  });

  it("prints lets with `in`, one per line, and long lambda bodies indented below", () => {
    const text =
      "fun v -> let s = vectorSum v in let n = length v in build n (fun i -> if v[i] > s then v[i] - s else s - v[i])";
    expect(printExpr(parseExpr(src(text)))).toBe(
      [
        "fun v ->",
        "  let s = vectorSum v in",
        "  let n = length v in",
        "  build n (fun i -> if v[i] > s then v[i] - s else s - v[i])",
      ].join("\n"),
    );
  });
});
