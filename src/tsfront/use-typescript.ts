// Where the library keeps the TypeScript compiler it was given (`useTypeScript`), apart from ./compiler.ts so that the
// public declarations do not mention the `typescript` package's types (it is an optional peer dependency).

import { fail } from "../syntax/diagnostics.js";

let given: unknown;

/** Gives the library the TypeScript compiler to read plain functions with (where it cannot load it itself). */
export function useTypeScript(ts: unknown): void {
  const candidate = ts as { createSourceFile?: unknown; forEachChild?: unknown } | undefined;
  if (typeof candidate?.createSourceFile !== "function" || typeof candidate.forEachChild !== "function")
    fail("argument", 'useTypeScript expects the `typescript` module (import * as ts from "typescript")');
  given = ts;
}

/** The compiler given with useTypeScript, if any. */
export const givenTypeScript = (): unknown => given;
