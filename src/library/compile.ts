// `compile(f)`: a plain function over library values that runs compiled JavaScript, specialised once per argument
// types (or shapes, for staged functions) and reused for every later call with arguments of the same kind.

import { fail } from "../syntax/diagnostics.js";
import { isStagedCall, stagedCall } from "./staged-call.js";
import type { AnyFunction, CompiledFunction, OnBackend } from "./types.js";
import { decode } from "./convert.js";
import { checkCompileOptions } from "./check.js";
import { backendOf, memoryBudgetOf, threadsOf, type BackendOption } from "./backend-option.js";
import { withClosureReads } from "../tsfront/routes.js";
import {
  compiledProgram,
  isTransient,
  libraryFunction,
  programsCompiled,
  register,
  Specialisations,
  targetOf,
  withHidden,
  type Target,
} from "./target.js";

export type { AnyFunction };

/** The compiled function of `target` (what `compile`, every transform and the functions of a Smooth module return). */
export function compiledFunction(
  target: Target,
  description: string,
  name: string,
  options?: BackendOption,
): AnyFunction {
  const engine = backendOf(options, name);
  const threads = threadsOf(options, name);
  const budget = memoryBudgetOf(options, name);
  const specs = new Specialisations(target);
  // One read of each closure per call: the specialisation and the data passed see the same values.
  const call = (...args: unknown[]): unknown =>
    withClosureReads(() => {
      if (isStagedCall(args)) return stagedCall(target, description, args);
      const { inst, trees, values, inputs } = specs.lookup(args);
      // Called on plain values in a trace, a closure over that trace's tensors is part of it (see ./staged-call.ts).
      if (isTransient(inst)) return stagedCall(target, description, args, { trees, inst });
      const program = compiledProgram(inst, engine, threads, budget);
      const all = withHidden(inst, values);
      const form = inst.resultForm(trees);
      // The webgpu back end's results arrive asynchronously: a promise of the same value.
      if (engine === "webgpu") return program.runAsync(all).then((r) => decode(r, inst.resultType, form, inputs));
      const result = options?.borrowResult === true ? program.runBorrowed(all) : program.run(all);
      return decode(result, inst.resultType, form, inputs);
    });
  // On webgpu every failure, compiling included, is a rejected promise, as an async function's would be.
  const fn =
    engine === "webgpu"
      ? (...args: unknown[]): unknown => {
          if (isStagedCall(args)) return call(...args);
          try {
            return call(...args);
          } catch (e) {
            return Promise.reject(e instanceof Error ? e : new Error(String(e)));
          }
        }
      : call;
  return register(
    fn,
    {
      target,
      description,
      engine,
      compilations: () => specs.count,
      program: (args) => compiledProgram(specs.lookup(args).inst, engine, threads, budget),
      runOn: (args, on) => {
        const { inst, values } = specs.lookup(args);
        return compiledProgram(inst, on, threads, budget).run(withHidden(inst, values));
      },
    },
    name,
  );
}

/**
 * Compiles `f` — a definition of a Smooth module or a TypeScript function over tensors — into a plain function over
 * numbers, Float64Arrays, NDArrays, nested arrays, tuples (JS arrays) and objects. The first call with arguments of
 * a new type (or, for a TypeScript function, new shapes) compiles; later calls reuse that code. `backend` picks the
 * compiled back end: "js" (JavaScript), "wasm" (WebAssembly) or "webgpu" (a GPU, float32; the function returns a
 * promise); `threads`, how many threads wasm may use.
 *
 * @example
 * const m = smooth`let f = fun (v: Vector) -> vectorDot v v`;
 * const f = compile(m.f);
 * f(new Float64Array([1, 2, 3])); // 14
 */
export function compile<F extends AnyFunction, const O extends BackendOption = BackendOption>(
  f: F,
  options?: O,
): OnBackend<O, CompiledFunction<F>> {
  checkCompileOptions(options, "compile");
  const target = targetOf(f, "compile");
  return compiledFunction(target, `compile(${target.label})`, "compiled", options) as OnBackend<O, CompiledFunction<F>>;
}

/**
 * How many programs a function returned by the library (compile, grad, valueAndGrad, jacobian, hessian, vmap, a vjp
 * pullback, a module's definition) has specialised so far: one per argument type (or shape) it was called with (its
 * program may have come from the library's shared programs, compiled for another function of the same source).
 * Without an argument: how many programs the library has compiled in this process.
 */
export function compilations(fn?: AnyFunction): number {
  if (fn === undefined) return programsCompiled();
  const info = libraryFunction(fn);
  if (!info) return fail("argument", "compilations expects a function returned by the Smooth library");
  return info.compilations();
}
