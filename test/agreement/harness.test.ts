// The tools of the agreement tests themselves: the comparison of two outcomes, the corpus reader and the generator's
// determinism (the same choices give the same program; no choices give the smallest one).

import { describe, expect, it } from "vitest";
import { SmoothError } from "../../src/syntax/diagnostics.js";
import { BOOL, DOUBLE, INT, VECTOR } from "../../src/types/types.js";
import { tuple, type Value } from "../../src/runtime/value.js";
import { disagreement, type Outcome } from "../gen/differential.js";
import { generateProgram } from "../gen/program.js";
import { ChoiceRng, seededChoices } from "../gen/rng.js";
import { annotation, arrayOf, INDEX, matrixOf, pairOf } from "../gen/types.js";

const value = (v: Value): Outcome => ({ ok: true, value: v });
const error = (kind: "index" | "shape" | "argument"): Outcome => ({ ok: false, error: new SmoothError(kind, "test") });
const vector = (...xs: number[]): Value => ({
  tag: "dense",
  elemKind: "double",
  shape: [xs.length],
  data: Float64Array.from(xs),
});

describe("disagreement", () => {
  it("accepts Doubles within a relative 1e-12, and NaN against NaN", () => {
    expect(disagreement(value(1e6), value(1e6 * (1 + 1e-13)), DOUBLE)).toBeUndefined();
    expect(disagreement(value(NaN), value(NaN), DOUBLE)).toBeUndefined();
    expect(disagreement(value(vector(1, NaN)), value(vector(1, NaN)), VECTOR)).toBeUndefined();
  });

  it("reports Doubles further apart, NaN against a number, and different shapes", () => {
    expect(disagreement(value(1), value(1 + 1e-9), DOUBLE)).toMatch(/values differ/);
    expect(disagreement(value(NaN), value(0), DOUBLE)).toMatch(/values differ/);
    expect(disagreement(value(vector(1, 2)), value(vector(1, 2, 3)), VECTOR)).toMatch(/values differ/);
  });

  it("compares Index and Bool exactly, also inside tuples", () => {
    expect(disagreement(value(3), value(3), INT)).toBeUndefined();
    expect(disagreement(value(3), value(4), INT)).toMatch(/values differ/);
    expect(
      disagreement(value(tuple([true, 1])), value(tuple([false, 1])), { k: "tuple", elems: [BOOL, DOUBLE] }),
    ).toMatch(/values differ/);
  });

  it("requires errors of the same kind, and no error only on one side except one the optimiser may remove", () => {
    expect(disagreement(error("index"), error("index"), DOUBLE)).toBeUndefined();
    expect(disagreement(error("index"), error("shape"), DOUBLE)).toMatch(/errors differ/);
    expect(disagreement(value(1), error("index"), DOUBLE)).toMatch(/only the compiled code fails/);
    expect(disagreement(error("argument"), value(1), DOUBLE)).toMatch(/only the interpreter fails/);
    // Dead-let elimination may drop an unused read out of range (src/opt/dce.ts).
    expect(disagreement(error("index"), value(1), DOUBLE)).toBeUndefined();
  });
});

describe("the program generator", () => {
  it("makes the same program from the same choices", () => {
    const a = generateProgram(new ChoiceRng(seededChoices(7)));
    const b = generateProgram(new ChoiceRng(seededChoices(7)));
    expect(a.source).toBe(b.source);
    expect(a.args).toEqual(b.args);
    expect(generateProgram(new ChoiceRng(seededChoices(8))).source).not.toBe(a.source);
  });

  it("makes the smallest program when the choices run out", () => {
    const p = generateProgram(new ChoiceRng([]));
    expect(p.source).toBe("// args: [-3]\nlet main = fun (p0: Double) ->\n  p0\n");
  });

  it("makes local recursive functions, and calls them (from their own step, one count lower)", () => {
    const sources = Array.from({ length: 200 }, (_, s) => generateProgram(new ChoiceRng(seededChoices(s))).source);
    const recursive = sources.filter((s) => s.includes("let rec"));
    expect(recursive.length).toBeGreaterThan(20);
    expect(recursive.filter((s) => /\(r\d+ \(n\d+ - 1\)/.test(s)).length).toBeGreaterThan(10);
  });

  it("writes annotations for every generated type", () => {
    expect(annotation(matrixOf(2, 3))).toBe("Matrix");
    expect(annotation(arrayOf(pairOf(INDEX, pairOf(INDEX, INDEX)), 2))).toBe("Array<Index * (Index * Index)>");
    expect(annotation(pairOf(pairOf(INDEX, INDEX), arrayOf(INDEX, 0)))).toBe("(Index * Index) * Array<Index>");
  });
});
