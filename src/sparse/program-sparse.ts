// Sparse Jacobians and Hessians of a definition of a Smooth program (what `smooth jacobian --sparse` and
// `smooth hessian --sparse` run): the plan (./sparse-derivative.ts) at the call's arguments, the compressed program
// compiled for the engine, its result decompressed.

import type { Mode, Subject } from "../api/derivatives.js";
import { prepare, type Engine, type SmoothProgram } from "../api/program.js";
import { optimisesFirst } from "../backends/registry.js";
import { lowerEntry } from "../ir/lower.js";
import { runPipeline } from "../opt/pass.js";
import { DERIVATIVE_PIPELINE, REVERSE_PRIMAL_PIPELINE, REVERSE_PRIMAL_REFERENCE } from "../opt/pipeline.js";
import type { Value } from "../runtime/value.js";
import type { Type } from "../types/types.js";
import { compressedFunction } from "./compressed-programs.js";
import { planSparse, sparseResult, type SparseKind, type SparseMatrix } from "./sparse-derivative.js";

export interface ProgramSparseRequest {
  readonly prog: SmoothProgram;
  readonly name: string;
  readonly argTypes: readonly Type[];
  readonly values: readonly Value[];
  readonly wrt: readonly number[];
  readonly kind: SparseKind;
  readonly engine: Engine;
  readonly subject: Subject;
  readonly context: string;
  readonly requested?: Mode;
}

/** The sparse derivative of `name` at `values`, and the primal's value (computed once, if not already). */
export function programSparse(r: ProgramSparseRequest): { matrix: SparseMatrix; value: () => Value } {
  const lowered = lowerEntry(r.prog.checked, r.name, r.argTypes);
  const analysed = r.prog.primalThrough(r.name, r.argTypes, REVERSE_PRIMAL_PIPELINE, lowered);
  let output: Value | undefined;
  const value = () => (output ??= r.prog.specialise(r.name, r.argTypes, r.engine).run(r.values));
  const plan = planSparse({
    kind: r.kind,
    subject: r.subject,
    context: r.context,
    firstOrder: analysed,
    argTypes: r.argTypes,
    values: r.values,
    wrt: r.wrt,
    output: value,
    ...(r.requested === undefined ? {} : { requested: r.requested }),
  });
  const firstOrder = () =>
    optimisesFirst(r.engine)
      ? analysed
      : runPipeline(lowerEntry(r.prog.checked, r.name, r.argTypes), REVERSE_PRIMAL_REFERENCE);
  const { fn, argTypes } = compressedFunction(r.kind, plan.mode, lowered, firstOrder, r.wrt);
  const program = prepare(fn, argTypes, r.engine, DERIVATIVE_PIPELINE);
  const matrix = sparseResult(plan, program.run([...r.values, ...plan.colourArguments]));
  return { matrix, value };
}
