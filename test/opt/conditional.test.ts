// The conditional rules of paper 000 Fig. 7f beyond the literal and equal-branch ones (test/opt/rules.test.ts), each
// alone: known conditions, Boolean conditionals, nested conditions, and distributing arithmetic over a conditional.

import { describe, expect, test } from "vitest";
import { litBool, litDouble, mkPrim, type AnfBuilder } from "../../src/ir/builder.js";
import type { Atom } from "../../src/ir/ir.js";
import {
  distributeOverIf,
  ifBool,
  ifKnown,
  ifNestedCondition,
  ifNot,
  logicUnit,
} from "../../src/opt/rules/conditional.js";
import { ringRules } from "../../src/opt/rules/ring.js";
import { BOOL, DOUBLE, INT } from "../../src/types/types.js";
import { func } from "../ir/helpers.js";
import { params, runRules } from "./run-rules.js";

/** `if c then 1. else 0.`, the one-hot tangent of the seeds. */
const hot = (b: AnfBuilder, c: Atom) =>
  b.if(
    c,
    () => litDouble(1),
    () => litDouble(0),
    "h",
  );

describe("conditions", () => {
  test("if-known: a condition decided by an enclosing branch on the same condition", () => {
    const fn = func("f", params(["c", BOOL], ["x", DOUBLE], ["y", DOUBLE]), (b, c, x, y) =>
      b.if(
        c,
        (bt) =>
          bt.if(
            c,
            () => x,
            () => y,
          ),
        (be) =>
          be.if(
            c,
            () => x,
            () => y,
          ),
      ),
    );
    expect(runRules(fn, [ifKnown]).text).toBe("let f (c: Bool) (x: Double) (y: Double) = if c then x else y");
  });

  test("if-bool: if c then true else false -> c; if c then false else true -> not c", () => {
    const fn = func("f", params(["c", BOOL]), (b, c) =>
      b.tuple([
        b.if(
          c,
          () => litBool(true),
          () => litBool(false),
        ),
        b.if(
          c,
          () => litBool(false),
          () => litBool(true),
        ),
      ]),
    );
    expect(runRules(fn, [ifBool]).text).toBe("let f (c: Bool) = (c, not c)");
  });

  test("logic-unit and if-not", () => {
    const fn = func("f", params(["c", BOOL], ["x", DOUBLE], ["y", DOUBLE]), (b, c, x, y) => {
      const t = b.prim("and", [litBool(true), c]);
      const f = b.prim("or", [c, litBool(true)]);
      const n = b.prim("not", [c], "n");
      return b.tuple([
        t,
        f,
        b.if(
          n,
          () => x,
          () => y,
        ),
      ]);
    });
    expect(runRules(fn, [logicUnit, ifNot]).text).toBe(
      "let f (c: Bool) (x: Double) (y: Double) = (c, true, (if c then y else x))",
    );
  });

  test("if-nested-condition: the lowering of && and || (a conditional as condition) becomes nested conditionals", () => {
    const fn = func("f", params(["i", INT], ["j", INT], ["x", DOUBLE]), (b, i, j, x) => {
      const both = b.if(
        b.prim("eq", [i, j], "c1"),
        (bt) => bt.prim("lt", [i, j]),
        () => litBool(false),
        "both",
      );
      const either = b.if(
        b.prim("gt", [i, j], "c2"),
        () => litBool(true),
        (be) => be.prim("lt", [j, i]),
        "either",
      );
      return b.tuple([
        b.if(
          both,
          (bt) => bt.prim("sin", [x]),
          () => litDouble(0),
        ),
        b.if(
          either,
          () => x,
          (be) => be.prim("cos", [x]),
        ),
      ]);
    });
    const { text, fired } = runRules(fn, [ifNestedCondition]);
    expect(text).toBe(
      [
        "let f (i: Index) (j: Index) (x: Double) =",
        "  ((if i = j then if i < j then sin x else 0. else 0.), (if i > j then x else if j < i then x else cos x))",
      ].join("\n"),
    );
    expect(fired["if-nested-condition"]).toBe(2);
  });
});

describe("distribute-over-if", () => {
  const ring = ringRules();

  // Forward mode's tangent arithmetic (Prim.tangent), where a one-hot tangent is what the rule is for.
  const tangentPrim = (b: AnfBuilder, op: "add" | "mul", args: Atom[], at: 0 | 1): Atom =>
    b.bind(op, { ...mkPrim(op, args), tangent: at });

  test("x * (if c then 1 else 0) -> if c then x else 0, then s + that -> if c then s + x else s", () => {
    const fn = func("f", params(["c", BOOL], ["x", DOUBLE], ["s", DOUBLE]), (b, c, x, s) =>
      tangentPrim(b, "add", [s, tangentPrim(b, "mul", [x, hot(b, c)], 1)], 0),
    );
    const { text, fired } = runRules(fn, [distributeOverIf, ...ring]);
    expect(text).toBe("let f (c: Bool) (x: Double) (s: Double) = if c then s + x else s");
    expect(fired["distribute-over-if"]).toBe(2);
  });

  test("nested conditionals (a one-hot of a matrix) distribute leaf by leaf", () => {
    const fn = func("f", params(["c", BOOL], ["d", BOOL], ["s", DOUBLE]), (b, c, d, s) => {
      const t = b.if(
        c,
        (bt) => hot(bt, d),
        () => litDouble(0),
        "t",
      );
      return tangentPrim(b, "add", [s, t], 0);
    });
    expect(runRules(fn, [distributeOverIf, ...ring]).text).toBe(
      "let f (c: Bool) (d: Bool) (s: Double) = if c then if d then s + 1. else s else s",
    );
  });

  test("exact on its own: the leaves are computed as before, a primal `0. * x` stays", () => {
    const fn = func("f", params(["c", BOOL], ["x", DOUBLE]), (b, c, x) => b.prim("mul", [hot(b, c), x]));
    expect(runRules(fn, [distributeOverIf, ...ring]).text).toBe(
      "let f (c: Bool) (x: Double) = if c then x else 0. * x",
    );
  });

  test("bounded: not without a literal leaf, not over large branches, and not copying lets of a shared conditional", () => {
    const noLiteral = func("f", params(["c", BOOL], ["x", DOUBLE], ["y", DOUBLE]), (b, c, x, y) =>
      b.prim("add", [
        x,
        b.if(
          c,
          () => x,
          () => y,
        ),
      ]),
    );
    expect(runRules(noLiteral, [distributeOverIf]).fired["distribute-over-if"]).toBeUndefined();
    const large = func("f", params(["c", BOOL], ["x", DOUBLE]), (b, c, x) => {
      const t = b.if(
        c,
        (bt) => bt.prim("sin", [bt.prim("cos", [bt.prim("exp", [bt.prim("log", [x])])])]),
        () => litDouble(0),
      );
      return b.prim("add", [x, t]);
    });
    expect(runRules(large, [distributeOverIf]).fired["distribute-over-if"]).toBeUndefined();
    const shared = func("f", params(["c", BOOL], ["x", DOUBLE]), (b, c, x) => {
      const t = b.if(
        c,
        (bt) => bt.prim("sin", [x]),
        () => litDouble(0),
        "t",
      );
      return b.tuple([b.prim("add", [x, t]), b.prim("mul", [x, t])]);
    });
    expect(runRules(shared, [distributeOverIf]).fired["distribute-over-if"]).toBeUndefined();
  });
});
