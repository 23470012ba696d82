// Random well-typed programs (test/gen): the interpreter and compiled JavaScript give the same value (exact for
// Index and Bool, relative 1e-12 for Double, NaN = NaN), or fail with the same kind of error; the IR verifies before
// and after optimisation. A failure prints the program (fast-check shrinks it first) and its optimised IR.
//
// SMOOTH_RANDOM_RUNS sets the number of programs (default 500), SMOOTH_RANDOM_DEPTH their maximal nesting (default
// 6); SMOOTH_RANDOM_SEED replays the seed of a reported failure.

import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { printIr } from "../../src/ir/print.js";
import { verify } from "../../src/ir/verify.js";
import { parseProgram } from "../../src/syntax/parser.js";
import { printProgram } from "../../src/syntax/printer.js";
import { disagreement, printedIrProblem, runBothEngines, type BothRuns } from "../gen/differential.js";
import { arbProgram, generateProgram, type GeneratedProgram } from "../gen/program.js";
import { ChoiceRng, seededChoices } from "../gen/rng.js";

const RUNS = Number(process.env.SMOOTH_RANDOM_RUNS ?? 500);
const DEPTH = Number(process.env.SMOOTH_RANDOM_DEPTH ?? 6);
const SEED = process.env.SMOOTH_RANDOM_SEED === undefined ? undefined : Number(process.env.SMOOTH_RANDOM_SEED);

/** The program laid out by the surface printer (easier to read than the generator's one-liner), if it parses. */
function pretty(p: GeneratedProgram): string {
  try {
    return `// args: ${JSON.stringify(p.args)}\n${printProgram(parseProgram({ name: "random.smooth", text: p.source }))}`;
  } catch {
    return p.source;
  }
}

/** Runs one program both ways; throws with the program and its optimised IR if anything is wrong. */
function checkAgreement(p: GeneratedProgram): BothRuns {
  let runs: BothRuns | undefined;
  try {
    runs = runBothEngines("random.smooth", p.source, p.args);
    verify(runs.interp.lowered);
    verify(runs.js.optimised);
    const problem = disagreement(runs.interpOutcome, runs.jsOutcome, runs.interp.resultType);
    if (problem) throw new Error(problem);
    return runs;
  } catch (e) {
    const ir = runs ? `\n--- optimised IR ---\n${printIr(runs.js.optimised)}` : "";
    const message = e instanceof Error ? e.message : String(e);
    throw new Error(`${message}\n--- program ---\n${pretty(p)}${ir}`, { cause: e });
  }
}

describe("random programs", () => {
  it(`agree between the interpreter and compiled JavaScript (${RUNS} programs)`, () => {
    fc.assert(
      fc.property(arbProgram({ maxDepth: DEPTH }), (p) => {
        checkAgreement(p);
      }),
      { numRuns: RUNS, ...(SEED === undefined ? {} : { seed: SEED }) },
    );
  });

  it(`print their optimised IR as Smooth that checks and runs to the same value (${Math.ceil(RUNS / 3)} programs)`, () => {
    fc.assert(
      fc.property(arbProgram({ maxDepth: DEPTH }), (p) => {
        const problem = printedIrProblem(checkAgreement(p), p.args);
        if (problem) throw new Error(`${problem}\n--- program ---\n${pretty(p)}`);
      }),
      { numRuns: Math.ceil(RUNS / 3), ...(SEED === undefined ? {} : { seed: SEED }) },
    );
  });

  it("are varied: the generator reaches every construct, and most programs run without error", () => {
    const programs = Array.from({ length: 200 }, (_, s) => generateProgram(new ChoiceRng(seededChoices(s))));
    const text = programs.map((p) => p.source).join("\n");
    const constructs = [
      "build",
      "ifold",
      "while",
      "let (",
      "if ",
      "fun (",
      "fst",
      "snd",
      "vectorMap",
      "vectorMap2",
      "vectorSum",
      "matrixMul",
      "vectorSlice",
      "vectorZip",
      "length",
      "double",
      "&&",
      "||",
      "not",
      "**",
      "/",
      "Array<",
      " * ",
      "max",
      "[",
    ];
    expect(constructs.filter((c) => !text.includes(c))).toEqual([]);
    let values = 0;
    for (const p of programs.slice(0, 100)) {
      const r = checkAgreement(p);
      if (r.interpOutcome.ok) values++;
    }
    expect(values).toBeGreaterThanOrEqual(90);
  });
});
