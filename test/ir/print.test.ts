import { describe, expect, test } from "vitest";
import { AnfBuilder, litBool, litDouble, litIndex, mkPrim, mkProj } from "../../src/ir/builder.js";
import { freshVar, lit, mkLet, mkTuple, type Atom, type Expr } from "../../src/ir/ir.js";
import { printIr, printLiteral } from "../../src/ir/print.js";
import type { PrimName } from "../../src/prims/names.js";
import { BOOL, DOUBLE, INT, MATRIX, tupleOf, VECTOR } from "../../src/types/types.js";
import { func } from "./helpers.js";

const a = freshVar("a", DOUBLE);
const b = freshVar("b", DOUBLE);
const c = freshVar("c", DOUBLE);
const p = freshVar("p", BOOL);
const i = freshVar("i", INT);
const v = freshVar("v", VECTOR);
const m = freshVar("m", MATRIX);

/** Prints the expression built by `body` (sugar on: single-use lets print inline). */
function show(body: (bb: AnfBuilder) => Expr): string {
  const bb = new AnfBuilder();
  return printIr(bb.finish(body(bb)));
}
const op = (bb: AnfBuilder, name: PrimName, ...args: Atom[]) => bb.prim(name, args);

describe("literals", () => {
  test.each([
    [2, "2."],
    [0.5, "0.5"],
    [1e-7, "1e-7"],
    [1e21, "1e+21"],
    [123456.25, "123456.25"],
    [-3, "(-3.)"],
    [-0, "(-0.)"],
    [NaN, "(0. / 0.)"],
    [Infinity, "(1. / 0.)"],
    [-Infinity, "(-1. / 0.)"],
  ])("Double %s prints as %s", (x, text) => {
    expect(printLiteral(litDouble(x))).toBe(text);
  });

  test("Index and Bool", () => {
    expect(printLiteral(litIndex(3))).toBe("3");
    expect(printLiteral(litIndex(-3))).toBe("(-3)");
    expect(printLiteral(litBool(true))).toBe("true");
    expect(printLiteral(lit(false, BOOL))).toBe("false");
  });
});

describe("operators: precedence and associativity", () => {
  test("left-associative operators", () => {
    expect(show((bb) => op(bb, "sub", op(bb, "sub", a, b), c))).toBe("a - b - c");
    expect(show((bb) => op(bb, "sub", a, op(bb, "sub", b, c)))).toBe("a - (b - c)");
    expect(show((bb) => op(bb, "div", a, op(bb, "mul", b, c)))).toBe("a / (b * c)");
    expect(show((bb) => op(bb, "add", a, op(bb, "mul", b, c)))).toBe("a + b * c");
    expect(show((bb) => op(bb, "mul", op(bb, "add", a, b), c))).toBe("(a + b) * c");
  });

  test("power is right-associative", () => {
    expect(show((bb) => op(bb, "pow", a, op(bb, "pow", b, c)))).toBe("a ** b ** c");
    expect(show((bb) => op(bb, "pow", op(bb, "pow", a, b), c))).toBe("(a ** b) ** c");
  });

  test("negation", () => {
    expect(show((bb) => op(bb, "neg", op(bb, "mul", a, b)))).toBe("-(a * b)");
    expect(show((bb) => op(bb, "mul", op(bb, "neg", a), b))).toBe("-a * b");
    expect(show((bb) => op(bb, "sub", a, op(bb, "neg", b)))).toBe("a - (-b)");
    expect(show((bb) => op(bb, "pow", op(bb, "neg", a), b))).toBe("(-a) ** b");
    expect(show((bb) => op(bb, "neg", op(bb, "neg", a)))).toBe("-(-a)");
    expect(show((bb) => op(bb, "neg", op(bb, "sin", a)))).toBe("-sin a");
    expect(show((bb) => op(bb, "sin", op(bb, "neg", a)))).toBe("sin (-a)");
    expect(show((bb) => op(bb, "mul", a, litDouble(-2)))).toBe("a * (-2.)");
  });

  test("comparisons do not associate; boolean operators", () => {
    expect(show((bb) => op(bb, "eq", op(bb, "lt", a, b), p))).toBe("(a < b) = p");
    expect(show((bb) => op(bb, "lt", op(bb, "add", a, b), c))).toBe("a + b < c");
    expect(show((bb) => op(bb, "not", op(bb, "lt", a, b)))).toBe("not (a < b)");
    expect(show((bb) => op(bb, "and", op(bb, "or", p, p), p))).toBe("(p || p) && p");
    expect(show((bb) => op(bb, "or", op(bb, "ne", a, b), op(bb, "ge", a, c)))).toBe("a <> b || a >= c");
  });

  test("prefix primitives are applications", () => {
    expect(show((bb) => op(bb, "sin", op(bb, "add", a, b)))).toBe("sin (a + b)");
    expect(show((bb) => op(bb, "add", op(bb, "sin", a), op(bb, "cos", b)))).toBe("sin a + cos b");
    expect(show((bb) => op(bb, "max", a, op(bb, "exp", b)))).toBe("max a (exp b)");
    expect(show((bb) => op(bb, "toDouble", i))).toBe("double i");
    expect(show((bb) => op(bb, "length", v))).toBe("length v");
  });

  test("indexing", () => {
    expect(show((bb) => op(bb, "get", op(bb, "get", m, i), op(bb, "add", i, litIndex(1))))).toBe("m[i][i + 1]");
    expect(show((bb) => op(bb, "length", op(bb, "get", m, litIndex(0))))).toBe("length m[0]");
    expect(show((bb) => op(bb, "sin", op(bb, "get", v, i)))).toBe("sin v[i]");
    const built = (bb: AnfBuilder) =>
      op(
        bb,
        "get",
        bb.build(litIndex(3), (j, b2) => b2.prim("toDouble", [j])),
        i,
      );
    expect(show(built)).toBe("(build 3 (fun i_2 -> double i_2))[i]"); // the free i keeps its name
  });
});

describe("tuples, projections, functions, loops", () => {
  test("pairs use fst and snd", () => {
    expect(show((bb) => bb.proj(1, bb.tuple([a, op(bb, "neg", b)])))).toBe("snd (a, -b)");
  });

  test("larger tuples project with a pattern", () => {
    const t = freshVar("t", tupleOf([DOUBLE, DOUBLE, DOUBLE]));
    const y = freshVar("y", DOUBLE);
    const e = mkLet(t, mkTuple([a, b, c]), mkLet(y, mkProj(1, t), mkPrim("add", [y, y])));
    expect(printIr(e, { sugar: false })).toBe("let t = (a, b, c) in\nlet (_, y, _) = t in\ny + y");
    expect(printIr(e)).toBe("let (_, y, _) = (a, b, c) in\ny + y");
    const once = mkLet(t, mkTuple([a, b, c]), mkLet(y, mkProj(2, t), mkPrim("neg", [y])));
    expect(printIr(once)).toBe("-(let (_, _, y) = (a, b, c) in y)");
  });

  test("curried lambdas merge; applications", () => {
    const text = show((bb) => {
      const f = bb.lam("x", DOUBLE, (x, b1) => b1.lam("y", DOUBLE, (y, b2) => b2.prim("mul", [x, y])), "f");
      return bb.app(bb.app(f, a), op(bb, "neg", b));
    });
    expect(text).toBe("let f = fun x y -> x * y in\nf a (-b)");
  });

  test("build and ifold", () => {
    const text = show((bb) => {
      const n = bb.prim("length", [v], "n");
      const xs = bb.build(n, (j, b2) => b2.prim("mul", [b2.prim("get", [v, j]), a]), "xs", "j");
      return bb.ifold(litDouble(0), n, (s, k, b2) => b2.prim("add", [s, b2.prim("get", [xs, k])]), "s", "s", "k");
    });
    expect(text).toBe(
      "let n = length v in\nlet xs = build n (fun j -> v[j] * a) in\nifold (fun s k -> s + xs[k]) 0. n",
    );
  });
});

describe("names", () => {
  test("duplicates get suffixes; reserved and invalid names are avoided", () => {
    const x1 = freshVar("x", DOUBLE);
    const x2 = freshVar("x", DOUBLE);
    const len = freshVar("length", INT);
    const weird = freshVar("9 lives!", DOUBLE);
    const under = freshVar("_", DOUBLE);
    const e = mkLet(
      x1,
      litDouble(1),
      mkLet(
        x2,
        mkPrim("add", [x1, x1]),
        mkLet(
          len,
          mkPrim("length", [v]),
          mkLet(weird, mkPrim("toDouble", [len]), mkLet(under, mkPrim("mul", [weird, x2]), mkPrim("add", [under, x2]))),
        ),
      ),
    );
    expect(printIr(e, { sugar: false })).toBe(
      [
        "let x = 1. in",
        "let x_2 = x + x in",
        "let length_2 = length v in",
        "let v9_lives_ = double length_2 in",
        "let v_2 = v9_lives_ * x_2 in",
        "v_2 + x_2",
      ].join("\n"),
    );
  });

  test("a function prints with annotated parameters", () => {
    const fn = func(
      "norm",
      [
        ["u", VECTOR],
        ["k", INT],
      ],
      (bb, u, k) => bb.prim("sqrt", [bb.prim("get", [u, k])]),
    );
    expect(printIr(fn)).toBe("let norm (u: Vector) (k: Index) = sqrt u[k]");
  });
});

describe("sugar: single-use lets print at their use, never moved into a loop, lambda or branch", () => {
  test("used once in the same scope: inline; used twice: named", () => {
    const text = show((bb) => {
      const t = bb.prim("mul", [b, c], "t");
      const u = bb.prim("add", [a, t], "u");
      return bb.prim("mul", [u, u]);
    });
    expect(text).toBe("let u = a + b * c in\nu * u");
  });

  test("not into a loop body", () => {
    const text = show((bb) => {
      const e = bb.prim("exp", [a], "e");
      return bb.build(litIndex(3), (j, b2) => b2.prim("mul", [e, b2.prim("toDouble", [j])]), "xs", "j");
    });
    expect(text).toBe("let e = exp a in\nbuild 3 (fun j -> e * double j)");
  });

  test("not into a branch, but into the condition", () => {
    const text = show((bb) => {
      const e = bb.prim("exp", [a], "e");
      const q = bb.prim("lt", [a, b], "q");
      return bb.if(
        q,
        () => e,
        () => litDouble(0),
      );
    });
    expect(text).toBe("let e = exp a in\nif a < b then e else 0.");
  });

  test("sugar off prints every let", () => {
    const bb = new AnfBuilder();
    const t = bb.prim("mul", [b, c], "t");
    expect(printIr(bb.finish(bb.prim("add", [a, t])), { sugar: false })).toBe(
      "let t = b * c in\nlet add = a + t in\nadd",
    );
  });
});

describe("layout", () => {
  test("a multi-line if as a let's right-hand side goes on its own lines", () => {
    const text = show((bb) => {
      const long = (b2: AnfBuilder) => {
        let acc: Atom = a;
        for (let k = 0; k < 8; k++) acc = b2.prim("add", [acc, b2.prim("sin", [acc])]);
        return acc;
      };
      const r = bb.if(p, long, () => b, "r");
      return bb.prim("mul", [r, r]);
    });
    expect(text).toMatchInlineSnapshot(`
      "let r =
        if p then
          let add = a + sin a in
          let add_2 = add + sin add in
          let add_3 = add_2 + sin add_2 in
          let add_4 = add_3 + sin add_3 in
          let add_5 = add_4 + sin add_4 in
          let add_6 = add_5 + sin add_5 in
          let add_7 = add_6 + sin add_6 in
          add_7 + sin add_7
        else
          b in
      r * r"
    `);
  });

  test("else-if chains and long lambda bodies", () => {
    const fn = func("sign", [["x", DOUBLE]], (bb, x) =>
      bb.if(
        bb.prim("lt", [x, litDouble(0)]),
        () => litDouble(-1),
        (b2) =>
          b2.if(
            b2.prim("gt", [x, litDouble(0)]),
            () => litDouble(1),
            () => litDouble(0),
          ),
      ),
    );
    expect(printIr(fn)).toBe("let sign (x: Double) = if x < 0. then (-1.) else if x > 0. then 1. else 0.");
    const wide = func("sum", [["v", VECTOR]], (bb, vv) =>
      bb.ifold(
        litDouble(0),
        bb.prim("length", [vv]),
        (s, k, b2) => {
          const y = b2.prim("get", [vv, k], "y");
          const z = b2.prim("mul", [y, y], "z");
          return b2.prim("add", [s, b2.prim("add", [z, b2.prim("tanh", [b2.prim("sin", [b2.prim("cos", [z])])])])]);
        },
        "s",
        "s",
        "k",
      ),
    );
    expect(printIr(wide)).toMatchInlineSnapshot(`
      "let sum (v: Vector) =
        ifold (fun s k ->
          let y = v[k] in
          let z = y * y in
          s + (z + tanh (sin (cos z)))) 0. (length v)"
    `);
  });
});

describe("sugar limits", () => {
  test("a long chain of single-use lets does not become one expression", () => {
    const text = show((bb) => {
      let acc: Atom = a;
      for (let k = 0; k < 14; k++) acc = bb.prim("sin", [acc], "s");
      return acc;
    });
    expect(text).toBe(
      [
        "let s = sin (sin (sin (sin (sin (sin (sin a)))))) in",
        "let s_2 = sin (sin (sin (sin (sin (sin (sin s)))))) in",
        "s_2",
      ].join("\n"),
    );
  });
});
