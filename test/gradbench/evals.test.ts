// Every eval of this tool driven through the protocol (in-process) on small inputs; outputs checked against plain
// JavaScript references (./references.ts) and derivatives against central differences or closed forms.

import { describe, expect, it } from "vitest";
import { centralDifferences, evaluate, maxRho, randomRows, randoms, session } from "./harness.js";
import * as ref from "./references.js";

describe("hello", () => {
  it("squares, and doubles by differentiating the square", async () => {
    expect(await evaluate("hello", "square", 1.5)).toBe(2.25);
    expect(await evaluate("hello", "double", -3.25)).toBe(-6.5);
  });

  it("runs the suite's own session: square, then double of the result, four times", async () => {
    const messages: object[] = [
      { id: 0, kind: "start" },
      { id: 1, kind: "define", module: "hello" },
    ];
    let x = 1.0;
    for (let k = 0; k < 4; k++) {
      messages.push({ id: messages.length, kind: "evaluate", module: "hello", function: "square", input: x });
      messages.push({ id: messages.length, kind: "evaluate", module: "hello", function: "double", input: x * x });
      x = 2 * x * x;
    }
    const responses = await session(messages);
    expect(responses.at(-1)).toMatchObject({ success: true, output: x });
  });
});

describe("lse", () => {
  const x = randoms(50, 1, -100, 100);

  it("primal: log-sum-exp, shifted by the maximum", async () => {
    expect(maxRho(await evaluate("lse", "primal", { x }), ref.lse(x))).toBeLessThan(1e-14);
  });

  it("gradient: against central differences and the softmax", async () => {
    const g = (await evaluate("lse", "gradient", { x })) as number[];
    const softmax = x.map((v) => Math.exp(v - ref.lse(x)));
    expect(maxRho(g, softmax)).toBeLessThan(1e-12);
    expect(maxRho(g, centralDifferences(ref.lse, x, 1e-5))).toBeLessThan(1e-7);
  });
});

describe("llsq", () => {
  const x = randoms(6, 2);
  const n = 17;

  it("primal", async () => {
    expect(maxRho(await evaluate("llsq", "primal", { x, n }), ref.llsq(x, n))).toBeLessThan(1e-13);
  });

  it("gradient: against central differences", async () => {
    const g = await evaluate("llsq", "gradient", { x, n });
    expect(
      maxRho(
        g,
        centralDifferences((v) => ref.llsq(v, n), x, 1e-4),
      ),
    ).toBeLessThan(1e-8);
  });
});

describe("ode", () => {
  const x = randoms(5, 3);
  const s = 4;

  it("primal: the solution after s Runge-Kutta steps", async () => {
    expect(maxRho(await evaluate("ode", "primal", { x, s }), ref.ode(x, s))).toBeLessThan(1e-14);
  });

  it("gradient of the last component: against central differences", async () => {
    const g = await evaluate("ode", "gradient", { x, s });
    expect(
      maxRho(
        g,
        centralDifferences((v) => ref.ode(v, s).at(-1)!, x),
      ),
    ).toBeLessThan(1e-8);
  });
});

describe("det", () => {
  for (const ell of [1, 2, 5]) {
    const A = randoms(ell * ell, 4 + ell);

    it(`primal and gradient at ell = ${ell}: against elimination and cofactors`, async () => {
      expect(maxRho(await evaluate("det", "primal", { A, ell }), ref.det(A, ell))).toBeLessThan(1e-13);
      expect(maxRho(await evaluate("det", "gradient", { A, ell }), ref.detGradient(A, ell))).toBeLessThan(1e-13);
    });
  }

  it("the sign of each term: a permutation matrix", async () => {
    // Rows (2, 0, 3, 1) of the identity: the permutation has three inversions, so det = -1.
    const order = [2, 0, 3, 1];
    const A = order.flatMap((c) => [0, 1, 2, 3].map((j) => (j === c ? 1 : 0)));
    expect(await evaluate("det", "primal", { A, ell: 4 })).toBe(-1);
  });
});

describe("kmeans", () => {
  const points = randomRows(40, 3, 5);
  // As the suite makes them: the last k points are the centroids, so none is without points.
  const centroids = points.slice(-4);

  it("cost", async () => {
    expect(
      maxRho(await evaluate("kmeans", "cost", { points, centroids }), ref.kmeansCost(points, centroids)),
    ).toBeLessThan(1e-13);
  });

  it("dir = J H^-1 with the diagonal Hessian: c minus the mean of its points", async () => {
    const dir = await evaluate("kmeans", "dir", { points, centroids });
    expect(maxRho(dir, ref.kmeansDir(points, centroids))).toBeLessThan(1e-13);
  });
});
