// The error of staging: the user's TypeScript function did something the tracer cannot turn into a Smooth program.
// It is a plain Error (not a SmoothError): there is no Smooth source to point at, so the message names the operation
// or the argument, and where in the user's code it happened (the first frame of the call stack outside Smooth).

export class StagingError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "StagingError";
  }
}

export function stagingFail(message: string): never {
  const site = userSite();
  throw new StagingError(site ? `${message} (at ${site})` : message);
}

/**
 * Frames of Smooth itself (its sources, its modules and its bundles: dist/bundle/core.cjs, dist/browser/smooth.mjs)
 * and of the runtime, skipped when locating the user's code.
 */
const OWN_FRAMES =
  /[\\/](src|dist)[\\/](staging|library|tsfront|api|index)|[\\/]dist[\\/](bundle|browser)[\\/]|node:internal|node_modules[\\/](vitest|@vitest|vite)/;

/** `file:line:column` of the innermost call in the user's code, from the current call stack (or a captured one). */
export function userSite(captured: Error = new Error()): string | undefined {
  const stack = captured.stack?.split("\n").slice(1) ?? [];
  for (const line of stack) {
    if (OWN_FRAMES.test(line)) continue;
    const m = /\(?((?:file:\/\/)?[^()\s]+:\d+:\d+)\)?\s*$/.exec(line);
    if (m) return m[1]!.replace(/^file:\/\//, "");
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
