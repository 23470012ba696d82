// Residuals stored whole but read in part (src/ad/residual-narrowing.ts): the primal records only the components the
// reverse reads. In the LSTM loss the layer loop's builds return (value, partials...) and the reverse reads only the
// partials; the time loop stores the layer loop's result, of which the reverse reads the tapes and the last hidden
// state but not the outgoing cell/hidden state matrix (taped separately as the time loop's state).

import { describe, expect, it } from "vitest";
import { forEachNode } from "../../src/ir/free.js";
import type { Expr } from "../../src/ir/ir.js";
import { printType } from "../../src/ir/print.js";
import { LSTM_WRT, lstmArgs, readLstm, truncateSequence } from "../../src/adbench/lstm-data.js";
import { readGoldens } from "../../src/adbench/goldens.js";
import { dataPath, gradientJson, loadExample } from "../adbench/harness.js";

const goldens = readGoldens(dataPath("goldens.json"));
const input = truncateSequence(readLstm(goldens.lstm.input), 6);
const prog = loadExample("lstm");

/** The types of the values the program records into tapes (`record tape i value n`). */
function recordedTypes(e: Expr): string[] {
  const types: string[] = [];
  forEachNode(e, (node) => {
    if (node.kind === "prim" && node.op === "record") types.push(printType(node.args[2]!.type));
  });
  return types.sort();
}

describe("residuals read in part", () => {
  const json = lstmArgs(input);
  const types = prog.argTypesFromJson("lstmObjective", json);
  const grad = prog.derivative("lstmObjective", types, LSTM_WRT, "js", undefined, "gradient");

  it("are recorded as the components the reverse reads", () => {
    const recorded = recordedTypes(grad.optimised.body);
    // The layer loop: sNew's three partials and hNew's two, not arrays of 4- and 3-tuples with their values.
    expect(recorded).toContain("Vector * Vector * Vector");
    expect(recorded).toContain("Vector * Vector");
    expect(recorded.some((t) => t.includes("Double"))).toBe(false);
    // The time loop: the layer loop's last hidden state, its input tape, its two residual tapes and its flag, not its
    // outgoing state (the (Vector, Matrix) pair it carries).
    expect(recorded).toContain("Vector * Matrix * Array<Vector * Vector * Vector> * Array<Vector * Vector> * Bool");
    expect(recorded.filter((t) => t.endsWith("Bool"))).toHaveLength(1);
  });

  it("leave the gradient as central differences give it", () => {
    const [dMain] = gradientJson(prog, "lstmObjective", json, LSTM_WRT, "reverse") as number[][][];
    const main = json[0] as number[][];
    const loss = (r: number, c: number, h: number) =>
      prog.runJson(
        "lstmObjective",
        [main.map((row, i) => row.map((x, j) => (i === r && j === c ? x + h : x))), ...json.slice(1)],
        "js",
      ) as number;
    for (const [r, c] of [
      [0, 0],
      [1, 3],
      [2, 17],
      [3, 55],
    ] as const) {
      const h = 1e-5;
      const fd = (loss(r, c, h) - loss(r, c, -h)) / (2 * h);
      expect(Math.abs(dMain![r]![c]! - fd)).toBeLessThan(1e-7 * Math.max(1, Math.abs(fd)));
    }
  });
});
