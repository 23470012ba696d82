// The ba eval through the protocol against ADBench's exact expected values on ba/test.txt (goldens.json, rho <= 1e-8),
// its Jacobian blocks against central differences of an independent plain-JS projection on an input whose cameras
// and points all differ, and the CSR layout against Smooth's forward-mode Jacobian of the whole objective.

import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { parseBa, readBa } from "../../src/adbench/ba-data.js";
import { DERIVATIVE_PIPELINE } from "../../src/opt/pipeline.js";
import { valueToJson } from "../../src/runtime/json.js";
import type { DenseArray, Value } from "../../src/runtime/value.js";
import { SmoothError } from "../../src/syntax/diagnostics.js";
import { arrayOf, INT, MATRIX, VECTOR } from "../../src/types/types.js";
import { baCsr, baProblem, type BaProblem } from "../../src/gradbench/evals/ba.js";
import { compilePrimal, loadExamples, tupleParts } from "../../src/gradbench/smooth-eval.js";
import { thrown } from "../helpers.js";
import { centralDifferences, evaluate, maxRho, randoms, session } from "./harness.js";

const dataPath = (name: string): string => new URL(`../data/adbench/${name}`, import.meta.url).pathname;

interface BaGolden {
  readonly reproj_err: number[];
  readonly weight_err: number[];
  readonly jacobian: { nrows: number; ncols: number; rows_length: number; nnz: number; vals: number[] };
}
const golden = (JSON.parse(readFileSync(dataPath("goldens.json"), "utf8")) as { ba: BaGolden }).ba;
const input = readBa(dataPath("ba/test.txt"));
const ARG_TYPES = [MATRIX, MATRIX, VECTOR, MATRIX, arrayOf(INT), arrayOf(INT)];
const prog = loadExamples("gradbench/ba.smooth");

/** The whole CSR Jacobian of a problem (the eval's output keeps only part of it). */
function fullCsr(problem: BaProblem) {
  const [blocks, weightDerivs] = tupleParts(
    compilePrimal(prog, "baJacobianBlocks", ARG_TYPES).run(problem.args),
    2,
  ) as DenseArray[];
  return baCsr(problem, blocks!.data as Float64Array, weightDerivs!.data as Float64Array);
}

/** The two weighted reprojection errors of one observation, written from ADBench's definition (plain JS). */
function reprojection(cam: readonly number[], X: readonly number[], w: number, feat: readonly number[]): number[] {
  const [r0, r1, r2] = cam as [number, number, number];
  const p = [X[0]! - cam[3]!, X[1]! - cam[4]!, X[2]! - cam[5]!];
  const theta2 = r0 * r0 + r1 * r1 + r2 * r2;
  const cross = (a: number[], b: number[]) => [
    a[1]! * b[2]! - a[2]! * b[1]!,
    a[2]! * b[0]! - a[0]! * b[2]!,
    a[0]! * b[1]! - a[1]! * b[0]!,
  ];
  let xc: number[];
  if (theta2 === 0) {
    const c = cross([r0, r1, r2], p);
    xc = p.map((v, i) => v + c[i]!);
  } else {
    const theta = Math.sqrt(theta2);
    const v = [r0 / theta, r1 / theta, r2 / theta];
    const c = cross(v, p);
    const dot = v[0]! * p[0]! + v[1]! * p[1]! + v[2]! * p[2]!;
    xc = p.map((y, i) => y * Math.cos(theta) + c[i]! * Math.sin(theta) + v[i]! * dot * (1 - Math.cos(theta)));
  }
  const u = [xc[0]! / xc[2]!, xc[1]! / xc[2]!];
  const n2 = u[0]! ** 2 + u[1]! ** 2;
  const d = 1 + cam[9]! * n2 + cam[10]! * n2 * n2;
  return [0, 1].map((k) => w * (u[k]! * d * cam[6]! + cam[7 + k]! - feat[k]!));
}

describe("ba", () => {
  it("objective: the golden errors, given as the first two and the repetition count", async () => {
    const out = await evaluate("ba", "objective", input);
    expect(out).toEqual({
      reproj_error: { elements: [expect.any(Number), expect.any(Number)], repeated: 10 },
      w_err: { element: expect.any(Number), repeated: 10 },
    });
    const o = out as { reproj_error: { elements: number[] }; w_err: { element: number } };
    expect(maxRho(o.reproj_error.elements, golden.reproj_err.slice(0, 2))).toBeLessThanOrEqual(1e-8);
    expect(maxRho(o.w_err.element, golden.weight_err[0])).toBeLessThanOrEqual(1e-8);
  });

  it("jacobian: the golden CSR matrix, all of it, and the first 30 entries and the last through the protocol", async () => {
    const csr = fullCsr(baProblem(input));
    expect(csr.rows).toHaveLength(golden.jacobian.rows_length);
    expect(csr.vals).toHaveLength(golden.jacobian.nnz);
    expect(maxRho([...csr.vals], golden.jacobian.vals)).toBeLessThanOrEqual(1e-8);
    // Rows: 15 nonzeros per reprojection row, then one per weight row; columns: camera, point (offset 11n), weight
    // (offset 11n + 3m), for n = 2, m = 10.
    expect([...csr.rows]).toEqual([
      ...Array.from({ length: 21 }, (_, r) => 15 * r),
      ...Array.from({ length: 10 }, (_, r) => 301 + r),
    ]);
    const reprojCols = (i: number) => [
      ...Array.from({ length: 11 }, (_, j) => 11 * (i % 2) + j),
      22 + 3 * (i % 10),
      23 + 3 * (i % 10),
      24 + 3 * (i % 10),
      52 + i,
    ];
    expect([...csr.cols]).toEqual([
      ...Array.from({ length: 10 }, (_, i) => [...reprojCols(i), ...reprojCols(i)]).flat(),
      ...Array.from({ length: 10 }, (_, i) => 52 + i),
    ]);
    const out = (await evaluate("ba", "jacobian", input)) as { rows: number[]; cols: number[]; vals: number[] };
    const kept = (a: ArrayLike<number>) => [...Array.from(a).slice(0, 30), a[a.length - 1]!];
    expect(out).toEqual({ rows: kept(csr.rows), cols: kept(csr.cols), vals: kept(csr.vals) });
  });

  it("jacobian blocks on distinct cameras and points: central differences of a plain-JS projection", () => {
    const [n, m, p] = [3, 4, 7];
    const cams = Array.from({ length: n }, (_, c) => [
      ...randoms(3, 100 + c, -0.5, 0.5),
      ...randoms(3, 200 + c, -1, 1),
      500 + 10 * c,
      ...randoms(2, 300 + c, -5, 5),
      ...randoms(2, 400 + c, -1e-3, 1e-3),
    ]);
    cams[1]!.splice(0, 3, 0, 0, 0); // a camera with no rotation: the first-order branch
    const X = Array.from({ length: m }, (_, k) => [...randoms(2, 600 + k, -1, 1), 5 + k]);
    const w = randoms(p, 700, 0.5, 1.5);
    const feats = Array.from({ length: p }, (_, i) => randoms(2, 800 + i, -100, 100));
    const camIdx = [2, 0, 1, 1, 2, 0, 1];
    const ptIdx = [3, 1, 0, 2, 2, 3, 1];
    const dense = (rows: number[][]): Value => ({
      tag: "dense",
      elemKind: "double",
      shape: [rows.length, rows[0]!.length],
      data: Float64Array.from(rows.flat()),
    });
    const ints = (a: number[]): Value => ({
      tag: "dense",
      elemKind: "int",
      shape: [a.length],
      data: Int32Array.from(a),
    });
    const problem: BaProblem = {
      n,
      m,
      p,
      camIdx: Int32Array.from(camIdx),
      ptIdx: Int32Array.from(ptIdx),
      args: [
        dense(cams),
        dense(X),
        { tag: "dense", elemKind: "double", shape: [p], data: Float64Array.from(w) },
        dense(feats),
        ints(camIdx),
        ints(ptIdx),
      ],
    };
    const csr = fullCsr(problem);
    for (let i = 0; i < p; i++) {
      const params = [...cams[camIdx[i]!]!, ...X[ptIdx[i]!]!, w[i]!];
      const f = (q: number[]) => reprojection(q.slice(0, 11), q.slice(11, 14), q[14]!, feats[i]!);
      for (let row = 0; row < 2; row++) {
        const fd = centralDifferences((q) => f(q)[row]!, params, 1e-6);
        const at = 30 * i + 15 * row;
        expect(maxRho([...csr.vals.subarray(at, at + 15)], fd), `observation ${i}, row ${row}`).toBeLessThanOrEqual(
          1e-6,
        );
      }
    }
    expect([...csr.vals.subarray(30 * p)]).toEqual(w.map((v) => -2 * v));
  });

  it("the CSR matrix is Smooth's forward-mode Jacobian of the whole objective, with the zeros left out", () => {
    const small = { ...input, n: 2, m: 3, p: 4 };
    const problem = baProblem(small);
    const csr = fullCsr(problem);
    // Columns of the dense Jacobian: cameras (11n), points (3m), weights (p); rows: reprojection errors, then weights.
    const derivative = prog.derivative("baObjective", ARG_TYPES, [0, 1, 2], "js", DERIVATIVE_PIPELINE, "forward");
    const [dCams, dX, dW] = valueToJson(derivative.run(problem.args), derivative.resultType) as unknown[];
    // Each column is the tangent of the objective's output (reprojection errors p x 2, weight errors p) for one input.
    const columns: unknown[] = [...(dCams as unknown[][]).flat(), ...(dX as unknown[][]).flat(), ...(dW as unknown[])];
    const denseRows = Array.from({ length: 3 * problem.p }, (_, r) =>
      columns.map((c) => {
        const [reproj, wErr] = c as [number[][], number[]];
        return r < 2 * problem.p ? reproj[Math.floor(r / 2)]![r % 2]! : wErr[r - 2 * problem.p]!;
      }),
    );
    const fromCsr = denseRows.map((row) => row.map(() => 0));
    for (let r = 0; r < 3 * problem.p; r++)
      for (let k = csr.rows[r]!; k < csr.rows[r + 1]!; k++) fromCsr[r]![csr.cols[k]!] = csr.vals[k]!;
    expect(maxRho(fromCsr, denseRows)).toBeLessThanOrEqual(1e-12);
  });

  it("fails clearly on a bad input", async () => {
    const [, , missing, short] = await session([
      { id: 0, kind: "start" },
      { id: 1, kind: "define", module: "ba" },
      {
        id: 2,
        kind: "evaluate",
        module: "ba",
        function: "objective",
        input: { n: 1, m: 1, p: 1, cam: input.cam, x: input.x, w: 1 },
      },
      { id: 3, kind: "evaluate", module: "ba", function: "jacobian", input: { ...input, cam: [1, 2] } },
    ]);
    expect(missing).toEqual({ id: 2, success: false, error: "the input has no field `feat`" });
    expect(short).toEqual({ id: 3, success: false, error: "the input's `cam` must be 11 finite numbers" });
  });
});

describe("the ADBench BA reader", () => {
  it("reads ba/test.txt", () => {
    expect(input).toMatchObject({
      n: 2,
      m: 10,
      p: 10,
      w: 0.417022,
      x: [4.173048, 5.586898, 1.403869],
      feat: [-525.672849, 161.811929],
    });
    expect(input.cam).toHaveLength(11);
  });

  it("reports a short camera line at its line", () => {
    const e = thrown(() => parseBa({ name: "bad.txt", text: "1 1 1\n1 2 3\n1 2 3\n1\n1 2\n" }));
    expect(e).toBeInstanceOf(SmoothError);
    expect(e.headline).toBe("bad.txt:2:1: argument error: bad.txt: the camera should have 11 values");
  });
});
