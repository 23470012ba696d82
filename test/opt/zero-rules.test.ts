// Rules about zeros and derivative marks: `add-negative-zero` (src/opt/rules/update.ts), `zeros-of-build`
// (src/opt/rules/fusion.ts), `stop-derivative-of` (src/opt/rules/derivative-marks.ts), and the symbolic zero of a
// product of two tangents (Prim.tangent "both"). Programs in, programs out, values against the interpreter on the
// original program.

import { describe, expect, test } from "vitest";
import { runFunction } from "../../src/eval/interpreter.js";
import { isZeroLiteral, lit, symbolicZero, type Prim } from "../../src/ir/ir.js";
import { stopDerivativeOf } from "../../src/opt/rules/derivative-marks.js";
import { zerosOfBuild } from "../../src/opt/rules/fusion.js";
import { addNegativeZero } from "../../src/opt/rules/update.js";
import { constantFold } from "../../src/opt/rules/fold.js";
import type { Value } from "../../src/runtime/value.js";
import { DOUBLE, INT, MATRIX, VECTOR } from "../../src/types/types.js";
import { func } from "../ir/helpers.js";
import { params, runRules } from "./run-rules.js";

const vec = (xs: number[]): Value => ({
  tag: "dense",
  elemKind: "double",
  shape: [xs.length],
  data: Float64Array.from(xs),
});

describe("add-negative-zero", () => {
  const update = (zero: number) =>
    func("u", params(["v", VECTOR], ["i", INT]), (b, v, i) => b.prim("addAt", [v, i, lit(zero, DOUBLE)]));

  test("adding -0 at any index is the array itself (every element, -0 and NaN included, unchanged)", () => {
    const { text, fired } = runRules(update(-0), [addNegativeZero]);
    expect(fired["add-negative-zero"]).toBe(1);
    expect(text).toBe("let u (v: Vector) (i: Index) = v");
    const out = runFunction(update(-0), [vec([-0, 1, NaN]), 0]) as { data: Float64Array };
    expect(Object.is(out.data[0], -0)).toBe(true);
  });

  test("adding +0 is left alone: it turns -0 into +0", () => {
    const { fired } = runRules(update(0), [addNegativeZero]);
    expect(fired["add-negative-zero"]).toBeUndefined();
    const out = runFunction(update(0), [vec([-0, 1]), 0]) as { data: Float64Array };
    expect(Object.is(out.data[0], 0)).toBe(true);
  });
});

describe("zeros-of-build", () => {
  test("zeros shaped like a zip of a matrix with ones do not make the zip", () => {
    const fn = func("z", params(["m", MATRIX]), (b, m) => {
      const zip = b.build(b.prim("length", [m]), (i, bb) => {
        const row = bb.prim("get", [m, i], "row");
        return bb.build(bb.prim("length", [row]), (k, bk) => bk.tuple([bk.prim("get", [row, k]), lit(1, DOUBLE)]));
      });
      return b.prim("zerosLike", [zip]);
    });
    const { text, fired, out } = runRules(fn, [zerosOfBuild]);
    expect(fired["zeros-of-build"]).toBe(1);
    expect(text).not.toMatch(/zerosLike|, 1\.\)/);
    const m: Value = { tag: "dense", elemKind: "double", shape: [2, 3], data: Float64Array.from([1, 2, 3, 4, 5, 6]) };
    expect(runFunction(out, [m])).toEqual(runFunction(fn, [m]));
  });
});

describe("stop-derivative-of", () => {
  test("stopGradient (withDerivativeOf a b) is stopGradient a: b goes", () => {
    const fn = func("s", params(["x", DOUBLE]), (b, x) =>
      b.prim("stopGradient", [b.prim("withDerivativeOf", [x, b.prim("exp", [x])])]),
    );
    const { text, fired } = runRules(fn, [stopDerivativeOf]);
    expect(fired["stop-derivative-of"]).toBe(1);
    expect(text).not.toMatch(/exp|withDerivativeOf/);
  });
});

describe("a product of two tangents", () => {
  const product = (a: number, b: number): Prim => ({
    kind: "prim",
    op: "mul",
    args: [lit(a, DOUBLE), lit(b, DOUBLE)],
    type: DOUBLE,
    tangent: "both",
  });

  test("is a symbolic zero when either operand is 0, whatever the other (∞ and NaN included)", () => {
    for (const [a, b] of [
      [0, Infinity],
      [NaN, 0],
      [0, 0],
    ])
      expect(symbolicZero(product(a!, b!), (k) => isZeroLiteral(product(a!, b!).args[k]!))).toBe(true);
    const { text } = runRules(
      func("p", params(), (bb) => bb.bind("y", product(Infinity, 0))),
      [constantFold],
    );
    expect(text).toMatch(/= *\n? *0\.$/);
    expect(symbolicZero(product(2, 3), () => false)).toBe(false);
  });
});
