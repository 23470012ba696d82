// The models the webgpu tests run (examples/models, which `npm run bench:gpu` runs too): an MLP's training loss over a
// batch (a tanh hidden layer, softmax cross-entropy), a 2-D convolution layer's loss, and (from examples/adbench) the
// GMM objective; and their arguments.

import { readFileSync } from "node:fs";

/** examples/models/NAME.smooth's text. */
const example = (name: string): string =>
  readFileSync(new URL(`../../examples/models/${name}.smooth`, import.meta.url), "utf8");

/** mlpLoss W1 b1 W2 b2 X Y: the mean softmax cross-entropy of tanh(X W1ᵀ + b1) W2ᵀ + b2 against one-hot rows Y. */
export const MLP_SOURCE = example("mlp");

/** conv2dLoss K img: a valid 3x3 convolution (F x C x 3 x 3 filters), tanh, the sum of squares. */
export const CONV_SOURCE = example("conv2d");

/** Deterministic numbers in [lo, hi) (a linear congruential sequence: tests and benchmarks need no randomness). */
export function numbers(n: number, seed: number, lo = -1, hi = 1): Float64Array {
  let s = seed >>> 0 || 1;
  return Float64Array.from({ length: n }, () => {
    s = (Math.imul(s, 1103515245) + 12345) >>> 0;
    return lo + ((s >>> 8) / 2 ** 24) * (hi - lo);
  });
}

/** The rows of a matrix of `rows` x `cols` from `data`. */
export const rowsOf = (data: Float64Array, rows: number, cols: number): number[][] =>
  Array.from({ length: rows }, (_, r) => Array.from(data.subarray(r * cols, (r + 1) * cols)));

/** JSON arguments of mlpLoss for sizes in → hidden → out over a batch. */
export function mlpArgs(input: number, hidden: number, out: number, batch: number): unknown[] {
  const Y = Array.from({ length: batch }, (_, r) => Array.from({ length: out }, (_, k) => (k === r % out ? 1 : 0)));
  return [
    rowsOf(numbers(hidden * input, 1, -0.1, 0.1), hidden, input),
    Array.from(numbers(hidden, 2, -0.1, 0.1)),
    rowsOf(numbers(out * hidden, 3, -0.2, 0.2), out, hidden),
    Array.from(numbers(out, 4, -0.1, 0.1)),
    rowsOf(numbers(batch * input, 5, 0, 1), batch, input),
    Y,
  ];
}

/** JSON arguments of conv2dLoss: F filters over C channels of an h x w image. */
export function convArgs(filters: number, channels: number, h: number, w: number): unknown[] {
  const k = numbers(filters * channels * 9, 6, -0.3, 0.3);
  const img = numbers(channels * h * w, 7, 0, 1);
  const K = Array.from({ length: filters }, (_, f) =>
    Array.from({ length: channels }, (_, c) =>
      rowsOf(k.subarray((f * channels + c) * 9, (f * channels + c + 1) * 9), 3, 3),
    ),
  );
  return [K, Array.from({ length: channels }, (_, c) => rowsOf(img.subarray(c * h * w, (c + 1) * h * w), h, w))];
}

/** JSON arguments of the GMM objective: K components in d dimensions, n points. */
export function gmmArgs(d: number, K: number, n: number): unknown[] {
  const icf = d + (d * (d - 1)) / 2;
  return [
    Array.from(numbers(K, 8)),
    rowsOf(numbers(K * d, 9), K, d),
    rowsOf(numbers(K * icf, 10, -0.5, 0.5), K, icf),
    rowsOf(numbers(n * d, 11), n, d),
    1,
    0,
  ];
}
