// The playground's examples, from the papers (shared/papers/): each a program, the definition to run, its arguments
// and the transform shown first.

import type { Transform } from "./compute.js";
import type { Language } from "./signature.js";
import gmm from "../examples/adbench/gmm.smooth";
import umv from "../examples/umv.smooth";

export interface Example {
  readonly language: Language;
  readonly title: string;
  readonly source: string;
  readonly fn: string;
  readonly args: string;
  readonly transform: Transform;
  readonly wrt: string;
}

export const EXAMPLES: readonly Example[] = [
  {
    language: "smooth",
    title: "Example 1: u M vᵀ (paper 000)",
    source: umv,
    fn: "f",
    args: "[[1, 2], [[1, 2, 3], [4, 5, 6]], [1, 0, 2]]",
    transform: "gradient",
    wrt: "0, 1, 2",
  },
  {
    language: "smooth",
    title: "Perturbation confusion",
    source: `// Siskind and Pearlmutter's perturbation confusion: d/dx (x * d/dy (x + y)) is 1, not 2.
// The inner derivative's perturbation of y must not be confused with the outer one of x.
let g = fun (x: Double) -> x * snd (diff (fun y -> x + y) 1.)
`,
    fn: "g",
    args: "[3]",
    transform: "gradient",
    wrt: "0",
  },
  {
    language: "smooth",
    title: "logsumexp: its gradient is softmax",
    source: `// log (sum exp v), shifted by the maximum for stability; the shift goes through stopGradient
// (its derivative cancels), so the gradient is exactly softmax v.
let f = fun (v: Vector) -> logsumexp v

// For comparison: softmax written out.
let softmax = fun (v: Vector) ->
  let m = vectorMax v
  let e = build (length v) (fun i -> exp (v[i] - m))
  vectorSMul e (1 / vectorSum e)
`,
    fn: "f",
    args: "[[1, 2, 3, 0.5]]",
    transform: "gradient",
    wrt: "0",
  },
  {
    language: "smooth",
    title: "prod via scans (paper 001)",
    source: `// The product of a vector's elements. Reverse mode turns its loop into prefix products (the tape) and a
// backward sweep of suffix products: the gradient needs no division, so a zero element is fine.
let f = fun (v: Vector) -> prod v

// The same gradient written with scans: prefix products from the left, suffix products from the right.
let gradByScans = fun (v: Vector) ->
  let prefix = scanl (fun a x -> a * x) 1 v
  let suffix = scanr (fun x a -> x * a) 1 v
  build (length v) (fun i -> prefix[i] * suffix[i + 1])
`,
    fn: "f",
    args: "[[2, 0, 3, 4]]",
    transform: "gradient",
    wrt: "0",
  },
  {
    language: "smooth",
    title: "GMM objective (ADBench)",
    source: gmm,
    fn: "gmmObjective",
    args: "[[0.1, -0.2], [[0, 1], [1, 0]], [[0.1, 0.2, 0.3], [0, -0.1, 0.2]], [[0.5, 0.5], [1, 2], [-1, 0]], 1, 0]",
    transform: "gradient",
    wrt: "0, 1, 2",
  },
  {
    language: "smooth",
    title: "A function of one Double (plot)",
    source: `// With numbers as arguments, the plot shows f and f' around the first one.
let f = fun (x: Double) -> sin x * x
`,
    fn: "f",
    args: "[1]",
    transform: "gradient",
    wrt: "0",
  },
  {
    language: "typescript",
    title: "A loop: sum of squares",
    source: `// Plain TypeScript, read as it is written: the loop, the compound assignment, v.length.
export function sumOfSquares(v: number[]) {
  let s = 0;
  for (let i = 0; i < v.length; i++) s += v[i] * v[i];
  return s;
}
`,
    fn: "sumOfSquares",
    args: "[[1, 2, 3]]",
    transform: "gradient",
    wrt: "0",
  },
  {
    language: "typescript",
    title: "Logistic regression loss",
    source: `// The mean log-loss of a linear model over the rows of X, with a helper function and Math.
function sigmoid(z: number) {
  return 1 / (1 + Math.exp(-z));
}

export function loss(w: number[], X: number[][], y: number[]) {
  let total = 0;
  for (let n = 0; n < X.length; n++) {
    let z = 0;
    for (let j = 0; j < w.length; j++) z += w[j] * X[n][j];
    const p = sigmoid(z);
    total -= y[n] * Math.log(p) + (1 - y[n]) * Math.log(1 - p);
  }
  return total / X.length;
}
`,
    fn: "loss",
    args: "[[0.5, -0.25], [[1, 2], [0.5, -1], [-1.5, 0.25]], [1, 0, 1]]",
    transform: "gradient",
    wrt: "0",
  },
  {
    language: "typescript",
    title: "Newton's method in a while loop (plot)",
    source: `// x with x³ + x = a, by Newton's method: the derivative goes through the iterations, 1 / (3x² + 1).
export function cubeRoot(a: number) {
  let x = 0;
  let steps = 0;
  while (steps < 40) {
    x = x - (x * x * x + x - a) / (3 * x * x + 1);
    steps++;
  }
  return x;
}
`,
    fn: "cubeRoot",
    args: "[2]",
    transform: "gradient",
    wrt: "0",
  },
];
