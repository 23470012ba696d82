// The error of staging: the user's TypeScript function did something the tracer cannot turn into a Smooth program.
// A SmoothError of kind "staging" whose message is the summary alone: there is no Smooth source to point at, so the
// message names the operation or the argument, and where in the user's code it happened (the first frame of the
// call stack outside Smooth).

import { SmoothError } from "../syntax/diagnostics.js";

export class StagingError extends SmoothError {
  constructor(message: string) {
    super("staging", message);
    // (SmoothError's name is not writable: defined again.)
    Object.defineProperty(this, "name", { value: "StagingError", enumerable: false, configurable: true });
    this.message = message;
  }
}

export function stagingFail(message: string): never {
  const site = userSite();
  throw new StagingError(site ? `${message} (at ${site})` : message);
}

/** The file:line:column at the end of a stack frame's line (a file URL's scheme dropped). */
const framePlace = (line: string): string | undefined =>
  /\(?((?:file:\/\/)?[^()\s]+:\d+:\d+)\)?\s*$/.exec(line)?.[1]?.replace(/^file:\/\//, "");

/**
 * Where Smooth's own code is: the src/ or dist/ folder this module runs from (its sources, the tsc build, or the
 * bundles in dist/bundle and dist/browser), or, bundled into someone else's file, that file.
 */
const OWN_CODE: string | undefined = (() => {
  const place = framePlace(new Error().stack?.split("\n")[1] ?? "");
  const file = place?.replace(/:\d+:\d+$/, "");
  return file?.replace(/^(.*[\\/](?:src|dist)[\\/]).*$/, "$1");
})();

/** Frames of the runtime and the test runner, skipped when locating the user's code. */
const RUNTIME_FRAMES = /node:internal|node_modules[\\/](vitest|@vitest|vite)[\\/]/;

/** `file:line:column` of the innermost call in the user's code, from the current call stack (or a captured one). */
export function userSite(captured: Error = new Error()): string | undefined {
  const stack = captured.stack?.split("\n").slice(1) ?? [];
  for (const line of stack) {
    if (RUNTIME_FRAMES.test(line)) continue;
    const place = framePlace(line);
    if (place && !(OWN_CODE !== undefined && place.startsWith(OWN_CODE))) return place;
  }
  return undefined;
}

/** A short description of a JavaScript value the tracer was given, for error messages (never the whole value). */
export function describeJsValue(v: unknown): string {
  if (v === undefined) return "undefined";
  if (v === null) return "null";
  switch (typeof v) {
    case "string":
      return `the string ${JSON.stringify(v.length > 20 ? `${v.slice(0, 20)}…` : v)}`;
    case "boolean":
      return `the JavaScript boolean ${String(v)}`;
    case "number":
      return `the number ${String(v)}`;
    case "bigint":
      return "a bigint";
    case "symbol":
      return "a symbol";
    case "function":
      return "a function";
    default: {
      if (Array.isArray(v)) return `a JavaScript array of ${v.length} element${v.length === 1 ? "" : "s"}`;
      const ctor = (v as { constructor?: { name?: unknown } }).constructor?.name;
      return typeof ctor === "string" && ctor !== "Object" ? `a ${ctor} object` : "an object";
    }
  }
}
