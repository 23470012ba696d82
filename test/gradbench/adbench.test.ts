// The gmm and lstm evals through the protocol against ADBench's exact expected values (test/data/adbench/goldens.json,
// tolerance 1e-8 in the ADBench error measure rho).
//
// GradBench's gmm corrects the sign of ADBench's Wishart prior term and uses the exact pi, so the golden values,
// computed by ADBench's definition, are compared with the tool's output after undoing exactly that difference:
// ADBench's objective = GradBench's + 2 W - (pi correction), where W is the term ADBench adds,
// W = sum_k [1/2 gamma^2 (||exp q_k||^2 + ||l_k||^2) - m sum_j q_kj] - K C (C has ADBench's pi, 3.14159265359), and
// the gradient of W is gamma^2 exp(2 q) - m for q, gamma^2 l for l, and 0 for alpha and mu.

import { describe, expect, it } from "vitest";
import { readGmm, type GmmInput } from "../../src/adbench/gmm-data.js";
import { readGoldens } from "../../src/adbench/goldens.js";
import { readLstm } from "../../src/adbench/lstm-data.js";
import { centralDifferences, evaluate, maxRho, randomRows, randoms, session } from "./harness.js";
import * as ref from "./references.js";

const dataPath = (name: string): string => new URL(`../data/adbench/${name}`, import.meta.url).pathname;
const goldens = readGoldens(dataPath("goldens.json"));
const PI_ADBENCH = 3.14159265359;

/** GradBench's gmm input from ADBench's data: icf rows split into q (d values) and l. */
function gradbenchGmmInput(a: GmmInput): ref.GmmInput {
  return {
    d: a.d,
    k: a.K,
    n: a.n,
    alpha: a.alphas,
    mu: a.means,
    q: a.icf.map((row) => row.slice(0, a.d)),
    l: a.icf.map((row) => row.slice(a.d)),
    x: a.x,
    gamma: a.gamma,
    m: a.m,
  };
}

/**
 * W (see above) for the test input, whose d = 2 and m = 0 make n' = 3 and log Gamma_2(3/2) = 1/2 log pi + lgamma(3/2).
 */
function adbenchWishartTerm(g: ref.GmmInput): number {
  expect([g.d, g.m]).toEqual([2, 0]);
  const logMultiGamma = 0.5 * Math.log(PI_ADBENCH) + Math.log(Math.sqrt(Math.PI) / 2);
  const C = 3 * g.d * (Math.log(g.gamma) - 0.5 * Math.log(2)) - logMultiGamma;
  let w = -g.k * C;
  for (let c = 0; c < g.k; c++) {
    const frobenius = g.q[c]!.reduce((s, v) => s + Math.exp(2 * v), 0) + g.l[c]!.reduce((s, v) => s + v * v, 0);
    w += 0.5 * g.gamma ** 2 * frobenius - g.m * g.q[c]!.reduce((s, v) => s + v, 0);
  }
  return w;
}

const piCorrection = (g: ref.GmmInput): number =>
  (Math.log(Math.PI) - Math.log(PI_ADBENCH)) * (-(g.n * g.d) / 2 - (g.k * g.d * (g.d - 1)) / 4);

interface GmmGradient {
  readonly alpha: number[];
  readonly mu: number[][];
  readonly q: number[][];
  readonly l: number[][];
}

describe("gmm", () => {
  const input = gradbenchGmmInput(readGmm(goldens.gmm.input));

  it("objective: ADBench's golden value, the prior's sign corrected", async () => {
    const f = (await evaluate("gmm", "objective", input)) as number;
    const adbench = f + 2 * adbenchWishartTerm(input) - piCorrection(input);
    expect(maxRho(adbench, goldens.gmm.objective)).toBeLessThanOrEqual(1e-8);
    expect(maxRho(f, ref.gmmLogPosterior(input))).toBeLessThanOrEqual(1e-12);
  });

  it("jacobian: ADBench's golden gradient, the prior's sign corrected, as {alpha, mu, q, l}", async () => {
    const g = (await evaluate("gmm", "jacobian", input)) as GmmGradient;
    expect(Object.keys(g).sort()).toEqual(["alpha", "l", "mu", "q"]);
    const { gamma, m } = input;
    const q = g.q.map((row, c) => row.map((v, j) => v + 2 * (gamma ** 2 * Math.exp(2 * input.q[c]![j]!) - m)));
    const l = g.l.map((row, c) => row.map((v, j) => v + 2 * gamma ** 2 * input.l[c]![j]!));
    // ADBench's order: alpha, mu, then per component q followed by l.
    const adbench = [...g.alpha, ...g.mu.flat(), ...q.flatMap((row, c) => [...row, ...l[c]!])];
    expect(maxRho(adbench, goldens.gmm.gradient)).toBeLessThanOrEqual(1e-8);
  });

  it("objective and jacobian on a random input: the plain reference and central differences", async () => {
    const [d, k, n] = [3, 4, 6];
    const random: ref.GmmInput = {
      d,
      k,
      n,
      alpha: randoms(k, 11, -1, 1),
      mu: randomRows(k, d, 12),
      q: randomRows(k, d, 13, -1, 1),
      l: randomRows(k, (d * (d - 1)) / 2, 14, -1, 1),
      x: randomRows(n, d, 15, -1, 1),
      gamma: 1.5,
      m: 2,
    };
    expect(maxRho(await evaluate("gmm", "objective", random), ref.gmmLogPosterior(random))).toBeLessThanOrEqual(1e-12);
    const g = (await evaluate("gmm", "jacobian", random)) as GmmGradient;
    // The independent variables as one vector: alpha (k), mu (k rows of d), q (k rows of d), l (k rows of lw).
    const lw = (d * (d - 1)) / 2;
    const pack = (v: GmmGradient | ref.GmmInput) => [...v.alpha, ...v.mu.flat(), ...v.q.flat(), ...v.l.flat()];
    const rows = (v: number[], from: number, w: number) =>
      Array.from({ length: k }, (_, c) => v.slice(from + c * w, from + (c + 1) * w));
    const unpack = (v: number[]): ref.GmmInput => ({
      ...random,
      alpha: v.slice(0, k),
      mu: rows(v, k, d),
      q: rows(v, k + k * d, d),
      l: rows(v, k + 2 * k * d, lw),
    });
    const fd = centralDifferences((v) => ref.gmmLogPosterior(unpack(v)), pack(random), 1e-5);
    expect(maxRho(pack(g), fd)).toBeLessThanOrEqual(1e-7);
  });

  it("rejects rows of the wrong width with a clear failure", async () => {
    const [, , response] = await session([
      { id: 0, kind: "start" },
      { id: 1, kind: "define", module: "gmm" },
      { id: 2, kind: "evaluate", module: "gmm", function: "objective", input: { ...input, l: [[1, 2]] } },
    ]);
    expect(response).toEqual({ id: 2, success: false, error: "the input's `l` must be 3 rows of 1 numbers" });
  });
});

describe("lstm", () => {
  const data = readLstm(goldens.lstm.input);
  const input = {
    main_params: data.mainParams,
    extra_params: data.extraParams,
    state: data.state,
    sequence: data.sequence,
  };

  it("objective: the golden loss", async () => {
    const loss = await evaluate("lstm", "objective", input);
    expect(maxRho(loss, goldens.lstm.objective)).toBeLessThanOrEqual(goldens.lstm.objectiveTolerance);
  });

  it("jacobian: the golden gradient, main then extra parameters, each row by row", async () => {
    const gradient = (await evaluate("lstm", "jacobian", input)) as number[];
    expect(gradient).toHaveLength(8 * data.l * data.b + 3 * data.b);
    expect(maxRho(gradient, goldens.lstm.gradient)).toBeLessThanOrEqual(1e-8);
  });
});
