// Update lanes (src/lowering/update-lanes.ts, src/wasm/update-lanes.ts): loops over j whose tuple state's arrays are
// updated at j, directly or by an inner loop adding at j + w(b), run in SIMD lanes. Values are bit for bit the
// interpreter's in float64 and a Math.fround loop's in float32, at lengths around the lane counts; an inner loop whose
// lanes would meet out of order (w rising by less than a lane count) or leave their rows runs plain, with the same
// values and the same errors; gmm's gradient takes the lanes and is the js back end's bit for bit.

import { describe, expect, it } from "vitest";
import { loadProgram, type Engine } from "../../src/api/program.js";
import { forEachNode, binders } from "../../src/ir/free.js";
import { tupleUpdateLanes } from "../../src/lowering/update-lanes.js";
import { DERIVATIVE_PIPELINE } from "../../src/opt/pipeline.js";
import type { Value } from "../../src/runtime/value.js";
import { DOUBLE, INT, MATRIX, VECTOR } from "../../src/types/types.js";
import { loadExamples } from "../../src/gradbench/smooth-eval.js";

const SOURCE = `
let twoUpdates = fun (a: Vector) (b: Vector) (v: Vector) (w: Vector) ->
  ifold (fun s j -> let (p, q) = s in (addAt p j (2. * v[j]), addAt q (j + 1) (v[j] * w[j] - 0.5))) (a, b) (length v)
let triangle = fun (a: Vector) (c: Vector) (v: Vector) (w: Vector) ->
  let d = length v
  ifold (fun s j ->
    let (p, q) = s
    let t = v[j] * 3.
    (addAt p j t, ifold (fun r b -> addAt r (d + b * (2 * d - b - 1) / 2 + (j - b - 1)) (w[b] * t)) q j)) (a, c) d
let overlapping = fun (a: Vector) (c: Vector) (v: Vector) (w: Vector) ->
  ifold (fun s j ->
    let (p, q) = s
    (addAt p j v[j], ifold (fun r b -> addAt r (j + b) (w[b] * v[j])) q (length w))) (a, c) (length v)
let falling = fun (a: Vector) (c: Vector) (v: Vector) (w: Vector) ->
  ifold (fun s j ->
    let (p, q) = s
    (addAt p j v[j], ifold (fun r b -> addAt r (j + 2 * (length w - b)) (w[b] * v[j])) q (length w))) (a, c) (length v)
let shrinking = fun (a: Vector) (c: Vector) (v: Vector) (w: Vector) ->
  ifold (fun st r ->
    ifold (fun s j ->
      let (p, q) = s
      (addAt p j v[j], ifold (fun t b -> addAt t (j + b * (4 - r)) (w[b] * v[j])) q (length w))) st (length v)) (a, c) 4
let qNormSq = fun (qDiag: Vector) (icfk: Vector) (v: Vector) (w: Vector) ->
  let d = length v
  ifold (fun t r ->
    let y = qDiag[r] * v[r] + ifold (fun s c -> s + icfk[d + c * (2 * d - c - 1) / 2 + (r - c - 1)] * v[c]) 0. r
    t + y * y + w[r]) 0. d
let readsState = fun (a: Vector) (b: Vector) (v: Vector) (w: Vector) ->
  ifold (fun s j -> let (p, q) = s in (addAt p j (p[j] * v[j]), addAt q j w[j])) (a, b) (length v)
let twiceOneLeaf = fun (a: Vector) (b: Vector) (v: Vector) (w: Vector) ->
  ifold (fun s j -> let (p, q) = s in (addAt (addAt p j v[j]) (j + 1) w[j], addAt q j w[j])) (a, b) (length v)
`;
const prog = loadProgram({ name: "reverse-lanes.smooth", text: SOURCE });
const V4 = [VECTOR, VECTOR, VECTOR, VECTOR];

const vector = (xs: readonly number[]): Value => ({
  tag: "dense",
  elemKind: "double",
  shape: [xs.length],
  data: Float64Array.from(xs),
});
const numbers = (v: Value): number[] => {
  if (typeof v === "number") return [v];
  if (typeof v === "object" && v.tag === "tuple") return v.elems.flatMap(numbers);
  return [...(v as { data: Float64Array }).data];
};
const listing = (name: string, engine: Engine = "wasm") => prog.specialise(name, V4, engine).code?.text ?? "";
const run = (name: string, engine: Engine, args: readonly number[][]) =>
  numbers(prog.specialise(name, V4, engine).run(args.map(vector)));
const message = (name: string, engine: Engine, args: readonly number[][]) => {
  try {
    run(name, engine, args);
  } catch (e) {
    return (e as Error).message;
  }
  return "no error";
};

/** Numbers of very different magnitudes: a sum taken in another order rounds differently. */
const wild = (n: number, seed: number) =>
  Array.from({ length: n }, (_, i) => Math.sin(i * 1.37 + seed) * 10 ** ((i * 7 + seed) % 9) - 0.3);
const triangleSize = (d: number) => d + (d * (d - 1)) / 2;
const LENGTHS = [0, 1, 2, 3, 4, 5, 7, 8, 9, 31, 64, 65];

/** triangle, by hand in float32 (each operation rounded, in the plain loop's order). */
function triangleF32(a: number[], c: number[], v: number[], w: number[]): number[] {
  const f = Math.fround;
  const [p, q] = [a.map(f), c.map(f)];
  const d = v.length;
  for (let j = 0; j < d; j++) {
    const t = f(f(v[j]!) * 3);
    p[j] = f(p[j]! + t);
    for (let b = 0; b < j; b++) {
      const at = d + Math.trunc((b * (2 * d - b - 1)) / 2) + (j - b - 1);
      q[at] = f(q[at]! + f(f(w[b]!) * t));
    }
  }
  return [...p, ...q];
}

/** twoUpdates, by hand in float32. */
function twoUpdatesF32(a: number[], b: number[], v: number[], w: number[]): number[] {
  const f = Math.fround;
  const [p, q] = [a.map(f), b.map(f)];
  for (let j = 0; j < v.length; j++) {
    p[j] = f(p[j]! + f(2 * f(v[j]!)));
    q[j + 1] = f(q[j + 1]! + f(f(f(v[j]!) * f(w[j]!)) - 0.5));
  }
  return [...p, ...q];
}

describe("update lanes", () => {
  it("run direct updates of two leaves in lanes: bit for bit the interpreter, and float32's rounding", () => {
    expect(listing("twoUpdates")).toMatch(/; 1 loops in SIMD lanes$/);
    expect(listing("twoUpdates", "wasm-f32")).toMatch(/; 1 loops in SIMD lanes$/);
    for (const n of LENGTHS) {
      const args = [wild(n, 1), wild(n + 1, 2), wild(n, 3), wild(n, 4)];
      expect(run("twoUpdates", "wasm", args)).toEqual(run("twoUpdates", "interp", args));
      expect(run("twoUpdates", "wasm-f32", args)).toEqual(
        twoUpdatesF32(...(args as [number[], number[], number[], number[]])),
      );
    }
  });

  it("run a triangular inner loop (gmm's L adjoint) in lanes: bit for bit the interpreter and float32's loop", () => {
    expect(listing("triangle")).toMatch(/; 1 loops in SIMD lanes$/);
    for (const d of LENGTHS) {
      const args = [wild(d, 5), wild(triangleSize(d), 6), wild(d, 7), wild(d, 8)];
      expect(run("triangle", "wasm", args)).toEqual(run("triangle", "interp", args));
      expect(run("triangle", "wasm-f32", args)).toEqual(
        triangleF32(...(args as [number[], number[], number[], number[]])),
      );
    }
  });

  it("leave an inner loop whose lanes would meet out of order, or that falls, to the plain loop", () => {
    for (const [n, m] of [
      [0, 3],
      [1, 1],
      [2, 2],
      [3, 3],
      [9, 4],
      [33, 17],
    ] as const) {
      // Element j + b gets w[b] v[j] from every (j, b): lanes over j would add them in another order.
      const args = [wild(n, 9), wild(n + m, 10), wild(n, 11), wild(m, 12)];
      expect(run("overlapping", "wasm", args)).toEqual(run("overlapping", "interp", args));
      expect(run("overlapping", "wasm-f32", args)).toEqual(overlappingF32(args));
      const far = [wild(n, 13), wild(n + 2 * m + 1, 14), wild(n, 15), wild(m, 16)];
      expect(run("falling", "wasm", far)).toEqual(run("falling", "interp", far));
    }
  });

  it("check a loop run again afresh when what its inner index is computed from changes", () => {
    // Round r adds at j + b (4 - r): four lanes side by side may take rounds 0 and 1 (w rises by 4, 3 per step), two
    // lanes round 2, no lanes round 3; a check remembered from an earlier round would run them out of order.
    expect(listing("shrinking")).toMatch(/; 1 loops in SIMD lanes$/);
    for (const [n, m] of [
      [3, 2],
      [9, 5],
      [40, 6],
      [64, 9],
    ] as const) {
      const args = [wild(n, 25), wild(n + 4 * m, 26), wild(n, 27), wild(m, 28)];
      expect(run("shrinking", "wasm", args)).toEqual(run("shrinking", "interp", args));
      expect(run("shrinking", "wasm-f32", args)).toEqual(shrinkingF32(args));
    }
  });

  it("take a reverse loop that recomputes its sum across the lanes (‖Q v‖²'s gradient), with its read checks", () => {
    const grad = (engine: Engine) => prog.derivative("qNormSq", V4, [0, 1], engine, DERIVATIVE_PIPELINE, "gradient");
    // Its loop over r adds to dqDiag[r] and, by an inner loop over c < r, to dL at c's column + r; its terms hold the
    // triangular sum of Q v's row r (outer lanes, each lane its own count).
    expect(grad("wasm").code?.text).toMatch(/; 2 loops in SIMD lanes \(1 of them in outer lanes\)$/);
    for (const d of LENGTHS) {
      const args = [wild(d, 40), wild(triangleSize(d), 41), wild(d, 42), wild(d, 43)].map(vector);
      expect(numbers(grad("wasm").run(args))).toEqual(numbers(grad("interp").run(args)));
    }
    for (const d of [8, 9]) {
      // L one element short: the sum's shifted read fails in the last row, which the lanes leave to the plain loop.
      const args = [wild(d, 44), wild(triangleSize(d) - 1, 45), wild(d, 46), wild(d, 47)].map(vector);
      const error = (engine: Engine) => {
        try {
          grad(engine).run(args);
        } catch (e) {
          return (e as Error).message;
        }
        return "no error";
      };
      expect(error("wasm")).toMatch(/index error/);
      expect(error("wasm")).toBe(error("js"));
    }
  });

  it("do not take a loop reading its state or updating a leaf twice", () => {
    expect(listing("readsState")).not.toMatch(/loops in SIMD lanes/);
    expect(listing("twiceOneLeaf")).not.toMatch(/loops in SIMD lanes/);
    for (const n of [0, 1, 4, 9]) {
      const args = [wild(n + 1, 17), wild(n + 1, 18), wild(n, 19), wild(n, 20)];
      expect(run("readsState", "wasm", args)).toEqual(run("readsState", "interp", args));
      expect(run("twiceOneLeaf", "wasm", args)).toEqual(run("twiceOneLeaf", "interp", args));
    }
  });

  it("raise an inner loop's index error where the plain loop does", () => {
    for (const d of [8, 9]) {
      // The triangle's last column is one element short (d = 8: the last lanes would write it).
      const args = [wild(d, 21), wild(triangleSize(d) - 1, 22), wild(d, 23), wild(d, 24)];
      expect(message("triangle", "wasm", args)).toMatch(
        /index error: index \d+ is out of range for an array of length/,
      );
      expect(message("triangle", "wasm", args)).toBe(message("triangle", "js", args));
      // w too short: the inner loop's read fails.
      const short = [wild(d, 21), wild(triangleSize(d), 22), wild(d, 23), wild(d - 2, 24)];
      expect(message("triangle", "wasm", short)).toMatch(/index error/);
      expect(message("triangle", "wasm", short)).toBe(message("triangle", "js", short));
    }
  });

  it("take gmm's reverse loop over the dimension, its gradient bit for bit js's", () => {
    const gmm = loadExamples("gradbench/gmm.smooth", ["adbench/gmm.smooth"]);
    const types = [VECTOR, MATRIX, MATRIX, MATRIX, DOUBLE, INT];
    const grad = (engine: Engine) =>
      gmm.derivative("gmmLogPosterior", types, [0, 1, 2], engine, DERIVATIVE_PIPELINE, "gradient");
    // The analysis finds the loop: dqDiags and dqMeans updated at j, L's adjoint by the triangular inner loop.
    const found: string[][] = [];
    forEachNode(grad("wasm").optimised.body, (node) => {
      if (node.kind !== "ifold") return;
      const inside = new Set<number>([node.acc.id, node.index.id]);
      forEachNode(node.body, (x) => binders(x).forEach((v) => inside.add(v.id)));
      const plan = tupleUpdateLanes(node, (id) => !inside.has(id));
      if (plan !== undefined) found.push(plan.leaves.map((l) => l.kind));
    });
    expect(found).toContainEqual(["keep", "direct", "fold", "direct"]);
    for (const [d, K, n] of [
      [2, 2, 3],
      [5, 3, 4],
      [8, 2, 3],
      [11, 3, 5],
    ] as const) {
      const mat = (r: number, c: number, seed: number): Value => ({
        tag: "dense",
        elemKind: "double",
        shape: [r, c],
        data: Float64Array.from({ length: r * c }, (_, i) => Math.sin(i * 0.7 + seed) * 0.8),
      });
      const args: Value[] = [
        vector(wild(K, 30).map((x) => x * 1e-6)),
        mat(K, d, 31),
        mat(K, triangleSize(d), 32),
        mat(n, d, 33),
        1.3,
        2,
      ];
      const wasm = numbers(grad("wasm").run(args));
      // The js back end runs the same optimised program as plain loops (the interpreter differentiates the program
      // before optimisation: the same within rounding).
      expect(wasm).toEqual(numbers(grad("js").run(args)));
      const interp = numbers(grad("interp").run(args));
      interp.forEach((x, i) => expect(Math.abs(x - wasm[i]!)).toBeLessThanOrEqual(1e-12 * Math.max(1, Math.abs(x))));
      const f32 = numbers(grad("wasm-f32").run(args));
      f32.forEach((x, i) => expect(Math.abs(x - wasm[i]!)).toBeLessThanOrEqual(1e-3 * Math.max(1, Math.abs(wasm[i]!))));
    }
  });
});

/** overlapping, by hand in float32. */
function overlappingF32(args: readonly number[][]): number[] {
  const f = Math.fround;
  const [a, c, v, w] = args.map((xs) => xs.map(f)) as [number[], number[], number[], number[]];
  for (let j = 0; j < v.length; j++) {
    a[j] = f(a[j]! + v[j]!);
    for (let b = 0; b < w.length; b++) c[j + b] = f(c[j + b]! + f(w[b]! * v[j]!));
  }
  return [...a, ...c];
}

/** shrinking, by hand in float32. */
function shrinkingF32(args: readonly number[][]): number[] {
  const f = Math.fround;
  const [a, c, v, w] = args.map((xs) => xs.map(f)) as [number[], number[], number[], number[]];
  for (let r = 0; r < 4; r++)
    for (let j = 0; j < v.length; j++) {
      a[j] = f(a[j]! + v[j]!);
      for (let b = 0; b < w.length; b++) c[j + b * (4 - r)] = f(c[j + b * (4 - r)]! + f(w[b]! * v[j]!));
    }
  return [...a, ...c];
}
