// Quadratic index arithmetic stepped by differences in the wasm back end (src/wasm/induction.ts): a packed
// triangle's position `d + c (2d - c - 1) / 2 + (r - c - 1)` read in a loop over c, three loops deep as in GMM, is
// taken from the last iteration's with two additions. The listing counts the loops that do; the values are bit for
// bit the interpreter's, in lanes and in a plain loop, and where the conditions fail (a step that wraps around 32
// bits, an odd dividend, a quotient divided again) the loop runs as before: Index arithmetic still wraps and
// truncates as the interpreter's does.

import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { loadProgram, type Engine } from "../../src/api/program.js";
import type { Value } from "../../src/runtime/value.js";
import { INT, MATRIX, VECTOR, type Type } from "../../src/types/types.js";
import { matrix, random } from "../helpers.js";

const SOURCE = `
let lowerAt = fun (d: Index) (r: Index) (c: Index) ->
  d + c * (2 * d - c - 1) / 2 + (r - c - 1)
// Q_k x_i for every point and component, as GMM's objective: the loop over c in outer lanes, inside the loops over
// the points, the components and the rows.
let qTimes = fun (icfk: Vector) (v: Vector) ->
  let d = length v
  build d (fun r -> ifold (fun s c -> s + icfk[lowerAt d r c] * v[c]) v[r] r)
let qAll = fun (icf: Matrix) (X: Matrix) -> build (length X) (fun i -> build (length icf) (fun k -> qTimes icf[k] X[i]))
// The same triangle summed by a plain loop (its state a pair: no lanes), three loops deep.
let triangleSum = fun (icfk: Vector) (d: Index) ->
  fst (ifold (fun st c -> let (s, k) = st in (s + icfk[lowerAt d (d - 1) c] * double k, k + 1)) (0., 1) (d - 1))
let triangleSums = fun (icf: Matrix) (d: Index) (w: Index) ->
  build (length icf) (fun k -> build w (fun a -> build w (fun b -> triangleSum icf[k] d + double (a + b))))
// Index arithmetic as data: the quadratic's values themselves, wrapping and truncating as the interpreter's.
// Chains of several shapes, three loops deep, their values folded so that every iteration counts: random
// coefficients below (property test), near the 32-bit limits too.
let shapes = fun (n: Index) (m1: Index) (m2: Index) (m3: Index) (w: Index) ->
  build w (fun a -> build w (fun b -> build w (fun z ->
    ifold (fun s c ->
      let q1 = (c * (c + m1)) / 2 + m2 * c - m3
      let q2 = c * m1 * c - (m2 - c) * m3
      let q3 = ((m1 * c + m2) * (c - m3)) / 2
      let q4 = m1 - c * (2 * m2 - c - 1) / 2 + (m3 - c - 1)
      s * 0.5 + double q1 + 0.25 * double q2 - double q3 + double (q4 + a - b)) 0. n)))
// A literal that makes a step wrap around whatever the index: not stepped (c c 2^31 is 0 or -2^31 by c's parity).
let wraps = fun (n: Index) (w: Index) ->
  build w (fun a -> build w (fun b -> build w (fun z ->
    ifold (fun s c -> let q = (c * c * 1073741824 * 2) / 2 + c * c in s * 0.5 + double q) 0. n)))
// In three loops of w iterations (w = 2: a is 0 or 1).
let quadratic = fun (n: Index) (m: Index) (w: Index) ->
  build w (fun a -> build w (fun b -> build w (fun z ->
    ifold (fun s c -> let q = (c * (c + m + a)) / 2 - c * m in s * 0.5 + double q) 0. n)))
let halvedTwice = fun (n: Index) (m: Index) (w: Index) ->
  build w (fun a -> build w (fun b -> build w (fun z ->
    ifold (fun s c -> let q = (c * (c - 1) / 2 + c * (m + a)) / 2 in s * 0.5 + double q) 0. n)))
`;
const prog = loadProgram({ name: "induction.smooth", text: SOURCE });

const numbers = (v: Value): number[] => (typeof v === "number" ? [v] : [...(v as { data: Float64Array }).data]);
const stepped = (name: string, types: Type[]): number =>
  Number(/(\d+) loops stepping index arithmetic/.exec(prog.specialise(name, types, "wasm").code?.text ?? "")?.[1] ?? 0);
const run = (name: string, types: Type[], engine: Engine, args: Value[]) =>
  numbers(prog.specialise(name, types, engine).run(args));
const agree = (name: string, types: Type[], args: Value[]) => {
  const reference = run(name, types, "interp", args);
  expect(run(name, types, "wasm", args)).toEqual(reference);
  return reference;
};

/** x0 + x1 2^-1 + ... : the last value weighs most; `quadratic`'s fold by hand, in Index arithmetic as JS's `| 0`. */
function fold(n: number, value: (c: number) => number): number {
  let s = 0;
  for (let c = 0; c < n; c++) s = s * 0.5 + value(c);
  return s;
}

describe("quadratic index arithmetic stepped by differences", () => {
  it("steps GMM's packed triangle in outer lanes and in a plain loop, bit for bit the interpreter's", () => {
    // The loop over c in outer lanes (in the plain loop finishing a row the lanes leave, it is left as it was).
    expect(stepped("qAll", [MATRIX, MATRIX])).toBe(1);
    expect(stepped("triangleSums", [MATRIX, INT, INT])).toBe(1);
    for (const d of [1, 2, 3, 8, 13, 64]) {
      const [K, n, width] = [3, 2, d + (d * (d - 1)) / 2];
      const icf = random(K * width, d);
      const X = random(n * d, d + 1);
      const q = agree("qAll", [MATRIX, MATRIX], [matrix(K, width, icf), matrix(n, d, X)]);
      // Row r of Q_k x_i: x_i[r] + sum_c L_k[r][c] x_i[c], the same additions in the same order.
      const byHand: number[] = [];
      for (let i = 0; i < n; i++)
        for (let k = 0; k < K; k++)
          for (let r = 0; r < d; r++) {
            let s = X[i * d + r]!;
            for (let c = 0; c < r; c++)
              s += icf[k * width + d + (c * (2 * d - c - 1)) / 2 + r - c - 1]! * X[i * d + c]!;
            byHand.push(s);
          }
      expect(q).toEqual(byHand);
      agree("triangleSums", [MATRIX, INT, INT], [matrix(K, width, icf), d, 2]);
    }
  });

  it("runs the loop as before where a step would wrap around or a dividend is odd", () => {
    expect(stepped("quadratic", [INT, INT, INT])).toBe(1);
    // Every (a, b, z): a's value for each of the four (b, z).
    const byHand = (n: number, m: number) =>
      [0, 0, 0, 0, 1, 1, 1, 1].map((a) =>
        fold(n, (c) => (((Math.imul(c, (c + m + a) | 0) / 2) | 0) - Math.imul(c, m)) | 0),
      );
    // c (c + m + a) is always even when m + a is odd (then stepped), odd for odd c when m + a is even (the parity
    // check fails: the division truncates); m near 2^30 or -2^31: c m wraps around (the limit check fails).
    for (const [n, m] of [
      [40, 6],
      [40, 7],
      [40, -9],
      [5, 2 ** 30 + 1],
      [5, 2 ** 30],
      [3, -(2 ** 31) + 1],
      [0, 3],
      [1, 3],
      [2, 3],
    ] as const)
      expect(agree("quadratic", [INT, INT, INT], [n, m, 2])).toEqual(byHand(n, m));
  });

  it("steps a quotient but divides it again as before (the second dividend's parity repeats every 4, not 2)", () => {
    expect(stepped("halvedTwice", [INT, INT, INT])).toBe(1);
    for (const [n, m] of [
      [12, 1],
      [12, 2],
      [12, -3],
    ] as const)
      expect(agree("halvedTwice", [INT, INT, INT], [n, m, 2])).toEqual(
        [0, 0, 0, 0, 1, 1, 1, 1].map((a) =>
          fold(n, (c) => ((((Math.imul(c, c - 1) / 2) | 0) + Math.imul(c, m + a)) / 2) | 0),
        ),
      );
  });

  it("agrees with the interpreter on random coefficients, the 32-bit limits included", () => {
    expect(stepped("shapes", [INT, INT, INT, INT, INT])).toBe(1);
    const shapes = prog.specialise("shapes", [INT, INT, INT, INT, INT], "wasm");
    const reference = prog.specialise("shapes", [INT, INT, INT, INT, INT], "interp");
    const coefficient = fc.oneof(
      fc.integer({ min: -20, max: 20 }),
      fc.integer({ min: -70_000, max: 70_000 }),
      fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }),
      fc.constantFrom(-(2 ** 31), 2 ** 31 - 1, 2 ** 30, -(2 ** 30), 16_384, 16_385, -16_385),
    );
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 40 }), coefficient, coefficient, coefficient, (n, m1, m2, m3) => {
        const args = [n, m1, m2, m3, 2];
        expect(numbers(shapes.run(args))).toEqual(numbers(reference.run(args)));
      }),
      { numRuns: 300 },
    );
  });

  it("leaves a chain whose literals wrap around on their own as it was", () => {
    expect(stepped("wraps", [INT, INT])).toBe(0);
    const byHand = fold(9, (c) => ((Math.imul(Math.imul(Math.imul(c, c), 1073741824), 2) / 2) | 0) + c * c);
    expect(agree("wraps", [INT, INT], [9, 2])).toEqual(Array.from({ length: 8 }, () => byHand));
  });

  it("leaves a loop fewer than three loops deep as it was (written twice for little)", () => {
    expect(stepped("qTimes", [VECTOR, VECTOR])).toBe(0);
    expect(stepped("triangleSum", [VECTOR, INT])).toBe(0);
  });
});
