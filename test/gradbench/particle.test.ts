// The particle eval through the protocol: the four combinations of modes agree with each other, with the suite's
// expected result, and with a plain-JS computation of the same descent whose derivatives are central differences.

import { describe, expect, it } from "vitest";
import { evaluate, maxRho, session } from "./harness.js";

const MODES = ["rr", "ff", "fr", "rf"] as const;
/** The particle eval's expected output for w = 0 (evals/particle in the suite). */
const EXPECTED_W0 = 0.2071918746486116;

/** GradBench's gradient descent (gd.hpp) in one variable, with the derivative given. */
function argmin(f: (x: number) => number, g: (x: number) => number, x0: number): number {
  let [x, fx, gx, eta, i] = [x0, f(x0), g(x0), 1e-5, 0];
  for (;;) {
    if (Math.abs(gx) <= 1e-5) return x;
    if (i === 10) {
      eta *= 2;
      i = 0;
      continue;
    }
    const y = x - eta * gx;
    if (Math.abs(x - y) <= 1e-5) return x;
    const fy = f(y);
    if (fy < fx) [x, fx, gx, i] = [y, fy, g(y), i + 1];
    else [eta, i] = [eta / 2, 0];
  }
}

const central = (f: (x: number) => number, x: number, h: number) => (f(x + h) - f(x - h)) / (2 * h);

/** The squared miss distance for control w: Euler steps, the force a central difference of the potential. */
function naiveEuler(w: number): number {
  const potential = (x: number, y: number) => 1 / Math.hypot(x - 10, y - (10 - w)) + 1 / Math.hypot(x - 10, y);
  let [x, y, vx, vy] = [0, 8, 0.75, 0];
  for (;;) {
    const ax = -central((s) => potential(s, y), x, 1e-7);
    const ay = -central((s) => potential(x, s), y, 1e-7);
    const ny = y + 0.1 * vy;
    if (ny <= 0) break;
    [x, y, vx, vy] = [x + 0.1 * vx, ny, vx + 0.1 * ax, vy + 0.1 * ay];
  }
  const t = -y / vy;
  return (x + t * vx) ** 2;
}

describe("particle", () => {
  for (const w of [0, 0.1]) {
    it(`w = ${w}: all four modes agree with each other and with a descent on central differences`, async () => {
      const outputs = [];
      for (const mode of MODES) outputs.push(await evaluate("particle", mode, { w }));
      for (const out of outputs) expect(maxRho(out, outputs[0])).toBeLessThanOrEqual(1e-12);
      const reference = argmin(naiveEuler, (v) => central(naiveEuler, v, 1e-6), w);
      // Central differences inside central differences: agreement to about the square root of their step.
      expect(maxRho(outputs[0], reference)).toBeLessThanOrEqual(1e-6);
      if (w === 0) expect(maxRho(outputs[0], EXPECTED_W0)).toBeLessThanOrEqual(1e-12);
    });
  }

  it("reports a descent that cannot converge, and a bad input", async () => {
    const [, , nan, missing] = await session([
      { id: 0, kind: "start" },
      { id: 1, kind: "define", module: "particle" },
      { id: 2, kind: "evaluate", module: "particle", function: "ff", input: { w: "NaN" } },
      { id: 3, kind: "evaluate", module: "particle", function: "rr", input: { v: 0 } },
    ]);
    expect(nan).toEqual({
      id: 2,
      success: false,
      error: "the descent did not converge (a loop reached its bound of 340 * 300 steps)",
    });
    expect(missing).toEqual({ id: 3, success: false, error: "the input has no field `w`" });
  });
});
