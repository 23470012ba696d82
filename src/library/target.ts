// What every transform works on: a function the library can specialise to its arguments' types ("target") — a
// definition of a Smooth module, a staged TypeScript function, or a vmapped one — and, once specialised, an entry point
// of a loaded Smooth program ("instance") that src/api/program.ts compiles and differentiates.
//
// Functions handed out by the library are remembered here: which target they call (so `grad(compile(f))` works like
// `grad(f)`) and, for `inspect` and `compilations`, how to find their compiled program.

import { isJsFunction, type JsFunction } from "../staging/index.js";
import type { Specialised, SmoothProgram } from "../api/program.js";
import type { MType } from "../types/mtype.js";
import { fail } from "../syntax/diagnostics.js";
import type { Span } from "../syntax/source.js";
import type { Type } from "../types/types.js";
import { encode } from "./convert.js";
import { describe, type Tree, type Where } from "./pytree.js";
import { stagedTarget } from "./staged.js";
import type { Value } from "../runtime/value.js";
import { NDArray } from "./ndarray.js";

/** A target specialised at its arguments' types: one definition of a loaded Smooth program. */
export interface Instance {
  readonly program: SmoothProgram;
  /** The definition's name in `program`. */
  readonly name: string;
  readonly argTypes: readonly Type[];
  readonly resultType: Type;
  /** The result's structure where it has object keys (a staged function returning an object). */
  readonly resultTree?: Tree;
  /** Names of the parameters, for messages and derivative programs. */
  readonly paramNames: readonly (string | undefined)[];
}

export interface Target {
  /** The function in messages: "`f`", "the TypeScript function `loss`". */
  readonly label: string;
  /** Where the function is defined, for messages (Smooth source only). */
  readonly span?: Span;
  /** The parameter's type in the function's scheme: it tells a tuple from an array and an Index from a Double. */
  hint(k: number): MType | undefined;
  /** How argument k is named in messages. */
  where(k: number): Where;
  /** Fails unless the function takes `n` arguments. */
  checkArity(n: number): void;
  /** Arguments with the same key share one instance (and one compiled program). */
  key(trees: readonly Tree[]): string;
  /** The instance for arguments of these structures (cached by the target). */
  instance(trees: readonly Tree[]): Instance;
}

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

/** Specialisations of one library function, one per argument key, each made once. */
export class Specialisations<E> {
  private readonly entries = new Map<string, { entry: E; inst: Instance }>();
  /** How many specialisations were made (each compiles its program once). */
  count = 0;

  constructor(
    readonly target: Target,
    private readonly make: (inst: Instance, trees: readonly Tree[]) => E,
  ) {}

  lookup(args: readonly unknown[]): { entry: E; inst: Instance; trees: Tree[] } {
    const trees = describeArgs(this.target, args);
    const key = this.target.key(trees);
    let hit = this.entries.get(key);
    if (!hit) {
      const inst = this.target.instance(trees);
      hit = { entry: this.make(inst, trees), inst };
      this.entries.set(key, hit);
      this.count++;
    }
    return { entry: hit.entry, inst: hit.inst, trees };
  }
}

/** What the library knows about a function it handed out. */
export interface LibraryFunction {
  /** The target it calls, when it can itself be transformed (compiled and vmapped functions, module definitions). */
  readonly target?: Target;
  /** What it is, for messages: "grad(`f`)". */
  readonly description: string;
  /** How many programs it has compiled. */
  compilations(): number;
  /** The compiled program it runs for these arguments. */
  program(args: readonly unknown[]): Specialised;
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

/** Staged targets of plain TypeScript functions, one per function (so their traces are cached). */
const STAGED = new WeakMap<JsFunction, Target>();

/** The target of a function given to a transform (`what` names the transform in messages). */
export function targetOf(fn: unknown, what: string): Target {
  if (!isJsFunction(fn))
    fail(
      "argument",
      `${what} expects a function (a Smooth definition or a TypeScript function over tensors), got ${typeof fn}`,
    );
  const known = LIBRARY.get(fn);
  if (known) {
    if (known.target) return known.target;
    fail(
      "unsupported",
      `${what} cannot transform ${known.description}: it is a derivative function, which cannot be staged`,
      undefined,
      {
        hint: "nest derivatives inside Smooth source instead (`vjp`, `jvp`, `grad`, `diff`), or transform the original function",
      },
    );
  }
  let t = STAGED.get(fn);
  if (!t) {
    t = stagedTarget(fn);
    STAGED.set(fn, t);
  }
  return t;
}
