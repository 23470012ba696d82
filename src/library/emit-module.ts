// emitModule: a function compiled ahead of time into a standalone ES module (src/aot/), for pages that cannot
// evaluate code. The module's `value` is `compile(f)` and its `gradient` is `grad(f)`, both specialised to arguments
// like the example ones; they take and return the same values as the library's functions.

import { generateFunction } from "../codegen/compile.js";
import { hasTangent } from "../ad/dual-types.js";
import { writeModule, type ModuleExport } from "../aot/module.js";
import type { AnyFunction } from "./compile.js";
import { checkWrt, parseArgnums, requireDoubleResult } from "./errors.js";
import { keyOf } from "./pytree.js";
import { describeArgs, targetOf } from "./target.js";

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
  const inst = target.instance(trees);
  const shapes = target.key(trees) !== keyOf(trees, false);
  const common = { argTypes: inst.argTypes, key: keyOf(trees, shapes), shapes };
  const spec = inst.program.specialise(inst.name, inst.argTypes, "js");
  const exports: ModuleExport[] = [
    {
      name: "value",
      generated: generateFunction(spec.optimised),
      data: { ...common, finish: { k: "value", ...(inst.resultTree ? { resultTree: inst.resultTree } : {}) } },
    },
  ];
  const wanted = options.gradient;
  const automatic =
    wanted === undefined && inst.resultType.k === "double" && inst.argTypes.length > 0 && hasTangent(inst.argTypes[0]!);
  if (wanted || automatic) {
    const argnums = parseArgnums(typeof wanted === "object" ? wanted.argnums : undefined, what);
    checkWrt(target, inst, argnums, `${what} (gradient)`);
    requireDoubleResult(target, inst, `${what} (gradient)`, "use a function with one Double output");
    const grad = inst.program.derivative(inst.name, inst.argTypes, argnums.list, "js", undefined, "gradient");
    exports.push({
      name: "gradient",
      generated: generateFunction(grad.optimised),
      data: { ...common, finish: { k: "gradient", argnums: argnums.list, single: argnums.single } },
    });
  }
  return writeModule(exports);
}
