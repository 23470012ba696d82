// The WebGPU back end (src/backends/backend.ts): optimised, first-order IR becomes WGSL compute kernels that the host
// dispatches on a GPU (./device.ts), in float32. Results arrive asynchronously, so the Executable's `runAsync` is the
// way to run it; `run` is an error that says so. A program with recursive functions is refused, as float32 refuses it
// on the wasm back end: WGSL has no recursion, and JavaScript would compute it in float64.

import type { Backend, Executable } from "../backends/backend.js";
import type { IrFunction } from "../ir/ir.js";
import type { Value } from "../runtime/value.js";
import { fail } from "../syntax/diagnostics.js";
import { serialPlan } from "./serial.js";
import { GpuRunner, type RunStats } from "./run.js";
import { Planner } from "./parallel.js";
import { unchunk } from "./unchunk.js";
import { flattenStates } from "./flat-state.js";
import type { Plan } from "./plan.js";

function refuse(fn: IrFunction, why: string): never {
  return fail("unsupported", `the webgpu back end cannot compile \`${fn.name}\`: ${why}`, fn.span, {
    hint: "run it on a CPU back end (wasm, or wasm-f32 for float32)",
  });
}

/** The kernels of a plan as text a person can read (`inspect`, `smooth compile --engine webgpu`). */
export function describePlan(plan: Plan): string {
  const head = `// ${plan.kernels.length} WebGPU kernel${plan.kernels.length === 1 ? "" : "s"}, computing in float32`;
  return [head, ...plan.kernels.map((k, i) => `// kernel ${i}: ${k.what}\n${k.wgsl}`)].join("\n");
}

const RUNNERS = new WeakMap<object, GpuRunner>();

/**
 * What the last call of a webgpu executable's `runAsync` did: how many kernels it dispatched, whether a failed check
 * sent it to the sequential plan, the bytes it moved (for tests of fusion and of the parallel plan, and `inspect`).
 */
export function lastRun(spec: { readonly runAsync?: unknown }): RunStats | undefined {
  const f = spec.runAsync;
  return typeof f === "function" ? RUNNERS.get(f)?.last : undefined;
}

/** How many kernels a webgpu executable's plan has (undefined for another back end's). */
export function kernelCount(spec: { readonly runAsync?: unknown }): number | undefined {
  const f = spec.runAsync;
  return typeof f === "function" ? RUNNERS.get(f)?.plan.kernels.length : undefined;
}

function compileWebGpu(fn: IrFunction): Executable {
  if (fn.functions !== undefined && fn.functions.length > 0) refuse(fn, "recursive functions");
  // The parallel plan takes an accumulation as one loop, a thread per iteration, not as chunks (./unchunk.ts), its
  // state a flat tuple (./flat-state.ts).
  const plan = new Planner(flattenStates(unchunk(fn))).plan();
  // The sequential plan, made when a call's parallel plan fails a check: it reports the first error in order.
  let sequential: GpuRunner | undefined;
  const runner = new GpuRunner(plan, () => (sequential ??= new GpuRunner(serialPlan(fn))));
  const sync = (): never =>
    fail("unsupported", "the webgpu back end computes asynchronously: await runAsync (or the library's async call)");
  const runAsync = (args: readonly Value[]) => runner.run(args);
  RUNNERS.set(runAsync, runner);
  return {
    run: sync,
    runBorrowed: sync,
    runAsync,
    code: { language: "wgsl", text: describePlan(plan) },
  };
}

export const WEBGPU_BACKEND = {
  name: "webgpu",
  description: "WebGPU compute kernels in float32, asynchronous",
  input: "optimised",
  compile: compileWebGpu,
} as const satisfies Backend;
