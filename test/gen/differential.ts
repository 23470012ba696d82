// Differential testing of the two back ends: one program, one argument list, run by the reference interpreter (the
// lowered program, unoptimised) and by compiled JavaScript (the optimised program). Shared by the corpus test and
// the random-program test, and meant for reuse by later differential tests.

import { loadProgram, type SmoothProgram, type Specialised } from "../../src/api/program.js";
import { describeParam } from "../../src/api/entry-types.js";
import { valueFromJson, valueToJson } from "../../src/runtime/json.js";
import { valuesEqual } from "../../src/runtime/equal.js";
import type { Value } from "../../src/runtime/value.js";
import { SmoothError, type ErrorKind } from "../../src/syntax/diagnostics.js";
import { printIr } from "../../src/ir/print.js";
import { showType, typeEq, type Type } from "../../src/types/types.js";

/** Relative tolerance for Doubles (Index and Bool compare exactly; NaN equals NaN). */
export const TOLERANCE = 1e-12;

/**
 * Runtime errors that the optimiser may legitimately remove: dead-let elimination drops an unused `get` (and its
 * index error), fusion computes an out-of-range element instead of failing (src/opt/dce.ts, rules/fusion.ts).
 * When the interpreter fails with one of these and compiled code returns a value, the back ends still agree.
 */
export const ELIDABLE_ERRORS: ReadonlySet<ErrorKind> = new Set<ErrorKind>(["index", "shape"]);

export type Outcome =
  { readonly ok: true; readonly value: Value } | { readonly ok: false; readonly error: SmoothError };

export interface BothRuns {
  readonly program: SmoothProgram;
  readonly argTypes: readonly Type[];
  readonly values: readonly Value[];
  readonly interp: Specialised;
  readonly js: Specialised;
  readonly interpOutcome: Outcome;
  readonly jsOutcome: Outcome;
}

/**
 * Loads `text` (with the prelude), specialises `fn` to the JSON arguments for both engines and runs them.
 * Errors before running (syntax, type, argument, code generation) are thrown: they are failures of the test.
 */
export function runBothEngines(name: string, text: string, args: readonly unknown[], fn = "main"): BothRuns {
  const program = loadProgram({ name, text });
  const argTypes = program.argTypesFromJson(fn, args);
  const def = program.definition(fn);
  const values = args.map((a, i) => valueFromJson(a, argTypes[i]!, describeParam(def, i)));
  const interp = program.specialise(fn, argTypes, "interp");
  const js = program.specialise(fn, argTypes, "js");
  return {
    program,
    argTypes,
    values,
    interp,
    js,
    interpOutcome: outcome(interp, values),
    jsOutcome: outcome(js, values),
  };
}

export function outcome(spec: Specialised, values: readonly Value[]): Outcome {
  try {
    return { ok: true, value: spec.run(values) };
  } catch (e) {
    if (e instanceof SmoothError) return { ok: false, error: e };
    throw e;
  }
}

/** Undefined when the outcomes agree; otherwise what differs, for a failure message. */
export function disagreement(interp: Outcome, js: Outcome, type: Type, tol = TOLERANCE): string | undefined {
  if (interp.ok && js.ok) {
    if (valuesEqual(interp.value, js.value, type, tol)) return undefined;
    return `the values differ\n  interp: ${show(interp.value, type)}\n  js:     ${show(js.value, type)}`;
  }
  if (!interp.ok && !js.ok) {
    if (interp.error.kind === js.error.kind) return undefined;
    return `the errors differ\n  interp: ${interp.error.headline}\n  js:     ${js.error.headline}`;
  }
  if (!interp.ok && js.ok && ELIDABLE_ERRORS.has(interp.error.kind)) return undefined;
  return interp.ok
    ? `only the compiled code fails\n  interp: ${show(interp.value, type)}\n  js:     ${(js as { error: SmoothError }).error.headline}`
    : `only the interpreter fails\n  interp: ${interp.error.headline}\n  js:     ${show((js as { value: Value }).value, type)}`;
}

/** A value as JSON text (for messages). */
export function show(v: Value, type: Type): string {
  try {
    const text = JSON.stringify(valueToJson(v, type));
    return text.length > 2000 ? `${text.slice(0, 2000)}…` : text;
  } catch (e) {
    return `<unprintable: ${(e as Error).message}>`;
  }
}

/**
 * The optimised IR printed as Smooth (src/ir/print.ts) must parse and check again, without the prelude, at the same
 * argument and result types, and evaluate (in the interpreter) to the value the original program has.
 * Undefined when it does; otherwise what went wrong, with the printed text.
 */
export function printedIrProblem(runs: BothRuns, args: readonly unknown[]): string | undefined {
  const text = printIr(runs.js.optimised);
  // The entry is the last top-level definition (after the `let rec` group of the program's functions, if any).
  const name = [...text.matchAll(/^let (\S+)/gm)].at(-1)?.[1];
  if (name === undefined) return `the printed IR is not a definition:\n${text}`;
  try {
    const printed = loadProgram({ name: "printed-ir.smooth", text }, { prelude: false });
    const argTypes = printed.argTypesFromJson(name, args);
    const shown = (ts: readonly Type[]) => ts.map(showType).join(", ");
    if (shown(argTypes) !== shown(runs.argTypes)) {
      return `the printed IR takes ${shown(argTypes)}, not ${shown(runs.argTypes)}\n${text}`;
    }
    const again = printed.specialise(name, argTypes, "interp");
    const type = runs.interp.resultType;
    if (!typeEq(again.resultType, type)) {
      return `the printed IR returns ${showType(again.resultType)}, not ${showType(type)}\n${text}`;
    }
    const want = outcome(runs.interp, runs.values);
    const got = outcome(again, runs.values);
    if (!want.ok) return undefined; // nothing to compare (errors are compared between the back ends)
    if (!got.ok) return `the printed IR fails: ${got.error.headline}\n${text}`;
    if (!valuesEqual(got.value, want.value, type, TOLERANCE)) {
      return `the printed IR gives ${show(got.value, type)}, not ${show(want.value, type)}\n${text}`;
    }
    return undefined;
  } catch (e) {
    if (!(e instanceof SmoothError)) throw e;
    return `the printed IR does not load: ${e.message}\n${text}`;
  }
}
