// What every transform works on: a function the library can specialise to its arguments' types ("target") — a
// definition of a Smooth module, a TypeScript function (read from its source, or staged over tensors), or the result
// of another transform — and, once specialised, an IR function of those argument types ("instance"). Transforms build
// their instance's IR from the instance of the function they transform (src/api/derivatives.ts makes the derivative
// programs), so any composition — grad(grad(f)), vmap(grad(f)), jacobian(vmap(f)) — is one IR function, optimised and
// compiled once per argument types.
//
// Functions handed out by the library are remembered here: which target they call (so `grad(compile(f))` works like
// `grad(f)`) and, for `inspect` and `compilations`, how to find their compiled program.

import { withinCompilerStack } from "../api/compiler-stack.js";
import type { Engine, Specialised } from "../api/program.js";
import { prepare } from "../api/program.js";
import type { Subject } from "../api/derivatives.js";
import type { IrFunction } from "../ir/ir.js";
import { DERIVATIVE_PIPELINE, STANDARD_PIPELINE } from "../opt/pipeline.js";
import type { Value } from "../runtime/value.js";
import { isJsFunction, type JsFunction } from "../staging/index.js";
import { fail } from "../syntax/diagnostics.js";
import type { MType } from "../types/mtype.js";
import type { Type } from "../types/types.js";
import { encode } from "./convert.js";
import { NDArray } from "./ndarray.js";
import { plainTarget } from "./plain.js";
import { describe, type Tree, type Where } from "./pytree.js";
import { DEFAULT_LIBRARY_BACKEND } from "./backend-option.js";
import { withWasmThreads } from "../wasm/parallel-run.js";
import { BoundedCache } from "./bounded-cache.js";
import { prepareCached } from "../cache/prepare.js";
import { runPipeline } from "../opt/pass.js";
import { timed } from "../opt/stage-times.js";
import { withClosureReads } from "../tsfront/routes.js";
import { memoryBudget as currentMemoryBudget, withMemoryBudget } from "../runtime/memory-budget.js";

/**
 * A parameter an instance supplies itself, after the caller's arguments: data a traced function closed over, a tensor
 * of a trace being recorded around it (a closure traced inside another function), the residuals of a linear map.
 */
export interface Hidden {
  readonly type: Type;
  /** Its value for a call (data is read at each call). */
  value(): Value;
  /** What a trace that calls the instance passes for it: a tensor, or a value it captures in its turn. */
  readonly staged: unknown;
  /** A tensor of a trace being recorded: the instance can be called only from that trace, and is not kept. */
  readonly transient?: boolean;
}

/** A target specialised at its arguments' types: an IR function of those types. */
export interface Instance {
  readonly argTypes: readonly Type[];
  /** Parameters after argTypes that the instance supplies itself (its IR function takes argTypes ++ these). */
  readonly hidden?: readonly Hidden[];
  readonly resultType: Type;
  /** Names of the parameters, for messages and derivative programs. */
  readonly paramNames: readonly (string | undefined)[];
  /** Derivative code inside: compiled with the derivative pipeline (zero tangents are exact zeros). */
  readonly derivative: boolean;
  /**
   * The function as IR before optimisation (derivatives inside may be unexpanded), a fresh copy on every call so that
   * several copies can live in one program. For `js`, derivative programs are built from the optimised primal.
   */
  lower(engine: Engine): IrFunction;
  /** The form of the result for arguments of these structures (objects, styles of arrays); undefined: the default. */
  resultForm(trees: readonly Tree[]): Tree | undefined;
  /**
   * What identifies the instance's program in the persistent compile cache (src/cache/): its source and every
   * transform on the way; undefined (not cached) where no text says it all (traced functions, hidden parameters).
   */
  readonly cacheKey?: string;
  /**
   * Instances with the same key have the same program (types, hidden parameters' types, IR): they share one compiled
   * program (a closure made afresh in a loop, grad of the same function taken again). Undefined: not shared.
   */
  readonly programKey?: string;
}

/**
 * Programs shared between instances, by kind and program key, held weakly: a program lives as long as some instance
 * (some function of the user's) uses it, so its wasm module and the workers' copies of it go with the last such
 * function (test/wasm/worker-release.test.ts), while a closure made afresh in a loop finds the program the previous
 * one compiled (that instance is still alive, and a WeakRef keeps its target until the current job ends).
 */
const SHARED = new Map<string, WeakRef<object>>();
const FORGET = new FinalizationRegistry<string>((key) => {
  if (SHARED.get(key)?.deref() === undefined) SHARED.delete(key);
});
let compiledSoFar = 0;

/** How many programs the library has compiled in this process (`compilations()`). */
export const programsCompiled = (): number => compiledSoFar;

/**
 * The program `make` compiles for `inst` (`kind` says which: the instance's own, its jvp, ...), shared with every
 * instance of the same program key.
 */
export function sharedProgram<P>(inst: Instance, kind: string, make: () => P): P {
  const key = inst.programKey === undefined ? undefined : `${kind}|${inst.programKey}`;
  const known = key === undefined ? undefined : (SHARED.get(key)?.deref() as P | undefined);
  if (known !== undefined) return known;
  const made = make();
  compiledSoFar++;
  if (key !== undefined && typeof made === "object" && made !== null) {
    SHARED.set(key, new WeakRef(made));
    FORGET.register(made, key);
  }
  return made;
}

/** A program key of an instance built from `inner` by a transform described by `transform` (none if inner has none). */
export const derivedKey = (inner: Instance, transform: string): { programKey?: string } =>
  inner.programKey === undefined ? {} : { programKey: `${transform}(${inner.programKey})` };

export interface Target extends Subject {
  /** The parameter's type in the function's scheme: it tells a tuple from an array and an Index from a Double. */
  hint(k: number): MType | undefined;
  /** How argument k is named in messages. */
  where(k: number): Where;
  /** Fails unless the function takes `n` arguments. */
  checkArity(n: number): void;
  /**
   * Arguments with the same key share one instance (and one compiled program). `values`, when given, are the call's
   * arguments: a target whose program depends on sizes (a Jacobian's mode) may look at them.
   */
  key(trees: readonly Tree[], values?: () => readonly Value[]): string;
  /** The instance for arguments of these structures (cached by the target). */
  instance(trees: readonly Tree[], values?: () => readonly Value[]): Instance;
}

/** Subject.argument from Target.where, for targets that define `where`. */
export const argumentOf = (t: { where(k: number): Where }, k: number): string => t.where(k).what;

/** The structures of a call's arguments. */
export function describeArgs(target: Target, args: readonly unknown[]): Tree[] {
  target.checkArity(args.length);
  return args.map((a, k) => describe(a, target.hint(k), target.where(k)));
}

/** The arguments as runtime values, and their buffers (results sharing one are copied, see decode). */
export function encodeArgs(
  target: Target,
  args: readonly unknown[],
  trees: readonly Tree[],
): { values: Value[]; inputs: ArrayBufferLike[] } {
  const inputs: ArrayBufferLike[] = [];
  const values = args.map((a, k) => {
    if (a instanceof Float64Array || a instanceof Int32Array) inputs.push(a.buffer);
    else if (a instanceof NDArray) inputs.push(a.data.buffer);
    return encode(a, trees[k]!, () => target.where(k));
  });
  return { values, inputs };
}

/** The types of all parameters of the instance's IR function: the arguments', then the hidden ones. */
export const paramTypes = (inst: Instance): Type[] => [...inst.argTypes, ...(inst.hidden ?? []).map((h) => h.type)];

/** The call's values followed by the hidden parameters' (what the instance's program runs on). */
export const withHidden = (inst: Instance, values: readonly Value[]): Value[] =>
  inst.hidden === undefined ? [...values] : withClosureReads(() => [...values, ...inst.hidden!.map((h) => h.value())]);

/** The hidden parameters of `inner`, for an instance built on it (which takes them after its own arguments too). */
export const hiddenOfInner = (inner: Instance): { hidden?: readonly Hidden[] } =>
  inner.hidden === undefined ? {} : { hidden: inner.hidden };

/** Whether the instance captured a tensor of a trace being recorded (it is specific to that trace, and not kept). */
export const isTransient = (inst: Instance): boolean => inst.hidden?.some((h) => h.transient === true) ?? false;

const COMPILED = new WeakMap<Instance, Map<string, Specialised>>();

/**
 * The instance's program, optimised and compiled for a compiled back end (once per instance, back end, number of
 * threads — undefined is the default, SMOOTH_THREADS or the cores — and memory budget of reverse mode's tapes,
 * undefined: the default, src/runtime/memory-budget.ts).
 */
export function compiledProgram(
  inst: Instance,
  engine: Engine = DEFAULT_LIBRARY_BACKEND,
  threads?: number,
  memoryBudget?: number,
): Specialised {
  let byEngine = COMPILED.get(inst);
  if (!byEngine) COMPILED.set(inst, (byEngine = new Map<string, Specialised>()));
  const key = `${engine}/${threads ?? ""}/${memoryBudget ?? ""}`;
  let spec = byEngine.get(key);
  if (!spec) {
    const passes = inst.derivative ? DERIVATIVE_PIPELINE : STANDARD_PIPELINE;
    const known = inst.cacheKey;
    // The memory budget is a literal of reverse-mode programs (src/runtime/memory-budget.ts): part of the key.
    const budget = withMemoryBudget(memoryBudget, currentMemoryBudget);
    const request = known === undefined ? undefined : JSON.stringify([known, passes.map((p) => p.name), budget]);
    // A program nested too deeply for the compiler is a SmoothError here too, not a RangeError.
    spec = sharedProgram(inst, key, () =>
      withinCompilerStack("the function", () =>
        withWasmThreads(threads, () =>
          withMemoryBudget(memoryBudget, () =>
            prepareCached(request, engine, paramTypes(inst), () => {
              const lowered = inst.lower(engine);
              return { lowered, optimised: timed("pipeline", () => runPipeline(lowered, passes)) };
            }),
          ),
        ),
      ),
    );
    byEngine.set(key, spec);
  }
  return spec;
}

/** The instance's program for the reference interpreter (tests compare it with the compiled one). */
export function interpretedProgram(inst: Instance): Specialised {
  return prepare(inst.lower("interp"), paramTypes(inst), "interp", []);
}

/** One call: the argument structures, their values, and the instance they select. */
export interface Call {
  readonly inst: Instance;
  readonly trees: readonly Tree[];
  readonly values: readonly Value[];
  readonly inputs: readonly ArrayBufferLike[];
}

/** Specialisations of one library function, one per argument key, made once while the cache keeps them. */
export class Specialisations {
  private readonly entries = new BoundedCache<string, Instance>();
  /** How many specialisations were made (each compiles its program once; one dropped and needed again, again). */
  count = 0;

  constructor(readonly target: Target) {}

  lookup(args: readonly unknown[]): Call {
    return withClosureReads(() => this.find(args));
  }

  private find(args: readonly unknown[]): Call {
    const trees = describeArgs(this.target, args);
    const encoded = encodeArgs(this.target, args, trees);
    const values = () => encoded.values;
    const key = this.target.key(trees, values);
    let inst = this.entries.get(key);
    if (!inst) {
      inst = this.target.instance(trees, values);
      if (!isTransient(inst)) this.entries.set(key, inst);
      this.count++;
    }
    return { inst, trees, values: encoded.values, inputs: encoded.inputs };
  }
}

/** What the library knows about a function it handed out. */
export interface LibraryFunction {
  /** The target it calls, when it can itself be transformed. */
  readonly target?: Target;
  /** What it is, for messages: "grad(`f`)". */
  readonly description: string;
  /** How many programs it has compiled. */
  compilations(): number;
  /** The compiled program it runs for these arguments. */
  program(args: readonly unknown[]): Specialised;
  /** The back end it runs on (jvp, vjp and linearize of it run there too). */
  readonly engine?: Engine;
  /** Runs it on these arguments with its program compiled for `engine` (`inspect` runs JavaScript to report). */
  runOn?(args: readonly unknown[], engine: Engine): Value;
}

const LIBRARY = new WeakMap<JsFunction, LibraryFunction>();

/** Remembers `fn` as a library function; returns it. */
export function register<F extends JsFunction>(fn: F, info: LibraryFunction, name?: string): F {
  LIBRARY.set(fn, info);
  if (name !== undefined) Object.defineProperty(fn, "name", { value: name });
  return fn;
}

export const libraryFunction = (fn: unknown): LibraryFunction | undefined =>
  isJsFunction(fn) ? LIBRARY.get(fn) : undefined;

/** The back end a transform of `fn` that runs programs itself (jvp, vjp, linearize) uses: fn's, or the default. */
export const engineOf = (fn: unknown): Engine => libraryFunction(fn)?.engine ?? DEFAULT_LIBRARY_BACKEND;

/** Targets of plain functions, one per function (so their translations and traces are cached). */
const PLAIN = new WeakMap<JsFunction, Target>();

/** The target of a function given to a transform (`what` names the transform in messages). */
export function targetOf(fn: unknown, what: string): Target {
  if (!isJsFunction(fn))
    fail("argument", `${what} expects a function (a Smooth definition or a TypeScript function), got ${typeof fn}`);
  const known = LIBRARY.get(fn);
  if (known) {
    if (known.target) return known.target;
    fail("unsupported", `${what} cannot transform ${known.description}`, undefined, {
      hint: "transform the function it was made from instead",
    });
  }
  let t = PLAIN.get(fn);
  if (!t) {
    t = plainTarget(fn);
    PLAIN.set(fn, t);
  }
  return t;
}
