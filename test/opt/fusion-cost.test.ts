// The fusion cost guard (src/opt/rules/fusion.ts) for arrays of small arrays: rows that only read, compare and choose
// (or nearly: a dual number's product) are fused into their reads wherever they are; rows that compute more — here a
// product of small matrices, as the hand-tracking model's bone transforms — stay one array when they are read inside a
// loop they were not built in, instead of being recomputed in every iteration of it (the HT objective was 2.6 times
// C++'s time from this alone).

import { describe, expect, test } from "vitest";
import { loadProgram } from "../../src/api/program.js";
import { printIr } from "../../src/ir/print.js";
import { verify } from "../../src/ir/verify.js";
import { MATRIX } from "../../src/types/types.js";

const SOURCE = `
let skin = fun (a: Matrix) (b: Matrix) (xs: Matrix) ->
  let t = build (length a) (fun k -> build 2 (fun e -> a[k][e] * b[k][0] + a[k][e + 1] * b[k][1] + b[k][2] * b[k][3]))
  build (length xs) (fun v -> ifold (fun s k -> s + t[k][0] * xs[v][0] + t[k][1] * xs[v][1]) 0. (length t))
let transposed = fun (a: Matrix) (xs: Matrix) ->
  let t = build (length a[0]) (fun k -> build (length a) (fun e -> a[e][k]))
  build (length xs) (fun v -> ifold (fun s k -> s + t[k][0] * xs[v][0]) 0. (length t))
`;
const prog = loadProgram({ name: "fusion.smooth", text: SOURCE });
const matrix = (rows: number[][]) => ({
  tag: "dense" as const,
  elemKind: "double" as const,
  shape: [rows.length, rows[0]!.length],
  data: Float64Array.from(rows.flat()),
});

describe("fusing arrays of rows read inside another loop", () => {
  test("rows that compute (a product of small matrices) stay one array, computed once per row", () => {
    const s = prog.specialise("skin", [MATRIX, MATRIX, MATRIX], "js");
    verify(s.optimised);
    const printed = printIr(s.optimised);
    // The rows are built before the loop over v, and read there.
    expect(printed).toMatch(
      /let (t_\d+) = build t \(fun k ->[\s\S]*build \(length xs\) \(fun v ->[\s\S]* = \1\[k_2\] in/,
    );
    const a = [
      [1, 2, 3],
      [4, 5, 6],
    ];
    const b = [
      [0.5, -1, 2, 3],
      [1.5, 2, -2, 0.25],
    ];
    const xs = [
      [1, -1],
      [0.5, 2],
      [3, 0],
    ];
    const t = a.map((row, k) =>
      [0, 1].map((e) => row[e]! * b[k]![0]! + row[e + 1]! * b[k]![1]! + b[k]![2]! * b[k]![3]!),
    );
    const want = xs.map((x) => t.reduce((s, tk) => s + tk[0]! * x[0]! + tk[1]! * x[1]!, 0));
    const got = s.run([matrix(a), matrix(b), matrix(xs)]) as { data: Float64Array };
    expect([...got.data]).toEqual(want);
  });

  test("rows that only read (a transpose) are still fused: no array is built, the loop reads the argument", () => {
    const printed = printIr(prog.specialise("transposed", [MATRIX, MATRIX], "js").optimised);
    expect(printed).not.toMatch(/build t/);
    expect(printed).toMatch(/let t = a\[0\] in[\s\S]*ifold \(fun s k -> s \+ t\[k\] \* /);
  });
});
