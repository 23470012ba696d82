// The pipeline as one object: parse → check (with the prelude) → specialise and lower an entry point → optimiser
// passes → a back end. The CLI and the library both go through here.
//
// The reference interpreter runs the lowered program before any optimisation, so comparing the two back ends
// tests the optimiser and the code generator together against the semantics.

import type { GeneratedCode } from "../backends/backend.js";
import { withinCompilerStack } from "./compiler-stack.js";
import { DEFAULT_ENGINE, optimisesFirst, type Engine } from "../backends/registry.js";
import { typeOf, type IrFunction } from "../ir/ir.js";
import { lowerEntry } from "../ir/lower.js";
import { DERIVATIVE_PIPELINE, REVERSE_PRIMAL_PIPELINE, STANDARD_PIPELINE } from "../opt/pipeline.js";
import { derivativeFunction, type DerivativeKind } from "./derivatives.js";
import { runPipeline, type Pass } from "../opt/pass.js";
import { someNode } from "../ir/free.js";
import { valueFromJson, valueToJson } from "../runtime/json.js";
import type { Value } from "../runtime/value.js";
import type { Program } from "../syntax/ast.js";
import { fail } from "../syntax/diagnostics.js";
import { parseProgram } from "../syntax/parser.js";
import { sourceWithoutByteOrderMark, type SourceFile } from "../syntax/source.js";
import { checkProgram, type CheckedDef, type CheckedProgram } from "../types/infer.js";
import { showType, type Type } from "../types/types.js";
import { describeParam, entryArgTypes } from "./entry-types.js";
import { PRELUDE_TEXT } from "../generated/prelude.js";
import { timed } from "../opt/stage-times.js";
import { cachedProgram, prepareCached, specialised } from "../cache/prepare.js";
import { compileCacheStore } from "../cache/store.js";
import { memoryBudget } from "../runtime/memory-budget.js";

export type { Engine } from "../backends/registry.js";

export type { DerivativeKind } from "./derivatives.js";

export interface LoadOptions {
  /** Load the M̃ prelude first (default true). */
  readonly prelude?: boolean;
  /** Files whose definitions come before the user's (after the prelude), each parsed under its own name. */
  readonly include?: readonly SourceFile[];
  /**
   * The user's definitions as a syntax tree, when they were not written in Smooth (translated from TypeScript by
   * src/tsfront/): its spans point into `file`, which is not parsed.
   */
  readonly ast?: Program;
}

/** A specialised entry point, ready to run. */
export interface Specialised {
  readonly name: string;
  readonly argTypes: readonly Type[];
  readonly resultType: Type;
  /** The lowered program, before optimisation (what the interpreter runs). */
  readonly lowered: IrFunction;
  /** After the pipeline (what compiled back ends compile). */
  readonly optimised: IrFunction;
  readonly engine: Engine;
  run(args: readonly Value[]): Value;
  /**
   * `run`, with a result that may share memory with the function's next call (compiled code then neither copies the
   * result out of its arena nor allocates its large arrays afresh): for a caller that reads the result before calling
   * again, such as a benchmark loop.
   */
  runBorrowed(args: readonly Value[]): Value;
  /** `run` for every back end, the asynchronous ones (webgpu) included: resolves to the result. */
  runAsync(args: readonly Value[]): Promise<Value>;
  /** The code the back end generated (none for the interpreter). */
  readonly code?: GeneratedCode;
  /** The generated JavaScript (js engine only). */
  readonly jsSource?: string;
}

let preludeCache: { file: SourceFile; ast: Program } | undefined;

export function preludeFile(): SourceFile {
  if (!preludeCache) {
    // The text of prelude/prelude.smooth, embedded by the build (scripts/generate.mjs): the core reads no files.
    const file: SourceFile = { name: "<prelude>", text: PRELUDE_TEXT };
    preludeCache = { file, ast: parseProgram(file) };
  }
  return preludeCache.file;
}

export class SmoothProgram {
  /**
   * The program parsed and checked: at once, unless a persistent compile cache is in use (src/cache/): then at the
   * first use that needs it, so that a program whose compiles are all cache hits is never parsed (its errors are the
   * same, raised at that first use).
   */
  private parsed?: { readonly checked: CheckedProgram; readonly userDefs: readonly CheckedDef[] };
  private readonly parse: () => { readonly checked: CheckedProgram; readonly userDefs: readonly CheckedDef[] };
  private readonly cache = new Map<string, Specialised>();
  /** Primals through a pipeline (see `primalThrough`), by name, types and pipeline. */
  private readonly primals = new Map<string, IrFunction>();

  readonly file: SourceFile;
  /**
   * What identifies the program's sources in the persistent compile cache's keys (src/cache/): the texts and names of
   * its files; undefined (not cached) for a syntax tree given with the file.
   */
  readonly sourceKey: string | undefined;

  constructor(file: SourceFile, options: LoadOptions = {}) {
    // A syntax tree given with the file has its spans in the file as it is.
    this.file = options.ast ? file : sourceWithoutByteOrderMark(file);
    file = this.file;
    const files = [...(options.include ?? []).map(sourceWithoutByteOrderMark), file];
    this.sourceKey = options.ast
      ? undefined
      : JSON.stringify([options.prelude ?? true, files.map((f) => [f.name, f.text, f.context ?? null])]);
    const source = file;
    this.parse = () => {
      const { checked, user } = withinCompilerStack(source.name, () => {
        const user = options.ast ?? timed("parse", () => parseProgram(source));
        const programs: Program[] = [];
        if (options.prelude ?? true) {
          timed("parse", preludeFile);
          programs.push(preludeCache!.ast);
        }
        for (const included of options.include ?? [])
          programs.push(timed("parse", () => parseProgram(sourceWithoutByteOrderMark(included))));
        programs.push(user);
        return { checked: timed("check", () => checkProgram(programs)), user };
      });
      return { checked, userDefs: checked.defs.slice(checked.defs.length - user.defs.length) };
    };
    if (this.sourceKey === undefined || compileCacheStore() === undefined) this.parsed = this.parse();
  }

  get checked(): CheckedProgram {
    return (this.parsed ??= this.parse()).checked;
  }

  /** The definitions of the user's file, in order (not the prelude's). */
  get userDefs(): readonly CheckedDef[] {
    return (this.parsed ??= this.parse()).userDefs;
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
    engine: Engine = DEFAULT_ENGINE,
    passes: readonly Pass[] = STANDARD_PIPELINE,
  ): Specialised {
    const key = `${name}|${engine}|${argTypes.map(showType).join(",")}|${passes.map((p) => p.name).join(",")}|${memoryBudget()}`;
    const hit = this.cache.get(key);
    if (hit) return hit;
    const request = this.cacheRequest(["primal", name, argTypes, passes.map((p) => p.name)]);
    const stages = () => {
      const lowered = timed("lower", () => lowerEntry(this.checked, name, argTypes));
      return { lowered, optimised: timed("pipeline", () => this.primalThrough(name, argTypes, passes, lowered)) };
    };
    const spec =
      cachedProgram(request, engine, argTypes, stages) ??
      withinCompilerStack(
        `\`${name}\``,
        () => prepareCached(request, engine, argTypes, stages, true),
        this.definition(name).def.nameSpan,
      );
    this.cache.set(key, spec);
    return spec;
  }

  /**
   * The forward-mode derivative program of `name` with respect to the parameters `wrt` (see ../api/derivatives.ts),
   * specialised at `argTypes` and prepared for `engine` (cached). Optimised by default with DERIVATIVE_PIPELINE
   * (../opt/pipeline.ts: the standard pipeline, whose rules take the paper's assumption on tangent arithmetic, then
   * reverse mode's sweeps cut into chunks).
   */
  derivative(
    name: string,
    argTypes: readonly Type[],
    wrt: readonly number[],
    engine: Engine = DEFAULT_ENGINE,
    passes: readonly Pass[] = DERIVATIVE_PIPELINE,
    kind: DerivativeKind = "forward",
  ): Specialised {
    // The memory budget is a literal of reverse-mode programs (src/runtime/memory-budget.ts).
    const key = `d:${kind}:${name}|${engine}|${argTypes.map(showType).join(",")}|${wrt.join(",")}|${passes.map((p) => p.name).join(",")}|${memoryBudget()}`;
    const hit = this.cache.get(key);
    if (hit) return hit;
    const request = this.cacheRequest(["derivative", kind, name, argTypes, wrt, passes.map((p) => p.name)]);
    let primal: IrFunction | undefined;
    const lowerPrimal = () => (primal ??= timed("lower", () => lowerEntry(this.checked, name, argTypes)));
    const stages = () => {
      const program = timed(`derivative (${kind})`, () =>
        derivativeFunction(lowerPrimal(), kind, wrt, optimisesFirst(engine), this.definition(name).paramNames, () =>
          this.primalThrough(name, argTypes, REVERSE_PRIMAL_PIPELINE, lowerPrimal()),
        ),
      );
      return { lowered: program, optimised: timed("pipeline", () => runPipeline(program, passes)) };
    };
    // A vjp program takes the result's cotangent after the arguments (its type needs the primal: no early look).
    const spec =
      (kind === "vjp" ? undefined : cachedProgram(request, engine, argTypes, stages)) ??
      withinCompilerStack(
        `the derivative of \`${name}\``,
        () => {
          const programTypes = kind === "vjp" ? [...argTypes, typeOf(lowerPrimal().body)] : argTypes;
          return prepareCached(request, engine, programTypes, stages, kind !== "vjp");
        },
        this.definition(name).def.nameSpan,
      );
    this.cache.set(key, spec);
    return spec;
  }

  /** The cache request (src/cache/prepare.ts) of `what` in this program; undefined when it is not cached. */
  private cacheRequest(what: readonly unknown[]): string | undefined {
    // The memory budget is a literal of reverse-mode programs (src/runtime/memory-budget.ts): part of every key.
    return this.sourceKey === undefined ? undefined : JSON.stringify([this.sourceKey, ...what, memoryBudget()]);
  }

  /**
   * `name` at `argTypes` (lowered: `lowered`) through `passes`, made once per pipeline. The primal reverse mode
   * differentiates (REVERSE_PRIMAL_PIPELINE) and the standard pipeline's differ only in keeping the functions with
   * custom derivative rules: when forward-ad leaves none, they are one program, so a gradient compiled after its primal
   * (the GradBench evals compile both) reuses the optimised primal instead of optimising it again.
   */
  primalThrough(name: string, argTypes: readonly Type[], passes: readonly Pass[], lowered: IrFunction): IrFunction {
    const key = (p: readonly Pass[]) =>
      `${name}|${argTypes.map(showType).join(",")}|${p.map((q) => q.name).join(",")}|${memoryBudget()}`;
    const hit = this.primals.get(key(passes));
    if (hit !== undefined) return hit;
    const shared = passes === STANDARD_PIPELINE || passes === REVERSE_PRIMAL_PIPELINE;
    if (!shared) {
      const out = runPipeline(lowered, passes);
      this.primals.set(key(passes), out);
      return out;
    }
    // Both pipelines start with forward-ad, then inline (keeping custom rules or not), then optimise.
    const expanded = runPipeline(lowered, passes.slice(0, 1));
    const out = runPipeline(expanded, passes.slice(1));
    this.primals.set(key(passes), out);
    if (![expanded, ...(expanded.functions ?? [])].some((f) => someNode(f.body, (e) => e.kind === "custom")))
      this.primals.set(key(passes === STANDARD_PIPELINE ? REVERSE_PRIMAL_PIPELINE : STANDARD_PIPELINE), out);
    return out;
  }

  /** Run `name` on JSON arguments and return the JSON result. */
  runJson(name: string, args: readonly unknown[], engine: Engine = DEFAULT_ENGINE): unknown {
    const def = this.definition(name);
    const argTypes = this.argTypesFromJson(name, args);
    const values = args.map((a, i) => valueFromJson(a, argTypes[i]!, describeParam(def, i)));
    const spec = this.specialise(name, argTypes, engine);
    return valueToJson(spec.run(values), spec.resultType);
  }
}

/**
 * Optimise, then hand the program to the engine's back end (src/backends/registry.ts): the optimised program to a
 * compiled back end, the lowered one to the reference interpreter (see Backend.input).
 */
export function prepare(
  lowered: IrFunction,
  argTypes: readonly Type[],
  engine: Engine,
  passes: readonly Pass[],
): Specialised {
  return prepareOptimised(
    lowered,
    timed("pipeline", () => runPipeline(lowered, passes)),
    argTypes,
    engine,
  );
}

/** `prepare` of a program already through its pipeline (`optimised`). */
function prepareOptimised(
  lowered: IrFunction,
  optimised: IrFunction,
  argTypes: readonly Type[],
  engine: Engine,
): Specialised {
  return specialised({ lowered, optimised }, argTypes, engine);
}

export function loadProgram(file: SourceFile, options?: LoadOptions): SmoothProgram {
  return new SmoothProgram(file, options);
}
