// Staged programs are ordinary programs: their reverse-mode gradients (SmoothProgram.derivative, kind "gradient")
// match central finite differences of the staged function itself.

import type { JsFunction } from "../../src/staging/index.js";
import { describe, test } from "vitest";
import { valueFromJson, valueToJson } from "../../src/runtime/json.js";
import * as S from "../../src/staging/index.js";
import type { Tensor } from "../../src/staging/index.js";
import { DOUBLE, MATRIX, tupleOf, VECTOR, type Type } from "../../src/types/types.js";
import { expectClose, seededRandom, uniform, type Json } from "../ad/harness.js";
import { NAME, stageAndLoad } from "./harness.js";

/** Every scalar position of a JSON value of nested number arrays, as paths. */
function positions(j: Json, path: number[] = []): number[][] {
  return Array.isArray(j) ? j.flatMap((e, k) => positions(e, [...path, k])) : [path];
}

function updated(j: Json, path: readonly number[], f: (x: number) => number): Json {
  if (path.length === 0) return f(j as number);
  return (j as Json[]).map((e, k) => (k === path[0] ? updated(e, path.slice(1), f) : e));
}

function fill(j: Json, values: () => number): Json {
  return Array.isArray(j) ? j.map((e) => fill(e, values)) : values();
}

/** The central finite-difference gradient of `run` with respect to argument `k`, shaped like that argument. */
function finiteDifferenceGradient(run: (args: Json[]) => Json, args: Json[], k: number, h = 1e-6): Json {
  let grad = fill(args[k], () => 0);
  for (const path of positions(args[k])) {
    const at = (d: number) => run(args.map((a, i) => (i === k ? updated(a, path, (x) => x + d) : a))) as number;
    grad = updated(grad, path, () => (at(h) - at(-h)) / (2 * h));
  }
  return grad;
}

function checkGradient(fn: JsFunction, types: Type[], args: Json[], wrt: number[]): void {
  const loaded = stageAndLoad(fn, types);
  const spec = loaded.program.derivative(NAME, types, wrt, "js", undefined, "gradient");
  const values = args.map((a, i) => valueFromJson(a, types[i]!, `argument ${i}`));
  const grads = valueToJson(spec.run(values), spec.resultType);
  const expected = wrt.map((k) => finiteDifferenceGradient((a) => loaded.run(a), args, k));
  expectClose(grads, wrt.length === 1 ? expected[0] : expected, 1e-6, "gradient");
}

const rnd = seededRandom(5);
const vector = (n: number) => Array.from({ length: n }, () => uniform(rnd, -1, 1));
const matrix = (r: number, c: number) => Array.from({ length: r }, () => vector(c));

describe("gradients of staged functions", () => {
  test("logistic regression loss (matrixVectorMult, map2, log, exp), w.r.t. the weights", () => {
    const loss = (w: Tensor, X: Tensor, y: Tensor) => {
      const margins = S.mul(S.matrixVectorMult(X, w), y);
      const losses = S.map2((m) => S.log(S.add(1, S.exp(S.neg(m)))), margins, margins);
      return S.div(S.sum(losses), S.toDouble(S.length(y)));
    };
    checkGradient(loss, [VECTOR, MATRIX, VECTOR], [vector(3), matrix(5, 3), [1, -1, 1, 1, -1]], [0]);
  });

  test("a two-layer network with a shared hidden layer, w.r.t. both weight matrices", () => {
    const net = (W1: Tensor, W2: Tensor, x: Tensor) => {
      const hidden = S.tanh(S.matrixVectorMult(W1, x));
      const out = S.matrixVectorMult(W2, hidden);
      return S.add(S.logsumexp(out), S.mul(0.1, S.dot(hidden, hidden)));
    };
    checkGradient(net, [MATRIX, MATRIX, VECTOR], [matrix(4, 3), matrix(2, 4), vector(3)], [0, 1]);
  });

  test("cond inside ifold inside build, with a tuple argument", () => {
    const f = ([a, v]: [Tensor, Tensor], m: Tensor) => {
      const rows = S.build(S.length(m), (i) =>
        S.ifold(
          (acc, j) => {
            const e = S.get(m, i, j);
            return S.cond(
              S.gt(e, 0),
              () => S.add(acc, S.mul(e, S.get(v, j))),
              () => S.mul(acc, S.cos(S.mul(e, a))),
            );
          },
          1,
          S.length(v),
        ),
      );
      return S.vectorSum(S.mul(rows, rows));
    };
    checkGradient(f, [tupleOf([DOUBLE, VECTOR]), MATRIX], [[0.7, vector(3)], matrix(3, 3)], [0, 1]);
  });

  test("unrolled static loop, scanl and reduce with a tuple state", () => {
    const f = (x: Tensor) => {
      let h: S.Scalar = 0;
      for (let k = 0; k < 3; k++) h = S.sin(S.add(S.mul(h, 0.5), S.get(x, k)));
      const running = S.scanl((acc, e) => S.add(S.mul(acc, 0.9), e), 0, x);
      const [s, p] = S.reduce((st, e) => [S.add(st[0], e), S.mul(st[1], S.add(1.5, e))], [0, 1], running);
      return S.add(S.mul(h, s), p);
    };
    checkGradient(f, [VECTOR], [vector(4)], [0]);
  });
});
