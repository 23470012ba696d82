// Rows per lane read through a transposed copy (src/lowering/transpose-rows.ts): a layer `build m (fun i -> vectorDot
// W[i] x)` applied in a loop reads W's transpose, made once per call, by consecutive elements (outer lanes). Values
// bit for bit the js back end's and the interpreter's (the same elements added in the same order) and a hand-written
// loop's; errors the js back end's (the row read first, then the element); a layer outside any loop is left alone.

import { describe, expect, test } from "vitest";
import { loadProgram, type Engine } from "../../src/api/program.js";
import { printIr } from "../../src/ir/print.js";
import { transposeLaneRows } from "../../src/lowering/transpose-rows.js";
import type { DenseArray, Value } from "../../src/runtime/value.js";
import { MATRIX, VECTOR } from "../../src/types/types.js";
import { random, thrown } from "../helpers.js";

const SOURCE = `
let layers = fun (W: Matrix) (X: Matrix) ->
  build (length X) (fun r -> build (length W) (fun i -> tanh (vectorDot W[i] X[r])))
let layersN = fun (W: Matrix) (X: Matrix) (m: Index) ->
  ifold (fun acc r ->
    let h = build m (fun i -> let row = W[i] in ifold (fun s k -> s + row[k] * X[r][k]) 0. (length X[r]))
    acc + vectorSum h * vectorSum (build m (fun i -> h[i] * h[i]))) 0. (length X)
let once = fun (W: Matrix) (x: Vector) -> build (length W) (fun i -> vectorDot W[i] x)
`;
const prog = loadProgram({ name: "transpose-rows.smooth", text: SOURCE });

const matrix = (rows: number, cols: number, seed: number): DenseArray => ({
  tag: "dense",
  elemKind: "double",
  shape: [rows, cols],
  data: Float64Array.from(random(rows * cols, seed)),
});
/** The message of the SmoothError `f` raises. */
const message = (f: () => unknown): string => thrown(f).message;

describe("rows per lane through a transposed copy", () => {
  test("a layer applied to each row of a batch runs in outer lanes and computes what the loops say", () => {
    for (const [m, n, b] of [
      [7, 5, 3],
      [1, 1, 1],
      [9, 4, 0],
      [16, 33, 4],
    ] as const) {
      const [W, X] = [matrix(m, n, m + 1), matrix(b, n, n + 2)];
      const spec = prog.specialise("layers", [MATRIX, MATRIX], "wasm");
      expect(printIr(transposeLaneRows(spec.optimised))).toMatch(/let WT =[^]*WT\[/);
      expect(spec.code?.text).toMatch(/in outer lanes/);
      const got = spec.run([W, X]) as DenseArray;
      expect(got).toEqual(prog.specialise("layers", [MATRIX, MATRIX], "js").run([W, X]));
      expect(got).toEqual(prog.specialise("layers", [MATRIX, MATRIX], "interp").run([W, X]));
      for (let r = 0; r < b; r++)
        for (let i = 0; i < m; i++) {
          let s = 0;
          for (let k = 0; k < n; k++) s += W.data[i * n + k]! * X.data[r * n + k]!;
          expect(got.data[r * m + i]).toBe(Math.tanh(s));
        }
      const f32 = prog.specialise("layers", [MATRIX, MATRIX], "wasm-f32").run([W, X]) as DenseArray;
      f32.data.forEach((x, k) => expect(x).toBeCloseTo(got.data[k]!, 5));
    }
  });

  test("errors are the js back end's: a row past W's end first, then an element past a row's end", () => {
    const types = [MATRIX, MATRIX, { k: "int" } as const];
    expect(printIr(transposeLaneRows(prog.specialise("layersN", types, "wasm").optimised))).toMatch(/WT\[/);
    const run = (engine: Engine, args: Value[]) => message(() => prog.specialise("layersN", types, engine).run(args));
    // m = 6 rows asked of a W of 5: W[5] fails.
    const tooMany: Value[] = [matrix(5, 4, 1), matrix(3, 4, 2), 6];
    expect(run("js", tooMany)).toMatch(/index 5/);
    expect(run("wasm", tooMany)).toBe(run("js", tooMany));
    // Rows of X longer than W's: W[i][4] fails.
    const tooLong: Value[] = [matrix(5, 4, 1), matrix(3, 6, 2), 5];
    expect(run("js", tooLong)).toMatch(/index 4/);
    expect(run("wasm", tooLong)).toBe(run("js", tooLong));
    // An empty W read by no element: no error, and the transpose of nothing is made without one.
    const none: Value[] = [
      { tag: "dense", elemKind: "double", shape: [0, 0], data: new Float64Array(0) },
      matrix(3, 2, 2),
      0,
    ];
    expect(prog.specialise("layersN", types, "wasm").run(none)).toBe(0);
  });

  test("whether the copy pays is decided at run time: a few rows of a large matrix are read as they are", () => {
    const types = [MATRIX, MATRIX, { k: "int" } as const];
    const spec = prog.specialise("layersN", types, "wasm");
    expect(printIr(transposeLaneRows(spec.optimised))).toMatch(/if pays/);
    const W = matrix(50, 6, 11);
    // 1 row of X times 2 rows of W read: fewer than W's 50 rows (no copy); 3 rows of X times all 50: the copy pays.
    for (const [X, m] of [
      [matrix(1, 6, 12), 2],
      [matrix(3, 6, 13), 50],
      [matrix(0, 6, 14), 50],
    ] as const) {
      const args: Value[] = [W, X, m];
      expect(spec.run(args)).toEqual(prog.specialise("layersN", types, "js").run(args));
    }
  });

  test("a layer outside any loop reads W as it is (a transpose would cost what it saves)", () => {
    const spec = prog.specialise("once", [MATRIX, VECTOR], "wasm");
    expect(transposeLaneRows(spec.optimised)).toBe(spec.optimised);
  });
});
