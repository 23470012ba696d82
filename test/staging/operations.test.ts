// Every staged operation: traced, emitted, loaded with the prelude, run in both back ends, and compared with the same
// computation written in plain JavaScript.

import type { JsFunction } from "../../src/staging/index.js";
import { describe, expect, test } from "vitest";
import * as S from "../../src/staging/index.js";
import type { Tensor } from "../../src/staging/index.js";
import { arrayOf, DOUBLE, INT, MATRIX, tupleOf, VECTOR, type Type } from "../../src/types/types.js";
import { expectClose, type Json } from "../ad/harness.js";
import { stageAndLoad } from "./harness.js";

type V = number[];
type M = number[][];
const u: V = [0.5, -1.25, 2, 3.5];
const w: V = [1.5, 0.25, -0.75, 2];
const A: M = [
  [1, 2, -1],
  [0.5, -3, 4],
];
const B: M = [
  [2, 0.5],
  [-1, 1],
  [3, -2],
];
const IVEC = arrayOf(INT);

const vmap = (a: V, f: (x: number, i: number) => number) => a.map(f);
const vsum = (a: V) => a.reduce((s, x) => s + x, 0);
const vdot = (a: V, b: V) => vsum(a.map((x, i) => x * b[i]!));
const mT = (m: M): M => m[0]!.map((_, j) => m.map((r) => r[j]!));
const mMul = (a: M, b: M): M => a.map((r) => mT(b).map((c) => vdot(r, c)));

interface Case {
  readonly name: string;
  readonly types: readonly Type[];
  readonly args: readonly Json[];
  readonly fn: JsFunction;
  readonly ref: (...args: any[]) => Json;
  /** Stage with the arguments' lengths known (default: lengths are staged values). */
  readonly shapes?: boolean;
}

const cases: Case[] = [
  {
    name: "elementwise arithmetic with a broadcast scalar",
    types: [VECTOR, VECTOR, DOUBLE],
    args: [u, w, 0.5],
    fn: (x: Tensor, y: Tensor, s: Tensor) => S.sub(S.add(S.mul(x, s), S.div(y, 2)), S.pow(x, 2)),
    ref: (x: V, y: V, s: number) => vmap(x, (a, i) => a * s + y[i]! / 2 - a ** 2),
  },
  {
    name: "elementwise on matrices, max and min",
    types: [MATRIX, MATRIX],
    args: [A, A.map((r) => r.map((x) => -x / 2))],
    fn: (m: Tensor, n: Tensor) => S.add(S.max(m, n), S.min(S.mul(m, n), 1)),
    ref: (m: M, n: M) => m.map((r, i) => r.map((x, j) => Math.max(x, n[i]![j]!) + Math.min(x * n[i]![j]!, 1))),
  },
  {
    name: "unary functions on a scalar",
    types: [DOUBLE],
    args: [0.7],
    fn: (x: Tensor) => [
      S.exp(x),
      S.log(x),
      S.sin(x),
      S.cos(x),
      S.tan(x),
      S.tanh(x),
      S.sqrt(x),
      S.abs(S.neg(x)),
      S.floor(S.mul(x, 10)),
    ],
    ref: (x: number) => [
      Math.exp(x),
      Math.log(x),
      Math.sin(x),
      Math.cos(x),
      Math.tan(x),
      Math.tanh(x),
      Math.sqrt(x),
      x,
      7,
    ],
  },
  {
    name: "unary functions elementwise on a matrix",
    types: [MATRIX],
    args: [A],
    fn: (m: Tensor) => S.tanh(S.exp(S.neg(m))),
    ref: (m: M) => m.map((r) => r.map((x) => Math.tanh(Math.exp(-x)))),
  },
  {
    name: "comparisons and Bool logic",
    types: [DOUBLE, DOUBLE],
    args: [1.5, 2],
    fn: (x: Tensor, y: Tensor) => [
      S.cond(
        S.and(S.lt(x, y), S.not(S.eq(x, y))),
        () => 1,
        () => 0,
      ),
      S.cond(
        S.or(S.gt(x, y), S.ge(x, 1.5)),
        () => 1,
        () => 0,
      ),
      S.cond(
        S.le(y, 1),
        () => 1,
        () => 0,
      ),
      S.cond(
        S.ne(x, 1.5),
        () => 1,
        () => 0,
      ),
    ],
    ref: () => [1, 1, 0, 0],
  },
  {
    name: "Index arithmetic stays integer; meeting a Double promotes",
    types: [INT, VECTOR],
    args: [7, u],
    fn: (n: Tensor, x: Tensor) => [
      S.div(n, 2),
      S.mul(n, 0.5),
      S.add(S.get(x, S.sub(n, 6)), n),
      S.toDouble(n),
      S.index(-3),
      S.stack([-1, n, 2]),
    ],
    ref: (n: number, x: V) => [3, 3.5, x[1]! + n, 7, -3, [-1, 7, 2]],
  },
  {
    name: "an Index vector elementwise and summed",
    types: [IVEC],
    args: [[3, 1, 4]],
    fn: (v: Tensor) => [S.sum(S.mul(v, 2)), S.toDouble(v)],
    ref: (v: V) => [16, v],
  },
  {
    name: "sum of a matrix, dot, get with two indexes, at, length and shape",
    types: [MATRIX, VECTOR, VECTOR],
    args: [A, u, w],
    fn: (m: Tensor, x: Tensor, y: Tensor) => [
      S.sum(m),
      S.dot(x, y),
      S.get(m, 1, 2),
      m.at(0).at(1),
      S.length(x),
      S.shape(m),
    ],
    ref: (m: M, x: V, y: V) => [vsum(m.flat()), vdot(x, y), m[1]![2]!, m[0]![1]!, x.length, [2, 3]],
  },
  {
    name: "lengths known at trace time are numbers",
    types: [MATRIX],
    args: [A],
    shapes: true,
    fn: (m: Tensor) => {
      const [r, c] = m.shape as number[];
      return [r! * 10 + c!, m.rank];
    },
    ref: () => [23, 2],
  },
  {
    name: "map, zip, unzip, getTuple, stack",
    types: [VECTOR, VECTOR],
    args: [u, w],
    fn: (x: Tensor, y: Tensor) => {
      const z = S.zip(x, y);
      const [a, b] = S.unzip(S.map((p: S.Staged[]) => [S.mul(p[1] as Tensor, 2), p[0]!], z));
      const t = S.getTuple(z, 2) as Tensor[];
      return [a!, b!, S.stack([t[0]!, t[1]!, 7])];
    },
    ref: (x: V, y: V) => [y.map((e) => 2 * e), x, [x[2]!, y[2]!, 7]],
  },
  {
    name: "setAt and addAt",
    types: [VECTOR, INT],
    args: [u, 2],
    fn: (x: Tensor, i: Tensor) => [S.setAt(x, i, 10), S.addAt(x, 0, 1)],
    ref: (x: V) => [x.map((e, k) => (k === 2 ? 10 : e)), x.map((e, k) => (k === 0 ? e + 1 : e))],
  },
  {
    name: "prelude vector operations",
    types: [VECTOR, VECTOR],
    args: [u, w],
    fn: (x: Tensor, y: Tensor) => [
      S.vectorAdd(x, y),
      S.vectorEMul(x, y),
      S.vectorSMul(x, 3),
      S.vectorSum(x),
      S.prod(x),
      S.vectorDot(x, y),
      S.vectorNorm(x),
      S.vectorMax(x),
      S.logsumexp(x),
      S.vectorSlice(x, 1, 2),
    ],
    ref: (x: V, y: V) => [
      vmap(x, (a, i) => a + y[i]!),
      vmap(x, (a, i) => a * y[i]!),
      vmap(x, (a) => 3 * a),
      vsum(x),
      x.reduce((p, a) => p * a, 1),
      vdot(x, y),
      Math.sqrt(vdot(x, x)),
      Math.max(...x),
      Math.log(vsum(x.map(Math.exp))),
      x.slice(1, 3),
    ],
  },
  {
    name: "prelude constructors",
    types: [INT],
    args: [3],
    fn: (n: Tensor) => [
      S.replicate(n, 1.5),
      S.vectorZeros(2),
      S.vectorRange(n),
      S.vectorHot(n, 1),
      S.matrixEye(2),
      S.matrixZeros(1, n),
      S.matrixOnes(n, 1),
    ],
    ref: () => [
      [1.5, 1.5, 1.5],
      [0, 0],
      [0, 1, 2],
      [0, 1, 0],
      [
        [1, 0],
        [0, 1],
      ],
      [[0, 0, 0]],
      [[1], [1], [1]],
    ],
  },
  {
    name: "prelude matrix operations and matrixVectorMult",
    types: [MATRIX, MATRIX, VECTOR],
    args: [A, B, [1, -2, 0.5]],
    fn: (a: Tensor, b: Tensor, v: Tensor) => [
      S.matrixMult(a, b),
      S.transpose(a),
      S.matrixAdd(a, a),
      S.matrixTrace(S.matrixMult(a, b)),
      S.vectorOutProd(v, v),
      S.matrixVectorMult(a, v),
    ],
    ref: (a: M, b: M, v: V) => [
      mMul(a, b),
      mT(a),
      a.map((r) => r.map((x) => 2 * x)),
      mMul(a, b)[0]![0]! + mMul(a, b)[1]![1]!,
      v.map((x) => v.map((y) => x * y)),
      a.map((r) => vdot(r, v)),
    ],
  },
  {
    name: "combinators: map2, reduce (tuple state), scanl, scanr",
    types: [VECTOR, VECTOR],
    args: [u, w],
    fn: (x: Tensor, y: Tensor) => [
      S.map2((a, b) => S.mul(S.sin(a), b), x, y),
      S.reduce((acc, e) => [S.add(acc[0], e), S.mul(acc[1], e)], [0, 1], x),
      S.scanl((acc, e) => S.add(S.mul(acc, 2), e), 0, x),
      S.scanr((e, acc) => S.sub(e, acc), 0, y),
    ],
    ref: (x: V, y: V) => {
      const scanl = [0];
      for (const e of x) scanl.push(2 * scanl[scanl.length - 1]! + e);
      const scanr = [0];
      for (let i = y.length - 1; i >= 0; i--) scanr.unshift(y[i]! - scanr[0]!);
      return [vmap(x, (a, i) => Math.sin(a) * y[i]!), [vsum(x), x.reduce((p, a) => p * a, 1)], scanl, scanr];
    },
  },
  {
    name: "gather, scatter, reshape",
    types: [VECTOR, IVEC],
    args: [
      [1, 2, 3, 4, 5, 6],
      [5, 0, 5],
    ],
    fn: (x: Tensor, idx: Tensor) => [
      S.gather(x, idx),
      S.scatter(
        3,
        S.map((i) => S.sub(i, S.mul(S.div(i, 3), 3)), idx),
        S.gather(x, idx),
      ),
      S.reshape(2, 3, x),
    ],
    ref: () => [
      [6, 1, 6],
      [1, 0, 12],
      [
        [1, 2, 3],
        [4, 5, 6],
      ],
    ],
  },
  {
    name: "an array of tuples as an argument, tuple arguments",
    types: [arrayOf(tupleOf([DOUBLE, VECTOR])), tupleOf([DOUBLE, tupleOf([INT, VECTOR])])],
    args: [
      [
        [1, [2, 3]],
        [4, [5, 6]],
      ],
      [0.5, [1, [7, 8]]],
    ],
    fn: (ps: Tensor, [s, [i, v]]: [Tensor, [Tensor, Tensor]]) => {
      const [a, b] = S.getTuple(ps, i) as [Tensor, Tensor];
      return S.add(S.mul(b, S.mul(a, s)), v);
    },
    ref: (_ps: Json, [s, [, v]]: [number, [number, V]]) => [5 * 4 * s + v[0]!, 6 * 4 * s + v[1]!],
  },
];

describe("staged operations agree with plain JavaScript", () => {
  test.each(cases)("$name", (c) => {
    const loaded = stageAndLoad(c.fn, c.types, c.shapes ? c.args : undefined);
    expectClose(loaded.run(c.args), c.ref(...c.args), 1e-12, c.name);
  });
});

describe("numbers are computed at trace time", () => {
  test("operations on plain numbers return numbers and booleans, outside any staging", () => {
    expect(S.add(2, 3)).toBe(5);
    expect(S.pow(2, 10)).toBe(1024);
    expect(S.exp(0)).toBe(1);
    expect(S.lt(1, 2)).toBe(true);
    expect(S.eq(1, 2)).toBe(false);
    expect(S.toDouble(4)).toBe(4);
  });

  test("a constant result is a Double literal", () => {
    const loaded = stageAndLoad((_x: Tensor) => S.mul(S.add(1, 2), 0.5), [VECTOR]);
    expect(loaded.run([[1]])).toBe(1.5);
    expect(loaded.staged.source).toContain("1.5");
  });
});
