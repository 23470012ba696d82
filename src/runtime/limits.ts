// Resource limits, checked before the work rather than discovered by running out of memory: a program (or an input)
// asking for more gets a located SmoothError, in both back ends, instead of an allocation failure or an aborted
// process. One array of Doubles at the limit takes 512 MiB.

import { fail } from "../syntax/diagnostics.js";
import type { Span } from "../syntax/source.js";

/** The most elements one array may have (all its dimensions together); SMOOTH_MAX_ARRAY_ELEMENTS overrides it. */
// (V8's own arrays, which the interpreter builds before stacking, hold at most about 2^27 elements.)
export const MAX_ARRAY_ELEMENTS = limitFromEnvironment("SMOOTH_MAX_ARRAY_ELEMENTS", 2 ** 26);

function limitFromEnvironment(name: string, fallback: number): number {
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
