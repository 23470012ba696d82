// The ring rules (paper 000 Fig. 7a), each alone: exact ones always; those exact only for finite Doubles only under
// that assumption (and always on Index).

import { describe, expect, test } from "vitest";
import { litDouble, litIndex } from "../../src/ir/builder.js";
import { runFunction } from "../../src/eval/interpreter.js";
import { ringRules } from "../../src/opt/rules/ring.js";
import type { AnyRule } from "../../src/opt/rules/rule.js";
import { DOUBLE, INT } from "../../src/types/types.js";
import { func } from "../ir/helpers.js";
import { params, runRules } from "./run-rules.js";

const ring = (name: string, finite: boolean): AnyRule => {
  const r = ringRules(finite).find((x) => x.name === name);
  if (!r) throw new Error(`no ring rule ${name}`);
  return r;
};

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
    expect(runRules(both("sub", 0), [ring("sub-zero", false)]).text).toBe(
      "let f (x: Double) (i: Index) = (x, 0. - x, i, -i)",
    );
    expect(runRules(both("mul", 1), [ring("mul-one", false)]).text).toBe("let f (x: Double) (i: Index) = (x, x, i, i)");
    expect(runRules(both("div", 1), [ring("mul-one", false)]).text).toBe(
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
    const { text, fired } = runRules(fn, [ring("mul-one", false), ring("neg-neg", false)]);
    expect(text).toBe("let f (x: Double) (y: Double) = (-x, y, x - y, x + y, x - y)");
    expect(fired["neg-neg"]).toBe(4);
  });

  test("e + -0 -> e is exact; e + 0 -> e and 0 - e -> -e are not (the sign of zero), so they wait for the assumption", () => {
    const fn = func("f", params(["x", DOUBLE]), (b, x) =>
      b.tuple([b.prim("add", [x, litDouble(-0)]), b.prim("add", [x, litDouble(0)])]),
    );
    expect(runRules(fn, [ring("add-zero", false)]).text).toBe("let f (x: Double) = (x, x + 0.)");
    expect(runRules(fn, [ring("add-zero", true)]).text).toBe("let f (x: Double) = (x, x)");
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
    const rules = ringRules(false);
    expect(runRules(fn, rules).text).toBe("let f (i: Index) (j: Index) = (i, -j, (0: Index), (0: Index), (0: Index))");
  });

  test("e - e and e + -e are left alone on Doubles (infinities, NaN), even under the assumption", () => {
    const fn = func("f", params(["x", DOUBLE]), (b, x) =>
      b.tuple([b.prim("sub", [x, x]), b.prim("add", [x, b.prim("neg", [x])])]),
    );
    expect(runRules(fn, [ring("cancel", true)]).text).toBe("let f (x: Double) = (x - x, x + (-x))");
  });
});

describe("exact only for finite Doubles (paper 000's assumption)", () => {
  test("e * 0 -> 0 and 0 / e -> 0", () => {
    const fn = func("f", params(["x", DOUBLE]), (b, x) =>
      b.tuple([b.prim("mul", [x, litDouble(0)]), b.prim("div", [litDouble(0), x])]),
    );
    expect(runRules(fn, [ring("mul-zero", false)]).text).toBe("let f (x: Double) = (x * 0., 0. / x)");
    expect(runRules(fn, [ring("mul-zero", true)]).text).toBe("let f (x: Double) = (0., 0.)");
    // What the assumption gives up: the interpreter says NaN for an infinite x.
    expect(runFunction(fn, [Infinity])).toEqual({ tag: "tuple", elems: [NaN, 0] });
  });

  test("0 / e on Index stays (e may be 0: an error)", () => {
    const fn = func("f", params(["i", INT]), (b, i) => b.prim("div", [litIndex(0), i]));
    expect(runRules(fn, [ring("mul-zero", true)]).text).toBe("let f (i: Index) = 0 / i");
  });

  test("e0*e1 + e0*e2 -> e0*(e1+e2), in any operand order, when the products have no other use", () => {
    const fn = func("f", params(["a", DOUBLE], ["b", DOUBLE], ["c", DOUBLE]), (b, a, bb, c) =>
      b.prim("add", [b.prim("mul", [bb, a]), b.prim("mul", [a, c])]),
    );
    expect(runRules(fn, [ring("factor", false)]).text).toBe(
      "let f (a: Double) (b: Double) (c: Double) = b * a + a * c",
    );
    expect(runRules(fn, [ring("factor", true)]).text).toBe("let f (a: Double) (b: Double) (c: Double) = a * (b + c)");
    const shared = func("g", params(["a", DOUBLE], ["b", DOUBLE]), (b, a, bb) => {
      const p = b.prim("mul", [a, bb], "p");
      return b.tuple([b.prim("add", [p, b.prim("mul", [a, a])]), p]);
    });
    expect(runRules(shared, [ring("factor", true)]).fired.factor).toBeUndefined();
  });
});
