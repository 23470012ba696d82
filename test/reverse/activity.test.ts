// Activity per component of a loop state (src/ad/activity.ts): a state component that never depends on a
// differentiated input gets no adjoint, so the reverse loop does not run its chain of multiply-adds. Components that
// become active through the initial state, or through the body only after some iterations, still get theirs.

import { describe, expect, test } from "vitest";
import { printIr } from "../../src/ir/print.js";
import { load, Point, seededRandom } from "./harness.js";

const SOURCE = `
let powers = fun (x: Vector) (k: Index) ->
  fst (ifold (fun acc j -> let (r, p) = acc in (r + x[j] * p, p * double k)) (0., 1.) (length x))
let fromStart = fun (x: Vector) (p0: Double) ->
  fst (ifold (fun acc j -> let (r, p) = acc in (r + x[j] * p, p * 0.5)) (0., p0) (length x))
let later = fun (x: Vector) ->
  let (a, _, _) = ifold (fun acc j -> let (a, b, c) = acc in (a + sin b, c * 2., x[j])) (0., 1., 1.) (length x)
  a
`;

describe("a loop state component that does not depend on the inputs", () => {
  const p = load(SOURCE);

  test("has no adjoint in the reverse loop", () => {
    const printed = printIr(new Point(p, "powers", [[0.5, -1, 2], 3]).specs("gradient").js.optimised);
    // p * double k is computed once per iteration by the primal loop; the reverse loop reads p from the tape and
    // carries only x's adjoint: no t * dp + x[j] * dt for p's (its adjoint, constantly 0, and r's, constantly the
    // seed 1, are constants: constant-state-leaf).
    expect(printed.match(/\* t_2\b/g)).toHaveLength(1);
    expect(printed).toMatch(
      /ifold \(fun dstate k_2 ->\s+let j_2 = last - k_2 in\s+addAt dstate j_2 tape1\[j_2\]\) \(zerosLike x\) t/,
    );
  });

  test("gradients agree with forward mode and finite differences", () => {
    new Point(p, "powers", [[0.5, -1, 2, 0.25], 3]).checkAll(seededRandom(3));
    // p is active from the start (p0 is differentiated) ...
    new Point(p, "fromStart", [[0.5, -1, 2, 0.25], 1.5]).checkAll(seededRandom(4));
    // ... and b only from the second iteration on (c takes x[j], then b takes 2c).
    new Point(p, "later", [[0.5, -1, 2, 0.25]]).checkAll(seededRandom(5));
  });
});
