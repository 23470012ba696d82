// The saddle eval through the protocol: the four combinations of modes agree with each other, with the suite's
// expected result, and with a plain-JS computation of the same nested descent whose gradients are central differences.

import { describe, expect, it } from "vitest";
import { centralDifferences, evaluate, maxRho, session } from "./harness.js";

const MODES = ["rr", "ff", "fr", "rf"] as const;
/** The saddle eval's expected output for start = [1, 1] (evals/saddle in the suite). */
const EXPECTED_11 = [8.246324826140356e-6, 8.246324826140356e-6, 8.246324826140356e-6, 8.246324826140356e-6];

type Point = number[];

/** GradBench's gradient descent (gd.hpp), with the gradient given. */
function argmin(f: (x: Point) => number, g: (x: Point) => Point, x0: Point): Point {
  let [x, fx, gx, eta, i] = [x0, f(x0), g(x0), 1e-5, 0];
  const norm = (v: Point) => Math.sqrt(v.reduce((s, t) => s + t * t, 0));
  for (;;) {
    if (norm(gx) <= 1e-5) return x;
    if (i === 10) {
      eta *= 2;
      i = 0;
      continue;
    }
    const y = x.map((t, k) => t - eta * gx[k]!);
    if (norm(x.map((t, k) => t - y[k]!)) <= 1e-5) return x;
    const fy = f(y);
    if (fy < fx) [x, fx, gx, i] = [y, fy, g(y), i + 1];
    else [eta, i] = [eta / 2, 0];
  }
}

const gradient = (f: (x: Point) => number) => (x: Point) => centralDifferences(f, x, 1e-6);
const argmax = (f: (x: Point) => number, x0: Point) =>
  argmin(
    (x) => -f(x),
    gradient((x) => -f(x)),
    x0,
  );
const saddleF = (p1: Point, p2: Point) => p1[0]! ** 2 + p1[1]! ** 2 - (p2[0]! ** 2 + p2[1]! ** 2);

function saddle(start: Point): number[] {
  const maxValue = (p1: Point) =>
    saddleF(
      p1,
      argmax((p2) => saddleF(p1, p2), start),
    );
  const r1 = argmin(maxValue, gradient(maxValue), start);
  return [...r1, ...argmax((p2) => saddleF(r1, p2), start)];
}

describe("saddle", () => {
  for (const start of [
    [1, 1],
    [0.5, -2],
  ]) {
    it(`start = [${start}]: all four modes agree with each other and with a descent on central differences`, async () => {
      const outputs = [];
      for (const mode of MODES) outputs.push(await evaluate("saddle", mode, { start }));
      for (const out of outputs) {
        expect(out).toHaveLength(4);
        expect(maxRho(out, outputs[0])).toBeLessThanOrEqual(1e-12);
      }
      expect(maxRho(outputs[0], saddle(start))).toBeLessThanOrEqual(1e-9);
      if (start[0] === 1 && start[1] === 1) expect(maxRho(outputs[0], EXPECTED_11)).toBeLessThanOrEqual(1e-12);
    });
  }

  it("fails clearly on a bad input", async () => {
    const [, , response] = await session([
      { id: 0, kind: "start" },
      { id: 1, kind: "define", module: "saddle" },
      { id: 2, kind: "evaluate", module: "saddle", function: "fr", input: { start: [1] } },
    ]);
    expect(response).toEqual({ id: 2, success: false, error: "the input's `start` must be two numbers" });
  });
});
