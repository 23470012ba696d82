import { describe, expect, test } from "vitest";
import { runFunction } from "../../src/eval/interpreter.js";
import { litDouble } from "../../src/ir/builder.js";
import { someNode } from "../../src/ir/free.js";
import { freshVar, type IrFunction } from "../../src/ir/ir.js";
import { printIr } from "../../src/ir/print.js";
import { verify } from "../../src/ir/verify.js";
import { inlineFunction } from "../../src/opt/inline.js";
import { BOOL, DOUBLE, funOf, VECTOR, type Type } from "../../src/types/types.js";
import type { DenseArray } from "../../src/runtime/value.js";
import { func } from "../ir/helpers.js";
import { dualType } from "../../src/ad/dual-types.js";

const D2D = funOf(DOUBLE, DOUBLE);

/** Inlines, checks the result is first-order and valid, and returns it printed. */
function inline(fn: IrFunction): string {
  verify(fn);
  const out = inlineFunction(fn);
  verify(out);
  expect(someNode(out.body, (e) => e.kind === "lam" || e.kind === "app")).toBe(false);
  return printIr(out);
}

const params = (...ps: [string, Type][]) => ps;

describe("inlining removes every lambda and application", () => {
  test("beta-reduction of a let-bound lambda, each use a fresh copy", () => {
    const fn = func("f", params(["x", DOUBLE]), (b, x) => {
      const sq = b.lam("y", DOUBLE, (y, bb) => bb.prim("mul", [bb.prim("add", [y, litDouble(1)], "t"), y]), "sq");
      return b.app(sq, b.app(sq, x));
    });
    expect(inline(fn)).toBe("let f (x: Double) =\n  let r = (x + 1.) * x in\n  (r + 1.) * r");
  });

  test("curried application and partial application used twice", () => {
    const fn = func("f", params(["x", DOUBLE], ["y", DOUBLE]), (b, x, y) => {
      const add = b.lam("p", DOUBLE, (p, b1) => b1.lam("q", DOUBLE, (q, b2) => b2.prim("sub", [p, q])), "sub");
      const fromX = b.app(add, x, "fromX");
      return b.prim("mul", [b.app(fromX, y), b.app(fromX, litDouble(2))]);
    });
    expect(inline(fn)).toBe("let f (x: Double) (y: Double) = (x - y) * (x - 2.)");
  });

  test("higher-order functions: a map with a lambda argument", () => {
    const fn = func("scale", params(["v", VECTOR], ["s", DOUBLE]), (b, v, s) => {
      const map = b.lam(
        "u",
        VECTOR,
        (u, b1) =>
          b1.lam("g", D2D, (g, b2) =>
            b2.build(b2.prim("length", [u]), (i, b3) => b3.app(g, b3.prim("get", [u, i])), "ys"),
          ),
        "vectorMap",
      );
      const times = b.lam("a", DOUBLE, (a, b1) => b1.prim("mul", [a, s]), "times");
      return b.app(b.app(map, v), times);
    });
    expect(inline(fn)).toBe("let scale (v: Vector) (s: Double) = build (length v) (fun i -> v[i] * s)");
  });

  test("an application of a conditional of functions is pushed into the branches (Fig. 7f)", () => {
    const fn = func("f", params(["c", BOOL], ["x", DOUBLE]), (b, c, x) => {
      const sin = b.lam("a", DOUBLE, (a, bb) => bb.prim("sin", [a]), "sin'");
      const cos = b.lam("a", DOUBLE, (a, bb) => bb.prim("cos", [a]), "cos'");
      const h = b.if(
        c,
        () => sin,
        () => cos,
        "h",
      );
      return b.prim("add", [b.app(h, x), b.app(h, litDouble(1))]);
    });
    expect(inline(fn)).toBe(
      "let f (c: Bool) (x: Double) =\n  (if c then sin x else cos x) + (if c then sin 1. else cos 1.)",
    );
  });

  test("functions in tuples reach their use through projections (Fig. 7d), also out of conditionals", () => {
    const fn = func("f", params(["c", BOOL], ["x", DOUBLE]), (b, c, x) => {
      const inc = b.lam("a", DOUBLE, (a, bb) => bb.prim("add", [a, litDouble(1)]), "inc");
      const dbl = b.lam("a", DOUBLE, (a, bb) => bb.prim("mul", [a, litDouble(2)]), "dbl");
      const t = b.tuple([inc, dbl], "t");
      const u = b.tuple([dbl, inc], "u");
      const w = b.if(
        c,
        () => t,
        () => u,
        "w",
      );
      const first = b.app(b.proj(0, t), x);
      return b.app(b.proj(1, w), first);
    });
    expect(inline(fn)).toBe("let f (c: Bool) (x: Double) =\n  let r = x + 1. in\n  if c then r * 2. else r + 1.");
  });

  test("a function returned by a function", () => {
    const fn = func("f", params(["x", DOUBLE]), (b, x) => {
      const adder = b.lam(
        "k",
        DOUBLE,
        (k, b1) => b1.lam("z", DOUBLE, (z, b2) => b2.prim("add", [z, k]), "addK"),
        "adder",
      );
      const twice = b.lam("g", D2D, (g, b1) => b1.lam("z", DOUBLE, (z, b2) => b2.app(g, b2.app(g, z)), "gg"), "twice");
      return b.app(b.app(twice, b.app(adder, litDouble(3))), x);
    });
    expect(inline(fn)).toBe("let f (x: Double) = x + 3. + 3.");
  });

  test("the meaning is kept", () => {
    const fn = func("f", params(["v", VECTOR], ["c", BOOL]), (b, v, c) => {
      const f = b.lam("a", DOUBLE, (a, bb) => bb.prim("exp", [a]), "f");
      const g = b.lam("a", DOUBLE, (a, bb) => bb.prim("neg", [a]), "g");
      const h = b.if(
        c,
        () => f,
        () => g,
        "h",
      );
      return b.ifold(
        litDouble(0),
        b.prim("length", [v]),
        (s, i, bb) => bb.prim("add", [s, bb.app(h, bb.prim("get", [v, i]))]),
        "s",
        "s",
      );
    });
    const out = inlineFunction(fn);
    const v: DenseArray = { tag: "dense", elemKind: "double", shape: [3], data: Float64Array.from([0.5, -1, 2]) };
    for (const c of [true, false]) {
      const expected = c ? Math.exp(0.5) + Math.exp(-1) + Math.exp(2) : -0.5 + 1 - 2;
      expect(runFunction(out, [v, c])).toBe(runFunction(fn, [v, c]));
      expect(runFunction(out, [v, c])).toBeCloseTo(expected, 14);
    }
  });
});

describe("what inlining cannot remove", () => {
  test("a function-valued result keeps its lambda", () => {
    const fn = func("adder", params(["k", DOUBLE]), (b, k) =>
      b.lam("z", DOUBLE, (z, bb) => bb.prim("add", [z, k]), "f"),
    );
    const out = inlineFunction(fn);
    expect(printIr(out)).toBe("let adder (k: Double) = fun z -> z + k");
  });

  test("a lambda kept alive by a jvp awaiting the forward-AD pass is not an error yet", () => {
    const fn = func("f", params(["x", DOUBLE]), (b, x) => {
      const sq = b.lam("y", DOUBLE, (y, bb) => bb.prim("mul", [y, y]), "sq");
      const d = b.bind("d", { kind: "jvp", fn: sq, type: dualType(D2D) });
      return b.app(d, b.tuple([x, litDouble(1)]));
    });
    verify(fn);
    const out = inlineFunction(fn);
    verify(out);
    expect(printIr(out)).toBe("let f (x: Double) = jvp (fun y -> y * y) (x, 1.)");
  });

  test("a lambda left in a first-order function is reported as a compiler bug", () => {
    const g = freshVar("g", D2D); // unbound: no valid program produces this
    const x = freshVar("x", DOUBLE);
    const fn: IrFunction = { name: "broken", params: [x], body: { kind: "app", fn: g, arg: x, type: DOUBLE } };
    expect(() => inlineFunction(fn)).toThrow("inline: a function application remains in broken: g x");
  });
});
