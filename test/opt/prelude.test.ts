// The benchmarks' programs, from Smooth source through the standard pipeline: the structure the code generator
// needs (no function values, intermediate arrays fused away) and the same values as before optimisation.

import { readFileSync } from "node:fs";
import { describe, expect, test } from "vitest";
import { runFunction } from "../../src/eval/interpreter.js";
import { forEachNode, someNode } from "../../src/ir/free.js";
import type { IrFunction } from "../../src/ir/ir.js";
import { lowerEntry } from "../../src/ir/lower.js";
import { printIr } from "../../src/ir/print.js";
import { runPipeline } from "../../src/opt/pass.js";
import { STANDARD_PIPELINE } from "../../src/opt/pipeline.js";
import type { DenseArray, Value } from "../../src/runtime/value.js";
import { parseProgram } from "../../src/syntax/parser.js";
import { checkProgram } from "../../src/types/infer.js";
import { MATRIX, VECTOR, type Type } from "../../src/types/types.js";

const PRELUDE = readFileSync(new URL("../../prelude/prelude.smooth", import.meta.url), "utf8");

/** `entry` of the prelude plus `extra` source, lowered at the given parameter types. */
function lower(entry: string, types: readonly Type[], extra = ""): IrFunction {
  const programs = [parseProgram({ name: "prelude.smooth", text: PRELUDE })];
  if (extra) programs.push(parseProgram({ name: "test.smooth", text: extra }));
  return lowerEntry(checkProgram(programs), entry, types);
}

function optimise(fn: IrFunction): IrFunction {
  const out = runPipeline(fn, STANDARD_PIPELINE, { verify: true });
  expect(someNode(out.body, (e) => e.kind === "lam" || e.kind === "app")).toBe(false);
  return out;
}

function count(fn: IrFunction, kind: "build" | "ifold"): number {
  let n = 0;
  forEachNode(fn.body, (e) => {
    if (e.kind === kind) n++;
  });
  return n;
}

const vector = (xs: readonly number[]): DenseArray => ({
  tag: "dense",
  elemKind: "double",
  shape: [xs.length],
  data: Float64Array.from(xs),
});
const matrix = (rows: readonly (readonly number[])[]): DenseArray => ({
  tag: "dense",
  elemKind: "double",
  shape: [rows.length, rows[0]!.length],
  data: Float64Array.from(rows.flat()),
});

/** Runs both versions and checks they agree exactly; returns the value. */
function agree(fn: IrFunction, out: IrFunction, args: readonly Value[]): Value {
  const before = runFunction(fn, args);
  const after = runFunction(out, args);
  expect(after).toEqual(before);
  return after;
}

describe("prelude programs after inline + simplify", () => {
  const a = [0.5, -1.25, 2, 3.5, -0.75];
  const b = [1.5, 2.25, -0.5, 0.125, 4];

  test("vectorDot is one loop", () => {
    const fn = lower("vectorDot", [VECTOR, VECTOR]);
    const out = optimise(fn);
    expect(printIr(out)).toMatchInlineSnapshot(`
      "let vectorDot (v1: Vector) (v2: Vector) =
        ifold (fun s i -> s + v1[i] * v2[i]) 0. (sameSize (length v1) (length v2))"
    `);
    let dot = 0;
    for (let i = 0; i < a.length; i++) dot += a[i]! * b[i]!;
    expect(agree(fn, out, [vector(a), vector(b)])).toBe(dot);
  });

  test("logsumexp is two loops and no array", () => {
    const fn = lower("logsumexp", [VECTOR]);
    const out = optimise(fn);
    expect(count(out, "build")).toBe(0);
    expect(count(out, "ifold")).toBe(2);
    expect(printIr(out)).toMatchInlineSnapshot(`
      "let logsumexp (v: Vector) =
        let t = length v in
        let mx = ifold (fun m i -> max m v[i]) v[0] t in
        let m_2 = stopGradient (if mx - mx = 0. then mx else 0.) in
        m_2 + log (ifold (fun s i_2 -> s + exp (v[i_2] - m_2)) 0. t)"
    `);
    const m = Math.max(...a);
    let s = 0;
    for (const x of a) s += Math.exp(x - m);
    expect(agree(fn, out, [vector(a)])).toBe(m + Math.log(s));
  });

  test("vectorNorm and a map/sum chain fuse into single loops", () => {
    const norm = lower("vectorNorm", [VECTOR]);
    const out = optimise(norm);
    expect(count(out, "build")).toBe(0);
    expect(agree(norm, out, [vector(a)])).toBe(Math.sqrt(a.reduce((s, x) => s + x * x, 0)));

    const src = "let f = fun u w -> vectorSum (vectorAdd (vectorSMul u 2.) (vectorMap w (fun x -> x * x)))";
    const fn = lower("f", [VECTOR, VECTOR], src);
    const fused = optimise(fn);
    expect(count(fused, "build")).toBe(0);
    expect(count(fused, "ifold")).toBe(1);
    expect(agree(fn, fused, [vector(a), vector(b)])).toBe(a.reduce((s, x, i) => s + (x * 2 + b[i]! * b[i]!), 0));
  });

  test("matrixMul keeps its transpose as an array (its inner loop reads rows: row-major) and fuses the dot products", () => {
    const fn = lower("matrixMul", [MATRIX, MATRIX]);
    const out = optimise(fn);
    expect(count(out, "build")).toBe(4); // the transpose, computed once, and the result
    expect(count(out, "ifold")).toBe(1);
    expect(printIr(out)).toMatchInlineSnapshot(`
      "let matrixMul (m1: Matrix) (m2: Matrix) =
        let t = length m2[0] in
        let t_2 = length m2 in
        let m2T = build t (fun i -> build t_2 (fun j -> m2[j][i])) in
        build (length m1) (fun i_2 ->
          let t_3 = m1[i_2] in
          let n = sameSize (length m1[0]) t_2 in
          build t (fun j_2 ->
            let t_4 = m2T[j_2] in
            ifold (fun s i_3 -> s + t_3[i_3] * t_4[i_3]) 0. n))"
    `);
    const x = [
      [1, 2, 3],
      [4, 5, 6],
    ];
    const y = [
      [0.5, -1],
      [2, 0.25],
      [-3, 1.5],
    ];
    const expected = x.map((row) => y[0]!.map((_, j) => row.reduce((s, v, k) => s + v * y[k]![j]!, 0)));
    expect(agree(fn, out, [matrix(x), matrix(y)])).toEqual(matrix(expected));
  });

  test("matrixTrace of a sum, and vectorOutProd, compute what they did before", () => {
    const tr = lower("f", [MATRIX, MATRIX], "let f = fun p q -> matrixTrace (matrixAdd p q)");
    const m = [
      [1, 2],
      [3, 4],
    ];
    expect(agree(tr, optimise(tr), [matrix(m), matrix(m)])).toBe(10);
    const op = lower("vectorOutProd", [VECTOR, VECTOR]);
    expect(agree(op, optimise(op), [vector([1, 2]), vector([3, 4, 5])])).toEqual(
      matrix([
        [3, 4, 5],
        [6, 8, 10],
      ]),
    );
  });
});
