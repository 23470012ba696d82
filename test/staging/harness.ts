// Test helpers for staging: stage a TypeScript function, load its source through the normal pipeline (prelude
// included), check the definition's type against what the tracer claims, and run it in both back ends.

import type { JsFunction } from "../../src/staging/index.js";
import { expect } from "vitest";
import { loadProgram, type SmoothProgram } from "../../src/api/program.js";
import { valueFromJson, valueToJson } from "../../src/runtime/json.js";
import { stageFunction, staticTypeOfValue, type StagedFunction } from "../../src/staging/index.js";
import { showType, typeEq, type Type } from "../../src/types/types.js";
import { expectClose, type Json } from "../ad/harness.js";

export interface Loaded {
  readonly staged: StagedFunction;
  readonly program: SmoothProgram;
  readonly argTypes: readonly Type[];
  /** The staged function on JSON arguments, by compiled JavaScript (the interpreter must agree to 1e-12). */
  run(args: readonly Json[]): Json;
}

export const NAME = "f";

/**
 * Stages `fn` at `argTypes` (with the array lengths of `shapesOf`, JSON arguments, when given) and loads the source.
 * The loaded definition must have exactly the parameter types and the tracer's result type.
 */
export function stageAndLoad(fn: JsFunction, argTypes: readonly Type[], shapesOf?: readonly Json[]): Loaded {
  const shapes = shapesOf?.map((a, i) =>
    staticTypeOfValue(valueFromJson(a, argTypes[i]!, `argument ${i}`), argTypes[i]!),
  );
  const staged = stageFunction(fn, argTypes, NAME, { shapes });
  const program = loadProgram({ name: "<staged f>", text: staged.source });
  const spec = program.specialise(NAME, argTypes, "js");
  if (!typeEq(spec.resultType, staged.resultType)) {
    throw new Error(
      `the tracer claims ${showType(staged.resultType)}, the program has ${showType(spec.resultType)}:\n${staged.source}`,
    );
  }
  expect(program.userDefs.map((d) => d.name)).toEqual([NAME]);
  const run = (args: readonly Json[]): Json => {
    const values = args.map((a, i) => valueFromJson(a, argTypes[i]!, `argument ${i}`));
    const js = valueToJson(spec.run(values), spec.resultType);
    const interp = valueToJson(program.specialise(NAME, argTypes, "interp").run(values), spec.resultType);
    expectClose(js, interp, 1e-12, "compiled vs interpreter");
    return js;
  };
  return { staged, program, argTypes, run };
}

/** How many times `word` occurs in `text` as a whole word. */
export function occurrences(text: string, word: string): number {
  return text.match(new RegExp(`(?<![A-Za-z0-9_'])${word}(?![A-Za-z0-9_'])`, "g"))?.length ?? 0;
}

/** The number of `let`s of a source text. */
export const letCount = (source: string): number => occurrences(source, "let") - 1;
