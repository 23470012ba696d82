// The TypeScript compiler (the `typescript` package), loaded only when a plain TypeScript function is read: the library
// works without it for Smooth source and functions over tensors. It is an optional peer dependency; in Node it is
// found next to the library, elsewhere (a bundle) it is given with `useTypeScript(ts)`.

import type * as TS from "typescript";
import { fail } from "../syntax/diagnostics.js";
import { givenTypeScript } from "./use-typescript.js";

export type TypeScript = typeof TS;

let compiler: TypeScript | undefined;

/** Whether the compiler is at hand (given, or loadable) without failing. */
export function typescriptAvailable(): boolean {
  try {
    typescript();
    return true;
  } catch {
    return false;
  }
}

/** The TypeScript compiler, loaded on first use. */
export function typescript(): TypeScript {
  compiler ??= givenTypeScript() as TypeScript | undefined;
  if (compiler) return compiler;
  type ModuleApi = { createRequire(from: string): (id: string) => unknown };
  const getBuiltin = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process
    ?.getBuiltinModule;
  const modules = getBuiltin?.("node:module") as ModuleApi | undefined;
  if (modules) {
    try {
      compiler = modules.createRequire(import.meta.url)("typescript") as TypeScript;
      return compiler;
    } catch {
      // Not installed: reported below.
    }
  }
  return fail("unsupported", "differentiating a plain TypeScript function needs the TypeScript compiler", undefined, {
    hint:
      "install it next to the library (npm install typescript), or give it once with useTypeScript(ts); " +
      "Smooth source and functions written with the tensor operations do not need it",
  });
}
