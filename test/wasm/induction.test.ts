// Quadratic index arithmetic stepped by differences in the wasm back end (src/wasm/induction.ts): a packed
// triangle's position `d + c (2d - c - 1) / 2 + (r - c - 1)` read in a loop over c is taken from the last iteration's
// with two additions. The listing counts the loops that do; the values are bit for bit the interpreter's, in lanes
// and in a plain loop, and where the conditions fail (a step that wraps around 32 bits, an odd dividend, a quotient
// divided again) the loop runs as before: Index arithmetic still wraps and truncates as the interpreter's does.

import { describe, expect, it } from "vitest";
import { loadProgram, type Engine } from "../../src/api/program.js";
import type { Value } from "../../src/runtime/value.js";
import { INT, VECTOR, type Type } from "../../src/types/types.js";
import { random, vector } from "../helpers.js";

const SOURCE = `
let lowerAt = fun (d: Index) (r: Index) (c: Index) ->
  d + c * (2 * d - c - 1) / 2 + (r - c - 1)
// Q v by rows: in SIMD lanes over r, the loop over c in outer lanes.
let qTimes = fun (icfk: Vector) (v: Vector) ->
  let d = length v
  build d (fun r -> ifold (fun s c -> s + icfk[lowerAt d r c] * v[c]) v[r] r)
// The same triangle summed by a plain loop (its state a pair: no lanes).
let triangleSum = fun (icfk: Vector) (d: Index) ->
  fst (ifold (fun st c -> let (s, k) = st in (s + icfk[lowerAt d (d - 1) c] * double k, k + 1)) (0., 1) (d - 1))
// Index arithmetic as data: the quadratic's values themselves, wrapping and truncating as the interpreter's.
let quadratic = fun (n: Index) (m: Index) ->
  ifold (fun s c -> let q = (c * (c + m)) / 2 - c * m in s * 0.5 + double q) 0. n
let halvedTwice = fun (n: Index) (m: Index) ->
  ifold (fun s c -> let q = (c * (c - 1) / 2 + c * m) / 2 in s * 0.5 + double q) 0. n
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
    // The loop over c in outer lanes, and as the plain loop that finishes rows the lanes leave (when d < 2).
    expect(stepped("qTimes", [VECTOR, VECTOR])).toBe(2);
    expect(stepped("triangleSum", [VECTOR, INT])).toBe(1);
    for (const d of [1, 2, 3, 8, 13, 64]) {
      const icfk = random(d + (d * (d - 1)) / 2, d);
      const v = random(d, d + 1);
      const qv = agree("qTimes", [VECTOR, VECTOR], [vector(icfk), vector(v)]);
      // Row r: v[r] + sum_c L[r][c] v[c], the same additions in the same order.
      const byHand = v.map((vr, r) => {
        let s = vr;
        for (let c = 0; c < r; c++) s += icfk[d + (c * (2 * d - c - 1)) / 2 + r - c - 1]! * v[c]!;
        return s;
      });
      expect(qv).toEqual(byHand);
      agree("triangleSum", [VECTOR, INT], [vector(icfk), d]);
    }
  });

  it("runs the loop as before where a step would wrap around or a dividend is odd", () => {
    expect(stepped("quadratic", [INT, INT])).toBe(1);
    const byHand = (n: number, m: number) =>
      fold(n, (c) => (((Math.imul(c, (c + m) | 0) / 2) | 0) - Math.imul(c, m)) | 0);
    // m even: c (c + m) is odd for odd c, so the division truncates: not a polynomial (the parity check fails).
    // m odd: always even, stepped. m near 2^30: c m wraps around (the limit check fails).
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
    ] as const) {
      const got = agree("quadratic", [INT, INT], [n, m]);
      expect(got).toEqual([byHand(n, m)]);
    }
  });

  it("steps a quotient but divides it again as before (the second dividend's parity repeats every 4, not 2)", () => {
    expect(stepped("halvedTwice", [INT, INT])).toBe(1);
    for (const [n, m] of [
      [12, 1],
      [12, 2],
      [12, -3],
    ] as const)
      expect(agree("halvedTwice", [INT, INT], [n, m])).toEqual([
        fold(n, (c) => ((((Math.imul(c, c - 1) / 2) | 0) + Math.imul(c, m)) / 2) | 0),
      ]);
  });
});
