// Differential test of the whole pipeline: random programs give exactly the same result after inlining and the
// optimisation strategy as before (reference interpreter on both), and the IR verifies after every pass and every
// step of the strategy. (The random programs have no tangent arithmetic, the only place where the optimiser takes the
// paper's assumption: test/ad compares derivatives with finite differences.)

import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { someNode } from "../../src/ir/free.js";
import { runFunction } from "../../src/eval/interpreter.js";
import { typeOf } from "../../src/ir/ir.js";
import { printIr } from "../../src/ir/print.js";
import { runPipeline } from "../../src/opt/pass.js";
import { PASSES } from "../../src/opt/pipeline.js";
import { optimisePass } from "../../src/opt/strategy.js";
import { valuesEqual } from "../../src/runtime/equal.js";
import { randomProgram } from "./random-ir.js";

const RUNS = 400;
/** The standard pipeline (forward-ad does nothing here: no jvp), its strategy checking the IR after every step. */
const CHECKED = [PASSES.inline!, optimisePass({ verify: true })];

describe("the standard pipeline preserves meaning", () => {
  for (const opts of [
    {},
    { functionIfs: true, functionTuples: true },
    { functionIfs: true, functionTuples: true, depth: 6 },
  ]) {
    test(`random programs ${JSON.stringify(opts)}`, () => {
      fc.assert(
        fc.property(fc.integer(), (seed) => {
          const { fn, args } = randomProgram(seed, opts);
          const expected = runFunction(fn, args);
          const out = runPipeline(fn, CHECKED, { verify: true });
          expect(someNode(out.body, (e) => e.kind === "lam" || e.kind === "app")).toBe(false);
          const got = runFunction(out, args);
          if (!valuesEqual(got, expected, typeOf(fn.body))) {
            throw new Error(`seed ${seed}: different results\n${printIr(fn)}\n-- optimised --\n${printIr(out)}`);
          }
        }),
        { numRuns: RUNS },
      );
    });
  }
});
