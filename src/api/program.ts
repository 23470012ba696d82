// The pipeline as one object: parse → check (with the prelude) → specialise and lower an entry point → optimiser
// passes → a back end. The CLI and the library both go through here.
//
// The reference interpreter runs the lowered program before any optimisation, so comparing the two back ends
// tests the optimiser and the code generator together against the semantics.

import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { compileFunction } from "../codegen/compile.js";
import { runFunction } from "../eval/interpreter.js";
import { typeOf, type IrFunction } from "../ir/ir.js";
import { lowerEntry } from "../ir/lower.js";
import { DERIVATIVE_PIPELINE, PASSES, STANDARD_PIPELINE } from "../opt/pipeline.js";
import { someNode } from "../ir/free.js";
import { forwardDerivative } from "./derivative-programs.js";
import { reverseGradient, reverseJacobian, vjpFunction } from "./reverse-programs.js";
import { runPipeline, type Pass } from "../opt/pass.js";
import { valueFromJson, valueToJson } from "../runtime/json.js";
import type { Value } from "../runtime/value.js";
import type { Program } from "../syntax/ast.js";
import { fail } from "../syntax/diagnostics.js";
import { parseProgram } from "../syntax/parser.js";
import type { SourceFile } from "../syntax/source.js";
import { checkProgram, type CheckedDef, type CheckedProgram } from "../types/infer.js";
import { showType, type Type } from "../types/types.js";
import { describeParam, entryArgTypes } from "./entry-types.js";

export type Engine = "interp" | "js";

/**
 * Which derivative program: forward (vectorised forward mode: per parameter, a build over its positions of the output's
 * tangent), gradient (reverse mode; a Double result), value-gradient (the value, then the gradients), vjp (reverse mode
 * with the cotangent as an extra last argument; returns the value and the adjoints), jacobian-rows (reverse mode, one
 * sweep per output scalar), hessian (forward over reverse: the Jacobian of the reverse-mode gradient).
 */
export type DerivativeKind = "forward" | "gradient" | "value-gradient" | "vjp" | "jacobian-rows" | "hessian";

export interface LoadOptions {
  /** Load the M̃ prelude first (default true). */
  readonly prelude?: boolean;
  /** Files whose definitions come before the user's (after the prelude), each parsed under its own name. */
  readonly include?: readonly SourceFile[];
}

/** A specialised entry point, ready to run. */
export interface Specialised {
  readonly name: string;
  readonly argTypes: readonly Type[];
  readonly resultType: Type;
  /** The lowered program, before optimisation (what the interpreter runs). */
  readonly lowered: IrFunction;
  /** After the standard pipeline (what the JavaScript back end compiles). */
  readonly optimised: IrFunction;
  readonly engine: Engine;
  run(args: readonly Value[]): Value;
  /**
   * `run`, with a result that may share memory with the function's next call (compiled code then neither copies the
   * result out of its arena nor allocates its large arrays afresh): for a caller that reads the result before calling
   * again, such as a benchmark loop.
   */
  runBorrowed(args: readonly Value[]): Value;
  /** The generated JavaScript (js engine only). */
  readonly jsSource?: string;
}

let preludeCache: { file: SourceFile; ast: Program } | undefined;

export function preludeFile(): SourceFile {
  if (!preludeCache) {
    const path = fileURLToPath(new URL("../../prelude/prelude.smooth", import.meta.url));
    const file: SourceFile = { name: "<prelude>", text: readFileSync(path, "utf8") };
    preludeCache = { file, ast: parseProgram(file) };
  }
  return preludeCache.file;
}

export class SmoothProgram {
  readonly checked: CheckedProgram;
  /** The definitions of the user's file, in order (not the prelude's). */
  readonly userDefs: readonly CheckedDef[];
  private readonly cache = new Map<string, Specialised>();

  constructor(
    readonly file: SourceFile,
    options: LoadOptions = {},
  ) {
    const user = parseProgram(file);
    const programs: Program[] = [];
    if (options.prelude ?? true) {
      preludeFile();
      programs.push(preludeCache!.ast);
    }
    for (const included of options.include ?? []) programs.push(parseProgram(included));
    programs.push(user);
    this.checked = checkProgram(programs);
    this.userDefs = this.checked.defs.slice(this.checked.defs.length - user.defs.length);
  }

  definition(name: string): CheckedDef {
    const def = this.checked.lookup(name);
    if (!def) {
      const names = this.userDefs.map((d) => d.name);
      fail("name", `there is no definition named \`${name}\``, undefined, {
        hint:
          names.length > 0
            ? `definitions in ${this.file.name}: ${names.join(", ")}`
            : `${this.file.name} defines nothing`,
      });
    }
    return def;
  }

  /** Concrete argument types for calling `name` with these JSON arguments. */
  argTypesFromJson(name: string, args: readonly unknown[]): Type[] {
    return entryArgTypes(this.definition(name), args);
  }

  /** Lower `name` at `argTypes` and prepare it for `engine` (cached per name, types and engine). */
  specialise(
    name: string,
    argTypes: readonly Type[],
    engine: Engine = "js",
    passes: readonly Pass[] = STANDARD_PIPELINE,
  ): Specialised {
    const key = `${name}|${engine}|${argTypes.map(showType).join(",")}|${passes.map((p) => p.name).join(",")}`;
    const hit = this.cache.get(key);
    if (hit) return hit;
    this.definition(name);
    const spec = prepare(lowerEntry(this.checked, name, argTypes), argTypes, engine, passes);
    this.cache.set(key, spec);
    return spec;
  }

  /**
   * The forward-mode derivative program of `name` with respect to the parameters `wrt` (see ../api/derivatives.ts),
   * specialised at `argTypes` and prepared for `engine` (cached). Optimised by default under the paper's assumption
   * that Doubles are finite (DERIVATIVE_PIPELINE, ../opt/pipeline.ts).
   */
  derivative(
    name: string,
    argTypes: readonly Type[],
    wrt: readonly number[],
    engine: Engine = "js",
    passes: readonly Pass[] = DERIVATIVE_PIPELINE,
    kind: DerivativeKind = "forward",
  ): Specialised {
    const key = `d:${kind}:${name}|${engine}|${argTypes.map(showType).join(",")}|${wrt.join(",")}|${passes.map((p) => p.name).join(",")}`;
    const hit = this.cache.get(key);
    if (hit) return hit;
    const def = this.definition(name);
    const primal = lowerEntry(this.checked, name, argTypes);
    const program = derivativeProgram(primal, kind, wrt, def.paramNames, engine);
    const spec = prepare(program, kind === "vjp" ? [...argTypes, typeOf(primal.body)] : argTypes, engine, passes);
    this.cache.set(key, spec);
    return spec;
  }

  /** Run `name` on JSON arguments and return the JSON result. */
  runJson(name: string, args: readonly unknown[], engine: Engine = "js"): unknown {
    const def = this.definition(name);
    const argTypes = this.argTypesFromJson(name, args);
    const values = args.map((a, i) => valueFromJson(a, argTypes[i]!, describeParam(def, i)));
    const spec = this.specialise(name, argTypes, engine);
    return valueToJson(spec.run(values), spec.resultType);
  }
}

/**
 * Optimise and compile (js), or prepare for the reference interpreter (interp). The interpreter runs the lowered
 * program as it is, except that derivative nodes (`jvp`) are expanded first: differentiation is a program
 * transformation, and the interpreter runs programs.
 */
function prepare(lowered: IrFunction, argTypes: readonly Type[], engine: Engine, passes: readonly Pass[]): Specialised {
  const optimised = runPipeline(lowered, passes);
  const common = { name: lowered.name, argTypes, resultType: typeOf(lowered.body), lowered, optimised, engine };
  if (engine === "js") {
    const compiled = compileFunction(optimised);
    return {
      ...common,
      run: (args) => compiled(args),
      runBorrowed: (args) => compiled(args, true),
      jsSource: compiled.source,
    };
  }
  const expandAd = PASSES["forward-ad"];
  const hasJvp = [lowered, ...(lowered.functions ?? [])].some((f) => someNode(f.body, (e) => e.kind === "jvp"));
  if (hasJvp && !expandAd) throw new Error("no forward-ad pass registered");
  const reference = hasJvp ? runPipeline(lowered, [expandAd!]) : lowered;
  const run = (args: readonly Value[]) => runFunction(reference, args);
  return { ...common, run, runBorrowed: run };
}

/**
 * The derivative program of a lowered entry point. Reverse mode works on first-order IR: derivatives inside the
 * program are expanded and functions inlined first; for the compiled back end the primal is also optimised first
 * (fused, hoisted), so the reverse sweep is written for the program that would actually run. The interpreter's
 * reference transforms the unoptimised primal, so comparing the back ends also tests the optimiser on both sides.
 */
function derivativeProgram(
  primal: IrFunction,
  kind: DerivativeKind,
  wrt: readonly number[],
  paramNames: readonly (string | undefined)[],
  engine: Engine,
): IrFunction {
  if (kind === "forward") return forwardDerivative(primal, { wrt, paramNames });
  const firstOrder = runPipeline(primal, engine === "js" ? STANDARD_PIPELINE : [PASSES["forward-ad"]!, PASSES.inline!]);
  switch (kind) {
    case "gradient":
      return reverseGradient(firstOrder, { wrt });
    case "value-gradient":
      return reverseGradient(firstOrder, { wrt, withValue: true });
    case "vjp":
      return vjpFunction(firstOrder, { wrt });
    case "jacobian-rows":
      return reverseJacobian(firstOrder, { wrt });
    case "hessian":
      return forwardDerivative(reverseGradient(firstOrder, { wrt }), { wrt, paramNames });
  }
}

export function loadProgram(file: SourceFile, options?: LoadOptions): SmoothProgram {
  return new SmoothProgram(file, options);
}
