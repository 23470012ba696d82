// Resource limits, checked before the work rather than discovered by running out of memory: a program (or an input)
// asking for more gets a located SmoothError, in both back ends, instead of an allocation failure or an aborted
// process. One array of Doubles at the limit takes 512 MiB.

import { fail } from "../syntax/diagnostics.js";
import type { Span } from "../syntax/source.js";

/** The most elements one array may have (all its dimensions together); SMOOTH_MAX_ARRAY_ELEMENTS overrides it. */
// (V8's own arrays, which the interpreter builds before stacking, hold at most about 2^27 elements.)
export const MAX_ARRAY_ELEMENTS = limitFromEnvironment("SMOOTH_MAX_ARRAY_ELEMENTS", 2 ** 26);

/**
 * The most calls compiled code keeps pending at once (recursion depth); SMOOTH_MAX_CALL_DEPTH overrides it. Past the
 * JavaScript stack, pending calls live on a heap stack of about 200 bytes each: 10^6 of them take some 200 MB, and a
 * recursion that does not end stops here with a located error instead of exhausting the heap.
 */
export const MAX_CALL_DEPTH_COMPILED = limitFromEnvironment("SMOOTH_MAX_CALL_DEPTH", 10 ** 6);

/** The deepest nesting of arrays and objects an argument may have (no Smooth value is nested that deeply). */
export const MAX_ARGUMENT_NESTING = 256;

export function limitFromEnvironment(name: string, fallback: number): number {
  // Through globalThis: the core also runs in browsers, where there is no `process`.
  const host = globalThis as { process?: { env?: Record<string, string | undefined> } };
  const text = host.process?.env?.[name];
  const n = text === undefined ? NaN : Number(text);
  return Number.isSafeInteger(n) && n > 0 ? n : fallback;
}

/** The error of an array of `n` elements, over the limit, made by `what` (a build, a tape). */
export function arrayTooLarge(what: string, n: number, span: Span | undefined): never {
  return fail("shape", `${what} of ${n} elements is over the limit of ${MAX_ARRAY_ELEMENTS} elements`, span, {
    hint: "set SMOOTH_MAX_ARRAY_ELEMENTS to allow larger arrays, if the machine has the memory",
  });
}

/** The error of compiled code whose recursion, at the call at `span`, is deeper than the limit. */
export function recursionTooDeep(span: Span | undefined): never {
  return fail("recursion", `recursion deeper than ${MAX_CALL_DEPTH_COMPILED} pending calls`, span, {
    hint: "a recursion that does not reach its base case? SMOOTH_MAX_CALL_DEPTH sets the limit, if the machine has the memory",
  });
}
