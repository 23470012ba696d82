// Shared by the ADBench tests: loading the example programs and the copied data, and gradients computed by Smooth.

import { readFileSync } from "node:fs";
import { loadProgram, type SmoothProgram } from "../../src/api/program.js";
import { describeParam } from "../../src/api/entry-types.js";
import { DERIVATIVE_PIPELINE } from "../../src/opt/pipeline.js";
import { valueFromJson, valueToJson } from "../../src/runtime/json.js";
import type { Value } from "../../src/runtime/value.js";

/** A file of test/data/adbench (copies of ../shared/data/adbench: tests must not depend on ../shared). */
export const dataPath = (name: string): string => new URL(`../data/adbench/${name}`, import.meta.url).pathname;

/** examples/adbench/<name>.smooth, loaded with the prelude. */
export function loadExample(name: string): SmoothProgram {
  const path = new URL(`../../examples/adbench/${name}.smooth`, import.meta.url).pathname;
  return loadProgram({ name: path, text: readFileSync(path, "utf8") });
}

/** The compiled back ends the golden values are checked on. */
export const COMPILED_ENGINES = ["js", "wasm"] as const;

/** How the gradient is computed: vectorised forward mode, or the reverse-mode gradient program. */
export type GradientMode = "forward" | "reverse";
export const GRADIENT_MODES: readonly GradientMode[] = ["forward", "reverse"];

/**
 * The gradient of the Double-valued `name` at `args` with respect to the parameters `wrt`, computed by Smooth in
 * `mode` with a compiled engine (js by default): one JSON value per wrt parameter, with that parameter's shape.
 */
export function gradientJson(
  prog: SmoothProgram,
  name: string,
  args: readonly unknown[],
  wrt: readonly number[],
  mode: GradientMode,
  engine: (typeof COMPILED_ENGINES)[number] = "js",
): unknown[] {
  const def = prog.definition(name);
  const argTypes = prog.argTypesFromJson(name, args);
  const values = args.map((a, i) => valueFromJson(a, argTypes[i]!, describeParam(def, i)));
  const kind = mode === "forward" ? "forward" : "gradient";
  const result: Value = prog.derivative(name, argTypes, wrt, engine, DERIVATIVE_PIPELINE, kind).run(values);
  // Several parameters give a tuple of their gradients.
  const parts = wrt.length === 1 ? [result] : tupleElems(result);
  return wrt.map((k, i) => valueToJson(parts[i]!, argTypes[k]!));
}

function tupleElems(v: Value): readonly Value[] {
  if (typeof v !== "object" || v.tag !== "tuple")
    throw new Error("a derivative over several parameters should return a tuple");
  return v.elems;
}
