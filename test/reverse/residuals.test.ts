// Residuals: the costly values a reverse sweep reads are stored by the primal, not recomputed. Here the costly value
// (`exp (v[j] * v[k])`) sits in a loop inside a build whose primal runs anyway (logsumexp reads the built vector
// several times): the loop's costly values go into residuals, computed by a build of their own before the primal
// build, and the reverse reads them. The optimised gradient program computes that `exp` once per (k, j), not twice.

import { describe, expect, test } from "vitest";
import { printIr } from "../../src/ir/print.js";
import { load, Point, seededRandom } from "./harness.js";

const SOURCE = [
  "let f = fun (v: Vector) ->",
  "  logsumexp (build (length v) (fun k ->",
  "    ifold (fun s j -> let t = exp (v[j] * v[k]) in s + t * t) 0. (length v)))",
].join("\n");

describe("a costly value in a loop inside a build", () => {
  const p = load(SOURCE);
  const arg = [0.3, -0.2, 0.5, 0.1];

  test("the gradient: reverse = forward = finite differences, in both engines", () => {
    new Point(p, "f", [arg]).checkAll(seededRandom(7));
  });

  test("is computed once: the reverse reads it from the residuals", () => {
    const at = new Point(p, "f", [arg]);
    const printed = printIr(at.specs("gradient").js.optimised);
    // The other exps are logsumexp's own, of the built vector.
    expect(printed.match(/\bexp \(v\[/g)?.length).toBe(1);
    expect(printed).not.toMatch(/\bexp \(t_\d+ \* t_\d+\)/);
  });
});

// Found by the random programs (seed 303): the loop's body does not read its index, so the recomputation dropped the
// index's let, and the residual read with it afterwards referred to an unbound variable (reference path).
describe("a loop whose costly value does not depend on the iteration", () => {
  const p = load("let f = fun (x: Double) -> (build 2 (fun i -> ifold (fun s j -> exp (sin x)) x 2))[0]");

  test("gives the gradient finite differences give, in both engines", () => {
    new Point(p, "f", [-1.9995]).checkAll(seededRandom(303));
  });
});
