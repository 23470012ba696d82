// A TypeScript function over tensors as a target: traced (src/staging/) once per argument types and shapes into one
// Smooth definition, which is loaded like any source and goes through the same compiler.
//
// The tracer hands a tuple parameter to the function as a JS array of tracers; the function sees its own structure
// instead (objects rebuilt from their keys, in the order `describe` used), and may return an object, whose keys are
// remembered so that results come back as objects.

import { loadProgram } from "../api/program.js";
import { functionsOfAll, withProgramFunctions } from "../ir/program-functions.js";
import { mkLam, mkLet, type Expr, type IrFunction } from "../ir/ir.js";
import { lowerEntry } from "../ir/lower.js";
import { fail } from "../syntax/diagnostics.js";
import { stageFunction, type JsFunction } from "../staging/index.js";
import { hiddenOf, staticOf } from "./captured.js";
import { DOUBLE_TREE, isPlainObject, keyOf, treeType, type Tree, type Where } from "./pytree.js";
import { isTransient, type Instance, type Target } from "./target.js";
import { BoundedCache } from "./bounded-cache.js";

/** The argument as the user's function expects it: tuples the tracer gives as JS arrays become objects again. */
function rebuild(param: unknown, tree: Tree): unknown {
  if (tree.k !== "tuple") return param;
  const parts = (param as readonly unknown[]).map((p, i) => rebuild(p, tree.elems[i]!));
  return tree.keys ? Object.fromEntries(tree.keys.map((k, i) => [k, parts[i]])) : parts;
}

/** The function's result as the tracer takes it (objects become JS arrays), and its structure where it has keys. */
function flattenResult(out: unknown): { value: unknown; tree: Tree; keyed: boolean } {
  const parts = isPlainObject(out) ? Object.values(out) : Array.isArray(out) ? out : undefined;
  if (!parts) return { value: out, tree: DOUBLE_TREE, keyed: false };
  const flat = parts.map(flattenResult);
  const keys = isPlainObject(out) ? Object.keys(out) : undefined;
  const tree: Tree = { k: "tuple", elems: flat.map((f) => f.tree), ...(keys ? { keys } : {}) };
  return { value: flat.map((f) => f.value), tree, keyed: keys !== undefined || flat.some((f) => f.keyed) };
}

let staged = 0;

/**
 * `fn` with its last parameters (one per function in `fns`) bound to those functions, as lambdas the inliner removes.
 */
function bindFunctions(fn: IrFunction, fns: readonly IrFunction[]): IrFunction {
  if (fns.length === 0) return fn;
  const n = fn.params.length - fns.length;
  let body = fn.body;
  fns.forEach((g, k) => {
    let lam: Expr = g.body;
    for (let i = g.params.length - 1; i >= 0; i--) lam = mkLam(g.params[i]!, lam);
    body = mkLet(fn.params[n + k]!, lam, body);
  });
  return withProgramFunctions({ name: fn.name, params: fn.params.slice(0, n), body }, functionsOfAll([fn, ...fns]));
}

class StagedTarget implements Target {
  readonly label: string;
  readonly span = undefined;
  private readonly instances = new BoundedCache<string, Instance>();

  constructor(readonly fn: JsFunction) {
    this.label = fn.name ? `the TypeScript function \`${fn.name}\`` : "a TypeScript function";
  }

  hint(): undefined {
    return undefined;
  }

  where(k: number): Where {
    return { what: `argument ${k} of ${this.label}` };
  }

  argument(k: number): string {
    return this.where(k).what;
  }

  checkArity(n: number): void {
    if (n < this.fn.length)
      fail("argument", `${this.label} takes ${this.fn.length} arguments, but ${n} ${n === 1 ? "was" : "were"} given`);
  }

  /** A trace is specific to the arguments' shapes (they are static in the traced program). */
  key(trees: readonly Tree[]): string {
    return keyOf(trees, true);
  }

  instance(trees: readonly Tree[]): Instance {
    const key = this.key(trees);
    const hit = this.instances.get(key);
    if (hit) return hit;
    const argTypes = trees.map(treeType);
    let result: ReturnType<typeof flattenResult> | undefined;
    const wrapped = (...params: unknown[]): unknown => {
      result = flattenResult(this.fn(...params.map((p, k) => rebuild(p, trees[k]!))));
      return result.value;
    };
    const def = stageFunction(wrapped, argTypes, `staged${staged++}`, { shapes: trees.map(staticOf) });
    const program = loadProgram({ name: `<staged ${this.fn.name || "function"}>`, text: def.source });
    const form = result?.keyed ? result.tree : undefined;
    // Library functions the traced one called: extra parameters, bound to their programs.
    const callees = def.externals.map((e) => e.payload as Instance);
    const hidden = def.captures.map((c) => hiddenOf(c.type, c.payload));
    const entryTypes = [...argTypes, ...hidden.map((h) => h.type), ...def.externals.map((e) => e.type)];
    const inst: Instance = {
      argTypes,
      ...(hidden.length > 0 ? { hidden } : {}),
      resultType: def.resultType,
      paramNames: [],
      derivative: callees.some((c) => c.derivative),
      lower: (engine) =>
        bindFunctions(
          lowerEntry(program.checked, def.name, entryTypes),
          callees.map((c) => c.lower(engine)),
        ),
      resultForm: () => form,
    };
    if (!isTransient(inst)) this.instances.set(key, inst);
    return inst;
  }
}

/** The target of a plain TypeScript function (one per function: see targetOf). */
export function stagedTarget(fn: JsFunction): Target {
  return new StagedTarget(fn);
}
