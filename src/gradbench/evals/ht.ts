// The ht eval: hand tracking (examples/gradbench/ht.smooth). The input is GradBench's HTInput; an empty `us` means the
// simple problem (a vertex per point), a nonempty one the complicated problem (a triangle and two barycentric
// coordinates per point).
//
// `objective`: the 3N residuals, point by point. `jacobian`: the dense 3N x 26 (simple) or 3N x 28 (complicated: the
// u columns first) Jacobian, row-major, by vectorised forward mode (one tangent per column) of the same residuals
// written to skin only the vertices they read; the complicated problem's 2N u columns are compressed into two, since
// residual i depends on u_i only (see htComplicatedForJacobian).

import type { Specialised } from "../../api/program.js";
import type { Value } from "../../runtime/value.js";
import { arrayOf, BOOL, DOUBLE, INT, MATRIX, VECTOR, type Type } from "../../types/types.js";
import { GradbenchError, type EvalModule } from "../eval-module.js";
import {
  compileDerivative,
  compilePrimal,
  inputObject,
  loadExamples,
  preparedCall,
  toValue,
  tupleParts,
} from "../smooth-eval.js";

const THETA = 26;
/** Bones the pose parameters reach: the wrist, then five fingers of four bones. */
const POSED_BONES = 21;
const INDEXES = arrayOf(INT);
const MODEL_TYPES: readonly Type[] = [INDEXES, MATRIX, MATRIX, MATRIX, MATRIX, BOOL];
const SIMPLE_TYPES: readonly Type[] = [VECTOR, ...MODEL_TYPES, INDEXES, MATRIX];
const COMPLICATED_TYPES: readonly Type[] = [VECTOR, MATRIX, ...MODEL_TYPES, arrayOf(INDEXES), INDEXES, MATRIX];
const COMPLICATED_JACOBIAN_TYPES: readonly Type[] = [VECTOR, DOUBLE, DOUBLE, ...COMPLICATED_TYPES.slice(1)];

/** The arguments of the program's functions for one input, and the problem's size. */
export interface HtProblem {
  readonly complicated: boolean;
  /** Number of points N. */
  readonly points: number;
  /**
   * theta, then (complicated) us, then the model, then (complicated) the triangles, the correspondences, the points.
   */
  readonly args: readonly Value[];
}

const fail = (what: string): never => {
  throw new GradbenchError(`the input's ${what}`);
};

function object(value: unknown, what: string): { readonly [key: string]: unknown } {
  if (typeof value !== "object" || value === null || Array.isArray(value)) fail(`\`${what}\` must be an object`);
  return value as { readonly [key: string]: unknown };
}

function field(record: { readonly [key: string]: unknown }, key: string, what: string): unknown {
  if (!(key in record)) fail(`\`${what}\` has no field \`${key}\``);
  return record[key];
}

/** A finite number; an integer in [min, max] when `ints` is given. */
const fits = (x: unknown, ints?: [number, number]): boolean =>
  typeof x === "number" && Number.isFinite(x) && (!ints || (Number.isInteger(x) && x >= ints[0] && x <= ints[1]));
const kindOf = (ints?: [number, number]) => (ints ? `integers from ${ints[0]} to ${ints[1]}` : "numbers");

/**
 * `count` (any number when undefined) rows of `width` numbers (integers in [min, max] when given), or a GradbenchError.
 */
function rows(
  value: unknown,
  count: number | undefined,
  width: number,
  what: string,
  ints?: [number, number],
): number[][] {
  const ok =
    Array.isArray(value) &&
    (count === undefined || value.length === count) &&
    value.every((r) => Array.isArray(r) && r.length === width && r.every((x) => fits(x, ints)));
  if (!ok) fail(`\`${what}\` must be ${count === undefined ? "rows" : `${count} rows`} of ${width} ${kindOf(ints)}`);
  return value as number[][];
}

/** A list of `count` (any number when undefined) numbers, integers in [min, max] when given, or a GradbenchError. */
function list(value: unknown, count: number | undefined, what: string, ints?: [number, number]): number[] {
  const ok =
    Array.isArray(value) && (count === undefined || value.length === count) && value.every((x) => fits(x, ints));
  if (!ok) fail(`\`${what}\` must be ${count === undefined ? "a list of" : count} ${kindOf(ints)}`);
  return value as number[];
}

/** The HTInput as the arguments of the objective (and, with the shifts, of the Jacobian's function). */
export function htProblem(input: unknown): HtProblem {
  const top = inputObject(input, ["theta", "data", "us"]);
  const data = object(top.data, "data");
  const model = object(field(data, "model", "data"), "data.model");
  const theta = list(top.theta, THETA, "theta");
  const parents = list(field(model, "parents", "data.model"), undefined, "data.model.parents", [-1, 2 ** 31 - 1]);
  const bones = parents.length;
  if (bones < POSED_BONES)
    fail(
      `model must have at least ${POSED_BONES} bones (the pose parameters reach bone ${POSED_BONES - 1}), it has ${bones}`,
    );
  parents.forEach((p, b) => {
    if (p >= b) fail(`model's bone ${b} has parent ${p}: a parent must come before its child (or be -1)`);
  });
  const matrices = (key: string): number[][] => {
    const value = field(model, key, "data.model");
    if (!Array.isArray(value) || value.length !== bones)
      fail(`\`data.model.${key}\` must hold ${bones} 4 x 4 matrices`);
    return (value as unknown[]).map((m, b) => rows(m, 4, 4, `data.model.${key}[${b}]`).flat());
  };
  const baseRel = matrices("base_relatives");
  const invBaseAbs = matrices("inverse_base_absolutes");
  const basePos = rows(field(model, "base_positions", "data.model"), undefined, 4, "data.model.base_positions");
  const weights = rows(field(model, "weights", "data.model"), basePos.length, bones, "data.model.weights");
  const mirrored = field(model, "is_mirrored", "data.model");
  if (typeof mirrored !== "boolean") fail("`data.model.is_mirrored` must be true or false");
  const us = top.us;
  const complicated = Array.isArray(us) && us.length > 0;
  const triangles = complicated
    ? rows(field(model, "triangles", "data.model"), undefined, 3, "data.model.triangles", [0, basePos.length - 1])
    : [];
  const limit = (complicated ? triangles.length : basePos.length) - 1;
  const corr = list(field(data, "correspondences", "data"), undefined, "data.correspondences", [0, limit]);
  const points = rows(field(data, "points", "data"), corr.length, 3, "data.points");
  const value = (json: unknown, type: Type, what: string) => toValue(json, type, `the input's \`${what}\``);
  const modelArgs = [
    value(parents, INDEXES, "data.model.parents"),
    value(baseRel, MATRIX, "data.model.base_relatives"),
    value(invBaseAbs, MATRIX, "data.model.inverse_base_absolutes"),
    value(basePos, MATRIX, "data.model.base_positions"),
    value(weights, MATRIX, "data.model.weights"),
    mirrored as boolean,
  ];
  const thetaArg = value(theta, VECTOR, "theta");
  const corrArg = value(corr, INDEXES, "data.correspondences");
  const pointsArg = value(points, MATRIX, "data.points");
  if (!complicated) return { complicated, points: corr.length, args: [thetaArg, ...modelArgs, corrArg, pointsArg] };
  const usArg = value(rows(us, corr.length, 2, "us"), MATRIX, "us");
  const trianglesArg = value(triangles, arrayOf(INDEXES), "data.model.triangles");
  return { complicated, points: corr.length, args: [thetaArg, usArg, ...modelArgs, trianglesArg, corrArg, pointsArg] };
}

/** The flat data of a Double array result. */
function doubles(v: Value | undefined): Float64Array {
  if (typeof v !== "object" || v.tag !== "dense" || !(v.data instanceof Float64Array))
    throw new Error("ht: expected a Double array from compiled code");
  return v.data;
}

/**
 * The row-major Jacobian from its columns, each the 3N residuals' tangent (N x 3, flat): complicated problems have the
 * two u columns first. The theta columns arrive as one array of 26 tangents.
 */
function jacobianRows(result: Value, problem: HtProblem): number[][] {
  const parts = problem.complicated ? tupleParts(result, 3) : [result];
  const theta = doubles(parts[0]);
  const size = 3 * problem.points;
  const columns: Float64Array[] = parts.slice(1).map(doubles);
  for (let k = 0; k < THETA; k++) columns.push(theta.subarray(k * size, (k + 1) * size));
  return Array.from({ length: size }, (_, r) => columns.map((c) => c[r]!));
}

interface Compiled {
  readonly objective: Specialised;
  readonly jacobian: Specialised;
}

export const htEval = (): EvalModule => {
  let simple: Compiled | undefined;
  let complicated: Compiled | undefined;
  return {
    name: "ht",
    functions: ["objective", "jacobian"],
    define() {
      const prog = loadExamples("gradbench/ht.smooth");
      simple = {
        objective: compilePrimal(prog, "htSimple", SIMPLE_TYPES),
        jacobian: compileDerivative(prog, "htSimpleForJacobian", SIMPLE_TYPES, [0], "forward"),
      };
      complicated = {
        objective: compilePrimal(prog, "htComplicated", COMPLICATED_TYPES),
        jacobian: compileDerivative(prog, "htComplicatedForJacobian", COMPLICATED_JACOBIAN_TYPES, [0, 1, 2], "forward"),
      };
    },
    prepare(fn, input) {
      if (fn !== "objective" && fn !== "jacobian")
        throw new GradbenchError(`ht has no function ${JSON.stringify(fn)} (it has: objective, jacobian)`);
      if (!simple || !complicated) throw new GradbenchError("ht is not defined yet (send a define message first)");
      const problem = htProblem(input);
      const compiled = problem.complicated ? complicated : simple;
      if (fn === "objective") return preparedCall(compiled.objective, problem.args, (v) => [...doubles(v)]);
      // The shifts of the u's: 0, so the function's value is the objective's.
      const args = problem.complicated ? [problem.args[0]!, 0, 0, ...problem.args.slice(1)] : problem.args;
      return preparedCall(compiled.jacobian, args, (v) => jacobianRows(v, problem));
    },
  };
};
