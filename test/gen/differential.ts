// Differential testing of the back ends: one program, one argument list, run by the reference interpreter (the
// lowered program, unoptimised), by compiled JavaScript and by WebAssembly (the optimised program). Shared by the
// corpus test and the random-program test, and meant for reuse by later differential tests.

import { loadProgram, type SmoothProgram, type Specialised } from "../../src/api/program.js";
import { describeParam } from "../../src/api/entry-types.js";
import { valueFromJson, valueToJson } from "../../src/runtime/json.js";
import { valuesEqual } from "../../src/runtime/equal.js";
import { arrayGet, arrayLength, isArrayValue, type Value } from "../../src/runtime/value.js";
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
  readonly wasm: Specialised;
  readonly interpOutcome: Outcome;
  readonly jsOutcome: Outcome;
  readonly wasmOutcome: Outcome;
}

/**
 * Loads `text` (with the prelude), specialises `fn` to the JSON arguments for every engine and runs them.
 * Errors before running (syntax, type, argument, code generation) are thrown: they are failures of the test.
 */
export function runBothEngines(name: string, text: string, args: readonly unknown[], fn = "main"): BothRuns {
  const program = loadProgram({ name, text });
  const argTypes = program.argTypesFromJson(fn, args);
  const def = program.definition(fn);
  const values = args.map((a, i) => valueFromJson(a, argTypes[i]!, describeParam(def, i)));
  const interp = program.specialise(fn, argTypes, "interp");
  const js = program.specialise(fn, argTypes, "js");
  const wasm = program.specialise(fn, argTypes, "wasm");
  return {
    program,
    argTypes,
    values,
    interp,
    js,
    wasm,
    interpOutcome: outcome(interp, values),
    jsOutcome: outcome(js, values),
    wasmOutcome: outcome(wasm, values),
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

/**
 * Undefined when the interpreter and both compiled back ends agree (the compiled ones exactly, see
 * compiledDisagreement); otherwise what differs, for a failure message.
 */
export function engineDisagreement(runs: BothRuns, tol = TOLERANCE): string | undefined {
  const type = runs.interp.resultType;
  return (
    disagreement(runs.interpOutcome, runs.jsOutcome, type, tol) ??
    disagreement(runs.interpOutcome, runs.wasmOutcome, type, tol, "wasm") ??
    compiledDisagreement(runs.jsOutcome, runs.wasmOutcome, type)
  );
}

/** Undefined when the outcomes agree; otherwise what differs, for a failure message. */
export function disagreement(
  interp: Outcome,
  js: Outcome,
  type: Type,
  tol = TOLERANCE,
  compiled = "js",
): string | undefined {
  const label = `${compiled}:`.padEnd(8);
  if (interp.ok && js.ok) {
    if (valuesEqual(interp.value, js.value, type, tol)) return undefined;
    return `the values differ\n  interp: ${show(interp.value, type)}\n  ${label}${show(js.value, type)}`;
  }
  if (!interp.ok && !js.ok) {
    if (interp.error.kind === js.error.kind) return undefined;
    return `the errors differ\n  interp: ${interp.error.headline}\n  ${label}${js.error.headline}`;
  }
  if (!interp.ok && js.ok && ELIDABLE_ERRORS.has(interp.error.kind)) return undefined;
  return interp.ok
    ? `only the compiled code fails\n  interp: ${show(interp.value, type)}\n  ${label}${(js as { error: SmoothError }).error.headline}`
    : `only the interpreter fails\n  interp: ${interp.error.headline}\n  ${label}${show((js as { value: Value }).value, type)}`;
}

/**
 * The two compiled back ends run the same optimised program with the same arithmetic (wasm's exp and log are V8's,
 * bit for bit; its vector code keeps every sum's order): the same value bit for bit (NaN = NaN), or the same error.
 */
export function compiledDisagreement(js: Outcome, wasm: Outcome, type: Type): string | undefined {
  if (js.ok && wasm.ok) {
    if (sameBits(js.value, wasm.value, type)) return undefined;
    return `js and wasm differ\n  js:   ${show(js.value, type)}\n  wasm: ${show(wasm.value, type)}`;
  }
  if (!js.ok && !wasm.ok) {
    if (js.error.headline === wasm.error.headline) return undefined;
    return `js and wasm fail differently\n  js:   ${js.error.headline}\n  wasm: ${wasm.error.headline}`;
  }
  return js.ok
    ? `only wasm fails\n  js:   ${show(js.value, type)}\n  wasm: ${(wasm as { error: SmoothError }).error.headline}`
    : `only js fails\n  js:   ${js.error.headline}\n  wasm: ${show((wasm as { value: Value }).value, type)}`;
}

/** Equal values, Doubles compared bit for bit (Object.is, except that NaNs are equal). */
function sameBits(a: Value, b: Value, type: Type): boolean {
  if (!valuesEqual(a, b, type, 0)) return false;
  const doubles = (v: Value, t: Type): number[] => {
    if (t.k === "double") return [v as number];
    if (t.k === "tuple" && typeof v === "object" && v.tag === "tuple")
      return t.elems.flatMap((u, i) => doubles(v.elems[i]!, u));
    if (t.k === "array" && isArrayValue(v)) {
      const out: number[] = [];
      for (let i = 0; i < arrayLength(v); i++) out.push(...doubles(arrayGet(v, i), t.elem));
      return out;
    }
    return [];
  };
  const [x, y] = [doubles(a, type), doubles(b, type)];
  return x.every((u, i) => Object.is(u, y[i]) || (Number.isNaN(u) && Number.isNaN(y[i])));
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
