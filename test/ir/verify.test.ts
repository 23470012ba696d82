import { describe, expect, test } from "vitest";
import { AnfBuilder, litDouble, litIndex, mkPrim } from "../../src/ir/builder.js";
import { freshVar, lit, mkLet, mkTuple, type Expr } from "../../src/ir/ir.js";
import { verify } from "../../src/ir/verify.js";
import { BOOL, DOUBLE, funOf, INT, tupleOf, VECTOR, arrayOf } from "../../src/types/types.js";
import { func } from "./helpers.js";

const x = () => freshVar("x", DOUBLE);

/** Verifies `e` (a closed expression) and returns the error message. */
function violation(e: Expr): string {
  try {
    verify(e);
  } catch (err) {
    return (err as Error).message;
  }
  throw new Error("no violation found");
}

describe("verify accepts well-formed IR", () => {
  test("a function with every construct", () => {
    const fn = func(
      "f",
      [
        ["v", VECTOR],
        ["a", DOUBLE],
      ],
      (b, v, a) => {
        const n = b.prim("length", [v]);
        const xs = b.build(n, (i, bb) => bb.prim("mul", [bb.prim("get", [v, i]), a]));
        const s = b.ifold(b.tuple([litDouble(0), litIndex(0)]), n, (acc, i, bb) => {
          const p = bb.proj(0, acc);
          const q = bb.if(
            bb.prim("lt", [i, litIndex(2)]),
            (bt) => bt.prim("get", [xs, i]),
            () => litDouble(1),
          );
          return bb.tuple([bb.prim("add", [p, q]), i]);
        });
        const f = b.lam("y", DOUBLE, (y, bb) => bb.prim("sin", [y]));
        return b.app(f, b.proj(0, s));
      },
    );
    expect(() => verify(fn)).not.toThrow();
  });
});

describe("verify reports the first violation with the node printed", () => {
  test("operand that is not an atom", () => {
    const a = x();
    const bad = { kind: "prim", op: "neg", args: [mkPrim("neg", [a])], type: DOUBLE } as unknown as Expr;
    const msg = violation(mkLet(a, litDouble(1), bad));
    expect(msg).toMatch(/argument 1 of neg must be an atom, found a prim/);
  });

  test("binder bound twice", () => {
    const a = x();
    const msg = violation(mkLet(a, litDouble(1), mkLet(a, litDouble(2), a)));
    expect(msg).toMatch(/variable x#\d+ is bound more than once/);
    expect(msg).toContain("let x = 2. in");
  });

  test("unbound variable and use out of scope", () => {
    expect(violation(mkPrim("neg", [x()]))).toMatch(/x#\d+ is unbound/);
    const a = x();
    const inBranch = {
      kind: "if",
      cond: lit(true, BOOL),
      then: mkLet(a, litDouble(1), a),
      else: litDouble(0),
      type: DOUBLE,
    } as const;
    const b = freshVar("b", DOUBLE);
    expect(violation(mkLet(b, inBranch, mkPrim("neg", [a])))).toMatch(/x#\d+ is used out of its scope/);
  });

  test("free variables of a bare expression may be declared", () => {
    const a = x();
    expect(() => verify(mkPrim("neg", [a]), [a])).not.toThrow();
  });

  test("primitive result type", () => {
    const a = x();
    const bad = { ...mkPrim("add", [a, a]), type: INT };
    expect(violation(mkLet(a, litDouble(1), bad))).toMatch(/result of add: expected type Double, found Index/);
  });

  test("primitive argument types and arity", () => {
    const bad = { kind: "prim", op: "add", args: [litDouble(1), litIndex(1)], type: DOUBLE } as Expr;
    expect(violation(bad)).toMatch(/add applied to Double, Index; expected two Doubles or two Indexes/);
    const arity = { kind: "prim", op: "sin", args: [litDouble(1), litDouble(2)], type: DOUBLE } as Expr;
    expect(violation(arity)).toMatch(/sin takes 1 arguments, has 2/);
  });

  test("use with a type other than its binder's", () => {
    const a = x();
    const wrong = { ...a, type: INT };
    expect(violation(mkLet(a, litDouble(1), mkPrim("neg", [wrong])))).toMatch(
      /use of x#\d+: expected type Double, found Index/,
    );
  });

  test("literal that does not fit its type", () => {
    expect(violation(lit(1.5, INT))).toMatch(/literal 1.5 does not fit its type Index/);
    expect(violation(lit(true, DOUBLE))).toMatch(/literal true does not fit its type Double/);
  });

  test("let binder type and nested let", () => {
    const a = freshVar("a", INT);
    expect(violation(mkLet(a, litDouble(1), a))).toMatch(/let a: expected type Index, found Double/);
    const b = x();
    const c = x();
    expect(violation(mkLet(b, mkLet(c, litDouble(1), c), b))).toMatch(/right-hand side of let x is a let/);
  });

  test("tuples and projections", () => {
    const t = freshVar("t", tupleOf([DOUBLE, DOUBLE]));
    expect(violation({ ...mkTuple([litDouble(1), litDouble(2)]), type: tupleOf([DOUBLE, INT]) })).toMatch(
      /tuple: expected type Double \* Double, found Double \* Index/,
    );
    expect(violation(mkTuple([litDouble(1)]))).toMatch(/a tuple needs at least 2 elements, has 1/);
    const proj = (index: number, arg: Expr, type = DOUBLE) => ({ kind: "proj", index, arg, type }) as Expr;
    expect(violation(mkLet(t, mkTuple([litDouble(1), litDouble(2)]), proj(2, t)))).toMatch(
      /projection 2 out of range for Double \* Double/,
    );
    expect(violation(proj(0, litDouble(1)))).toMatch(/projection from a non-tuple of type Double/);
    expect(violation(mkLet(t, mkTuple([litDouble(1), litDouble(2)]), proj(1, t, INT)))).toMatch(
      /projection 1: expected type Double, found Index/,
    );
  });

  test("lambdas and applications", () => {
    const p = x();
    expect(violation({ kind: "lam", param: p, body: p, type: funOf(DOUBLE, INT) })).toMatch(
      /lambda: expected type Double -> Double, found Double -> Index/,
    );
    const f = freshVar("f", funOf(DOUBLE, DOUBLE));
    const lam = { kind: "lam", param: p, body: p, type: funOf(DOUBLE, DOUBLE) } as const;
    expect(violation(mkLet(f, lam, { kind: "app", fn: f, arg: litIndex(1), type: DOUBLE }))).toMatch(
      /argument: expected type Double, found Index/,
    );
    expect(violation({ kind: "app", fn: litDouble(1), arg: litDouble(1), type: DOUBLE })).toMatch(
      /application of a non-function of type Double/,
    );
  });

  test("conditionals", () => {
    expect(violation({ kind: "if", cond: litDouble(1), then: litDouble(1), else: litDouble(2), type: DOUBLE })).toMatch(
      /if condition of type Double/,
    );
    expect(
      violation({ kind: "if", cond: lit(true, BOOL), then: litDouble(1), else: litIndex(2), type: DOUBLE }),
    ).toMatch(/else branch: expected type Double, found Index/);
  });

  test("build and ifold", () => {
    const i = freshVar("i", INT);
    expect(violation({ kind: "build", size: litDouble(3), index: i, body: litDouble(0), type: VECTOR })).toMatch(
      /build size of type Double/,
    );
    const j = freshVar("j", INT);
    expect(violation({ kind: "build", size: litIndex(3), index: j, body: litDouble(0), type: arrayOf(INT) })).toMatch(
      /build: expected type Vector, found Array<Index>/,
    );
    const acc = x();
    const k = freshVar("k", INT);
    const fold = {
      kind: "ifold",
      init: litDouble(0),
      count: litIndex(2),
      acc,
      index: k,
      body: k,
      type: DOUBLE,
    } as const;
    expect(violation(fold)).toMatch(/ifold body: expected type Double, found Index/);
    const acc2 = freshVar("acc", INT);
    const k2 = freshVar("k", INT);
    expect(violation({ ...fold, acc: acc2, index: k2, body: acc2 })).toMatch(
      /ifold accumulator: expected type Double, found Index/,
    );
  });

  test("the message shows the offending node", () => {
    const b = new AnfBuilder();
    const a = x();
    const y = b.prim("sin", [a], "y");
    const body = b.finish({ ...mkPrim("neg", [y]), type: INT });
    const msg = violation(mkLet(a, litDouble(2), body));
    expect(msg).toBe("IR invariant violated: result of neg: expected type Double, found Index\n  in: -y");
  });
});
