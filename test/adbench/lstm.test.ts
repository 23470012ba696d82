// The ADBench LSTM loss written in Smooth (examples/adbench/lstm.smooth) against ADBench's expected values on
// lstm/lstm_l2_c1024.txt (l = 2, c = 1024, b = 14): the loss and the 266-element gradient w.r.t. (main params,
// extra params), differentiated through the ifold over the 1023 time steps.

import { describe, expect, it } from "vitest";
import { maxRho, rho } from "../../src/adbench/compare.js";
import { readGoldens } from "../../src/adbench/goldens.js";
import {
  LSTM_WRT,
  lstmArgs,
  lstmGradientVector,
  parseLstm,
  readLstm,
  truncateSequence,
} from "../../src/adbench/lstm-data.js";
import { thrown } from "../helpers.js";
import { COMPILED_ENGINES, dataPath, gradientJson, GRADIENT_MODES, loadExample } from "./harness.js";

const goldens = readGoldens(dataPath("goldens.json"));
const input = readLstm(goldens.lstm.input);
const prog = loadExample("lstm");

describe("the ADBench LSTM loss in Smooth", () => {
  it("reads lstm_l2_c1024.txt", () => {
    expect([input.l, input.c, input.b]).toEqual([2, 1024, 14]);
    expect(input.mainParams).toHaveLength(4);
    expect(input.mainParams[0]).toHaveLength(56);
    expect(input.extraParams).toHaveLength(3);
    expect(input.state).toHaveLength(4);
    expect(input.sequence).toHaveLength(1024);
    expect(input.sequence.flat().every((bit) => bit === 0 || bit === 1)).toBe(true);
  });

  it.each(COMPILED_ENGINES)("matches the golden loss (%s)", (engine) => {
    const loss = prog.runJson("lstmObjective", lstmArgs(input), engine) as number;
    expect(rho(loss, goldens.lstm.objective)).toBeLessThanOrEqual(goldens.lstm.objectiveTolerance);
  });

  it("the interpreter agrees with the compiled code on a shorter sequence", () => {
    const short = lstmArgs(truncateSequence(input, 40));
    const js = prog.runJson("lstmObjective", short, "js") as number;
    const interp = prog.runJson("lstmObjective", short, "interp") as number;
    expect(rho(interp, js)).toBeLessThanOrEqual(1e-14);
  });

  for (const mode of GRADIENT_MODES)
    for (const engine of COMPILED_ENGINES) {
      it(`matches the golden gradient w.r.t. (main params, extra params) (${mode} mode, ${engine})`, () => {
        const [dMain, dExtra] = gradientJson(prog, "lstmObjective", lstmArgs(input), LSTM_WRT, mode, engine);
        const gradient = lstmGradientVector(dMain, dExtra);
        expect(gradient).toHaveLength(8 * input.l * input.b + 3 * input.b);
        expect(maxRho(gradient, goldens.lstm.gradient)).toBeLessThanOrEqual(1e-8);
      });
    }
});

describe("the LSTM data reader", () => {
  it("checks the width of every section's rows", () => {
    // l = 1, c = 2, b = 1: 2 rows of 4, 3 rows of 1, 2 rows of 1, 2 rows of 1.
    const good = "1 2 1\n\n1 2 3 4\n5 6 7 8\n\n1\n2\n3\n\n0\n0\n\n1\n0\n";
    expect(parseLstm({ name: "ok.txt", text: good }).mainParams).toEqual([
      [1, 2, 3, 4],
      [5, 6, 7, 8],
    ]);
    const e = thrown(() => parseLstm({ name: "bad.txt", text: good.replace("5 6 7 8", "5 6 7") }));
    expect(e.headline).toBe("bad.txt:4:1: argument error: bad.txt: main params (row 2 of 2) should have 4 values");
  });
});
