// A TypeScript (or JavaScript) module given as text: its top-level functions, each translated from its source
// (./ts-target.ts) and compiled once per argument types, calling each other and reading the module's constants. This
// is how the CLI reads `smooth grad model.ts --fn loss`, and how a browser (which cannot read closures) gives the
// library a function together with the functions it calls.

import { fail } from "../syntax/diagnostics.js";
import { withoutByteOrderMark } from "../syntax/source.js";
import { parseModule } from "../tsfront/source.js";
import { compiledFunction } from "./compile.js";
import { TsTarget } from "./ts-target.js";
import { checkSourceArguments } from "./module.js";
import type { AnyFunction } from "./types.js";

/** The functions of a TypeScript module, by name: each callable (compiled), and accepted by every transform. */
export type TypeScriptModule = { readonly [name: string]: AnyFunction };

/**
 * The top-level functions of a TypeScript or JavaScript module text (`function f(...) {...}` or `const f = (...) =>
 * ...`), read by acorn with its TypeScript plugin; messages name the text `fileName`. Imports are not followed: the
 * functions may call each other and read the module's numeric constants.
 *
 * @example
 * const m = typescriptModule(`export function f(x: number) { return x * Math.sin(x); }`);
 * grad(m.f)(1); // sin 1 + cos 1
 */
export function typescriptModule(text: string, options: { fileName?: string } = {}): TypeScriptModule {
  checkSourceArguments(text, options, "typescriptModule", "TypeScript or JavaScript");
  const source = parseModule({ name: options.fileName ?? "<typescript>", text: withoutByteOrderMark(text) });
  if (source.functions.size === 0)
    fail("argument", `${source.file.name} declares no function at its top level`, undefined, {
      hint: "write `export function f(x: number) { ... }` or `const f = (x: number) => ...`",
    });
  const module: Record<string, AnyFunction> = {};
  for (const [name, src] of source.functions) {
    const target = new TsTarget(src);
    module[name] = compiledFunction(target, target.label, name);
  }
  return Object.freeze(module);
}
