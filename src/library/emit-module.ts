// emitModule: a function compiled ahead of time into a standalone ES module (src/aot/), for pages that cannot
// evaluate code. The module's `value` is `compile(f)` and its `gradient` is `grad(f)`, both specialised to arguments
// like the example ones; they take and return the same values as the library's functions.

import { generateFunction } from "../codegen/compile.js";
import { hasTangent } from "../ad/dual-types.js";
import { writeModule, type ModuleExport } from "../aot/module.js";
import type { AnyFunction } from "./compile.js";
import { keyOf, type Tree } from "./pytree.js";
import { compiledProgram, describeArgs, targetOf, type Target } from "./target.js";
import { grad } from "./transforms.js";
import { fail } from "../syntax/diagnostics.js";

export interface EmitOptions {
  /**
   * Whether to export `gradient`, and with respect to which arguments (as `grad`'s `argnums`). By default the module
   * has a gradient with respect to argument 0 when the function returns a Double and that argument holds Doubles.
   */
  readonly gradient?: boolean | { readonly argnums: number | readonly number[] };
}

/**
 * The text of a standalone ES module (no imports, no eval: it runs under `Content-Security-Policy: script-src 'self'`)
 * exporting `value`, the compiled `fn`, and `gradient`, its gradient with respect to argument 0 (when `fn` returns a
 * Double), each compiled for arguments of the types (for a TypeScript function, the shapes) of `exampleArgs`.
 *
 * @example
 * writeFileSync("loss.mjs", emitModule(m.loss, w, x));
 * // in the page: import { value, gradient } from "./loss.mjs";
 */
export function emitModule(fn: AnyFunction, ...exampleArgs: unknown[]): string {
  return emitModuleWith(fn, exampleArgs, {});
}

/** {@link emitModule} with options (the command line's `smooth compile --module`). */
export function emitModuleWith(fn: AnyFunction, exampleArgs: readonly unknown[], options: EmitOptions): string {
  const what = "emitModule";
  const target = targetOf(fn, what);
  const trees = describeArgs(target, exampleArgs);
  const shapes = target.key(trees) !== keyOf(trees, false);
  // Each export is the program the library itself compiles for that function (grad's for the gradient), so the
  // module computes exactly what the library does; results take the same forms (objects, nested arrays).
  const exported = (name: ModuleExport["name"], t: Target): ModuleExport => {
    const inst = t.instance(trees);
    if (inst.hidden !== undefined)
      fail("unsupported", `${what}: the function reads data from outside it, which a module cannot hold`, undefined, {
        hint: "pass the data as an argument",
      });
    const form: Tree | undefined = inst.resultForm(trees);
    return {
      name,
      generated: generateFunction(compiledProgram(inst).optimised),
      data: {
        argTypes: inst.argTypes,
        key: keyOf(trees, shapes),
        shapes,
        finish: { k: "value", ...(form ? { resultTree: form } : {}) },
      },
    };
  };
  const exports = [exported("value", target)];
  const inst = target.instance(trees);
  const wanted = options.gradient;
  const automatic =
    wanted === undefined && inst.resultType.k === "double" && inst.argTypes.length > 0 && hasTangent(inst.argTypes[0]!);
  if (wanted || automatic) {
    const argnums = typeof wanted === "object" ? wanted.argnums : 0;
    exports.push(exported("gradient", targetOf(grad(fn, { argnums }), `${what} (gradient)`)));
  }
  return writeModule(exports);
}
