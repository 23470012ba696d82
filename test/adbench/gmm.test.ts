// The ADBench GMM objective written in Smooth (examples/adbench/gmm.smooth) against ADBench's exact expected values
// on gmm/test.txt (d = 2, K = 3, n = 1), and the readers of the data formats.

import { describe, expect, it } from "vitest";
import { maxRho, rho } from "../../src/adbench/compare.js";
import { GMM_WRT, gmmArgs, gmmGradientVector, parseGmm, readGmm } from "../../src/adbench/gmm-data.js";
import { readGoldens } from "../../src/adbench/goldens.js";
import { SmoothError } from "../../src/syntax/diagnostics.js";
import { thrown } from "../helpers.js";
import { COMPILED_ENGINES, dataPath, gradientJson, GRADIENT_MODES, loadExample } from "./harness.js";

const goldens = readGoldens(dataPath("goldens.json"));
const input = readGmm(goldens.gmm.input);
const prog = loadExample("gmm");

describe("the ADBench GMM objective in Smooth", () => {
  it("reads gmm/test.txt", () => {
    expect([input.d, input.K, input.n, input.gamma, input.m]).toEqual([2, 3, 1, 1, 0]);
    expect(input.alphas).toEqual([-0.649014, 1.181166, -0.758453]);
    expect(input.icf[2]).toEqual([0.166813, -1.965419, -1.270071]);
    expect(input.x).toEqual([[1.175171, 2.02916]]);
  });

  for (const engine of ["interp", "js", "wasm"] as const) {
    it(`matches the golden objective (${engine})`, () => {
      const f = prog.runJson("gmmObjective", gmmArgs(input), engine) as number;
      expect(rho(f, goldens.gmm.objective)).toBeLessThanOrEqual(1e-8);
    });
  }

  for (const mode of GRADIENT_MODES)
    for (const engine of COMPILED_ENGINES) {
      it(`matches the golden gradient w.r.t. (alphas, means, icf) (${mode} mode, ${engine})`, () => {
        const [dAlphas, dMeans, dIcf] = gradientJson(prog, "gmmObjective", gmmArgs(input), GMM_WRT, mode, engine);
        const gradient = gmmGradientVector(dAlphas, dMeans, dIcf);
        expect(gradient).toHaveLength((input.K * (input.d + 1) * (input.d + 2)) / 2);
        expect(maxRho(gradient, goldens.gmm.gradient)).toBeLessThanOrEqual(1e-8);
      });
    }

  it("logGammaHalf k = log Gamma(k/2) at integers and half-integers", () => {
    // References: Python's math.lgamma.
    const cases: [number, number][] = [
      [1, 0.5723649429247004],
      [2, 0],
      [3, -0.12078223763524543],
      [4, 0],
      [7, 1.2009736023470738],
      [20, 12.801827480081467],
      [21, 13.940625219403763],
      [67, 83.30242550295004],
    ];
    for (const [k, expected] of cases) {
      const got = prog.runJson("logGammaHalf", [k], "js") as number;
      expect(Math.abs(got - expected)).toBeLessThanOrEqual(1e-13 * Math.max(1, Math.abs(expected)));
    }
  });

  it("qTimes multiplies by diag(exp q) + L with L's strict lower triangle stored column by column", () => {
    // d = 3: icf = q0 q1 q2 | L10 L20 L21.
    const icf = [0, Math.log(2), Math.log(3), 5, 7, 11];
    const v = [1, 10, 100];
    const expected = [1 * 1, 5 * 1 + 2 * 10, 7 * 1 + 11 * 10 + 3 * 100];
    const got = prog.runJson("qTimes", [icf, v], "js") as number[];
    got.forEach((g, i) => expect(g).toBeCloseTo(expected[i]!, 12));
  });
});

describe("the GMM data reader", () => {
  const file = (text: string) => ({ name: "bad.txt", text });

  it("reports a row with the wrong number of values at its line", () => {
    const e = thrown(() => parseGmm(file("1 1 1\n0.5\n1 2\n0.1\n0.3\n1 0\n")));
    expect(e).toBeInstanceOf(SmoothError);
    expect(e.headline).toBe("bad.txt:3:1: argument error: bad.txt: means (row 1 of 1) should have 1 values");
  });

  it("reports a file that ends early, and data after the Wishart line", () => {
    expect(thrown(() => parseGmm(file("1 2 1\n0.5\n"))).summary).toMatch(/the file ends before alpha \(row 2 of 2\)/);
    expect(thrown(() => parseGmm(file("1 1 1\n0.5\n1\n0.1\n0.3\n1 0\n7\n"))).headline).toMatch(
      /^bad.txt:7:1: .*unexpected data/,
    );
  });

  it("reports a header that is not three non-negative integers, and a token that is not a number", () => {
    expect(thrown(() => parseGmm(file("2 1.5 1\n"))).headline).toMatch(/^bad.txt:1:3: .*non-negative integers/);
    expect(thrown(() => parseGmm(file("1 1 1\n0.5x\n"))).headline).toMatch(/^bad.txt:2:1: .*`0.5x` is not a number/);
  });
});

describe("rho", () => {
  it("is the absolute error below 1 and the relative error above", () => {
    expect(rho(2, 2)).toBe(0);
    expect(rho(0.25, 0.5)).toBe(0.25);
    expect(rho(-3, 5)).toBe(1);
    expect(rho(1000, 1001)).toBeCloseTo(1 / 2001, 15);
    expect(maxRho([1, 2], [1, 2.5])).toBeCloseTo(0.5 / 4.5, 15);
  });
});
