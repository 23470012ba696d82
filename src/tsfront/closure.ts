// The free names of a function value: what its closure holds. JavaScript gives no portable access to a closure; two
// ways are used, in this order:
//  - an accessor attached to the function (`withClosure`, which Smooth's bundler plugin writes around the functions
//    given to transforms and a module's top-level functions: src/plugin/): it returns the closure's variables;
//  - V8's inspector (Node's `node:inspector`, a session in this thread answers synchronously): the function's scopes
//    (closure, block, script, module; not the global one), read by one function the inspector runs on them, which
//    picks the names asked for. The inspector's handles are released after each read (each keeps its object alive).
// Where neither is there (a browser bundle made without the plugin) nothing can be read, and a free name is an error
// that names the plugin.
//
// A read gives the variables' values at that moment: the library reads them again at each call of a compiled
// function (./routes.ts), so a closure sees its variables' current values, as JavaScript would.

import type { SourceFile } from "../syntax/source.js";
import { parseClassText, parseFunctionText } from "./parse.js";
import { classInfo, type ClassInfo } from "./classes.js";
import type { FunctionSource, Resolved, Resolver } from "./source.js";
import type { FunctionNode, Identifier } from "./syntax.js";
import { constantNames } from "./constant-names.js";
import { walkTree } from "./walk.js";
import { accessorOf, type ClosureRead } from "./with-closure.js";

export { withClosure } from "./with-closure.js";

type AnyFn = (...args: never[]) => unknown;

interface RemoteObject {
  readonly type: string;
  readonly value?: unknown;
  readonly objectId?: string;
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

/**
 * Run by the inspector on a function's scope list (entries `{ description, object }`, innermost first): the values of
 * `names` in the innermost scope holding each, the global scope left out (Math and friends are the translator's own,
 * and user globals are not read), put where the library picks them up.
 */
const PICK = `function (names, probe) {
  const found = {};
  for (let i = 0; i < this.length; i++) {
    const scope = this[i];
    if (/^Global/.test(scope.description)) continue;
    for (const n of names)
      if (!Object.prototype.hasOwnProperty.call(found, n) && Object.prototype.hasOwnProperty.call(scope.object, n))
        found[n] = scope.object[n];
  }
  globalThis[probe] = found;
}`;

/** Where a function is defined: its script and the 0-based line and column in it, when the inspector tells. */
export interface Location {
  readonly scriptId: string;
  readonly line: number;
  readonly column: number;
}

/** A function's scopes read through the inspector: the values of `names` found, and where it is defined. */
function inspect(
  s: Session,
  fn: AnyFn,
  names: readonly string[],
): { values: Map<string, unknown>; location?: Location } {
  const g = globalThis as Record<string, unknown>;
  const values = new Map<string, unknown>();
  let location: Location | undefined;
  try {
    g[PROBE] = fn;
    const { result } = post<{ result: RemoteObject }>(s, "Runtime.evaluate", {
      expression: `globalThis.${PROBE}`,
      objectGroup: GROUP,
    });
    delete g[PROBE];
    const internal =
      post<{ internalProperties?: readonly PropertyDescriptor[] }>(s, "Runtime.getProperties", {
        objectId: result.objectId,
        ownProperties: true,
      }).internalProperties ?? [];
    const loc = internal.find((p) => p.name === "[[FunctionLocation]]")?.value?.value as
      { scriptId: string; lineNumber: number; columnNumber: number } | undefined;
    if (loc) location = { scriptId: loc.scriptId, line: loc.lineNumber, column: loc.columnNumber };
    const scopes = internal.find((p) => p.name === "[[Scopes]]")?.value?.objectId;
    if (scopes && names.length > 0) {
      post(s, "Runtime.callFunctionOn", {
        objectId: scopes,
        functionDeclaration: PICK,
        arguments: [{ value: names }, { value: PROBE }],
        objectGroup: GROUP,
      });
      const found = g[PROBE] as Record<string, unknown> | undefined;
      if (found) for (const n of Object.keys(found)) values.set(n, found[n]);
    }
  } finally {
    delete g[PROBE];
    post(s, "Runtime.releaseObjectGroup", { objectGroup: GROUP });
  }
  return { values, ...(location ? { location } : {}) };
}

/**
 * The call whose closure reads are being made (./routes.ts sets it around a call; 0 outside one): a function's first
 * read made during a call serves as that call's read too.
 */
export const readsInProgress = { call: 0 };

/** Why a closure cannot be read here, for messages. */
export const NO_CLOSURE_READER =
  "this JavaScript runtime does not let the library read a function's closure (a browser has no inspector)";

/** How to make a closure readable where there is no inspector. */
export const PLUGIN_HINT =
  "bundle with Smooth's plugin, which passes a closure's variables to the library: " +
  '`import { smoothEsbuild, smoothVite } from "smooth-ad/plugin"`, then `plugins: [smoothEsbuild()]` in esbuild\'s ' +
  "options or `plugins: [smoothVite()]` in vite.config (README: Closures in the browser); or pass the data as an " +
  "argument, or mark the function yourself: withClosure(f, () => ({ X }))";

/**
 * The current values of `names` in `fn`'s closure (those it has), or undefined where the closure cannot be read.
 * `names` should be the names the function's text mentions (see `freeNames`).
 */
export function readClosure(fn: AnyFn, names: readonly string[]): Map<string, unknown> | undefined {
  const accessor = accessorOf(fn);
  if (accessor) {
    const all = accessor.read();
    const values = new Map<string, unknown>();
    if (Array.isArray(all)) {
      const listed = accessorNames(accessor.read);
      listed.forEach((n, i) => n !== undefined && values.set(n, all[i]));
    } else {
      const vars = all as Record<string, unknown>;
      for (const n of names) if (Object.prototype.hasOwnProperty.call(vars, n)) values.set(n, vars[n]);
    }
    return values;
  }
  const s = inspector();
  return s ? inspect(s, fn, names).values : undefined;
}

const ACCESSOR_NAMES = new Map<string, readonly (string | undefined)[]>();

/** The names an accessor `() => [X, y]` lists, from its text (an element that is not a name: undefined). */
function accessorNames(read: ClosureRead): readonly (string | undefined)[] {
  const text = Function.prototype.toString.call(read);
  let names = ACCESSOR_NAMES.get(text);
  if (!names) {
    const file: SourceFile = { name: "<closure accessor>", text };
    const { node } = parseFunctionText(text, file, 0, "a closure's accessor");
    const body = node.body;
    const list =
      body.type === "ArrayExpression"
        ? body
        : body.type === "BlockStatement" && body.body[0]?.type === "ReturnStatement"
          ? body.body[0].argument
          : undefined;
    if (list?.type !== "ArrayExpression")
      throw new TypeError("withClosure: an accessor returning an array must be written `() => [a, b, ...]`");
    names = list.elements.map((e) => (e?.type === "Identifier" ? e.name : undefined));
    ACCESSOR_NAMES.set(text, names);
  }
  return names;
}

/** Names the translator reads itself, never from a closure. */
const OWN_GLOBALS = new Set(["Math", "Number", "Infinity", "NaN", "undefined", "console", "Array", "Object"]);
export const isOwnGlobal = (name: string): boolean => OWN_GLOBALS.has(name);

/** The names a function's text reads that may be free: every identifier that is not a property's name. */
export function mentionedNames(node: FunctionNode): string[] {
  const names = new Set<string>();
  walkTree(node, true, (n) => {
    if (n.type === "Identifier") names.add((n as Identifier).name);
    return true;
  });
  for (const g of OWN_GLOBALS) names.delete(g);
  return [...names];
}

/**
 * What a JavaScript value is to the translator (a closure's variable, or a property of an object it holds): a function
 * (translated from its source), data (numbers, booleans, arrays, typed arrays, objects: read at each call and passed
 * to the compiled code), or something Smooth cannot read.
 */
export function resolveValue(value: unknown, name: string): Resolved {
  if (typeof value === "function" && /^class\b/.test(Function.prototype.toString.call(value))) {
    const c = value as AnyFn;
    return { k: "class", info: () => classSource(c, name) };
  }
  if (typeof value === "function") {
    const f = value as AnyFn;
    return { k: "function", source: () => functionSource(f, name), value };
  }
  if (typeof value === "number" || typeof value === "boolean" || (typeof value === "object" && value !== null))
    return { k: "data", value };
  return { k: "other", what: value === undefined ? "undefined" : value === null ? "null" : `a ${typeof value}` };
}

/** The property `name` of a free object (data, or a module namespace), resolved as a free name is. */
export function memberOf(r: Resolved, name: string): Resolved | undefined {
  if (r.k !== "data") return undefined;
  if (r.member) return r.member(name);
  const v = r.value;
  if (typeof v !== "object" || v === null || Array.isArray(v) || ArrayBuffer.isView(v) || !(name in v))
    return undefined;
  return resolveValue((v as Record<string, unknown>)[name], name);
}

/** A script's text as V8 runs it (the inspector's debugger, enabled for the moment it takes). */
function scriptSource(scriptId: string): string | undefined {
  const s = inspector();
  if (!s) return undefined;
  try {
    post(s, "Debugger.enable", {});
    return post<{ scriptSource: string }>(s, "Debugger.getScriptSource", { scriptId }).scriptSource;
  } catch {
    return undefined;
  } finally {
    try {
      post(s, "Debugger.disable", {});
    } catch {
      // (Disabled already.)
    }
  }
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

/** A plugin's site, "file:line:column" (1-based line), as a file name and 0-based line and column. */
function parseSite(site: string): { name: string; line: number; column: number } | undefined {
  const m = /^(.*):(\d+):(\d+)$/.exec(site);
  return m ? { name: m[1]!, line: Math.max(0, Number(m[2]) - 1), column: Number(m[3]) } : undefined;
}

/** A function value's text as a file: at its line and column in its script, named by the script when known. */
function functionFile(text: string, name: string, place: { location?: Location; site?: string }): SourceFile {
  const fallback = name ? `<function ${name}>` : "<function>";
  const context = name ? { context: `in \`${name}\`` } : {};
  const { location } = place;
  const fromSite = !location && place.site ? parseSite(place.site) : undefined;
  if (fromSite)
    return { name: fromSite.name, text: "\n".repeat(fromSite.line) + " ".repeat(fromSite.column) + text, ...context };
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
    ...context,
  };
}

/**
 * A function value's source. Its closure is first read when something needs it — a free name looked up, where it is
 * written (for messages and the translation cache), the values at a call — and that one read gives all of them: a
 * closure made afresh and called at once is read once.
 */
class ValueSource implements FunctionSource {
  readonly name: string;
  readonly node: FunctionNode;
  readonly freeNames: readonly string[];
  readonly scope: Resolver;
  /** The first read (an object of its own, so that a source made from this one by Object.create shares it). */
  private readonly state: {
    read?: {
      values?: Map<string, unknown>;
      location?: Location;
      site?: string;
      file?: SourceFile;
      call?: number;
      constant?: ReadonlySet<string>;
    };
  } = {};

  constructor(
    readonly value: AnyFn,
    private readonly text: string,
    parsed: { node: FunctionNode; shift: number; methodName?: string },
    private readonly fnName: string,
  ) {
    this.name = fnName || parsed.methodName || "f";
    this.node = parsed.node;
    this.shift = parsed.shift;
    this.freeNames = mentionedNames(parsed.node);
    const limitation = accessorOf(value) || inspector() ? undefined : NO_CLOSURE_READER;
    this.scope = {
      lookup: (name) => {
        const values = this.first().values;
        return values?.has(name) ? resolveValue(values.get(name), name) : undefined;
      },
      ...(limitation ? { limitation } : {}),
    };
  }

  private readonly shift: number;

  get file(): SourceFile {
    const r = this.first();
    const place = { ...(r.location ? { location: r.location } : {}), ...(r.site ? { site: r.site } : {}) };
    return (r.file ??= functionFile(this.text, this.fnName, place));
  }

  get offset(): number {
    return this.shift + this.file.text.length - this.text.length;
  }

  get site(): string | undefined {
    return this.first().site;
  }

  /** The closure's values now (the first read's, if this is the first). */
  current(): Map<string, unknown> | undefined {
    const { read } = this.state;
    if (!read || (read.call !== undefined && read.call === readsInProgress.call)) return this.first().values;
    if (read.values && this.unchanging(read)) return read.values;
    return readClosure(this.value, this.freeNames);
  }

  /**
   * Whether every variable the first read found can never change (./constant-names.ts: a `const`, or a declaration
   * nothing assigns) and had a value then: its read serves every call (the arrays' contents are read at each call).
   */
  private unchanging(read: NonNullable<ValueSource["state"]["read"]>): boolean {
    const { location, values } = read;
    if (!location || !values) return false;
    read.constant ??= constantNames(
      location.scriptId,
      location.line,
      location.column,
      this.text,
      this.freeNames,
      scriptSource,
    );
    for (const [name, value] of values) if (value === undefined || !read.constant.has(name)) return false;
    return true;
  }

  private first(): NonNullable<ValueSource["state"]["read"]> {
    const { state } = this;
    if (state.read) return state.read;
    const call = readsInProgress.call === 0 ? {} : { call: readsInProgress.call };
    const accessor = accessorOf(this.value);
    if (accessor) {
      const values = readClosure(this.value, this.freeNames)!;
      return (state.read = { values, ...call, ...(accessor.site ? { site: accessor.site } : {}) });
    }
    const s = inspector();
    if (!s) return (state.read = {});
    const { values, location } = inspect(s, this.value, this.freeNames);
    const site = location ? `${location.scriptId}:${location.line}:${location.column}` : undefined;
    return (state.read = { values, ...call, ...(location ? { location } : {}), ...(site ? { site } : {}) });
  }
}

const SOURCES = new WeakMap<object, ValueSource>();
const CLASSES = new WeakMap<object, ClassInfo>();

/**
 * A class value read as functions are: its text parsed, its closure (read once, through the inspector) the resolver
 * of its free names.
 */
function classSource(c: AnyFn, name: string): ClassInfo {
  const known = CLASSES.get(c);
  if (known) return known;
  const text = Function.prototype.toString.call(c);
  const parsed = parseClassText(text, { name: `<class ${name}>`, text }, 0, `the class \`${name}\``);
  const names = new Set<string>();
  walkTree(parsed.node, true, (n) => {
    if (n.type === "Identifier") names.add((n as Identifier).name);
    return true;
  });
  for (const g of OWN_GLOBALS) names.delete(g);
  const s = inspector();
  const { values, location } = s ? inspect(s, c, [...names]) : { values: undefined, location: undefined };
  const scope: Resolver = {
    lookup: (n) => (values?.has(n) ? resolveValue(values.get(n), n) : undefined),
    ...(s ? {} : { limitation: NO_CLOSURE_READER }),
  };
  const file = functionFile(text, name, location ? { location } : {});
  const info = classInfo(parsed.node, name, file, parsed.shift + file.text.length - text.length, scope);
  CLASSES.set(c, info);
  return info;
}

/**
 * The source of a function value: its text (as `toString` gives it) parsed by acorn, with its closure as the
 * resolver of its free names. Messages locate it in its script's lines where the inspector or the plugin tells them.
 */
export function functionSource(fn: AnyFn, name = fn.name): FunctionSource {
  return valueSource(fn, name);
}

function valueSource(fn: AnyFn, name = fn.name): ValueSource {
  const known = SOURCES.get(fn);
  if (known) return known;
  const text = Function.prototype.toString.call(fn);
  const label = name ? `the TypeScript function \`${name}\`` : "a TypeScript function";
  const unplaced: SourceFile = { name: name ? `<function ${name}>` : "<function>", text };
  const src = new ValueSource(fn, text, parseFunctionText(text, unplaced, 0, label), name);
  SOURCES.set(fn, src);
  return src;
}

/**
 * The current values of a function value's free names (undefined where its closure cannot be read here): a call's
 * read. A function not read before is read once for this and for where it is written.
 */
export const currentClosure = (fn: AnyFn): Map<string, unknown> | undefined => valueSource(fn).current();
