// The ADBench LSTM input format (../shared/data/adbench/README.md), as the arguments of `lstmObjective` in
// examples/adbench/lstm.smooth: mainParams, extraParams, state, sequence.
//
//   l c b
//   2l rows of 4b (per layer: weight row, bias row)   3 rows of b (in_weight, out_weight, out_bias)
//   2l rows of b (per layer: hidden, cell)            c rows of b (the sequence)
// with blank lines between the sections.

import type { SourceFile } from "../syntax/source.js";
import { flattenJson } from "./compare.js";
import { DataLines, readDataFile } from "./data-lines.js";

export interface LstmInput {
  /** Layers. */
  readonly l: number;
  /** Sequence length. */
  readonly c: number;
  /** Width of a step. */
  readonly b: number;
  readonly mainParams: number[][];
  readonly extraParams: number[][];
  readonly state: number[][];
  readonly sequence: number[][];
}

export function parseLstm(file: SourceFile): LstmInput {
  const lines = new DataLines(file);
  const [l, c, b] = lines.integers(3, "the header `l c b`") as [number, number, number];
  const mainParams = lines.rows(2 * l, 4 * b, "main params");
  const extraParams = lines.rows(3, b, "extra params");
  const state = lines.rows(2 * l, b, "state");
  const sequence = lines.rows(c, b, "sequence");
  lines.end("the sequence");
  return { l, c, b, mainParams, extraParams, state, sequence };
}

export function readLstm(path: string): LstmInput {
  return parseLstm(readDataFile(path));
}

/** The JSON arguments of `lstmObjective mainParams extraParams state sequence`. */
export function lstmArgs(input: LstmInput): unknown[] {
  return [input.mainParams, input.extraParams, input.state, input.sequence];
}

/** The input with only the first `steps` rows of the sequence (for tests on a shorter loop). */
export function truncateSequence(input: LstmInput, steps: number): LstmInput {
  return { ...input, c: steps, sequence: input.sequence.slice(0, steps) };
}

/** The parameters differentiated (mainParams, extraParams): argument positions of `lstmObjective`. */
export const LSTM_WRT = [0, 1] as const;

/** The full gradient in ADBench's order, main params (row-major) then extra params, from the two gradients (JSON). */
export function lstmGradientVector(dMain: unknown, dExtra: unknown): number[] {
  return [...flattenJson(dMain), ...flattenJson(dExtra)];
}
