// The reverse of `if` reads the costly values of the branch the primal took from the primal `if` itself
// (src/ad/reverse-if.ts) instead of computing them again, including a partial derivative the branch computed too
// (the partial of sin u is cos u). A Jacobian by rows (BA's per-observation blocks) reverses the branch once per row.

import { describe, expect, test } from "vitest";
import { printIr } from "../../src/ir/print.js";
import { load } from "./harness.js";

const SOURCE = `
let e = fun (q: Double * Double) ->
  let (x, y) = q
  if x > 0. then let u = x * y in (sin u * cos u + sqrt x, cos u) else (x * y, x)
let rows = fun (x: Double) (y: Double) ->
  let (a0, b0) = snd (vjp e (x, y) (1., 0.))
  let (a1, b1) = snd (vjp e (x, y) (0., 1.))
  (a0, b0, a1, b1)
`;

/** The rows of e's Jacobian, by hand: d(sin u cos u + sqrt x) and d(cos u), u = x y (x > 0); d(x y) and dx else. */
function rowsByHand(x: number, y: number): number[] {
  if (!(x > 0)) return [y, x, 1, 0];
  const u = x * y;
  return [Math.cos(2 * u) * y + 0.5 / Math.sqrt(x), Math.cos(2 * u) * x, -Math.sin(u) * y, -Math.sin(u) * x];
}

describe("a branch with costly values, reversed once per Jacobian row", () => {
  const p = load(SOURCE);

  test("computes each of them once", () => {
    const program = printIr(p.specialise("rows", p.argTypesFromJson("rows", [0.7, -1.3]), "js").optimised);
    for (const fn of ["sin", "cos", "sqrt"]) expect(program.match(new RegExp(`\\b${fn} `, "g")), fn).toHaveLength(1);
  });

  test("gives the Jacobian's rows on both branches, in both engines", () => {
    for (const [x, y] of [
      [0.7, -1.3],
      [-0.4, 2.1],
    ] as const)
      for (const engine of ["js", "interp", "wasm"] as const) {
        const got = p.runJson("rows", [x, y], engine) as number[];
        rowsByHand(x, y).forEach((want, k) => expect(Math.abs(got[k]! - want)).toBeLessThan(1e-12));
      }
  });
});
