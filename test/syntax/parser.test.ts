import { describe, expect, it } from "vitest";
import type { Expr } from "../../src/syntax/ast.js";
import { parseExpr, parseProgram, parseType } from "../../src/syntax/parser.js";
import { sexp, src, typeSexp } from "./helpers.js";

const p = (text: string) => sexp(parseExpr(src(text)));
const textOf = (text: string, e: { span: { start: number; end: number } }) => text.slice(e.span.start, e.span.end);

describe("operators", () => {
  it.each([
    ["a || b && c", "(|| a (&& b c))"],
    ["a && b || c", "(|| (&& a b) c)"],
    ["a && b < c", "(&& a (< b c))"],
    ["a = b + c", "(= a (+ b c))"],
    ["a <> b - c", "(<> a (- b c))"],
    ["a + b * c", "(+ a (* b c))"],
    ["a * b + c", "(+ (* a b) c)"],
    ["a / b ** c", "(/ a (** b c))"],
    ["a ** b * c", "(* (** a b) c)"],
    ["a <= b || c >= d", "(|| (<= a b) (>= c d))"],
    ["a > b && c < d", "(&& (> a b) (< c d))"],
  ])("precedence: %s", (text, expected) => expect(p(text)).toBe(expected));

  it.each([
    ["a - b - c", "(- (- a b) c)"],
    ["a / b / c", "(/ (/ a b) c)"],
    ["a - b + c", "(+ (- a b) c)"],
    ["a * b / c", "(/ (* a b) c)"],
    ["a || b || c", "(|| (|| a b) c)"],
    ["a && b && c", "(&& (&& a b) c)"],
    ["a ** b ** c", "(** a (** b c))"],
  ])("associativity: %s", (text, expected) => expect(p(text)).toBe(expected));

  it("unary minus and not bind tighter than binary operators, looser than application", () => {
    expect(p("-x ** 2")).toBe("(** (neg x) 2)");
    expect(p("2 ** -x")).toBe("(** 2 (neg x))");
    expect(p("-f x")).toBe("(neg (f x))");
    expect(p("a * -b")).toBe("(* a (neg b))");
    expect(p("a - -b")).toBe("(- a (neg b))");
    expect(p("- - a")).toBe("(neg (neg a))");
    expect(p("not a && b")).toBe("(&& (not a) b)");
    expect(p("not f x")).toBe("(not (f x))");
    expect(p("-x[i]")).toBe("(neg x[i])");
  });

  it("reads - after an expression as binary: `f -x` is `f - x`", () => {
    expect(p("f -x")).toBe("(- f x)");
    expect(p("f x -1")).toBe("(- (f x) 1)");
    expect(p("f (-x)")).toBe("(f (neg x))");
  });

  it("applies by juxtaposition, left associative, with indexing tighter", () => {
    expect(p("f x y")).toBe("((f x) y)");
    expect(p("f v[i]")).toBe("(f v[i])");
    expect(p("m[i][j]")).toBe("m[i][j]");
    expect(p("f m[i][j] v[k]")).toBe("((f m[i][j]) v[k])");
    expect(p("(f v)[i]")).toBe("(f v)[i]");
    expect(p("v[i + 1] * 2")).toBe("(* v[(+ i 1)] 2)");
    expect(p("length(m[0])")).toBe("(length m[0])");
    expect(p("get v i")).toBe("((get v) i)");
  });

  it("makes operator values of (op), and keeps (name) a variable", () => {
    expect(p("(*)")).toBe("(op *)");
    expect(p("(**) a b")).toBe("(((op **) a) b)");
    for (const op of ["+", "-", "/", "<", ">", "<=", ">=", "=", "<>", "&&", "||"])
      expect(p(`(${op})`)).toBe(`(op ${op})`);
    expect(p("( * ) (* a comment *) x")).toBe("((op *) x)");
    expect(p("(pair)")).toBe("pair");
    expect(p("(- x)")).toBe("(neg x)");
  });

  it("lets let, fun and if extend as far right as possible", () => {
    expect(p("a + let x = 1 in x + 2")).toBe("(+ a (let x = 1 in (+ x 2)))");
    expect(p("fun x -> x + 1")).toBe("(fun x -> (+ x 1))");
    expect(p("if c then a else b + 1")).toBe("(if c a (+ b 1))");
    expect(p("(if c then a else b) + 1")).toBe("(+ (if c a b) 1)");
    expect(p("-if c then a else b")).toBe("(neg (if c a b))");
    expect(p("f (fun x -> x) y")).toBe("((f (fun x -> x)) y)");
  });

  it("reads tuples, with commas below every operator (so a fun body takes them, as in F#)", () => {
    expect(p("(a, b)")).toBe("(tuple a b)");
    expect(p("(a + 1, f b, (c, d))")).toBe("(tuple (+ a 1) (f b) (tuple c d))");
    expect(p("(fun x -> x, 1)")).toBe("(fun x -> (tuple x 1))");
    expect(p("((fun x -> x), 1)")).toBe("(tuple (fun x -> x) 1)");
    expect(p("((a))")).toBe("a");
  });

  it("reads literals", () => {
    const nums = (text: string) => {
      const e = parseExpr(src(text));
      return e.kind === "num" ? [e.value, e.isInt] : e.kind;
    };
    expect(nums("3")).toEqual([3, true]);
    expect(nums("2.")).toEqual([2, false]);
    expect(nums("1e-3")).toEqual([0.001, false]);
    expect(nums("1.5e+3")).toEqual([1500, false]);
    expect(p("(true, false)")).toBe("(tuple true false)");
  });
});

describe("let, fun and patterns", () => {
  it("reads lets with names, tuple patterns, wildcards and annotations", () => {
    expect(p("let x = 1 in x")).toBe("(let x = 1 in x)");
    expect(p("let (a, _) = p in a")).toBe("(let (a _) = p in a)");
    expect(p("let ((a, b), c) = p in a")).toBe("(let ((a b) c) = p in a)");
    expect(p("let x: Double = 1 in x")).toBe("(let x:Double = 1 in x)");
    expect(p("let x = 1 in let y = 2 in x")).toBe("(let x = 1 in (let y = 2 in x))");
    expect(p("let x = let y = 1 in y in x")).toBe("(let x = (let y = 1 in y) in x)");
  });

  it("reads curried and annotated parameters", () => {
    expect(p("fun x y -> x")).toBe("(fun x y -> x)");
    expect(p("fun (x: Vector) (n: Card) _ -> x")).toBe("(fun x:Vector n:Card _ -> x)");
    expect(p("fun (x) -> x")).toBe("(fun x -> x)");
  });

  it("desugars `let f x y = e` to a lambda, and a result type to the function's type", () => {
    expect(p("let f x y = x + y in f")).toBe("(let f = (fun x y -> (+ x y)) in f)");
    expect(p("let f (x: Double) (n: Index): Bool = x in f")).toBe(
      "(let f:(-> Double (-> Index Bool)) = (fun x:Double n:Index -> x) in f)",
    );
    const prog = parseProgram(src("let add x y = x + y\nlet k: Double = 1"));
    expect(prog.defs.map((d) => [d.name, sexp(d.value), d.annot ? typeSexp(d.annot) : null])).toEqual([
      ["add", "(fun x y -> (+ x y))", null],
      ["k", "1", "Double"],
    ]);
  });
});

describe("layout", () => {
  it("parses the brief's function whose body is three layout lets and an expression", () => {
    const text = [
      "let f = fun u M v ->",
      "  let um = vectorToMatrix u",
      "  let vt = matrixTranspose (vectorToMatrix v)",
      "  let m = matrixMult um (matrixMult M vt)",
      "  m[0][0]",
    ].join("\n");
    const prog = parseProgram(src(text));
    expect(prog.defs).toHaveLength(1);
    expect(sexp(prog.defs[0]!.value)).toBe(
      "(fun u M v -> (let um = (vectorToMatrix u) in (let vt = (matrixTranspose (vectorToMatrix v)) in " +
        "(let m = ((matrixMult um) ((matrixMult M) vt)) in m[0][0]))))",
    );
  });

  it("ignores layout inside brackets (Fig. 4: closing brackets at a smaller column)", () => {
    const text = [
      "let matrixHot = fun n m r c ->",
      "  build n (fun i ->",
      "    build m (fun j ->",
      "      if (i = r && j = c) then 1 else 0",
      "  ) )",
      "let next = 1",
    ].join("\n");
    const prog = parseProgram(src(text));
    expect(prog.defs.map((d) => d.name)).toEqual(["matrixHot", "next"]);
    expect(sexp(prog.defs[0]!.value)).toBe(
      "(fun n m r c -> ((build n) (fun i -> ((build m) (fun j -> (if (&& (= i r) (= j c)) 1 0))))))",
    );
  });

  it("ends a definition at the next token in column 1", () => {
    const prog = parseProgram(src("let a = f\n  x\n  y\nlet b = 2\n\n\nlet c =\n  3"));
    expect(prog.defs.map((d) => [d.name, sexp(d.value)])).toEqual([
      ["a", "((f x) y)"],
      ["b", "2"],
      ["c", "3"],
    ]);
  });

  it("continues a right-hand side on lines indented past its let", () => {
    expect(p("let s = a\n    + b\n  * c\nlet t = s\nt")).toBe("(let s = (+ a (* b c)) in (let t = s in t))");
  });

  it("lets a layout let inside brackets end at a line at its column", () => {
    expect(p("g (let a = 1\n   a + 1) 2")).toBe("((g (let a = 1 in (+ a 1))) 2)");
    expect(p("build n (fun i ->\n  let j = i + 1\n  j * j\n)")).toBe(
      "((build n) (fun i -> (let j = (+ i 1) in (* j j))))",
    );
  });

  it("nests layout lets", () => {
    const text = ["let b =", "  let c = 1", "  let d = c", "  c + d", "b * 2"].join("\n");
    expect(p(text)).toBe("(let b = (let c = 1 in (let d = c in (+ c d))) in (* b 2))");
  });

  it("accepts `in` on its own line, and `let ... in` across lines anywhere", () => {
    expect(p("let a = 1\nin a")).toBe("(let a = 1 in a)");
    expect(p("let a =\n 1 in\n   a")).toBe("(let a = 1 in a)");
    expect(p("f (let a = 1 in\na)")).toBe("(f (let a = 1 in a))");
  });
});

describe("type annotations", () => {
  const t = (text: string) => typeSexp(parseType(src(text)));
  it("reads names, arrays, tuples and functions with their precedences", () => {
    expect(t("Double")).toBe("Double");
    expect(t("Array<Array<Double>>")).toBe("Array<Array<Double>>");
    expect(t("Double * Index -> Bool")).toBe("(-> (* Double Index) Bool)");
    expect(t("A -> B -> C".replace(/[ABC]/g, "Double"))).toBe("(-> Double (-> Double Double))");
    expect(t("(Vector -> Double) -> Matrix")).toBe("(-> (-> Vector Double) Matrix)");
    expect(t("Double * Double * Card")).toBe("(* Double Double Card)");
    expect(t("(Double * Double) * Card")).toBe("(* (* Double Double) Card)");
    expect(t("Array<Double * Index>")).toBe("Array<(* Double Index)>");
  });

  it("closes Array< with the first half of `>=`", () => {
    expect(p("let v: Array<Double>= w in v")).toBe("(let v:Array<Double> = w in v)");
    expect(p("let v: Array<Array<Bool>>= w in v")).toBe("(let v:Array<Array<Bool>> = w in v)");
  });
});

describe("spans", () => {
  it("gives every node the span of its source text", () => {
    const text = "f (x) + (a, b)[0] * -y";
    const e = parseExpr(src(text));
    expect(e.kind).toBe("binop");
    if (e.kind !== "binop") return;
    expect(textOf(text, e)).toBe(text);
    expect(textOf(text, { span: e.opSpan })).toBe("+");
    expect(textOf(text, e.left)).toBe("f (x)");
    const right = e.right as Expr & { kind: "binop" };
    expect(textOf(text, right)).toBe("(a, b)[0] * -y");
    expect(textOf(text, right.left)).toBe("(a, b)[0]");
    expect(textOf(text, (right.left as Expr & { kind: "index" }).array)).toBe("(a, b)");
    expect(textOf(text, right.right)).toBe("-y");
  });

  it("spans lets, lambdas, definitions and parameters", () => {
    const text = "let g (x: Double) y =\n  let z = x\n  z + y\nlet h = 1";
    const prog = parseProgram(src(text));
    const g = prog.defs[0]!;
    expect(textOf(text, g)).toBe("let g (x: Double) y =\n  let z = x\n  z + y");
    expect(textOf(text, { span: g.nameSpan })).toBe("g");
    expect(g.value.kind).toBe("lam");
    if (g.value.kind !== "lam") return;
    expect(textOf(text, g.value)).toBe("(x: Double) y =\n  let z = x\n  z + y");
    expect(g.value.params.map((q) => textOf(text, q))).toEqual(["(x: Double)", "y"]);
    expect(textOf(text, g.value.body)).toBe("let z = x\n  z + y");
  });
});

describe("programs", () => {
  it("parses an empty file and a file of comments to no definitions", () => {
    expect(parseProgram(src("")).defs).toEqual([]);
    expect(parseProgram(src("// nothing\n(* here *)\n")).defs).toEqual([]);
  });
});
