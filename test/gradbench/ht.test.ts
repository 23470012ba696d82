// The ht eval through the protocol against ADBench's exact expected values (goldens.json, rho <= 1e-8) on the simple
// and complicated test instances, and on a random instance of the test model: the objective of the program written for
// the Jacobian against the reference-style objective, and the Jacobian against central differences of the objective.

import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { parseHandInstance, readHandInstance, readHandModel, type HandInput } from "../../src/adbench/hand-data.js";
import { htProblem } from "../../src/gradbench/evals/ht.js";
import { SmoothError } from "../../src/syntax/diagnostics.js";
import { thrown } from "../helpers.js";
import { evaluate, maxRho, randoms, session } from "./harness.js";

const dataPath = (name: string): string => new URL(`../data/adbench/${name}`, import.meta.url).pathname;

interface HandGolden {
  readonly simple_objective: number[];
  readonly complicated_objective: number[];
  readonly simple_jacobian: number[][];
  readonly complicated_jacobian: number[][];
}
const golden = (JSON.parse(readFileSync(dataPath("goldens.json"), "utf8")) as { hand: HandGolden }).hand;
const modelFolder = dataPath("hand/model");
const simple = readHandInstance(modelFolder, dataPath("hand/test.txt"), false);
const complicated = readHandInstance(modelFolder, dataPath("hand/hand_complicated.txt"), true);

/** A random instance of the test model: n points, theta in [-0.5, 0.5), u's in [0, 0.5). */
function randomInstance(n: number, isComplicated: boolean, seed: number): HandInput {
  const model = simple.data.model;
  const count = isComplicated ? model.triangles.length : model.base_positions.length;
  return {
    theta: randoms(26, seed, -0.5, 0.5).map((t, k) => (k >= 3 && k < 6 ? 10 * t : t)),
    data: {
      model,
      correspondences: randoms(n, seed + 1).map((r) => Math.floor(r * count)),
      points: Array.from({ length: n }, (_, i) => randoms(3, seed + 2 + i, -1, 1)),
    },
    us: isComplicated ? Array.from({ length: n }, (_, i) => randoms(2, seed + 100 + i, 0, 0.5)) : [],
  };
}

/** The Jacobian of the objective at `input` by central differences, in the eval's layout (u columns first). */
async function centralJacobian(input: HandInput, h = 1e-6): Promise<number[][]> {
  const columns: number[][] = [];
  const diff = async (plus: HandInput, minus: HandInput) => {
    const [a, b] = [
      (await evaluate("ht", "objective", plus)) as number[],
      (await evaluate("ht", "objective", minus)) as number[],
    ];
    return a.map((x, r) => (x - b[r]!) / (2 * h));
  };
  if (input.us.length > 0) {
    // Residual i depends on u_i only: moving every u_i0 at once gives the column d r_i / d u_i0.
    for (const k of [0, 1]) {
      const shifted = (d: number) => ({ ...input, us: input.us.map((u) => u.map((x, j) => (j === k ? x + d : x))) });
      columns.push(await diff(shifted(h), shifted(-h)));
    }
  }
  for (let k = 0; k < 26; k++) {
    const shifted = (d: number) => ({ ...input, theta: input.theta.map((t, j) => (j === k ? t + d : t)) });
    columns.push(await diff(shifted(h), shifted(-h)));
  }
  return columns[0]!.map((_, r) => columns.map((c) => c[r]!));
}

describe("ht", () => {
  it("objective: the golden residuals, simple and complicated", async () => {
    expect(maxRho(await evaluate("ht", "objective", simple), golden.simple_objective)).toBeLessThanOrEqual(1e-8);
    expect(maxRho(await evaluate("ht", "objective", complicated), golden.complicated_objective)).toBeLessThanOrEqual(
      1e-8,
    );
  });

  it("jacobian: the golden 3N x 26 (simple) and 3N x 28 (complicated, u columns first) matrices, row-major", async () => {
    const s = (await evaluate("ht", "jacobian", simple)) as number[][];
    expect([s.length, s[0]!.length]).toEqual([6, 26]);
    expect(maxRho(s, golden.simple_jacobian)).toBeLessThanOrEqual(1e-8);
    const c = (await evaluate("ht", "jacobian", complicated)) as number[][];
    expect([c.length, c[0]!.length]).toEqual([6, 28]);
    expect(maxRho(c, golden.complicated_jacobian)).toBeLessThanOrEqual(1e-8);
  });

  for (const isComplicated of [false, true]) {
    const kind = isComplicated ? "complicated" : "simple";
    it(`a random ${kind} instance: the Jacobian against central differences of the objective`, async () => {
      const input = randomInstance(12, isComplicated, isComplicated ? 31 : 47);
      const jacobian = (await evaluate("ht", "jacobian", input)) as number[][];
      expect(jacobian).toHaveLength(36);
      expect(maxRho(jacobian, await centralJacobian(input))).toBeLessThanOrEqual(1e-7);
    });
  }

  it("fails clearly on a bad input", async () => {
    const model = simple.data.model;
    const responses = await session([
      { id: 0, kind: "start" },
      { id: 1, kind: "define", module: "ht" },
      {
        id: 2,
        kind: "evaluate",
        module: "ht",
        function: "objective",
        input: { ...simple, theta: simple.theta.slice(1) },
      },
      {
        id: 3,
        kind: "evaluate",
        module: "ht",
        function: "objective",
        input: { ...simple, data: { ...simple.data, correspondences: [0, 544] } },
      },
      {
        id: 4,
        kind: "evaluate",
        module: "ht",
        function: "jacobian",
        input: { ...simple, data: { ...simple.data, model: { ...model, parents: [1, ...model.parents.slice(1)] } } },
      },
    ]);
    expect(responses.slice(2)).toEqual([
      { id: 2, success: false, error: "the input's `theta` must be 26 numbers" },
      { id: 3, success: false, error: "the input's `data.correspondences` must be a list of integers from 0 to 543" },
      {
        id: 4,
        success: false,
        error: "the input's model's bone 0 has parent 1: a parent must come before its child (or be -1)",
      },
    ]);
  });

  it("prepares the complicated problem's arguments in the program's order", () => {
    const problem = htProblem(complicated);
    expect([problem.complicated, problem.points, problem.args.length]).toEqual([true, 2, 11]);
  });
});

describe("the ADBench hand reader", () => {
  it("reads the model and both kinds of instance", () => {
    const model = readHandModel(modelFolder);
    expect([model.bone_count, model.base_positions.length, model.triangles.length]).toEqual([22, 544, 1084]);
    expect(model.parents.slice(0, 6)).toEqual([-1, 0, 1, 2, 3, 0]);
    expect(model.base_positions[0]).toEqual([0.028303472325205803, 0.07706871628761292, 0.01739514246582985, 1]);
    // Vertex 0: bones 2, 0, 3, 5 with these weights; the rest are zero.
    const w = model.weights[0]!;
    expect([w[2], w[0], w[3], w[5], w.filter((x) => x !== 0).length]).toEqual([
      0.2707933843876052, 0.3625080610927875, 0.12293588380842518, 0.2437626707111821, 4,
    ]);
    expect(simple.data.correspondences).toEqual([309, 387]);
    expect(complicated.us).toEqual([
      [0.2, 0.25],
      [0.4, 0.5],
    ]);
    expect(complicated.theta).toHaveLength(26);
  });

  it("reports a correspondence outside the model at the file", () => {
    const model = readHandModel(modelFolder);
    const e = thrown(() => parseHandInstance({ name: "bad.txt", text: "1 1\n2000 0 0 0\n0.5 0.5\n0\n" }, model, true));
    expect(e).toBeInstanceOf(SmoothError);
    expect(e.summary).toBe("bad.txt: correspondence 1 names triangle 2000, not one of the model's 1084");
  });
});
