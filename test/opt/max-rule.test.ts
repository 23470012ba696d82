// The rule max-of-non-negative: `max 0 n` is n where the facts know n >= 0.

import { describe, expect, it } from "vitest";
import { loadProgram } from "../../src/api/program.js";
import { printIr } from "../../src/ir/print.js";
import { INT, VECTOR } from "../../src/types/types.js";

describe("max-of-non-negative", () => {
  it("folds max 0 (length v) and keeps max 0 (length v - 1)", () => {
    const p = loadProgram({
      name: "<t>",
      text: "let f = fun (v: Vector) (k: Index) -> (max 0 (length v), max 0 (length v - 1), max k 0)",
    });
    const spec = p.specialise("f", [VECTOR, INT], "js");
    const text = printIr(spec.optimised);
    // (t, max 0 (t - 1), max k 0) with t = length v: the first max is gone, the others stay.
    expect(text).toMatch(/let t = length v in\s+\(t, max 0 \(t - 1\), max k 0\)/);
    expect(spec.run([{ tag: "dense", elemKind: "double", shape: [0], data: new Float64Array(0) }, -3])).toEqual({
      tag: "tuple",
      elems: [0, 0, 0],
    });
  });
});
