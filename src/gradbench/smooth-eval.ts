// What the evals share: loading their Smooth programs from examples/, compiling an entry point or one of its
// derivatives (by the default back end, or the one SMOOTH_ENGINE names: `smooth gradbench --engine js` sets it;
// derivatives are Smooth's own, see SmoothProgram.derivative), reading the fields of an
// evaluate message's input into runtime values (untimed, with clear errors), and the prepared call that runs a
// compiled function and encodes its last result. `smoothEval` puts these together into an EvalModule.

import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { loadProgram, type DerivativeKind, type SmoothProgram, type Specialised } from "../api/program.js";
import { DERIVATIVE_PIPELINE } from "../opt/pipeline.js";
import { DEFAULT_ENGINE, parseEngine, type Engine } from "../backends/registry.js";
import { valueFromJson, valueToJson } from "../runtime/json.js";
import type { Value } from "../runtime/value.js";
import { SmoothError } from "../syntax/diagnostics.js";
import type { SourceFile } from "../syntax/source.js";
import type { Type } from "../types/types.js";
import { GradbenchError, type EvalModule, type PreparedCall } from "./eval-module.js";

/** A file under examples/ (e.g. "gradbench/lse.smooth"), named by that path in messages. */
export function exampleFile(relative: string): SourceFile {
  const path = fileURLToPath(new URL(`../../examples/${relative}`, import.meta.url));
  return { name: `examples/${relative}`, text: readFileSync(path, "utf8") };
}

/** examples/<main> with the prelude, after the definitions of the `include`d example files. */
export function loadExamples(main: string, include: readonly string[] = []): SmoothProgram {
  return loadProgram(exampleFile(main), { include: include.map(exampleFile) });
}

/** The back end the tool compiles with: SMOOTH_ENGINE (checked when the tool starts), else the default engine. */
export function gradbenchEngine(): Engine {
  const name = process.env.SMOOTH_ENGINE;
  return name === undefined || name === "" ? DEFAULT_ENGINE : parseEngine(name);
}

/** The compiled entry point `name` at `argTypes`. */
export function compilePrimal(prog: SmoothProgram, name: string, argTypes: readonly Type[]): Specialised {
  return prog.specialise(name, argTypes, gradbenchEngine());
}

/** The compiled derivative program of `name` of this kind with respect to the parameters `wrt`. */
export function compileDerivative(
  prog: SmoothProgram,
  name: string,
  argTypes: readonly Type[],
  wrt: readonly number[],
  kind: DerivativeKind,
): Specialised {
  return prog.derivative(name, argTypes, wrt, gradbenchEngine(), DERIVATIVE_PIPELINE, kind);
}

/** The input as an object having all of `fields` (other fields, such as min_runs, are ignored). */
export function inputObject(input: unknown, fields: readonly string[]): { readonly [key: string]: unknown } {
  if (typeof input !== "object" || input === null || Array.isArray(input))
    throw new GradbenchError(`the input must be a JSON object with the fields ${fields.join(", ")}`);
  const record = input as { readonly [key: string]: unknown };
  const missing = fields.filter((f) => !(f in record));
  if (missing.length > 0)
    throw new GradbenchError(`the input has no field ${missing.map((f) => `\`${f}\``).join(", ")}`);
  return record;
}

/** The runtime value of a JSON value of `type`; a value that does not fit is a GradbenchError naming `what`. */
export function toValue(json: unknown, type: Type, what: string): Value {
  try {
    return valueFromJson(json, type, what);
  } catch (e) {
    if (e instanceof SmoothError) throw new GradbenchError(e.summary);
    throw e;
  }
}

/** A JSON integer in [min, max], or a GradbenchError naming `what`. */
export function integerIn(json: unknown, what: string, min: number, max: number): number {
  if (typeof json !== "number" || !Number.isInteger(json) || json < min || json > max)
    throw new GradbenchError(
      `${what} must be an integer from ${min} to ${max}, got ${JSON.stringify(json) ?? "nothing"}`,
    );
  return json;
}

/**
 * A prepared call running `fn` on `args`; its output is `encode` of the last result (borrowed: read before any further
 * run).
 */
export function preparedCall(
  fn: Specialised,
  args: readonly Value[],
  encode: (result: Value) => unknown = (v) => valueToJson(v, fn.resultType),
): PreparedCall {
  let last: Value | undefined;
  return {
    run() {
      last = fn.runBorrowed(args);
    },
    output() {
      if (last === undefined) throw new Error("output() called before run()");
      return encode(last);
    },
  };
}

/** The components of a tuple value (the gradients of a derivative over several parameters). */
export function tupleParts(v: Value, count: number): readonly Value[] {
  if (typeof v !== "object" || v.tag !== "tuple" || v.elems.length !== count)
    throw new Error(`expected a tuple of ${count} values from a compiled function`);
  return v.elems;
}

/** An eval whose functions are each one compiled Smooth function (a primal or a derivative) of one program. */
export interface SmoothEvalSpec {
  readonly name: string;
  /** The program: examples/<main>, after the definitions of the included example files. */
  readonly main: string;
  readonly include?: readonly string[];
  /** Per function of the module, how to compile it from the loaded program (done once, in define). */
  readonly compile: { readonly [fn: string]: (prog: SmoothProgram) => Specialised };
  /** The arguments of the compiled function for an input (untimed); throws GradbenchError on a bad input. */
  args(fn: string, input: unknown): readonly Value[];
  /** The output JSON of a result, per function; by default the result's JSON. */
  readonly encode?: { readonly [fn: string]: (result: Value) => unknown };
}

export function smoothEval(spec: SmoothEvalSpec): EvalModule {
  const compiled = new Map<string, Specialised>();
  const functions = Object.keys(spec.compile);
  return {
    name: spec.name,
    functions,
    define() {
      const prog = loadExamples(spec.main, spec.include);
      for (const fn of functions) compiled.set(fn, spec.compile[fn]!(prog));
    },
    prepare(fn: string, input: unknown): PreparedCall {
      const f = compiled.get(fn);
      if (!functions.includes(fn))
        throw new GradbenchError(
          `${spec.name} has no function ${JSON.stringify(fn)} (it has: ${functions.join(", ")})`,
        );
      if (!f) throw new GradbenchError(`${spec.name} is not defined yet (send a define message first)`);
      return preparedCall(f, spec.args(fn, input), spec.encode?.[fn]);
    },
  };
}
