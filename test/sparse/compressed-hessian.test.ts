// The compressed Hessian program (src/sparse/compressed-programs.ts): reverse mode over forward mode, so that its
// passes carry no gradient values beside the tangents (forward over reverse accumulated arrays of (value, tangent)
// pairs and computed the gradient once per colour for nothing), with the values of a Hessian written by hand.

import { describe, expect, it } from "vitest";
import { loadProgram } from "../../src/api/program.js";
import { children } from "../../src/ir/free.js";
import type { Expr, IrFunction } from "../../src/ir/ir.js";
import { lowerEntry } from "../../src/ir/lower.js";
import { runPipeline } from "../../src/opt/pass.js";
import { DERIVATIVE_PIPELINE, REVERSE_PRIMAL_PIPELINE } from "../../src/opt/pipeline.js";
import { compressedHessian } from "../../src/sparse/compressed-programs.js";
import { hessian, smooth } from "../../src/index.js";
import { VECTOR, type Type } from "../../src/types/types.js";

const ROSENBROCK = `
let rosenbrock = fun (x: Vector) ->
  ifold (fun s i -> s + 100. * (x[i + 1] - x[i] * x[i]) * (x[i + 1] - x[i] * x[i]) + (1. - x[i]) * (1. - x[i]))
    0. (length x - 1)
`;

/** Whether `t` holds an array whose elements are tuples. */
const hasArrayOfTuples = (t: Type): boolean =>
  (t.k === "array" && (t.elem.k === "tuple" || hasArrayOfTuples(t.elem))) ||
  (t.k === "tuple" && t.elems.some(hasArrayOfTuples));

/** The types of every let-bound variable of `e`. */
function boundTypes(e: Expr, out: Type[] = []): Type[] {
  if (e.kind === "let") out.push(e.v.type);
  for (const c of children(e)) boundTypes(c, out);
  return out;
}

/** The chained Rosenbrock function's Hessian, by hand: tridiagonal. */
function rosenbrockHessian(x: readonly number[]): number[][] {
  const n = x.length;
  const h = Array.from({ length: n }, () => new Array<number>(n).fill(0));
  for (let i = 0; i + 1 < n; i++) {
    const xi = x[i]!;
    h[i]![i]! += 1200 * xi * xi - 400 * x[i + 1]! + 2;
    h[i + 1]![i + 1]! += 200;
    h[i]![i + 1]! -= 400 * xi;
    h[i + 1]![i]! -= 400 * xi;
  }
  return h;
}

describe("the compressed Hessian program", () => {
  it("carries no arrays of (value, tangent) pairs", () => {
    const prog = loadProgram({ name: "rosenbrock.smooth", text: ROSENBROCK });
    const lowered = lowerEntry(prog.checked, "rosenbrock", [VECTOR]);
    const firstOrder = prog.primalThrough("rosenbrock", [VECTOR], REVERSE_PRIMAL_PIPELINE, lowered);
    const optimised: IrFunction = runPipeline(compressedHessian(firstOrder, [0]), DERIVATIVE_PIPELINE);
    const types = boundTypes(optimised.body);
    expect(types.length).toBeGreaterThan(0);
    expect(types.filter(hasArrayOfTuples)).toEqual([]);
  });

  it("gives the Hessian written by hand", () => {
    const m = smooth([ROSENBROCK] as unknown as TemplateStringsArray);
    const x = [0.3, -1.2, 0.7, 1.1, -0.4, 0.9, 2.0];
    const expected = rosenbrockHessian(x);
    for (const backend of ["js", "wasm"] as const) {
      const h = hessian(m.rosenbrock!, { sparse: true, backend })(x);
      expect(h.info.colours).toBe(3);
      for (let r = 0; r < x.length; r++)
        for (let k = h.rowPointers[r]!; k < h.rowPointers[r + 1]!; k++) {
          const want = expected[r]![h.columnIndexes[k]!]!;
          expect(Math.abs(h.values[k]! - want)).toBeLessThanOrEqual(1e-12 * Math.max(1, Math.abs(want)));
        }
      expect(h.values.length).toBe(3 * x.length - 2);
    }
  });
});
