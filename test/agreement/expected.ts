// Results of some corpus programs computed independently, in plain JavaScript from the same arguments (never by
// Smooth), or written down by hand where the arithmetic is exact.

import { numbersClose } from "../../src/runtime/equal.js";

type Json = unknown;
type Vec = number[];
type Mat = number[][];

/** Deep equality of JSON results, with Doubles equal up to a relative 1e-12 (and "NaN" = "NaN"). */
export function jsonClose(a: Json, b: Json, tol = 1e-12): boolean {
  if (typeof a === "number" && typeof b === "number") return numbersClose(a, b, tol);
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => jsonClose(x, b[i], tol));
  return a === b;
}

const sum = (v: Vec) => v.reduce((s, x) => s + x, 0);
const dot = (u: Vec, v: Vec) => sum(u.map((x, i) => x * v[i]!));
const matVec = (m: Mat, v: Vec) => m.map((row) => dot(row, v));
const transpose = (m: Mat) => m[0]!.map((_, j) => m.map((row) => row[j]!));
const matMul = (a: Mat, b: Mat) => a.map((row) => transpose(b).map((col) => dot(row, col)));

export const EXPECTED: Readonly<Record<string, (args: readonly Json[]) => Json>> = {
  "example1_umv.smooth": () => 39,

  // Values semantics of updates (each update is on a copy): worked by hand for v = [1, 2, 3], n = 3.
  "update_aliasing.smooth": () => [
    [
      [0, 0, 0],
      [1, 0, 0],
    ],
    [
      [1, 1, 1],
      [0, 0, 0],
    ],
    [
      3,
      [
        [0, 0, 0],
        [2, 4, 6],
      ],
    ],
    [1, 101],
    [-1, 2],
    [4, 5],
  ],

  "softmax.smooth": ([v]) => {
    const xs = v as Vec;
    const m = Math.max(...xs);
    const e = xs.map((x) => Math.exp(x - m));
    const p = e.map((x) => x / sum(e));
    return [p, sum(p)];
  },

  "network_layer.smooth": ([W, x, b]) => {
    const w = W as Mat;
    const h = matVec(w, x as Vec).map((z, i) => Math.tanh(z + (b as Vec)[i]!));
    const y = matVec(transpose(w), h).map(Math.tanh);
    return [h, y];
  },

  // c = 2 - 3x + 5x³ at 0, 1, -1, 1.5, 2 (exact in binary).
  "horner.smooth": () => [
    [2, 4, 0, 14.375, 36],
    [2, 4, 0, 14.375, 36],
  ],

  "running_max.smooth": ([v]) => {
    const out: number[] = [];
    for (const x of v as Vec) out.push(out.length === 0 ? x : Math.max(out[out.length - 1]!, x));
    return [out, out];
  },

  "prefix_sum.smooth": () => [[1, 3, 6, 10, 15.5], true],

  "vector_constructors.smooth": () => [
    [0, 1, 2, 3, 4],
    [2.5, 2.5, 2.5, 2.5, 2.5],
    [0, 0, 0, 0, 0],
    [0, 0, 1, 0, 0],
  ],

  "index_arith.smooth": ([big, k, neg, two]) => {
    const [b, kk, n, t] = [big, k, neg, two] as number[];
    const wrapAdd = (b! + 1) | 0;
    return [
      wrapAdd,
      (wrapAdd - 1) | 0,
      Math.imul(kk!, kk!),
      Math.imul(46341, 46341),
      (3 ** 20) | 0,
      [Math.trunc(n! / t!), Math.trunc(7 / -t!), Math.trunc(n! / -t!), Math.trunc(1 / t!), Math.trunc(b! / kk!)],
      [Math.abs(n!), Math.min(n!, t!), Math.max(n!, t!), -n!, t! ** 10],
    ];
  },

  "fibonacci.smooth": ([n]) => {
    const out: number[] = [];
    let [a, b] = [0, 1];
    for (let i = 0; i < (n as number); i++) {
      out.push(a);
      [a, b] = [b, (a + b) | 0];
    }
    return out;
  },

  "gcd.smooth": ([xs, ys]) => {
    const gcd = (a: number, b: number): number => (b === 0 ? a : gcd(b, a % b));
    return (xs as Vec).map((x, i) => gcd(x, (ys as Vec)[i]!));
  },

  "recursion_gcd.smooth": ([xs, ys]) => {
    const gcd = (a: number, b: number): number => (b === 0 ? a : gcd(b, a % b));
    const steps = (a: number, b: number): number => (b === 0 ? 0 : 1 + steps(b, a % b));
    return [(xs as Vec).map((x, i) => gcd(x, (ys as Vec)[i]!)), (xs as Vec).map((x, i) => steps(x, (ys as Vec)[i]!))];
  },

  "recursion_tree.smooth": ([v, x]) => {
    const cs = v as Vec;
    const t = x as number;
    return [sum(cs), Math.max(...cs), cs.reduce((acc, c, k) => acc + c * t ** k, 0), t ** 11];
  },

  "recursion_mutual.smooth": ([n]) => {
    const m = n as number;
    // Hofstadter's female and male sequences: F(0) = 1, M(0) = 0, F(k) = k - M(F(k - 1)), M(k) = k - F(M(k - 1)).
    const female = (k: number): number => (k === 0 ? 1 : k - male(female(k - 1)));
    const male = (k: number): number => (k === 0 ? 0 : k - female(male(k - 1)));
    const f = Array.from({ length: m }, (_, k) => female(k));
    const g = Array.from({ length: m }, (_, k) => male(k));
    // triangle n s: sum over i = 1..n of i * s.
    return [Array.from({ length: m }, (_, i) => i % 2 === 0), [f, g], (0.5 * m * (m + 1)) / 2];
  },

  "odd_even_sort.smooth": ([v]) => [...(v as Vec)].sort((a, b) => a - b),

  "bool_arrays.smooth": ([flags, xs]) => {
    const f = flags as boolean[];
    const pos = (xs as Vec).map((x) => x > 0);
    return [
      f.map((a, i) => a && pos[i]!),
      f.map((a, i) => a || pos[i]!),
      f.map((a, i) => a === pos[i]),
      f.map((a) => !a),
      f.every(Boolean),
      f.some(Boolean),
      f.filter(Boolean).length,
      pos.filter(Boolean).length,
    ];
  },

  "empty_arrays.smooth": () => [0, 0, [], [], [], 0, [[]], [], 0],

  "matrix_power.smooth": () => [
    [
      [89, 55],
      [55, 34],
    ],
    123,
  ],

  "matmul.smooth": ([A, B, C]) => {
    const ab = matMul(A as Mat, B as Mat);
    return [ab, matMul(ab, C as Mat), matMul(A as Mat, matMul(B as Mat, C as Mat))];
  },

  "layout_lets.smooth": ([x, n]) => {
    const a = (x as number) + 1;
    const c = a * a;
    const b = c + (c - a) * 2;
    const v = Array.from({ length: n as number }, (_, i) => i * i + a - b);
    return [a, b, v, sum(v) / 2];
  },

  "rank3.smooth": ([a, b, c]) => {
    const [A, B, C] = [a, b, c] as number[];
    const range = (k: number) => Array.from({ length: k }, (_, i) => i);
    const t = range(A!).map((i) => range(B!).map((j) => range(C!).map((k) => i * 100 + j * 10 + k)));
    return [
      t,
      range(C!).map((k) => range(A!).map((i) => range(B!).map((j) => t[i]![j]![k]!))),
      t.map((m) => m.map(sum)),
      range(A!).map((i) => range(B!).map((j) => range(C!).map((k) => i + j === k))),
      B,
    ];
  },

  "power_iteration.smooth": ([m]) => {
    // The dominant eigenpair of the symmetric 2x2 matrix, in closed form.
    const [[p, q], [, r]] = m as Mat as [[number, number], [number, number]];
    const lambda = (p + r) / 2 + Math.sqrt(((p - r) / 2) ** 2 + q * q);
    const v = [q, lambda - p];
    const norm = Math.hypot(v[0]!, v[1]!);
    return [v.map((x) => x / norm), lambda];
  },

  "forward_dual.smooth": ([v]) => {
    const xs = v as Vec;
    const grad = xs.map((x) => 2 * x * Math.sin(x) + x * x * Math.cos(x));
    return [sum(xs.map((x) => x * x * Math.sin(x))), grad, grad];
  },

  "lazy_logic.smooth": ([v, i]) => {
    const xs = v as Vec;
    const k = i as number;
    const inRange = k < xs.length;
    return [
      inRange && xs[k]! > 0,
      !inRange || xs[k]! > 0,
      !inRange || xs[k]! < 0,
      xs.map((x) => [x < 0, x > 3, x <= 3, x >= 4, x === 4, x !== 4]),
      [k < 10, k > 10, k <= 10, k >= 11, k === 10, k !== 10],
      [0, 1, 2, 3, 4].map((j) => j < xs.length && xs[j]! > 0),
    ];
  },

  // Products of all elements but one, directly (no division, so zeros would be fine); scans as running totals.
  "prod_gradient_scans.smooth": ([a]) => {
    const xs = a as Vec;
    const product = (v: Vec) => v.reduce((p, x) => p * x, 1);
    const allBut = xs.map((_, i) => product(xs.filter((_, j) => j !== i)));
    const scanLeft = xs.reduce((out, x) => [...out, out[out.length - 1]! + x], [0]);
    const scanRight = xs.reduceRight((out, x) => [out[0]! + x, ...out], [0]);
    return [product(xs), sum(xs), dot(xs, xs), allBut, allBut, scanLeft, scanRight];
  },

  "gather_scatter.smooth": ([v, idx]) => {
    const xs = v as Vec;
    const is = idx as number[];
    const g = is.map((i) => xs[i]!);
    const w = is.map((_, k) => k + 1);
    const s = xs.map(() => 0);
    is.forEach((i, k) => (s[i]! += w[k]!));
    return [g, s, dot(g, w), dot(xs, s), [is.slice(0, 2), is.slice(0, 2)]];
  },

  "reshape_transpose.smooth": ([v]) => {
    const xs = v as Vec;
    const m = [xs.slice(0, 3), xs.slice(3, 6)];
    const mt = transpose(m);
    const rowProducts = mt.map((row) => row.reduce((p, x) => p * x, 1));
    return [m, mt, [xs.slice(0, 2), xs.slice(2, 4), xs.slice(4, 6)], m, [], sum(rowProducts)];
  },
};
