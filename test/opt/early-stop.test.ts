// The optimiser's early stop (src/opt/strategy.ts): a round in which only simplify changed something, ending at its
// own fixpoint, is the last. With `verify` the strategy runs the round it skips and fails if that round changes
// anything; here on the GradBench programs' primals and derivatives, in both pipelines' rule sets.
import { describe, expect, it } from "vitest";
import { derivativeFunction } from "../../src/api/derivatives.js";
import { exampleFile } from "../../src/gradbench/smooth-eval.js";
import { loadProgram } from "../../src/api/program.js";
import { lowerEntry } from "../../src/ir/lower.js";
import { runPipeline } from "../../src/opt/pass.js";
import { PASSES } from "../../src/opt/pipeline.js";
import { optimise } from "../../src/opt/strategy.js";
import { INT, DOUBLE, MATRIX, VECTOR } from "../../src/types/types.js";

const CASES = [
  {
    main: "gradbench/gmm.smooth",
    include: ["adbench/gmm.smooth"],
    name: "gmmLogPosterior",
    types: [VECTOR, MATRIX, MATRIX, MATRIX, DOUBLE, INT],
    wrt: [0, 1, 2],
  },
  {
    main: "adbench/lstm.smooth",
    include: [],
    name: "lstmObjective",
    types: [MATRIX, MATRIX, MATRIX, MATRIX],
    wrt: [0, 1],
  },
  { main: "gradbench/lse.smooth", include: [], name: "lse", types: [VECTOR], wrt: [0] },
];

describe("the optimiser's early stop", () => {
  for (const c of CASES)
    it(`leaves nothing for the skipped round: ${c.name}, primal and gradient`, () => {
      const prog = loadProgram(exampleFile(c.main), { include: c.include.map(exampleFile) });
      const primal = lowerEntry(prog.checked, c.name, c.types);
      const gradient = derivativeFunction(primal, "gradient", c.wrt, true);
      for (const fn of [primal, gradient]) {
        const firstOrder = runPipeline(fn, [PASSES["forward-ad"]!, PASSES.inline!]);
        const { report } = optimise(firstOrder, { verify: true });
        expect(report.reason).toBe("fixpoint");
      }
    });
});
