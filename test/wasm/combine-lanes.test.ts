// Combine loops in SIMD lanes (src/lowering/lanes.ts `combineLanes`, src/wasm/combine-lanes.ts): a loop whose terms
// are nested loops (a distance to each row) and whose step is small scalar code on any state (a minimum and the
// index it came from) computes the terms of a group of lanes at once, then takes the steps lane by lane in order; the
// rows it reads per lane come through a transpose when it runs in a loop (src/lowering/transpose-rows.ts), and a loop
// around it reading a row per lane leaves it the lanes (`unlessInnerLanes`). Values bit for bit the js back end's and
// the interpreter's; errors the js back end's.

import { describe, expect, test } from "vitest";
import { loadProgram, type Engine } from "../../src/api/program.js";
import { printIr } from "../../src/ir/print.js";
import { transposeLaneRows } from "../../src/lowering/transpose-rows.js";
import type { DenseArray, Value } from "../../src/runtime/value.js";
import { MATRIX, VECTOR } from "../../src/types/types.js";
import { random, thrown } from "../helpers.js";

const SOURCE = `
let distance = fun (a: Vector) (b: Vector) -> ifold (fun s l -> let e = a[l] - b[l] in s + e * e) 0. (length a)
// The closest row of M to p and its distance (the first on ties).
let closest = fun (M: Matrix) (p: Vector) ->
  ifold (fun st j -> let d = distance p M[j] in if fst st <= d then st else (d, j)) (1e300, -1) (length M)
// For each point, the index of its closest row (rows read through M's transpose).
let assign = fun (M: Matrix) (P: Matrix) -> build (length P) (fun i -> double (snd (closest M P[i])))
// The sum over points of the distance to the closest row (a min reduction inside a sum over points).
let cost = fun (M: Matrix) (P: Matrix) ->
  ifold (fun c i -> c + ifold (fun best j -> min best (distance P[i] M[j])) 1e300 (length M)) 0. (length P)
`;
const prog = loadProgram({ name: "combine-lanes.smooth", text: SOURCE });

const matrix = (rows: number, cols: number, seed: number): DenseArray => ({
  tag: "dense",
  elemKind: "double",
  shape: [rows, cols],
  data: Float64Array.from(random(rows * cols, seed)),
});
const run = (name: string, engine: Engine, args: Value[]) =>
  prog.specialise(name, [MATRIX, name === "closest" ? VECTOR : MATRIX], engine).run(args);

/** The closest row by hand: squared distances summed in l order, kept on ties. */
function closestByHand(M: DenseArray, p: Float64Array): [number, number] {
  const data = M.data as Float64Array;
  const [k, d] = M.shape as [number, number];
  let best: [number, number] = [1e300, -1];
  for (let j = 0; j < k; j++) {
    let s = 0;
    for (let l = 0; l < d; l++) s += (p[l]! - data[j * d + l]!) ** 2;
    if (!(best[0] <= s)) best = [s, j];
  }
  return best;
}

describe("combine loops in SIMD lanes", () => {
  test("a closest row and its index: in lanes, bit for bit js, the interpreter and a hand loop", () => {
    const spec = prog.specialise("assign", [MATRIX, MATRIX], "wasm");
    // The loop over rows runs in outer lanes, once reading M's transpose and once M (chosen at run time), each in the
    // function of its own a point's element is (src/wasm/outline.ts).
    expect(spec.code?.text).toMatch(
      /loops in SIMD lanes \(2 of them in outer lanes\); 2 loops as functions of their own$/,
    );
    expect(printIr(transposeLaneRows(spec.optimised))).toMatch(/let MT =/);
    for (const [k, d, n] of [
      [0, 3, 2],
      [1, 1, 3],
      [2, 8, 5],
      [3, 3, 4],
      [9, 8, 7],
      [33, 5, 6],
      [100, 8, 3],
    ] as const) {
      const [M, P] = [matrix(k, d, k + 3), matrix(n, d, d + 5)];
      const got = run("assign", "wasm", [M, P]) as DenseArray;
      expect(got).toEqual(run("assign", "js", [M, P]));
      expect(got).toEqual(run("assign", "interp", [M, P]));
      for (let i = 0; i < n; i++)
        expect(got.data[i]).toBe(closestByHand(M, (P.data as Float64Array).subarray(i * d, (i + 1) * d))[1]);
    }
  });

  test("ties keep the first row, as the step says", () => {
    const M: DenseArray = {
      tag: "dense",
      elemKind: "double",
      shape: [5, 2],
      data: Float64Array.from([1, 1, 0, 0, 2, 2, 0, 0, 0, 0]),
    };
    const P: DenseArray = { tag: "dense", elemKind: "double", shape: [1, 2], data: Float64Array.from([0, 0]) };
    expect((run("assign", "wasm", [M, P]) as DenseArray).data[0]).toBe(1);
  });

  test("a min reduction inside a sum over points (the inner loop takes the lanes): values those of js", () => {
    for (const [k, d, n] of [
      [4, 3, 5],
      [17, 8, 9],
      [1, 2, 1],
    ] as const) {
      const [M, P] = [matrix(k, d, 7 * k), matrix(n, d, 11 * d)];
      expect(run("cost", "wasm", [M, P])).toBe(run("cost", "js", [M, P]));
      expect(run("cost", "wasm", [M, P])).toBe(run("cost", "interp", [M, P]));
    }
  });

  test("errors are the js back end's: rows shorter than the point", () => {
    const [M, P] = [matrix(6, 3, 1), matrix(2, 5, 2)];
    const message = (engine: Engine) => thrown(() => run("assign", engine, [M, P])).message;
    expect(message("js")).toMatch(/index 3/);
    expect(message("wasm")).toBe(message("js"));
  });
});
