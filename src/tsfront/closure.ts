// The free names of a function value: what its closure holds. JavaScript gives no access to a closure, but V8's
// inspector does (Node's `node:inspector`, a session in this thread answers synchronously): the function's scopes
// (closure, module, script; not the global one). The values of the names the function's text mentions are read once,
// when the function is first read, and the inspector's handles are released at once (each handle keeps its object
// alive). Where there is no inspector (a browser) the resolver knows nothing, and a free name is an error saying so.

import type { SourceFile } from "../syntax/source.js";
import { parseFunctionText } from "./parse.js";
import type { FunctionSource, Resolved, Resolver } from "./source.js";
import type { FunctionNode, Identifier } from "./syntax.js";
import { walkTree } from "./walk.js";

interface RemoteObject {
  readonly type: string;
  readonly subtype?: string;
  readonly value?: unknown;
  readonly unserializableValue?: string;
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
  on(event: string, listener: (message: { params: Record<string, unknown> }) => void): void;
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
/** The handles made while a function is read belong to this group, released when it has been read. */
const GROUP = "smooth-closure";

/** The inspector's handle of a value. */
function remote(s: Session, value: unknown): string {
  const g = globalThis as Record<string, unknown>;
  g[PROBE] = value;
  try {
    const { result } = post<{ result: RemoteObject }>(s, "Runtime.evaluate", {
      expression: `globalThis.${PROBE}`,
      objectGroup: GROUP,
    });
    return result.objectId!;
  } finally {
    delete g[PROBE];
  }
}

/** The value behind a remote object. */
function local(s: Session, r: RemoteObject): unknown {
  if (r.objectId === undefined) {
    if (r.unserializableValue !== undefined) return r.type === "bigint" ? undefined : Number(r.unserializableValue);
    return r.type === "undefined" ? undefined : r.value;
  }
  const g = globalThis as Record<string, unknown>;
  post(s, "Runtime.callFunctionOn", {
    objectId: r.objectId,
    functionDeclaration: `function () { globalThis.${PROBE} = this; }`,
    objectGroup: GROUP,
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

/** Where a function is defined: its script and the 0-based line and column in it, when the inspector tells. */
export interface Location {
  readonly scriptId: string;
  readonly line: number;
  readonly column: number;
}

/** The names a function's text reads that may be free: every identifier that is not a property's name. */
function mentionedNames(node: FunctionNode): Set<string> {
  const names = new Set<string>();
  walkTree(node, true, (n) => {
    if (n.type === "Identifier") names.add((n as Identifier).name);
    return true;
  });
  return names;
}

/** The resolver of a function value's free names (those of `names`), and where it is defined. */
export function closureOf(
  fn: (...args: never[]) => unknown,
  names: ReadonlySet<string>,
): { resolver: Resolver; location?: Location } {
  const s = inspector();
  if (!s)
    return {
      resolver: {
        lookup: () => undefined,
        limitation: "this JavaScript runtime does not let the library read a function's closure",
      },
    };
  const values = new Map<string, unknown>();
  let location: Location | undefined;
  try {
    const internal = properties(s, remote(s, fn)).internalProperties ?? [];
    const loc = internal.find((p) => p.name === "[[FunctionLocation]]")?.value?.value as
      { scriptId: string; lineNumber: number; columnNumber: number } | undefined;
    if (loc) location = { scriptId: loc.scriptId, line: loc.lineNumber, column: loc.columnNumber };
    const scopesId = internal.find((p) => p.name === "[[Scopes]]")?.value?.objectId;
    const scopes = scopesId ? properties(s, scopesId).result : [];
    // Closure, block, script and module scopes, innermost first; the global scope is left out (Math and friends are
    // the translator's own, and user globals are not read).
    for (const sc of scopes) {
      if (!sc.value?.objectId || /^Global/.test(sc.value.description ?? "")) continue;
      for (const p of properties(s, sc.value.objectId).result)
        if (p.value && names.has(p.name) && !values.has(p.name)) values.set(p.name, local(s, p.value));
    }
  } finally {
    post(s, "Runtime.releaseObjectGroup", { objectGroup: GROUP });
  }
  const resolver: Resolver = {
    lookup: (name) => (values.has(name) ? resolveValue(values.get(name), name) : undefined),
  };
  return { resolver, ...(location ? { location } : {}) };
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
  return { k: "other", what: value === undefined ? "undefined" : value === null ? "null" : typeof value };
}

/** The URLs of scripts by id, read from the inspector's debugger when a location is first shown. */
const scriptUrls = new Map<string, string>();
let listening = false;

/** The path (or URL) of a script, for messages; undefined when the inspector does not know it. */
function scriptName(scriptId: string): string | undefined {
  const s = inspector();
  if (s && !scriptUrls.has(scriptId)) {
    if (!listening)
      s.on("Debugger.scriptParsed", (m) => {
        const { scriptId: id, url } = m.params as { scriptId: string; url: string };
        if (url) scriptUrls.set(id, url);
      });
    listening = true;
    // Enabling the debugger reports every script loaded so far (synchronously, in this thread); it is disabled at once.
    try {
      post(s, "Debugger.enable", {});
      post(s, "Debugger.disable", {});
    } catch {
      // No debugger: the function's name stands in for its file.
    }
  }
  const url = scriptUrls.get(scriptId);
  return url?.startsWith("file://") ? decodeURIComponent(url.slice("file://".length)) : url;
}

/** A function value's text as a file: at its line and column in its script, named by the script when known. */
function functionFile(text: string, name: string, location: Location | undefined): SourceFile {
  const fallback = name ? `<function ${name}>` : "<function>";
  if (!location) return { name: fallback, text };
  // The text placed at its line and column, so that messages give the script's line numbers.
  const padded = "\n".repeat(location.line) + " ".repeat(location.column) + text;
  let shown: string | undefined;
  return {
    // Looked up only when a message shows it.
    get name() {
      return (shown ??= scriptName(location.scriptId) ?? fallback);
    },
    text: padded,
    ...(name ? { context: `in \`${name}\`` } : {}),
  };
}

const SOURCES = new WeakMap<object, FunctionSource>();

/**
 * The source of a function value: its text (as `toString` gives it) parsed by acorn, with its closure as the
 * resolver of its free names. Messages locate it in its script's lines where the inspector tells them.
 */
export function functionSource(fn: (...args: never[]) => unknown, name = fn.name): FunctionSource {
  const known = SOURCES.get(fn);
  if (known) return known;
  const text = Function.prototype.toString.call(fn);
  const label = name ? `the TypeScript function \`${name}\`` : "a TypeScript function";
  const unplaced: SourceFile = { name: name ? `<function ${name}>` : "<function>", text };
  const parsed = parseFunctionText(text, unplaced, 0, label);
  const { resolver, location } = closureOf(fn, mentionedNames(parsed.node));
  const file = functionFile(text, name, location);
  const pad = file.text.length - text.length;
  const src: FunctionSource = {
    name: name || parsed.methodName || "f",
    node: parsed.node,
    file,
    offset: parsed.shift + pad,
    scope: resolver,
    value: fn,
  };
  SOURCES.set(fn, src);
  return src;
}
