// The fixed-seed slice of the fuzzing harness that CI runs (issue 15 item 6): over 10⁴ inputs, zero internal errors
// and zero disagreements between engines or modes. `npm run fuzz` runs more with a fresh seed; SMOOTH_FUZZ_SCALE
// multiplies the counts here, SMOOTH_RANDOM_SEED replays a seed.

import fc from "fast-check";
import { describe, test } from "vitest";
import {
  arbGradientProgram,
  arbHostileCall,
  arbMalformedSource,
  arbOversized,
  arbRandomProgram,
  checkHostileCall,
  checkModes,
  checkRandomProgram,
  checkSource,
} from "./harness.js";

const SCALE = Number(process.env.SMOOTH_FUZZ_SCALE ?? 1);
const runs = (n: number) => ({ numRuns: Math.max(1, Math.round(n * SCALE)) });

describe("fuzz: every input an answer or a SmoothError, and the engines agree", () => {
  test("malformed sources (6000)", () => {
    fc.assert(fc.property(arbMalformedSource, checkSource), runs(6000));
  });

  test("hostile arguments to the corpus programs (4000)", () => {
    fc.assert(fc.property(arbHostileCall, checkHostileCall), runs(4000));
  });

  test("oversized requests (100)", () => {
    fc.assert(fc.property(arbOversized, checkSource), runs(100));
  });

  test("random well-typed programs in both engines (300)", () => {
    fc.assert(fc.property(arbRandomProgram, checkRandomProgram), runs(300));
  });

  test("random Double-valued programs, gradients in both modes and engines (100)", () => {
    fc.assert(fc.property(arbGradientProgram, checkModes), runs(100));
  });
});
