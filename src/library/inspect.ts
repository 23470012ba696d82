// inspect: what a library function runs for given arguments — the optimised program in Smooth syntax and the
// JavaScript generated from it; on the webgpu back end also its kernels — and, on demand, how reverse mode stored its
// loops' states for those arguments (which loops were checkpointed, with how many snapshots, recomputing how much).

import { generateFunction } from "../codegen/compile.js";
import { revolveCost } from "../ad/revolve.js";
import { forEachNode } from "../ir/free.js";
import { printIr } from "../ir/print.js";
import { checkpointListener, type CheckpointDecision } from "../prims/table.js";
import { formatLocation } from "../syntax/source.js";
import { compiledFunction, type AnyFunction } from "./compile.js";
import { libraryFunction, targetOf, type LibraryFunction } from "./target.js";
import { kernelCount, lastRun } from "../webgpu/backend.js";

/** A loop whose gradient was checkpointed: its tapes would not have fit in the memory budget. */
export interface CheckpointReport {
  /** Where the loop is: "file:line:col". */
  readonly loop: string;
  /** Its number of steps. */
  readonly steps: number;
  /** The bytes of one snapshot (the state components the reverse needs, 8 bytes a scalar). */
  readonly stateBytes: number;
  /** The memory budget, in bytes. */
  readonly budget: number;
  /** The snapshots it may hold (s). */
  readonly snapshots: number;
  /** Steps the reverse recomputes per step of the loop (Revolve's schedule; the primal runs each step once more). */
  readonly recomputation: number;
}

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
  /** The loops whose gradient is checkpointed when its tapes would not fit (where they are: "file:line:col"). */
  readonly checkpointable: readonly string[];
  /**
   * The loops whose gradient was checkpointed for these arguments. Reading it runs the function once on them (its
   * program compiled to JavaScript), recording each loop's decision.
   */
  readonly checkpoints: readonly CheckpointReport[];
}

/**
 * The optimised program and the generated JavaScript that `fn` runs for arguments like `exampleArgs` (compiling it if
 * needed; nothing is run except, for `jacobian` in auto mode, the primal that decides the mode, and for the
 * `checkpoints` report, when it is read, the function). `fn` is a function returned by the library (compile, grad,
 * valueAndGrad, jacobian, hessian, vmap, a vjp pullback), a module's definition, or a TypeScript function over tensors
 * (inspected as `compile(fn)`).
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
  const checkpointable: string[] = [];
  forEachNode(spec.optimised.body, (n) => {
    if (n.kind === "prim" && n.op === "checkpointSlots" && n.span !== undefined)
      checkpointable.push(formatLocation(n.span));
  });
  let reports: readonly CheckpointReport[] | undefined;
  const shown = {
    smooth: printIr(spec.optimised),
    // A function running on wasm shows the JavaScript the js back end makes of the same program (its code is binary).
    javascript: spec.jsSource ?? generateFunction(spec.optimised).source,
    checkpointable,
    get checkpoints() {
      return (reports ??= checkpointsOf(info, exampleArgs));
    },
  };
  const kernels = kernelCount(spec);
  if (spec.code === undefined || kernels === undefined) return shown;
  const last = lastRun(spec);
  const lastCall =
    last === undefined
      ? {}
      : { lastCall: { dispatches: last.dispatches, bytesUp: last.bytesUp, bytesDown: last.bytesDown } };
  // Defined on the object, not spread into a new one: spreading would read `checkpoints` (and run the function).
  const webgpu = { kernels, wgsl: spec.code.text, ...lastCall };
  return Object.defineProperty(shown, "webgpu", { value: webgpu, enumerable: true });
}

/** Runs the function on `args` (compiled JavaScript, which reports its loops' decisions); the decisions. */
function checkpointsOf(info: LibraryFunction, args: readonly unknown[]): CheckpointReport[] {
  if (info.runOn === undefined) return [];
  const decisions: CheckpointDecision[] = [];
  const saved = checkpointListener.current;
  checkpointListener.current = (d) => decisions.push(d);
  try {
    info.runOn(args, "js");
  } finally {
    checkpointListener.current = saved;
  }
  return decisions.map((d) => ({
    loop: d.span === undefined ? "(a loop)" : formatLocation(d.span),
    steps: d.steps,
    stateBytes: d.stateBytes,
    budget: d.budget,
    snapshots: d.slots,
    recomputation: d.steps === 0 ? 0 : revolveCost(d.steps, d.slots).advances / d.steps,
  }));
}
