// The fixed-seed slice of the fuzzing harness that CI runs (issue 15 item 6): over 10⁴ inputs, zero internal errors
// and zero disagreements between engines or modes. `npm run fuzz` runs more with a fresh seed; SMOOTH_FUZZ_SCALE
// multiplies the counts here, SMOOTH_RANDOM_SEED replays a seed.

import fc from "fast-check";
import { describe, test } from "vitest";
import { seededRandom } from "../reverse/harness.js";
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
import { arbRecursiveProgram, checkSecondOrder, secondOrderStats } from "./second-order.js";

const SCALE = Number(process.env.SMOOTH_FUZZ_SCALE ?? 1);
const runs = (n: number) => ({ numRuns: Math.max(1, Math.round(n * SCALE)) });
/** The default 60 s per test, scaled with the counts (`npm run fuzz` runs 10 or 100 times as many). */
const timeout = 60_000 * Math.max(1, SCALE);

describe("fuzz: every input an answer or a SmoothError, and the engines agree", { timeout }, () => {
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

  test("random programs with recursion: Hessians and vjp of gradients against differences, every engine (12)", () => {
    fc.assert(
      fc.property(arbRecursiveProgram, fc.nat(), (p, s) => checkSecondOrder(p, seededRandom(s))),
      runs(12),
    );
    if (SCALE > 1)
      console.log(`recursion: ${secondOrderStats.checked} programs, near a kink: ${secondOrderStats.untrusted}`);
  });
});
