// The playground's examples, from the papers (shared/papers/): each a program, the definition to run, its arguments
// and the transform shown first.

import type { Transform } from "./compute.js";
import gmm from "../examples/adbench/gmm.smooth";
import umv from "../examples/umv.smooth";

export interface Example {
  readonly title: string;
  readonly source: string;
  readonly fn: string;
  readonly args: string;
  readonly transform: Transform;
  readonly wrt: string;
}

export const EXAMPLES: readonly Example[] = [
  {
    title: "Example 1: u M vᵀ (paper 000)",
    source: umv,
    fn: "f",
    args: "[[1, 2], [[1, 2, 3], [4, 5, 6]], [1, 0, 2]]",
    transform: "gradient",
    wrt: "0, 1, 2",
  },
  {
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
    title: "GMM objective (ADBench)",
    source: gmm,
    fn: "gmmObjective",
    args: "[[0.1, -0.2], [[0, 1], [1, 0]], [[0.1, 0.2, 0.3], [0, -0.1, 0.2]], [[0.5, 0.5], [1, 2], [-1, 0]], 1, 0]",
    transform: "gradient",
    wrt: "0, 1, 2",
  },
  {
    title: "A function of one Double (plot)",
    source: `// With numbers as arguments, the plot shows f and f' around the first one.
let f = fun (x: Double) -> sin x * x
`,
    fn: "f",
    args: "[1]",
    transform: "gradient",
    wrt: "0",
  },
];
