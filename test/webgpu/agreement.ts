// Agreement of the webgpu back end with wasm-f32 (both compute in float32, in different orders and with different
// transcendental functions): the same program and arguments give values within float32 tolerances, or the same error.

import { loadProgram } from "../../src/api/program.js";
import { describeParam } from "../../src/api/entry-types.js";
import { valueFromJson } from "../../src/runtime/json.js";
import { valuesEqual } from "../../src/runtime/equal.js";
import type { Value } from "../../src/runtime/value.js";
import { SmoothError } from "../../src/syntax/diagnostics.js";
import type { Type } from "../../src/types/types.js";
import type { Specialised } from "../../src/api/program.js";
import { show } from "../gen/differential.js";

/** Relative tolerance against wasm-f32 (|a - b| <= tol * max(1, |a|, |b|)): a few float32 roundings apart. */
export const GPU_TOL = 2e-4;

export type AsyncOutcome = { ok: true; value: Value } | { ok: false; error: SmoothError };

export async function outcomeAsync(spec: Specialised, values: readonly Value[]): Promise<AsyncOutcome> {
  try {
    return { ok: true, value: await spec.runAsync(values) };
  } catch (e) {
    if (e instanceof SmoothError) return { ok: false, error: e };
    throw e;
  }
}

/** Undefined when the two outcomes agree; otherwise what differs. */
export function gpuDisagreement(cpu: AsyncOutcome, gpu: AsyncOutcome, type: Type, tol = GPU_TOL): string | undefined {
  if (cpu.ok && gpu.ok)
    return valuesEqual(cpu.value, gpu.value, type, tol)
      ? undefined
      : `the values differ\n  wasm-f32: ${show(cpu.value, type)}\n  webgpu:   ${show(gpu.value, type)}`;
  if (!cpu.ok && !gpu.ok)
    return cpu.error.headline === gpu.error.headline
      ? undefined
      : `the errors differ\n  wasm-f32: ${cpu.error.headline}\n  webgpu:   ${gpu.error.headline}`;
  return cpu.ok
    ? `only webgpu fails: ${(gpu as { error: SmoothError }).error.message}`
    : `only wasm-f32 fails: ${cpu.error.headline}`;
}

/** Runs `fn` of the program on its JSON arguments on wasm-f32 and webgpu. */
export async function runOnBoth(
  name: string,
  text: string,
  args: readonly unknown[],
  fn = "main",
): Promise<{ cpu: AsyncOutcome; gpu: AsyncOutcome; type: Type; gpuSpec: Specialised }> {
  const program = loadProgram({ name, text });
  const argTypes = program.argTypesFromJson(fn, args);
  const def = program.definition(fn);
  const values = args.map((a, i) => valueFromJson(a, argTypes[i]!, describeParam(def, i)));
  const cpuSpec = program.specialise(fn, argTypes, "wasm-f32");
  const gpuSpec = program.specialise(fn, argTypes, "webgpu");
  return {
    cpu: await outcomeAsync(cpuSpec, values),
    gpu: await outcomeAsync(gpuSpec, values),
    type: cpuSpec.resultType,
    gpuSpec,
  };
}
