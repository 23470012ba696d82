// The wasm back end's error sites as data, for the persistent compile cache. A site is a closure (src/wasm/emit.ts,
// failIf) that, given the numbers a failed check saved, calls one method of the module's ErrorRaisers with them and
// with what it captured (spans, types, literal numbers). Modules are written with RECORDABLE_RAISE, which calls the
// runtime's RAISE — except while `recordSite` runs a site on markers in place of the saved numbers: then it gives back
// the method and its arguments. Replaying that record on the numbers saved at run time raises the same error.

import { raiseOutOfMemory, raiseTooLarge, type ErrorRaisers } from "../wasm/memory.js";
import type { RaiseError } from "../wasm/emit.js";
import { RAISE } from "../wasm/runtime.js";
import { Decoder, Encoder, NotCacheable, SavedMarker } from "./data.js";

type Method = keyof ErrorRaisers;

class Recorded extends Error {
  constructor(
    readonly method: Method,
    readonly args: readonly unknown[],
  ) {
    super(`recorded ${method}`);
  }
}

let recording = false;

const METHODS: readonly Method[] = Object.keys(RAISE) as Method[];

/** RAISE, whose calls `recordSite` can capture. */
export const RECORDABLE_RAISE = Object.fromEntries(
  METHODS.map((m) => [
    m,
    (...args: unknown[]): never => {
      if (recording) throw new Recorded(m, args);
      return (RAISE[m] as (...a: unknown[]) => never)(...args);
    },
  ]),
) as unknown as ErrorRaisers;

/** The sites every module has (src/wasm/module.ts), which raise without ErrorRaisers: stored by name. */
const FIXED_SITES: Readonly<Record<string, RaiseError>> = { tooLarge: raiseTooLarge, outOfMemory: raiseOutOfMemory };

/** The call `site` makes when `savedLength` numbers were saved, as JSON (NotCacheable when it cannot be recorded). */
export function recordSite(site: RaiseError, savedLength: number, encoder: Encoder): unknown {
  const fixed = Object.keys(FIXED_SITES).find((name) => FIXED_SITES[name] === site);
  if (fixed !== undefined) return fixed;
  recording = true;
  try {
    site(Array.from({ length: savedLength }, (_, q) => new SavedMarker(q) as unknown as number));
  } catch (e) {
    if (e instanceof Recorded) return { m: e.method, a: encoder.encode(e.args) };
    throw e instanceof NotCacheable ? e : new NotCacheable("an error site raised something else");
  } finally {
    recording = false;
  }
  throw new NotCacheable("an error site that raises nothing");
}

/** The site a record (from recordSite) describes. */
export function replaySite(record: unknown, decoder: Decoder): RaiseError {
  if (typeof record === "string" && Object.hasOwn(FIXED_SITES, record)) return FIXED_SITES[record]!;
  const { m, a } = record as { m: unknown; a: unknown };
  if (typeof m !== "string" || !METHODS.includes(m as Method)) throw new Error("cache entry: a bad error site");
  const method = m as Method;
  return (saved) => (RAISE[method] as (...args: unknown[]) => never)(...(decoder.decode(a, saved) as unknown[]));
}
