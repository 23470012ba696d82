// The error of staging: the user's TypeScript function did something the tracer cannot turn into a Smooth program.
// It is a plain Error (not a SmoothError): there is no Smooth source to point at, so the message names the operation
// or the argument instead.

export class StagingError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "StagingError";
  }
}

export function stagingFail(message: string): never {
  throw new StagingError(message);
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
