// Free names of a function value, resolved by route for the library: data a closure holds (directly, or through a
// helper function it calls by name, or a property of an object it holds) is a hidden parameter of the compiled
// program, read again at each call through the same route from the function being called (./source.ts, `Route`).
//
// `ClosureReads` reads each function's closure once per call of a compiled function (one inspector round trip, or one
// call of the plugin's accessor: ./closure.ts), so every value the call uses is from the same moment. `Routing` gives
// the translator sources whose free names resolve through one such read, and records what each name resolved to (a
// function of a given text and place, data, nothing), so that the translation can be reused for another function of
// the same text whose names resolve alike (`matches`): a closure made afresh in a loop compiles once.

import { currentClosure, functionSource, readsInProgress, resolveValue } from "./closure.js";
import type { FunctionSource, Hop, Resolved, Route } from "./source.js";

type AnyFn = (...args: never[]) => unknown;

/** One call's reads of closures: each function's closure read once. */
export class ClosureReads {
  private static made = 0;
  /** Tells this call's reads from another's (without holding on to them). */
  readonly id = ++ClosureReads.made;
  private readonly reads = new Map<AnyFn, Map<string, unknown> | undefined>();

  /** The current values of the free names of `fn` (undefined where no closure can be read here). */
  values(fn: AnyFn): Map<string, unknown> | undefined {
    if (this.reads.has(fn)) return this.reads.get(fn);
    const v = currentClosure(fn);
    this.reads.set(fn, v);
    return v;
  }
}

let current: ClosureReads | undefined;

/**
 * Runs `f` with one ClosureReads for every read it makes (a call of a compiled function: its specialisation and its
 * hidden parameters see the same values). Nested calls share the outer one.
 */
export function withClosureReads<T>(f: () => T): T {
  if (current) return f();
  current = new ClosureReads();
  readsInProgress.call = current.id;
  try {
    return f();
  } finally {
    current = undefined;
    readsInProgress.call = 0;
  }
}

/** The reads of the call being made (a fresh one outside `withClosureReads`). */
export const closureReads = (): ClosureReads => current ?? new ClosureReads();

const SIGNATURES = new WeakMap<AnyFn, string>();

/** What a function is to a translation: its text and where it is written. */
function functionSignature(fn: AnyFn): string {
  let sig = SIGNATURES.get(fn);
  if (sig === undefined) {
    const src = functionSource(fn);
    sig = `function@${src.site ?? ""}:${Function.prototype.toString.call(fn)}`;
    SIGNATURES.set(fn, sig);
  }
  return sig;
}

/** What a free name's value is to a translation (data is checked by its type where the translation reads it). */
function signatureOf(value: unknown, found: boolean): string {
  if (!found) return "none";
  if (isClass(value)) return `class:${Function.prototype.toString.call(value)}`;
  if (typeof value === "function") return functionSignature(value as AnyFn);
  if (typeof value === "number" || typeof value === "boolean") return "data";
  if (typeof value === "object" && value !== null) return isArrayLike(value) ? "data" : "object";
  return `other:${value === null ? "null" : typeof value}`;
}

const isClass = (x: unknown): boolean =>
  typeof x === "function" && /^class\b/.test(Function.prototype.toString.call(x));

const isArrayLike = (x: object): boolean => Array.isArray(x) || ArrayBuffer.isView(x);

/** A name (and properties) looked up during a translation, and what it resolved to. */
export interface Lookup extends Route {
  readonly signature: string;
}

/** The value at the end of a route from `fn`, as `reads` sees it; `found` false where some step is missing. */
export function readRoute(reads: ClosureReads, fn: AnyFn, route: Route): { found: boolean; value: unknown } {
  let f = fn;
  for (const hop of route.hops) {
    const step = follow(reads, f, hop);
    if (!step.found || typeof step.value !== "function") return { found: false, value: undefined };
    f = step.value as AnyFn;
  }
  return follow(reads, f, route);
}

function follow(reads: ClosureReads, fn: AnyFn, at: Hop): { found: boolean; value: unknown } {
  const values = reads.values(fn);
  if (!values?.has(at.name)) return { found: false, value: undefined };
  let value = values.get(at.name);
  for (const p of at.props) {
    if (typeof value !== "object" || value === null || isArrayLike(value) || !(p in value))
      return { found: false, value: undefined };
    value = (value as Record<string, unknown>)[p];
  }
  return { found: true, value };
}

/** Whether every name a translation looked up resolves alike from `fn` now. */
export function matches(reads: ClosureReads, fn: AnyFn, lookups: readonly Lookup[]): boolean {
  return lookups.every((l) => {
    const { found, value } = readRoute(reads, fn, l);
    return signatureOf(value, found) === l.signature;
  });
}

const routeText = (r: Route): string => [...r.hops, r].map((h) => [h.name, ...h.props].join(".")).join(" → ");

/** A route as a key (and for messages: `helper → data.X`). */
export const routeKey = routeText;

/**
 * The sources of one translation of the function `entry`: free names resolve through `reads`, by route from `entry`,
 * and every lookup is recorded in `lookups`.
 */
export class Routing {
  readonly lookups: Lookup[] = [];
  private readonly sources = new Map<AnyFn, FunctionSource>();

  constructor(private readonly reads: ClosureReads) {}

  /** The source of `fn`, reached from the entry through `hops`. */
  source(fn: AnyFn, hops: readonly Hop[]): FunctionSource {
    const known = this.sources.get(fn);
    if (known) return known;
    const base = functionSource(fn);
    // The function's source (its properties read from it as they are needed), with names resolved by route.
    const src = Object.create(base, {
      scope: {
        value: {
          lookup: (name: string) => {
            const values = this.reads.values(fn);
            const route: Route = { hops, name, props: [] };
            const found = values?.has(name) ?? false;
            return this.resolved(values?.get(name), found, route);
          },
          ...(base.scope.limitation ? { limitation: base.scope.limitation } : {}),
        },
      },
    }) as FunctionSource;
    this.sources.set(fn, src);
    return src;
  }

  private resolved(value: unknown, found: boolean, route: Route): Resolved | undefined {
    this.lookups.push({ ...route, signature: signatureOf(value, found) });
    if (!found) return undefined;
    // A class (./classes.ts): its text is the translation's; its own closure is read once.
    if (isClass(value)) return resolveValue(value, route.name);
    if (typeof value === "function") {
      const f = value as AnyFn;
      const hop: Hop = { name: route.name, props: route.props };
      return { k: "function", value, source: () => this.source(f, [...route.hops, hop]) };
    }
    if (typeof value === "number" || typeof value === "boolean") return { k: "data", value, route };
    if (typeof value === "object" && value !== null) {
      const member = isArrayLike(value)
        ? undefined
        : (p: string): Resolved | undefined =>
            this.resolved(p in value ? (value as Record<string, unknown>)[p] : undefined, p in value, {
              ...route,
              props: [...route.props, p],
            });
      return { k: "data", value, route, ...(member ? { member } : {}) };
    }
    return { k: "other", what: value === undefined ? "undefined" : value === null ? "null" : `a ${typeof value}` };
  }
}
