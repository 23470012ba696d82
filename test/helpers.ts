// Helpers shared by the test suites.

import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { expect } from "vitest";
import type { Value } from "../src/runtime/value.js";
import { SmoothError } from "../src/syntax/diagnostics.js";

/** The SmoothError thrown by `run`; any other exception is rethrown, and returning normally fails the test. */
export function thrown(run: () => unknown): SmoothError {
  try {
    run();
  } catch (e) {
    if (e instanceof SmoothError) return e;
    throw e;
  }
  return expect.fail("expected a SmoothError, nothing was thrown");
}

/** n numbers uniform in [-1, 1), the same for the same seed (a linear congruential generator). */
export function random(n: number, seed: number): number[] {
  let s = seed;
  return Array.from({ length: n }, () => {
    s = (s * 1103515245 + 12345) % 2147483648;
    return (2 * s) / 2147483648 - 1;
  });
}

/** A dense Vector value of these numbers. */
export const vector = (xs: readonly number[]): Value => ({
  tag: "dense",
  elemKind: "double",
  shape: [xs.length],
  data: Float64Array.from(xs),
});

/** A dense rows x cols Matrix value of these numbers, row by row. */
export const matrix = (rows: number, cols: number, xs: readonly number[]): Value => ({
  tag: "dense",
  elemKind: "double",
  shape: [rows, cols],
  data: Float64Array.from(xs),
});

/** A full garbage collection (V8's `gc`, exposed for this process: the tests measure what stays reachable). */
export function collectGarbage(): void {
  setFlagsFromString("--expose-gc");
  (runInNewContext("gc") as () => void)();
}

/** The heap in use after a full collection, in bytes. */
export function heapAfterGc(): number {
  collectGarbage();
  collectGarbage();
  return process.memoryUsage().heapUsed;
}
