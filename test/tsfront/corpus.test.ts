// The corpus of ordinary TypeScript functions (./corpus.ts) through the TypeScript front end: each function's value
// is the function's own (run as JavaScript), its gradient equals central differences of the function itself, and it
// is compiled once per argument types; the interpreter runs the same translated program to the same numbers.

import { describe, expect, it } from "vitest";
import { compilations, compile, grad, jacobian, type AnyFunction } from "../../src/index.js";
import { decode } from "../../src/library/convert.js";
import { interpretedProgram, libraryFunction, Specialisations, withHidden } from "../../src/library/target.js";
import * as corpus from "./corpus.js";
import { expectClose, rng } from "../library/helpers.js";

type Fn = AnyFunction;
const random = rng(2024);
const vec = (n: number, scale = 1, offset = 0) => Float64Array.from({ length: n }, () => offset + scale * random());
const rows = (r: number, c: number) => Array.from({ length: r }, () => Array.from(vec(c)));

interface Case {
  readonly f: Fn;
  readonly args: unknown[];
  /** The arguments to differentiate (those holding real numbers). */
  readonly wrt: readonly number[];
  readonly tol?: number;
}

const CASES: Record<string, Case> = {
  power: { f: corpus.power, args: [1.5, 3], wrt: [0] },
  treeSumSquares: { f: corpus.treeSumSquares, args: [vec(11), 0, 11], wrt: [0] },
  alternate: { f: corpus.alternate, args: [7, 0.3], wrt: [1] },
  projectileMiss: { f: corpus.projectileMiss, args: [new Float64Array([12, 9]), 10, 120], wrt: [0, 1] },
  softmaxCrossEntropy: { f: corpus.softmaxCrossEntropy, args: [vec(6, 2), 3], wrt: [0] },
  lstmCell: {
    f: corpus.lstmCell,
    args: [vec(4 * 3 * (2 + 3), 0.5), vec(12), vec(2), vec(3), vec(3)],
    wrt: [0, 1, 2, 3, 4],
  },
  horner: { f: corpus.horner, args: [vec(7), 0.8], wrt: [0, 1] },
  rosenbrock: { f: corpus.rosenbrock, args: [vec(8, 1, 0.5)], wrt: [0] },
  interpolate: {
    f: corpus.interpolate,
    args: [new Float64Array([0, 0.5, 1.2, 2, 3.1, 4, 5.5]), vec(7), 2.7],
    wrt: [1, 2],
  },
  weightedPrefixSums: { f: corpus.weightedPrefixSums, args: [vec(9), vec(9)], wrt: [0, 1] },
  logSumExp: { f: corpus.logSumExp, args: [vec(10, 3)], wrt: [0] },
  matVecNorm: { f: corpus.matVecNorm, args: [rows(4, 3), vec(3)], wrt: [0, 1] },
  linearMse: { f: corpus.linearMse, args: [{ w: vec(3), b: 0.3 }, rows(6, 3), vec(6)], wrt: [0, 1, 2] },
  logisticLoss: {
    f: corpus.logisticLoss,
    args: [{ w: vec(3, 4), b: -0.2 }, rows(8, 3), Float64Array.from({ length: 8 }, (_, i) => i % 2)],
    wrt: [0, 1],
  },
  piecewiseLow: { f: corpus.piecewise, args: [-1.7, 0.6], wrt: [0, 1] },
  piecewiseMid: { f: corpus.piecewise, args: [0.4, 0.6], wrt: [0, 1] },
  piecewiseHigh: { f: corpus.piecewise, args: [2.3, 0.6], wrt: [0, 1] },
  gaussianLogLikelihood: { f: corpus.gaussianLogLikelihood, args: [vec(12, 2), 0.3, -0.4], wrt: [0, 1, 2] },
  huber: { f: corpus.huber, args: [new Float64Array([-2.5, -0.3, 0.1, 0.7, 3]), 1], wrt: [0, 1] },
  springChainEnergy: { f: corpus.springChainEnergy, args: [vec(7, 3), 2.5, 0.4], wrt: [0, 1, 2] },
  nBodyEnergy: { f: corpus.nBodyEnergy, args: [vec(5, 4), vec(5, 4), vec(5, 1, 1)], wrt: [0, 1, 2] },
  trapezoid: { f: corpus.trapezoid, args: [1.3, 0.7, 50], wrt: [0, 1] },
  pendulumRk4: { f: corpus.pendulumRk4, args: [0.4, -0.2, 1.5, 80], wrt: [0, 1, 2] },
  movingAverage: { f: corpus.movingAverage, args: [vec(10)], wrt: [0] },
  catmullRom: { f: corpus.catmullRom, args: [vec(4), 0.35], wrt: [0, 1] },
  polyFitError: {
    f: corpus.polyFitError,
    args: [Array.from(vec(4)), Array.from(vec(6)), Array.from(vec(6))],
    wrt: [0, 1, 2],
  },
  ridge: { f: corpus.ridge, args: [vec(3), [vec(3), vec(3), vec(3), vec(3)], vec(4), 0.1], wrt: [0, 1, 2, 3] },
  mlpLoss: {
    f: corpus.mlpLoss,
    args: [{ W1: rows(4, 3), b1: Array.from(vec(4)), W2: Array.from(vec(4)), b2: 0.1 }, Array.from(vec(3)), 0.7],
    wrt: [0, 1, 2],
  },
  cosineSimilarity: { f: corpus.cosineSimilarity, args: [vec(5), vec(5)], wrt: [0, 1] },
  geometricMean: { f: corpus.geometricMean, args: [vec(6, 1, 2)], wrt: [0] },
  rnnFinalState: { f: corpus.rnnFinalState, args: [vec(9, 0.6), vec(3), vec(5), 3], wrt: [0, 1, 2] },
  pendulumChainEnergy: { f: corpus.pendulumChainEnergy, args: [vec(4), vec(4), 1.2], wrt: [0, 1, 2] },
  blackScholesCall: { f: corpus.blackScholesCall, args: [100, 95, 0.02, 0.3, 0.75], wrt: [0, 1, 2, 3, 4], tol: 1e-5 },
  bezierLength: { f: corpus.bezierLength, args: [vec(4, 3), vec(4, 3), 40], wrt: [0, 1] },
  reluPool: { f: corpus.reluPool, args: [new Float64Array([0.5, -0.2, -0.7, -0.1, 0.3, 0.9]), vec(3)], wrt: [0, 1] },
};

/** Every number of a value, in order, and the value rebuilt from a list of numbers of the same shape. */
function flatten(x: unknown): number[] {
  if (typeof x === "number") return [x];
  if (x instanceof Float64Array) return Array.from(x);
  if (Array.isArray(x)) return x.flatMap(flatten);
  return Object.values(x as object).flatMap(flatten);
}
function rebuild(x: unknown, values: number[], at = { i: 0 }): unknown {
  if (typeof x === "number") return values[at.i++];
  if (x instanceof Float64Array) return Float64Array.from(x, () => values[at.i++]!);
  if (Array.isArray(x)) return x.map((e) => rebuild(e, values, at));
  return Object.fromEntries(Object.entries(x as object).map(([k, v]) => [k, rebuild(v, values, at)]));
}

/** Central differences of f along every number of argument k. */
function numeric(f: Fn, args: readonly unknown[], k: number, h = 1e-6): number[] {
  const base = flatten(args[k]);
  return base.map((_, i) => {
    const at = (d: number) => {
      const p = [...base];
      p[i]! += d;
      const a = [...args];
      a[k] = rebuild(args[k], p);
      return (f as (...a: unknown[]) => number)(...a);
    };
    return (at(h) - at(-h)) / (2 * h);
  });
}

function interpreted(fn: unknown, args: readonly unknown[]): unknown {
  const { inst, trees, values } = new Specialisations(libraryFunction(fn)!.target!).lookup(args);
  return decode(interpretedProgram(inst).run(withHidden(inst, values)), inst.resultType, inst.resultForm(trees));
}

describe("the TypeScript corpus", () => {
  it("has at least 30 functions", () => expect(Object.keys(CASES).length).toBeGreaterThanOrEqual(30));

  it.each(Object.entries(CASES))("%s: value, gradient against central differences, one compilation", (_name, c) => {
    const run = c.f as (...a: unknown[]) => number;
    const expected = run(...c.args);
    expect(compile(c.f)(...(c.args as never[]))).toBeCloseTo(expected, 10);
    const g = grad(c.f, { argnums: c.wrt as number[] }) as (...a: unknown[]) => unknown[];
    const grads = g(...c.args);
    c.wrt.forEach((k, i) => expectClose(flatten(grads[i]), numeric(c.f, c.args, k), c.tol ?? 1e-6));
    g(...c.args);
    expect(compilations(g)).toBe(1);
    // The reference interpreter on the same (unoptimised) gradient program.
    const reference = interpreted(g, c.args) as unknown[];
    c.wrt.forEach((k, i) => expectClose(flatten(reference[i]), flatten(grads[i]), 1e-9));
  });

  it("forward mode (a one-row Jacobian) agrees with reverse mode", () => {
    for (const name of ["rosenbrock", "lstmCell", "pendulumRk4", "interpolate"]) {
      const c = CASES[name]!;
      const reverse = grad(c.f, { argnums: c.wrt as number[] }) as (...a: unknown[]) => unknown[];
      const forward = jacobian(c.f, { argnums: c.wrt as number[], mode: "forward" }) as (...a: unknown[]) => unknown[];
      expectClose(flatten(forward(...c.args)), flatten(reverse(...c.args)), 1e-9);
    }
  });
});

describe("while loops and recursion in the corpus", () => {
  it("a while-loop solver (Newton's cube root): its value and gradient", () => {
    // The TypeScript while loop is the program's own `while`.
    expect(compile(corpus.cubeRootNewton)(5)).toBeCloseTo(Math.cbrt(5), 12);
    // d/da a^(1/3) = 1 / (3 a^(2/3)), and central differences of the function itself.
    expect(grad(corpus.cubeRootNewton)(5)).toBeCloseTo(1 / (3 * Math.cbrt(25)), 8);
    expectClose([grad(corpus.cubeRootNewton)(5)], numeric(corpus.cubeRootNewton, [5], 0), 1e-6);
  });

  it("recursive functions: x^n, a divide-and-conquer sum, against their closed forms", () => {
    // d/dx x^3 = 3x^2; the gradient of a sum of squares is 2v.
    expect(compile(corpus.power)(1.5, 3)).toBe(3.375);
    expect(grad(corpus.power)(1.5, 3)).toBeCloseTo(6.75, 12);
    const v = new Float64Array([0.5, -1, 2, 3, -0.25]);
    expect(compile(corpus.treeSumSquares)(v, 0, 5)).toBeCloseTo(14.3125, 12);
    expectClose(
      Array.from(grad(corpus.treeSumSquares)(v, 0, 5)),
      Array.from(v, (x) => 2 * x),
      1e-12,
    );
  });
});
