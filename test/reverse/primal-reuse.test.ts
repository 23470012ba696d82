// A gradient compiled after its primal reuses the primal the standard pipeline optimised (src/api/program.ts,
// `primalThrough`) instead of optimising it again: the same object, and the same derivative program as without the
// primal compiled first. A program with custom derivative rules keeps its own reverse-mode primal (the rules must
// survive inlining there), checked through the rule's value: the formula's own derivative is NaN at x = 1000.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { loadProgram, type SmoothProgram } from "../../src/api/program.js";
import { exampleFile } from "../../src/gradbench/smooth-eval.js";
import { printIr } from "../../src/ir/print.js";
import { REVERSE_PRIMAL_PIPELINE } from "../../src/opt/pipeline.js";
import { DOUBLE, INT, MATRIX, VECTOR } from "../../src/types/types.js";

const GMM_TYPES = [VECTOR, MATRIX, MATRIX, MATRIX, DOUBLE, INT];
const gmm = (): SmoothProgram =>
  loadProgram(exampleFile("gradbench/gmm.smooth"), { include: [exampleFile("adbench/gmm.smooth")] });

describe("reverse mode reuses the optimised primal", () => {
  it("is the very primal the standard pipeline made, and the gradient program is the same as without it", () => {
    const prog = gmm();
    const primal = prog.specialise("gmmLogPosterior", GMM_TYPES, "wasm");
    const reused = prog.primalThrough("gmmLogPosterior", GMM_TYPES, REVERSE_PRIMAL_PIPELINE, primal.lowered);
    expect(reused).toBe(primal.optimised);
    const after = prog.derivative("gmmLogPosterior", GMM_TYPES, [0, 1, 2], "wasm", undefined, "gradient");
    const alone = gmm().derivative("gmmLogPosterior", GMM_TYPES, [0, 1, 2], "wasm", undefined, "gradient");
    expect(printIr(after.optimised)).toBe(printIr(alone.optimised));
  });

  it("is not shared when the program has custom derivative rules", () => {
    const text = readFileSync(new URL("../../examples/custom.smooth", import.meta.url), "utf8");
    const prog = loadProgram({ name: "examples/custom.smooth", text });
    const primal = prog.specialise("softplusLoss", [DOUBLE], "wasm");
    expect(prog.primalThrough("softplusLoss", [DOUBLE], REVERSE_PRIMAL_PIPELINE, primal.lowered)).not.toBe(
      primal.optimised,
    );
    const gradient = prog.derivative("softplusLoss", [DOUBLE], [0], "wasm", undefined, "gradient");
    expect(gradient.run([1000])).toBe(2);
  });
});
