// The ADBench GMM input format (../shared/data/adbench/README.md), as the arguments of `gmmObjective` in
// examples/adbench/gmm.smooth: alphas, means, icf, x, gamma, m.
//
//   d K n
//   K lines: alpha            K lines: d means            K lines: d + d(d-1)/2 icf values
//   n lines: d coordinates    last line: gamma m

import type { SourceFile } from "../syntax/source.js";
import { flattenJson } from "./compare.js";
import { DataLines, readDataFile } from "./data-lines.js";

export interface GmmInput {
  readonly d: number;
  readonly K: number;
  readonly n: number;
  /** K log weights. */
  readonly alphas: number[];
  /** K rows of d. */
  readonly means: number[][];
  /** K rows of d + d(d-1)/2: q (log of the diagonal of Q_k) then l (strict lower triangle, column by column). */
  readonly icf: number[][];
  /** n rows of d. */
  readonly x: number[][];
  readonly gamma: number;
  /** An integer. */
  readonly m: number;
}

export function parseGmm(file: SourceFile): GmmInput {
  const lines = new DataLines(file);
  const [d, K, n] = lines.integers(3, "the header `d K n`") as [number, number, number];
  const icfSize = d + (d * (d - 1)) / 2;
  const alphas = lines.rows(K, 1, "alpha").map((r) => r[0]!);
  const means = lines.rows(K, d, "means");
  const icf = lines.rows(K, icfSize, "icf");
  const x = lines.rows(n, d, "points x");
  const [gamma, m] = lines.row(2, "the Wishart line `gamma m`") as [number, number];
  lines.end("the Wishart line");
  return { d, K, n, alphas, means, icf, x, gamma, m };
}

export function readGmm(path: string): GmmInput {
  return parseGmm(readDataFile(path));
}

/** The JSON arguments of `gmmObjective alphas means icf x gamma m`. */
export function gmmArgs(input: GmmInput): unknown[] {
  return [input.alphas, input.means, input.icf, input.x, input.gamma, input.m];
}

/** The parameters differentiated (alphas, means, icf): argument positions of `gmmObjective`. */
export const GMM_WRT = [0, 1, 2] as const;

/**
 * The full gradient in ADBench's order — alphas (K), means (K*d, component-major), icf (K rows, each q then l) — from
 * the gradients of the three parameters (each with its parameter's shape, as JSON).
 */
export function gmmGradientVector(dAlphas: unknown, dMeans: unknown, dIcf: unknown): number[] {
  return [dAlphas, dMeans, dIcf].flatMap((g) => flattenJson(g));
}
