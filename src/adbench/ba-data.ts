// The ADBench bundle-adjustment input format (../shared/data/adbench/README.md), read into GradBench's BAInput (its
// evals/ba README): one camera, point, weight and feature, which the tool replicates to n cameras, m points and p
// observations.
//
//   n m p
//   11 camera values: r (3), C (3), f, x0 (2), kappa (2)
//   3 point coordinates
//   1 weight
//   2 feature coordinates

import type { SourceFile } from "../syntax/source.js";
import { DataLines, readDataFile } from "./data-lines.js";

/** GradBench's BAInput without min_runs / min_seconds. */
export interface BaInput {
  readonly n: number;
  readonly m: number;
  readonly p: number;
  readonly cam: number[];
  readonly x: number[];
  readonly w: number;
  readonly feat: number[];
}

export function parseBa(file: SourceFile): BaInput {
  const lines = new DataLines(file);
  const [n, m, p] = lines.integers(3, "the header `n m p`") as [number, number, number];
  const cam = lines.row(11, "the camera");
  const x = lines.row(3, "the point");
  const [w] = lines.row(1, "the weight") as [number];
  const feat = lines.row(2, "the feature");
  lines.end("the feature");
  return { n, m, p, cam, x, w, feat };
}

export function readBa(path: string): BaInput {
  return parseBa(readDataFile(path));
}
