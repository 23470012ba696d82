// inspect: what a library function runs for given arguments — the optimised program in Smooth syntax and the
// JavaScript generated from it; on the webgpu back end also its kernels.

import { generateFunction } from "../codegen/compile.js";
import { printIr } from "../ir/print.js";
import { compiledFunction, type AnyFunction } from "./compile.js";
import { libraryFunction, targetOf } from "./target.js";
import { kernelCount, lastRun } from "../webgpu/backend.js";

/** The program a function runs: Smooth text (after optimisation) and the generated JavaScript. */
export interface Inspection {
  readonly smooth: string;
  readonly javascript: string;
  /**
   * On the webgpu back end: its kernels (how many, and their WGSL with what each computes) and, once the function has
   * run for such arguments, what its last call did: kernels dispatched, bytes moved up to the GPU and down from it.
   */
  readonly webgpu?: {
    readonly kernels: number;
    readonly wgsl: string;
    readonly lastCall?: { readonly dispatches: number; readonly bytesUp: number; readonly bytesDown: number };
  };
}

/**
 * The optimised program and the generated JavaScript that `fn` runs for arguments like `exampleArgs` (compiling it if
 * needed; nothing is run except, for `jacobian` in auto mode, the primal that decides the mode). `fn` is a function
 * returned by the library (compile, grad, valueAndGrad, jacobian, hessian, vmap, a vjp pullback), a module's
 * definition, or a TypeScript function over tensors (inspected as `compile(fn)`).
 *
 * @example
 * console.log(inspect(grad(m.loss), w, x).smooth);
 */
export function inspect(fn: AnyFunction, ...exampleArgs: unknown[]): Inspection {
  let info = libraryFunction(fn);
  if (!info) {
    // A function the library did not hand out is inspected as compile(fn) runs it.
    const target = targetOf(fn, "inspect");
    info = libraryFunction(compiledFunction(target, `compile(${target.label})`, "compiled"))!;
  }
  const spec = info.program(exampleArgs);
  // A function running on wasm shows the JavaScript the js back end makes of the same program (its own code is binary).
  const shown = {
    smooth: printIr(spec.optimised),
    javascript: spec.jsSource ?? generateFunction(spec.optimised).source,
  };
  const kernels = kernelCount(spec);
  if (spec.code === undefined || kernels === undefined) return shown;
  const last = lastRun(spec);
  const lastCall =
    last === undefined
      ? {}
      : { lastCall: { dispatches: last.dispatches, bytesUp: last.bytesUp, bytesDown: last.bytesDown } };
  return { ...shown, webgpu: { kernels, wgsl: spec.code.text, ...lastCall } };
}
