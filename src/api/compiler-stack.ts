// The compiler's stages walk let chains, definitions and operator chains with loops, but nested scopes (a branch
// inside a branch inside a branch ...) with recursion: a program nested thousands of levels deep can exhaust the
// JavaScript stack while it is compiled. That is reported as a SmoothError saying so, not as an internal error.

import { fail } from "../syntax/diagnostics.js";
import type { Span } from "../syntax/source.js";

const isStackOverflow = (e: unknown): boolean => e instanceof RangeError && /call stack/i.test(e.message);

/** `stage()`, with a stack overflow inside it reported as a program (at `span`) nested too deeply to compile. */
export function withinCompilerStack<T>(what: string, stage: () => T, span?: Span): T {
  try {
    return stage();
  } catch (e) {
    if (!isStackOverflow(e)) throw e;
    return fail("unsupported", `${what} is nested too deeply for the compiler (it ran out of stack)`, span, {
      hint:
        "conditionals, loops and functions nested about 10^3 levels deep are the most every stage handles; " +
        "long let chains, operator chains and many definitions are fine",
    });
  }
}
