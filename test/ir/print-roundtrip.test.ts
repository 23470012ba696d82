// The printer's output is Smooth source: parsed, type-checked and lowered again, it computes the same values.
// This is the real test of parenthesisation, layout and naming.

import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { runFunction } from "../../src/eval/interpreter.js";
import { lowerEntry } from "../../src/ir/lower.js";
import { typeOf, type IrFunction } from "../../src/ir/ir.js";
import { printIr } from "../../src/ir/print.js";
import { runPipeline } from "../../src/opt/pass.js";
import { STANDARD_PIPELINE } from "../../src/opt/pipeline.js";
import { valuesEqual } from "../../src/runtime/equal.js";
import { parseProgram } from "../../src/syntax/parser.js";
import { checkProgram } from "../../src/types/infer.js";
import { randomProgram } from "../opt/random-ir.js";

/** Parses, checks and lowers printed source back to an IR function. */
export function reread(text: string, fn: IrFunction): IrFunction {
  const program = parseProgram({ name: "<printed>", text });
  return lowerEntry(
    checkProgram([program]),
    fn.name,
    fn.params.map((p) => p.type),
  );
}

describe("printed IR reads back as the same program", () => {
  for (const sugar of [true, false]) {
    test(`random programs, sugar ${sugar}`, () => {
      fc.assert(
        fc.property(fc.integer(), (seed) => {
          const { fn, args } = randomProgram(seed, { functionIfs: true, functionTuples: true, depth: 5 });
          const text = printIr(fn, { sugar });
          let again: IrFunction;
          try {
            again = reread(text, fn);
          } catch (e) {
            throw new Error(`seed ${seed}: printed program does not read back:\n${text}\n${String(e)}`, { cause: e });
          }
          const expected = runFunction(fn, args);
          if (!valuesEqual(runFunction(again, args), expected, typeOf(fn.body))) {
            throw new Error(`seed ${seed}: printed program computes something else:\n${text}`);
          }
        }),
        { numRuns: 200 },
      );
    });
  }

  test("optimised random programs", () => {
    fc.assert(
      fc.property(fc.integer(), (seed) => {
        const { fn, args } = randomProgram(seed);
        const out = runPipeline(fn, STANDARD_PIPELINE);
        const text = printIr(out);
        const again = reread(text, out);
        expect(valuesEqual(runFunction(again, args), runFunction(fn, args), typeOf(fn.body))).toBe(true);
      }),
      { numRuns: 100 },
    );
  });
});
