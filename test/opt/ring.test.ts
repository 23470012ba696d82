// The ring rules (paper 000 Fig. 7a), each alone: exact ones always; those exact only up to signs of zero and rounding
// only on forward mode's tangent arithmetic (always on Index), in every pipeline; a zero tangent is a symbolic zero.

import { describe, expect, test } from "vitest";
import { litDouble, litIndex, mkPrim, type AnfBuilder } from "../../src/ir/builder.js";
import type { Atom } from "../../src/ir/ir.js";
import { runFunction } from "../../src/eval/interpreter.js";
import { ringRules } from "../../src/opt/rules/ring.js";
import type { AnyRule } from "../../src/opt/rules/rule.js";
import { DOUBLE, INT } from "../../src/types/types.js";
import { func } from "../ir/helpers.js";
import { params, runRules } from "./run-rules.js";

const ring = (name: string): AnyRule => {
  const r = ringRules().find((x) => x.name === name);
  if (!r) throw new Error(`no ring rule ${name}`);
  return r;
};

/** A primitive of forward mode's tangent arithmetic, its operand `at` the tangent (as scaleTerm writes them). */
const tangentPrim = (b: AnfBuilder, op: "add" | "sub" | "mul" | "div", args: Atom[], at: 0 | 1): Atom =>
  b.bind(op, { ...mkPrim(op, args), tangent: at });

/** `x op literal` and `literal op x` for Doubles and Indexes. */
const both = (op: "add" | "sub" | "mul" | "div", k: number) =>
  func("f", params(["x", DOUBLE], ["i", INT]), (b, x, i) =>
    b.tuple([
      b.prim(op, [x, litDouble(k)]),
      b.prim(op, [litDouble(k), x]),
      b.prim(op, [i, litIndex(k)]),
      b.prim(op, [litIndex(k), i]),
    ]),
  );

describe("exact on Doubles, and on Index", () => {
  test("e - 0 -> e; e * 1 -> e; e / 1 -> e", () => {
    expect(runRules(both("sub", 0), [ring("sub-zero")]).text).toBe("let f (x: Double) (i: Index) = (x, 0. - x, i, -i)");
    expect(runRules(both("mul", 1), [ring("mul-one")]).text).toBe("let f (x: Double) (i: Index) = (x, x, i, i)");
    expect(runRules(both("div", 1), [ring("mul-one")]).text).toBe(
      "let f (x: Double) (i: Index) = (x, 1. / x, i, 1 / i)",
    );
  });

  test("e * -1 -> -e, --e -> e, e + -f -> e - f, e - -f -> e + f", () => {
    const fn = func("f", params(["x", DOUBLE], ["y", DOUBLE]), (b, x, y) => {
      const m = b.prim("mul", [x, litDouble(-1)], "m");
      const nn = b.prim("neg", [b.prim("neg", [y])], "nn");
      const ny = b.prim("neg", [y], "ny");
      return b.tuple([m, nn, b.prim("add", [x, ny]), b.prim("sub", [x, ny]), b.prim("add", [ny, x])]);
    });
    const { text, fired } = runRules(fn, [ring("mul-one"), ring("neg-neg")]);
    expect(text).toBe("let f (x: Double) (y: Double) = (-x, y, x - y, x + y, x - y)");
    expect(fired["neg-neg"]).toBe(4);
  });

  test("e + -0 -> e is exact; e + 0 -> e and 0 - e -> -e are not (the sign of zero): only for tangents", () => {
    const fn = func("f", params(["x", DOUBLE]), (b, x) =>
      b.tuple([
        b.prim("add", [x, litDouble(-0)]),
        b.prim("add", [x, litDouble(0)]),
        tangentPrim(b, "add", [x, litDouble(0)], 0),
        tangentPrim(b, "sub", [litDouble(0), x], 0),
      ]),
    );
    // A primal `x + 0.` stays: a program's primal values are the interpreter's, bit for bit.
    expect(runRules(fn, [ring("add-zero"), ring("sub-zero")]).text).toBe("let f (x: Double) = (x, x + 0., x, -x)");
    const negZero = runFunction(fn, [-0]) as unknown as { elems: number[] };
    expect(Object.is(negZero.elems[0], -0) && Object.is(negZero.elems[1], 0)).toBe(true); // why only -0 is exact
  });

  test("on Index every rule is exact: e + 0, 0 - e, e * 0, e - e, e + -e", () => {
    const fn = func("f", params(["i", INT], ["j", INT]), (b, i, j) => {
      const ni = b.prim("neg", [i], "ni");
      return b.tuple([
        b.prim("add", [litIndex(0), i]),
        b.prim("sub", [litIndex(0), j]),
        b.prim("mul", [j, litIndex(0)]),
        b.prim("sub", [i, i]),
        b.prim("add", [i, ni]),
      ]);
    });
    const rules = ringRules();
    expect(runRules(fn, rules).text).toBe("let f (i: Index) (j: Index) = (i, -j, (0: Index), (0: Index), (0: Index))");
  });

  test("e - e and e + -e are left alone on Doubles (infinities, NaN), even on tangents", () => {
    const fn = func("f", params(["x", DOUBLE]), (b, x) =>
      b.tuple([b.prim("sub", [x, x]), b.prim("add", [x, b.prim("neg", [x])])]),
    );
    expect(runRules(fn, [ring("cancel")]).text).toBe("let f (x: Double) = (x - x, x + (-x))");
  });
});

describe("zero tangents are symbolic zeros; the rest of the assumption is for tangents only", () => {
  test("e * 0 -> 0 and 0 / e -> 0 where the 0 is a tangent, in every pipeline; a primal or a zero factor stays", () => {
    const fn = func("f", params(["x", DOUBLE]), (b, x) =>
      b.tuple([
        b.prim("mul", [x, litDouble(0)]),
        tangentPrim(b, "mul", [x, litDouble(0)], 1),
        tangentPrim(b, "div", [litDouble(0), x], 0),
        tangentPrim(b, "mul", [litDouble(0), x], 1),
      ]),
    );
    expect(runRules(fn, [ring("mul-zero")]).text).toBe("let f (x: Double) = (x * 0., 0., 0., 0. * x)");
    // The interpreter agrees: an infinite partial times a zero tangent is 0, a primal 0 * ∞ is NaN, and so is a zero
    // factor times an infinite tangent.
    expect(runFunction(fn, [Infinity])).toEqual({ tag: "tuple", elems: [NaN, 0, 0, NaN] });
    expect(runFunction(fn, [0])).toEqual({ tag: "tuple", elems: [0, 0, 0, 0] });
  });

  test("0 / e on Index stays (e may be 0: an error)", () => {
    const fn = func("f", params(["i", INT]), (b, i) => b.prim("div", [litIndex(0), i]));
    expect(runRules(fn, [ring("mul-zero")]).text).toBe("let f (i: Index) = 0 / i");
  });

  test("e0*e1 + e0*e2 -> e0*(e1+e2) on tangents, in any operand order, when the products have no other use", () => {
    const fn = func("f", params(["a", DOUBLE], ["b", DOUBLE], ["c", DOUBLE]), (b, a, bb, c) =>
      tangentPrim(b, "add", [tangentPrim(b, "mul", [bb, a], 1), tangentPrim(b, "mul", [c, a], 1)], 0),
    );
    expect(runRules(fn, [ring("factor")]).text).toBe("let f (a: Double) (b: Double) (c: Double) = a * (b + c)");
    const primal = func("h", params(["a", DOUBLE], ["b", DOUBLE], ["c", DOUBLE]), (b, a, bb, c) =>
      b.prim("add", [b.prim("mul", [bb, a]), b.prim("mul", [a, c])]),
    );
    expect(runRules(primal, [ring("factor")]).fired.factor).toBeUndefined();
    const shared = func("g", params(["a", DOUBLE], ["b", DOUBLE]), (b, a, bb) => {
      const p = tangentPrim(b, "mul", [a, bb], 1);
      return b.tuple([tangentPrim(b, "add", [p, tangentPrim(b, "mul", [a, a], 1)], 0), p]);
    });
    expect(runRules(shared, [ring("factor")]).fired.factor).toBeUndefined();
  });
});
