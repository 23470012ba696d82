// The free names of a function value: what its closure holds. JavaScript gives no access to a closure, but V8's
// inspector does (Node's `node:inspector`, a session in this thread answers synchronously): the function's scopes
// (closure, module, script; not the global one), read lazily by name. Where there is no inspector (a browser) the
// resolver knows nothing, and a free name is an error saying so.

import { fail } from "../syntax/diagnostics.js";
import type { SourceFile } from "../syntax/source.js";
import { parseFunctionText, type FunctionSource, type Resolved, type Resolver } from "./source.js";

interface RemoteObject {
  readonly type: string;
  readonly subtype?: string;
  readonly value?: unknown;
  readonly objectId?: string;
  readonly description?: string;
}
interface PropertyDescriptor {
  readonly name: string;
  readonly value?: RemoteObject;
}
interface Session {
  post(method: string, params: object, callback: (error: Error | null, result: unknown) => void): void;
  connect(): void;
}

let session: Session | null | undefined;

function inspector(): Session | null {
  if (session !== undefined) return session;
  session = null;
  const getBuiltin = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process
    ?.getBuiltinModule;
  const api = getBuiltin?.("node:inspector") as { Session: new () => Session } | undefined;
  if (!api) return null;
  try {
    const s = new api.Session();
    s.connect();
    session = s;
  } catch {
    session = null;
  }
  return session;
}

/** One inspector call, answered synchronously (in-thread sessions dispatch at once). */
function post<T>(s: Session, method: string, params: object): T {
  let result: unknown;
  let error: Error | null = null;
  let answered = false;
  s.post(method, params, (e, r) => {
    error = e;
    result = r;
    answered = true;
  });
  if (!answered) throw new Error(`inspector: ${method} did not answer synchronously`);
  if (error) throw error as Error;
  return result as T;
}

const PROBE = "__smoothClosureProbe";

/** The inspector's handle of a value. */
function remote(s: Session, value: unknown): string {
  const g = globalThis as Record<string, unknown>;
  g[PROBE] = value;
  try {
    const { result } = post<{ result: RemoteObject }>(s, "Runtime.evaluate", { expression: `globalThis.${PROBE}` });
    return result.objectId!;
  } finally {
    delete g[PROBE];
  }
}

/** The value behind a handle. */
function local(s: Session, objectId: string): unknown {
  const g = globalThis as Record<string, unknown>;
  post(s, "Runtime.callFunctionOn", {
    objectId,
    functionDeclaration: `function () { globalThis.${PROBE} = this; }`,
  });
  const value = g[PROBE];
  delete g[PROBE];
  return value;
}

const properties = (s: Session, objectId: string) =>
  post<{ result: readonly PropertyDescriptor[]; internalProperties?: readonly PropertyDescriptor[] }>(
    s,
    "Runtime.getProperties",
    { objectId, ownProperties: true },
  );

/** Where a function is defined (0-based line and column of its script), when the inspector tells. */
export interface Location {
  readonly line: number;
  readonly column: number;
}

/** The resolver of a function value's free names, and where it is defined. */
export function closureOf(fn: (...args: never[]) => unknown): { resolver: Resolver; location?: Location } {
  const s = inspector();
  if (!s)
    return {
      resolver: {
        lookup: () => undefined,
        limitation: "this JavaScript runtime does not let the library read a function's closure",
      },
    };
  const id = remote(s, fn);
  const internal = properties(s, id).internalProperties ?? [];
  const loc = internal.find((p) => p.name === "[[FunctionLocation]]")?.value?.value as
    { lineNumber: number; columnNumber: number } | undefined;
  const scopesId = internal.find((p) => p.name === "[[Scopes]]")?.value?.objectId;
  const scopes = scopesId ? properties(s, scopesId).result : [];
  // Closure, block, script and module scopes, innermost first; the global scope is left out (Math and friends are
  // the translator's own, and user globals are not read).
  const inner = scopes.filter((sc) => sc.value && !/^Global/.test(sc.value.description ?? ""));
  let vars: Map<string, RemoteObject> | undefined;
  const all = (): Map<string, RemoteObject> => {
    if (vars) return vars;
    vars = new Map();
    for (const sc of inner)
      for (const p of properties(s, sc.value!.objectId!).result)
        if (p.value && !vars.has(p.name)) vars.set(p.name, p.value);
    return vars;
  };
  const resolver: Resolver = {
    lookup(name: string): Resolved | undefined {
      const r = all().get(name);
      if (!r) return undefined;
      if (r.type === "number") return { k: "number", value: numberValue(r) };
      if (r.type === "boolean") return { k: "boolean", value: r.value as boolean };
      if ((r.type === "function" || r.type === "object") && r.objectId && r.subtype !== "null")
        return resolveValue(local(s, r.objectId), name);
      return { k: "other", what: r.description ?? r.type };
    },
  };
  return { resolver, ...(loc ? { location: { line: loc.lineNumber, column: loc.columnNumber } } : {}) };
}

/** What a JavaScript value is to the translator (a closure's variable, or a property of an object it holds). */
export function resolveValue(value: unknown, name: string): Resolved {
  if (typeof value === "number") return { k: "number", value };
  if (typeof value === "boolean") return { k: "boolean", value };
  if (typeof value === "function") {
    const f = value as (...args: never[]) => unknown;
    return { k: "function", source: () => functionSource(f, name), value };
  }
  if (
    value instanceof Float64Array ||
    value instanceof Float32Array ||
    value instanceof Int32Array ||
    Array.isArray(value)
  ) {
    const numbers = Array.from(value as ArrayLike<unknown>);
    if (numbers.every((x) => typeof x === "number")) return { k: "numbers", value: numbers };
    return { k: "other", what: "an array that is not of numbers" };
  }
  if (typeof value === "object" && value !== null) return { k: "object", value };
  return { k: "other", what: value === undefined ? "undefined" : typeof value };
}

/** Numbers come as values, except -0, NaN and the infinities, which come as descriptions. */
function numberValue(r: RemoteObject): number {
  if (typeof r.value === "number") return r.value;
  return Number(r.description);
}

const SOURCES = new WeakMap<object, FunctionSource>();

/**
 * The source of a function value: its text (as `toString` gives it) parsed by the TypeScript compiler, with its
 * closure as the resolver of its free names. Messages locate it in its file's lines where the inspector tells them.
 */
export function functionSource(fn: (...args: never[]) => unknown, name = fn.name): FunctionSource {
  const known = SOURCES.get(fn);
  if (known) return known;
  const text = Function.prototype.toString.call(fn);
  const label = name ? `the TypeScript function \`${name}\`` : "a TypeScript function";
  const { resolver, location } = closureOf(fn);
  // The text placed at its line and column, so that messages give the file's line numbers.
  const pad = location ? "\n".repeat(location.line) + " ".repeat(location.column) : "";
  const file: SourceFile = { name: name ? `<function ${name}>` : "<function>", text: pad + text };
  const node = parseFunctionText(text, file, pad.length, label);
  if (!node) fail("unsupported", `the source of ${label} could not be read`);
  const src: FunctionSource = { name: name || "f", node, file, offset: pad.length, scope: resolver, value: fn };
  SOURCES.set(fn, src);
  return src;
}
