// Min and max folds differentiated through the element they select (src/ad/selection-folds.ts): derivatives against
// finite differences in both modes and every engine, ties resolved as min's and max's own rule resolves them (the
// first operand on ties), values bit for bit the primal's (NaN, signed zeros), no tape in the gradient, and k-means'
// Newton direction (forward over reverse through a min over centroids) against its closed form.

import { readFileSync } from "node:fs";
import { describe, expect, test } from "vitest";
import { loadProgram } from "../../src/api/program.js";
import { printIr } from "../../src/ir/print.js";
import { MATRIX } from "../../src/types/types.js";
import { Point } from "../reverse/harness.js";
import { load, seededRandom } from "./harness.js";

const SOURCE = `
let minFold = fun (v: Vector) -> ifold (fun s i -> min s (v[i] * v[i] + sin v[i])) (v[0] * 2.) (length v)
let maxSecond = fun (v: Vector) -> ifold (fun s i -> max (exp v[i] - v[i]) s) 0. (length v)
let minOfRows = fun (m: Matrix) (p: Vector) ->
  ifold (fun best j -> min best (ifold (fun s l -> let e = p[l] - m[j][l] in s + e * e) 0. (length p))) 1e300 (length m)
let firstMin = fun (v: Vector) -> ifold (fun s i -> min s v[i]) v[0] (length v)
let lastMin = fun (v: Vector) -> ifold (fun s i -> min v[i] s) v[0] (length v)
let firstMax = fun (v: Vector) -> ifold (fun s i -> max s v[i]) v[0] (length v)
`;
const p = load(SOURCE);

const vectorAt = (seed: number, n: number) => {
  const rnd = seededRandom(seed);
  return Array.from({ length: n }, () => 4 * rnd() - 2);
};

describe("derivatives of min and max folds", () => {
  test("against finite differences, forward and reverse, with the dot-product test", () => {
    const rnd = seededRandom(5);
    for (const n of [1, 2, 5, 9]) {
      new Point(p, "minFold", [vectorAt(n, n)]).checkAll(rnd);
      new Point(p, "maxSecond", [vectorAt(n + 10, n)]).checkAll(rnd);
    }
    const rows = Array.from({ length: 4 }, (_, j) => vectorAt(20 + j, 3));
    new Point(p, "minOfRows", [rows, vectorAt(30, 3)]).checkAll(rnd);
  });

  test("second derivatives: the Hessian by forward over reverse against differences of the gradient", () => {
    const at = new Point(p, "minFold", [vectorAt(40, 6)]);
    const h = at.hessian();
    const fd = at.fdHessian();
    h.forEach((row, i) => row.forEach((x, j) => expect(x).toBeCloseTo(fd[i]![j]!, 5)));
  });

  test("ties go where min's and max's own rule sends them: the first operand when equal", () => {
    const v = [3, 1, 1, 2];
    // min s v[i]: the state is kept on a tie, so the first of the equal minima is selected.
    expect(new Point(p, "firstMin", [v]).run("gradient")).toEqual([0, 1, 0, 0]);
    // min v[i] s: the element is taken on a tie, so the last of them.
    expect(new Point(p, "lastMin", [v]).run("gradient")).toEqual([0, 0, 1, 0]);
    expect(new Point(p, "firstMax", [[1, 5, 5, 2]]).run("gradient")).toEqual([0, 1, 0, 0]);
    // No element replaces the initial value (v[0] itself, read again at i = 0 and kept): its derivative is v[0]'s.
    expect(new Point(p, "firstMin", [[1, 4, 2]]).run("gradient")).toEqual([1, 0, 0]);
    expect(new Point(p, "firstMin", [v]).forwardJacobian()).toEqual([[0, 1, 0, 0]]);
  });

  test("the value is the fold's own, bit for bit: NaN and signed zeros as Math.min chains them", () => {
    for (const v of [
      [0, -0],
      [-0, 0],
      [1, NaN, 0],
      [2, 1, NaN],
    ]) {
      const expected = v.reduce((s, x) => Math.min(s, x), v[0]!);
      const [value] = new Point(p, "firstMin", [v]).run("value-gradient") as [number | string, unknown];
      expect(Object.is(value, expected) || (Number.isNaN(expected) && value === "NaN")).toBe(true);
    }
  });

  test("the gradient program keeps no tape and runs no reverse loop over the elements", () => {
    const printed = printIr(new Point(p, "minOfRows", [[[1, 2]], [0, 0]]).specs("gradient").js.optimised);
    expect(printed).not.toMatch(/\bsetAt\b|\brecord\b|tape/);
    // One loop over the rows (values and the selected index), one over the selected row's elements: no loop over
    // the rows runs backwards.
    expect(printed).not.toMatch(/last - /);
  });
});

describe("k-means' Newton direction (forward over reverse through a min over centroids)", () => {
  const kmeans = loadProgram({
    name: "kmeans.smooth",
    text: readFileSync(new URL("../../examples/gradbench/kmeans.smooth", import.meta.url), "utf8"),
  });

  /** J / diag H by the closed form: each point pulls its closest centroid (the first on ties): 2 (c - p), and 2. */
  function direction(points: number[][], centroids: number[][]): number[][] {
    const grad = centroids.map((c) => c.map(() => 0));
    const count = centroids.map(() => 0);
    for (const q of points) {
      let best = Infinity;
      let at = 0;
      centroids.forEach((c, j) => {
        const d = c.reduce((s, x, l) => s + (q[l]! - x) ** 2, 0);
        if (d < best) [best, at] = [d, j];
      });
      count[at]!++;
      centroids[at]!.forEach((x, l) => (grad[at]![l]! += 2 * (x - q[l]!)));
    }
    return grad.map((row, j) => row.map((g) => g / (2 * count[j]!)));
  }

  test("the gradient updates the selected centroid alone (the first one's distance differentiated only there)", () => {
    const printed = printIr(kmeans.specialise("kmeansGradient", [MATRIX, MATRIX], "js").optimised);
    // Per point: the selected index, then one branch adding to the first centroid's adjoint or to the selected one's.
    expect(printed.match(/\baddAt\b/g)).toHaveLength(2);
    expect(printed).toMatch(
      /\(1\., \(if (\w+) < 0 then[^]*addAt[^]*else[^]*addAt[^]*\)\)\) \(1\., zerosLike centroids\)/,
    );
    expect(printed).not.toMatch(/\bsetAt\b|\brecord\b|tape/);
  });

  test("matches the closed form in every engine", () => {
    const rnd = seededRandom(77);
    const points = Array.from({ length: 40 }, () => [rnd(), rnd(), rnd()]);
    // Centroids at points, so that each has at least one point (the direction divides by the count).
    const centroids = [points[0]!, points[7]!, points[19]!, points[33]!].map((c) => c.map((x) => x + 0.01));
    const expected = direction(points, centroids);
    const dense = (rows: number[][]) => ({
      tag: "dense" as const,
      elemKind: "double" as const,
      shape: [rows.length, rows[0]!.length],
      data: Float64Array.from(rows.flat()),
    });
    for (const engine of ["interp", "js", "wasm"] as const) {
      const out = kmeans.specialise("kmeansDir", [MATRIX, MATRIX], engine).run([dense(points), dense(centroids)]);
      const data = [...(out as { data: Float64Array }).data];
      expect(data.length).toBe(12);
      data.forEach((x, k) => expect(x, `${engine} [${k}]`).toBeCloseTo(expected[Math.floor(k / 3)]![k % 3]!, 10));
    }
  });
});
