// Iteration rules (paper 000 Fig. 7e), unswitching, loop fission (Fig. 7g), tuples through conditionals (Fig. 7d) and
// the fusion cost guard with its index check (Fig. 7c), each alone: program in, program out.

import { describe, expect, test } from "vitest";
import { litDouble, litIndex, type AnfBuilder } from "../../src/ir/builder.js";
import { runFunction } from "../../src/eval/interpreter.js";
import { compileFunction } from "../../src/codegen/compile.js";
import type { Atom } from "../../src/ir/ir.js";
import { compareByFacts, checkIndexInRange } from "../../src/opt/rules/range.js";
import { constantFold } from "../../src/opt/rules/fold.js";
import { logicUnit, ifLiteral } from "../../src/opt/rules/conditional.js";
import { fission, fissionInvariant } from "../../src/opt/rules/fission.js";
import { getOfBuild, lengthOfBuild, lengthOfRowOfBuild } from "../../src/opt/rules/fusion.js";
import { ifoldIdentity, ifoldOnce, ifoldZero, singleAccess, unswitch } from "../../src/opt/rules/iteration.js";
import { projOfIf, projOfTuple, tupleEta } from "../../src/opt/rules/tuple.js";
import { SmoothError } from "../../src/syntax/diagnostics.js";
import { BOOL, DOUBLE, INT, MATRIX, tupleOf, VECTOR } from "../../src/types/types.js";
import { func } from "../ir/helpers.js";
import { params, runRules } from "./run-rules.js";

const vec = (xs: number[]) => ({
  tag: "dense" as const,
  elemKind: "double" as const,
  shape: [xs.length],
  data: Float64Array.from(xs),
});
const FOLD = [compareByFacts, constantFold, logicUnit, ifLiteral, checkIndexInRange];

describe("ifold", () => {
  test("ifold-zero, ifold-once, ifold-identity (the count known not negative)", () => {
    const fn = func("f", params(["v", VECTOR], ["x", DOUBLE], ["n", INT]), (b, v, x, n) => {
      const body = (s: Atom, i: Atom, bb: AnfBuilder) => bb.prim("add", [s, bb.prim("get", [v, i])]);
      return b.tuple([
        b.ifold(x, litIndex(0), body),
        b.ifold(x, litIndex(1), body),
        b.ifold(x, b.prim("length", [v]), (s) => s),
        b.ifold(x, n, (s) => s), // n may be negative: the ifold's error stays
      ]);
    });
    expect(runRules(fn, [ifoldZero, ifoldOnce, ifoldIdentity]).text).toBe(
      "let f (v: Vector) (x: Double) (n: Index) =\n  (x, x + v[0], x, ifold (fun acc i -> acc) x n)",
    );
  });

  test("single-access: ifold (fun a i -> if i = j then g a i else a) z n -> if 0 <= j && j < n then g z j else z", () => {
    const fn = func("f", params(["v", VECTOR], ["j", INT], ["z", DOUBLE]), (b, v, j, z) =>
      b.ifold(z, b.prim("length", [v]), (s, i, bb) => {
        const x = bb.prim("get", [v, i], "x"); // before the conditional: it goes with the hot iteration
        return bb.if(
          bb.prim("eq", [j, i], "c"),
          (bt) => bt.prim("add", [s, x]),
          () => s,
        );
      }),
    );
    const { text, out } = runRules(fn, [singleAccess]);
    expect(text).toBe("let f (v: Vector) (j: Index) (z: Double) =\n  if 0 <= j && j < length v then z + v[j] else z");
    for (const j of [-1, 0, 2, 3])
      expect(runFunction(out, [vec([1, 2, 4]), j, 10])).toBe(runFunction(fn, [vec([1, 2, 4]), j, 10]));
  });

  test("single-access: i <> j with the state in the then branch; and the guard folds where j indexes a loop over n", () => {
    const fn = func("f", params(["v", VECTOR]), (b, v) =>
      b.build(b.prim("length", [v]), (j, bb) =>
        bb.ifold(litDouble(0), bb.prim("length", [v]), (s, i, b3) =>
          b3.if(
            b3.prim("ne", [i, j], "c"),
            () => s,
            (be) => be.prim("get", [v, i]),
          ),
        ),
      ),
    );
    expect(runRules(fn, [singleAccess, ...FOLD]).text).toBe("let f (v: Vector) = build (length v) (fun i -> v[i])");
  });

  test("single-access does not apply when j depends on the index or the state", () => {
    const fn = func("f", params(["v", VECTOR]), (b, v) =>
      b.ifold(litDouble(0), b.prim("length", [v]), (s, i, bb) => {
        const j = bb.prim("add", [i, litIndex(1)], "j");
        return bb.if(
          bb.prim("eq", [i, j]),
          (bt) => bt.prim("add", [s, litDouble(1)]),
          () => s,
        );
      }),
    );
    expect(runRules(fn, [singleAccess]).fired["single-access"]).toBeUndefined();
  });

  test("unswitch: ifold (fun a i -> if c then e else a) z n -> if c then ifold (fun a i -> e) z n else z", () => {
    const fn = func("f", params(["v", VECTOR], ["c", BOOL]), (b, v, c) =>
      b.ifold(litDouble(0), b.prim("length", [v]), (s, i, bb) =>
        bb.if(
          c,
          (bt) => bt.prim("add", [s, bt.prim("get", [v, i])]),
          () => s,
        ),
      ),
    );
    expect(runRules(fn, [unswitch]).text).toBe(
      "let f (v: Vector) (c: Bool) =\n  let length_2 = length v in\n  if c then ifold (fun acc i -> acc + v[i]) 0. length_2 else 0.",
    );
  });
});

describe("fission and tuples", () => {
  const pairLoop = (b: AnfBuilder, v: Atom, w: Atom) =>
    b.ifold(
      b.tuple([litDouble(0), litDouble(1)], "z"),
      b.prim("length", [v]),
      (s, i, bb) => {
        const x = bb.prim("get", [v, i], "x");
        const y = bb.prim("get", [w, i], "y");
        return bb.tuple([bb.prim("add", [bb.proj(0, s), x]), bb.prim("mul", [bb.proj(1, s), y])]);
      },
      "t",
      "s",
    );

  test("fission: a projection of a loop whose components are independent computes that component alone", () => {
    const fn = func("f", params(["v", VECTOR], ["w", VECTOR]), (b, v, w) => b.proj(1, pairLoop(b, v, w)));
    expect(runRules(fn, [fission, projOfTuple]).text).toBe(
      "let f (v: Vector) (w: Vector) = ifold (fun s i -> s * w[i]) 1. (length v)",
    );
  });

  test("no fission when the component needs another one", () => {
    const fn = func("f", params(["v", VECTOR]), (b, v) =>
      b.proj(
        1,
        b.ifold(b.tuple([litDouble(0), litDouble(1)]), b.prim("length", [v]), (s, i, bb) => {
          const a = bb.prim("add", [bb.proj(0, s), bb.prim("get", [v, i])]);
          return bb.tuple([a, bb.prim("mul", [bb.proj(1, s), a])]);
        }),
      ),
    );
    expect(runRules(fn, [fission]).fired.fission).toBeUndefined();
  });

  test("fission-invariant: the component that does not depend on the enclosing loop is split off (and can leave it)", () => {
    const fn = func("f", params(["v", VECTOR], ["w", VECTOR]), (b, v, w) => {
      const z = b.tuple([litDouble(0), litDouble(0)], "z");
      const n = b.prim("length", [v], "n"); // bound outside the build (LICM's work in the strategy)
      return b.build(b.prim("length", [w]), (p, bb) =>
        bb.ifold(z, n, (s, i, b3) => {
          const x = b3.prim("get", [v, i], "x");
          const hot = b3.if(
            b3.prim("eq", [i, p]),
            () => litDouble(1),
            () => litDouble(0),
            "hot",
          );
          return b3.tuple([b3.prim("add", [b3.proj(0, s), x]), b3.prim("add", [b3.proj(1, s), hot])]);
        }),
      );
    });
    expect(runRules(fn, [fissionInvariant, projOfTuple]).text).toBe(
      [
        "let f (v: Vector) (w: Vector) =",
        "  let n = length v in",
        "  build (length w) (fun i ->",
        "    (ifold (fun acc i_2 -> acc + v[i_2]) 0. n, ifold (fun acc_2 i_3 -> acc_2 + (if i_3 = i then 1. else 0.)) 0. n))",
      ].join("\n"),
    );
  });

  test("proj-of-if (the projection its only use) and tuple-eta", () => {
    const fn = func("f", params(["c", BOOL], ["x", DOUBLE], ["p", tupleOf([DOUBLE, DOUBLE])]), (b, c, x, p) => {
      const t = b.if(
        c,
        (bt) => bt.tuple([x, bt.prim("sin", [x])]),
        (be) => be.tuple([litDouble(0), x]),
        "t",
      );
      return b.tuple([b.proj(1, t), b.tuple([b.proj(0, p), b.proj(1, p)])]);
    });
    expect(runRules(fn, [projOfIf, tupleEta]).text).toBe(
      "let f (c: Bool) (x: Double) (p: Double * Double) = ((if c then sin x else x), p)",
    );
  });
});

describe("fusion: cost guard and index check", () => {
  test("a fused access keeps the index check of the get (checkIndex), with the get's error", () => {
    const fn = func("f", params(["v", VECTOR], ["j", INT]), (b, v, j) => {
      const xs = b.build(litIndex(3), (i, bb) => bb.prim("toDouble", [i]), "xs");
      return b.prim("add", [b.prim("get", [xs, j]), b.prim("get", [v, litIndex(0)])]);
    });
    const { text, out } = runRules(fn, [getOfBuild]);
    expect(text).toBe("let f (v: Vector) (j: Index) = double (checkIndex j 3) + v[0]");
    const fail = (f: () => unknown) => {
      try {
        f();
      } catch (e) {
        return e instanceof SmoothError ? e.message : String(e);
      }
      return "no error";
    };
    const args = [vec([5]), 7];
    const expected = fail(() => runFunction(fn, args));
    expect(expected).toMatch(/^index error: index 7 is out of range for an array of length 3/);
    expect(fail(() => runFunction(out, args))).toBe(expected);
    expect(fail(() => compileFunction(out)(args))).toBe(expected);
    expect(compileFunction(out)([vec([5]), 2])).toBe(7);
  });

  test("an element with a loop is fused when read once per element: at its own depth, or in the consumer's own loop", () => {
    const fn = func("f", params(["m", MATRIX]), (b, m) => {
      const sums = b.build(
        b.prim("length", [m]),
        (i, bb) => {
          const row = bb.prim("get", [m, i], "row");
          return bb.ifold(litDouble(0), bb.prim("length", [row]), (s, k, b3) =>
            b3.prim("add", [s, b3.prim("get", [row, k])]),
          );
        },
        "sums",
      );
      return b.ifold(litDouble(0), b.prim("length", [sums]), (s, i, bb) =>
        bb.prim("mul", [s, bb.prim("get", [sums, i])]),
      );
    });
    const { text } = runRules(fn, [getOfBuild, lengthOfBuild, checkIndexInRange]);
    expect(text).toBe(
      [
        "let f (m: Matrix) =",
        "  ifold (fun acc i ->",
        "    let row = m[i] in",
        "    acc * ifold (fun acc_2 i_2 -> acc_2 + row[i_2]) 0. (length row)) 0. (length m)",
      ].join("\n"),
    );
  });

  test("a row of a transpose (a pull array of cheap elements) is fused where it is only indexed", () => {
    const fn = func("f", params(["m", MATRIX], ["j", INT]), (b, m, j) => {
      const mT = b.build(
        b.prim("length", [b.prim("get", [m, litIndex(0)])]),
        (i, bb) => bb.build(bb.prim("length", [m]), (k, b3) => b3.prim("get", [b3.prim("get", [m, k]), i])),
        "mT",
      );
      const row = b.prim("get", [mT, j], "row");
      return b.ifold(litDouble(0), b.prim("length", [row]), (s, k, bb) =>
        bb.prim("add", [s, bb.prim("get", [row, k])]),
      );
    });
    const { text } = runRules(fn, [getOfBuild, lengthOfBuild, lengthOfRowOfBuild, checkIndexInRange]);
    expect(text).toBe(
      "let f (m: Matrix) (j: Index) =\n  let j_2 = checkIndex j (length m[0]) in\n  ifold (fun acc i -> acc + m[i][j_2]) 0. (length m)",
    );
  });
});
