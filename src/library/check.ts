// The checks of what a caller hands the library's functions besides their functions' arguments (those are read by
// ./pytree.ts): options objects, names, texts, flags. Each wrong value is one argument error naming the function and
// what it expected, rather than a TypeError from deeper inside or a silently ignored option.

import { fail } from "../syntax/diagnostics.js";
import { describeJs, isPlainObject } from "./pytree.js";

/** A value for messages: a string quoted, anything else described. */
const shown = (value: unknown): string =>
  typeof value === "string" ? JSON.stringify(value) : typeof value === "number" ? String(value) : describeJs(value);

/**
 * Checks that `options` is undefined or a plain object whose keys are all among `known` (a misspelt option would
 * otherwise be ignored: `{ argnum: 1 }` differentiating with respect to argument 0).
 */
export function checkOptions(options: unknown, what: string, known: readonly string[]): void {
  if (options === undefined) return;
  if (!isPlainObject(options))
    fail("argument", `${what}: the options must be an object, not ${shown(options)}`, undefined, {
      expected: `an object with some of: ${known.join(", ")}`,
    });
  for (const key of Object.keys(options))
    if (!known.includes(key))
      fail("argument", `${what}: unknown option \`${key}\``, undefined, { expected: `one of: ${known.join(", ")}` });
}

/** Checks that an option, when given, is a boolean. */
export function checkFlag(value: unknown, what: string, name: string): void {
  if (value !== undefined && typeof value !== "boolean")
    fail("argument", `${what}: ${name} must be true or false, not ${shown(value)}`);
}

/** Checks that a value is a string (source text, a file name). */
export function checkText(value: unknown, what: string, expected: string): asserts value is string {
  if (typeof value !== "string") fail("argument", `${what} must be ${expected}, not ${shown(value)}`);
}

/** Checks that a value is a function (a callback). */
export function checkCallback(value: unknown, what: string): void {
  if (typeof value !== "function") fail("argument", `${what} must be a function, not ${shown(value)}`);
}

/** The options every function the library compiles takes (./backend-option.ts). */
export const BACKEND_OPTIONS = ["backend", "dtype", "borrowResult", "threads", "memoryBudget"] as const;

/** Checks the options of a function that compiles: only `known` and the back-end options, borrowResult a flag. */
export function checkCompileOptions(options: unknown, what: string, known: readonly string[] = []): void {
  checkOptions(options, what, [...known, ...BACKEND_OPTIONS]);
  checkFlag((options as { borrowResult?: unknown } | undefined)?.borrowResult, what, "borrowResult");
}
