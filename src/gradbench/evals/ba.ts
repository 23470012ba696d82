// The ba eval: bundle adjustment (examples/gradbench/ba.smooth). The input is one camera, point, weight and feature,
// replicated (untimed, as the suite's own loader does) to n cameras, m points and p observations; observation i sees
// camera i mod n and point i mod m.
//
// `objective`: {reproj_error: {elements: the first two errors, repeated: p}, w_err: {element, repeated: p}}.
// `jacobian`: the sparse Jacobian, 3p rows (2p reprojection rows, then p weight rows) by 11n + 3m + p columns, in CSR:
// the nonzero blocks come from one compiled Smooth call (reverse mode per observation); laying them out as CSR is
// part of the timed run, as in the reference. The output keeps the first 30 and the last entry of rows, cols and vals.

import type { DenseArray, Value } from "../../runtime/value.js";
import { arrayOf, INT, MATRIX, VECTOR, type Type } from "../../types/types.js";
import { GradbenchError, type EvalModule, type PreparedCall } from "../eval-module.js";
import { compilePrimal, inputObject, integerIn, loadExamples, tupleParts } from "../smooth-eval.js";
import type { Specialised } from "../../api/program.js";

const ARG_TYPES: readonly Type[] = [MATRIX, MATRIX, VECTOR, MATRIX, arrayOf(INT), arrayOf(INT)];
const CAMERA = 11;
/** Nonzeros of one observation's two reprojection rows: (11 + 3 + 1) each. */
const BLOCK = 2 * (CAMERA + 3 + 1);
/** How much of each CSR array the output keeps: its first 30 entries and its last. */
const KEPT = 30;

/** The replicated problem, as the arguments of baObjective and baJacobianBlocks. */
export interface BaProblem {
  readonly n: number;
  readonly m: number;
  readonly p: number;
  readonly args: readonly Value[];
  /** Per observation, its camera and its point. */
  readonly camIdx: Int32Array;
  readonly ptIdx: Int32Array;
}

const dense = (data: Float64Array | Int32Array, shape: number[]): DenseArray => ({
  tag: "dense",
  elemKind: data instanceof Int32Array ? "int" : "double",
  shape,
  data,
});

function numbers(value: unknown, count: number, what: string): number[] {
  if (
    !Array.isArray(value) ||
    value.length !== count ||
    !value.every((v) => typeof v === "number" && Number.isFinite(v))
  )
    throw new GradbenchError(`the input's \`${what}\` must be ${count} finite numbers`);
  return value as number[];
}

/** The BAInput {n, m, p, cam, x, w, feat} replicated into the program's arguments. */
export function baProblem(input: unknown): BaProblem {
  const fields = inputObject(input, ["n", "m", "p", "cam", "x", "w", "feat"]);
  const limit = 2 ** 24;
  const n = integerIn(fields.n, "the input's `n`", 1, limit);
  const m = integerIn(fields.m, "the input's `m`", 1, limit);
  const p = integerIn(fields.p, "the input's `p`", 1, limit);
  const cam = numbers(fields.cam, CAMERA, "cam");
  const x = numbers(fields.x, 3, "x");
  const w = fields.w;
  if (typeof w !== "number" || !Number.isFinite(w)) throw new GradbenchError("the input's `w` must be a finite number");
  const feat = numbers(fields.feat, 2, "feat");
  const cams = new Float64Array(CAMERA * n);
  for (let i = 0; i < n; i++) cams.set(cam, CAMERA * i);
  const points = new Float64Array(3 * m);
  for (let i = 0; i < m; i++) points.set(x, 3 * i);
  const weights = new Float64Array(p).fill(w);
  const feats = new Float64Array(2 * p);
  const camIdx = new Int32Array(p);
  const ptIdx = new Int32Array(p);
  for (let i = 0; i < p; i++) {
    feats[2 * i] = feat[0]!;
    feats[2 * i + 1] = feat[1]!;
    camIdx[i] = i % n;
    ptIdx[i] = i % m;
  }
  const args = [
    dense(cams, [n, CAMERA]),
    dense(points, [m, 3]),
    dense(weights, [p]),
    dense(feats, [p, 2]),
    dense(camIdx, [p]),
    dense(ptIdx, [p]),
  ];
  return { n, m, p, args, camIdx, ptIdx };
}

export interface Csr {
  readonly rows: Int32Array;
  readonly cols: Int32Array;
  readonly vals: Float64Array;
}

/**
 * The CSR matrix of the blocks (p x 30: per observation its two rows of 15, camera then point then weight) and of
 * the weight errors' derivatives (p), in the reference's order: all reprojection rows, then the weight rows.
 */
export function baCsr(problem: BaProblem, blocks: Float64Array, weightDerivs: Float64Array, into?: Csr): Csr {
  const { n, m, p, camIdx, ptIdx } = problem;
  // A prepared call writes every entry again on each run into the same arrays: at a million observations, fresh
  // arrays (100 MB) cost as much as computing the Jacobian.
  const reuse = into !== undefined && into.rows.length === 3 * p + 1 && into.vals.length === BLOCK * p + p;
  const rows = reuse ? into.rows : new Int32Array(3 * p + 1);
  const cols = reuse ? into.cols : new Int32Array(BLOCK * p + p);
  const vals = reuse ? into.vals : new Float64Array(BLOCK * p + p);
  vals.set(blocks.subarray(0, BLOCK * p));
  vals.set(weightDerivs.subarray(0, p), BLOCK * p);
  const pointBase = CAMERA * n;
  const weightBase = pointBase + 3 * m;
  const half = BLOCK / 2;
  for (let i = 0; i < p; i++) {
    rows[2 * i + 1] = BLOCK * i + half;
    rows[2 * i + 2] = BLOCK * (i + 1);
    const camera = CAMERA * camIdx[i]!;
    const point = pointBase + 3 * ptIdx[i]!;
    const at = BLOCK * i;
    for (let j = 0; j < CAMERA; j++) cols[at + j] = cols[at + half + j] = camera + j;
    for (let j = 0; j < 3; j++) cols[at + CAMERA + j] = cols[at + half + CAMERA + j] = point + j;
    cols[at + half - 1] = cols[at + BLOCK - 1] = weightBase + i;
  }
  for (let i = 0; i < p; i++) {
    rows[2 * p + i + 1] = BLOCK * p + i + 1;
    cols[BLOCK * p + i] = weightBase + i;
  }
  return { rows, cols, vals };
}

/** The first 30 entries and the last, as the suite's output keeps them. */
function kept(a: Int32Array | Float64Array): number[] {
  return [...a.subarray(0, Math.min(KEPT, a.length - 1)), a[a.length - 1]!];
}

function doubles(v: Value | undefined): Float64Array {
  if (typeof v !== "object" || v.tag !== "dense" || !(v.data instanceof Float64Array))
    throw new Error("ba: expected a Double array from compiled code");
  return v.data;
}

function objectiveCall(fn: Specialised, problem: BaProblem): PreparedCall {
  let last: Value | undefined;
  return {
    run() {
      last = fn.runBorrowed(problem.args);
    },
    output() {
      if (last === undefined) throw new Error("output() called before run()");
      const [reproj, wErr] = tupleParts(last, 2).map(doubles);
      return {
        reproj_error: { elements: [reproj![0], reproj![1]], repeated: problem.p },
        w_err: { element: wErr![0], repeated: problem.p },
      };
    },
  };
}

function jacobianCall(fn: Specialised, problem: BaProblem): PreparedCall {
  let last: Csr | undefined;
  return {
    run() {
      const [blocks, weightDerivs] = tupleParts(fn.runBorrowed(problem.args), 2).map(doubles);
      last = baCsr(problem, blocks!, weightDerivs!, last);
    },
    output() {
      if (last === undefined) throw new Error("output() called before run()");
      return { rows: kept(last.rows), cols: kept(last.cols), vals: kept(last.vals) };
    },
  };
}

export const baEval = (): EvalModule => {
  let objective: Specialised | undefined;
  let jacobian: Specialised | undefined;
  return {
    name: "ba",
    functions: ["objective", "jacobian"],
    define() {
      const prog = loadExamples("gradbench/ba.smooth");
      objective = compilePrimal(prog, "baObjective", ARG_TYPES);
      jacobian = compilePrimal(prog, "baJacobianBlocks", ARG_TYPES);
    },
    prepare(fn, input) {
      if (fn !== "objective" && fn !== "jacobian")
        throw new GradbenchError(`ba has no function ${JSON.stringify(fn)} (it has: objective, jacobian)`);
      if (!objective || !jacobian) throw new GradbenchError("ba is not defined yet (send a define message first)");
      const problem = baProblem(input);
      return fn === "objective" ? objectiveCall(objective, problem) : jacobianCall(jacobian, problem);
    },
  };
};
