// `withClosure`: a function marked with an accessor of its closure's variables, which the library reads instead of the
// closure itself (./closure.ts). Smooth's bundler plugin writes it (src/plugin/); users may too. The marking is a
// property under a registered symbol, so that every copy of the library in a page finds it.

type AnyFn = (...args: never[]) => unknown;

/** The property (a registered symbol, so that every copy of the library finds it) holding a function's accessor. */
export const CLOSURE_KEY: unique symbol = Symbol.for("smooth-ad.closure") as never;

/**
 * The variables of a closure: an object of them, or an array of them whose names are read from the accessor's text
 * (`() => [X, y]`: what the bundler plugin writes, so that a bundler renaming a variable renames it there too).
 */
export type ClosureRead = () => Record<string, unknown> | readonly unknown[];

/** What `withClosure` attaches: the closure's variables, and where the function is written ("file:line:column"). */
export interface ClosureAccessor {
  readonly read: ClosureRead;
  readonly site?: string;
}

/**
 * `fn`, marked with an accessor of the variables of its closure that it uses: `withClosure((w) => loss(w, X), () =>
 * ({ loss, X }))` (or `() => [loss, X]`). The library calls `read` whenever it needs their values (at each call of a
 * compiled function), so the function sees their current values. Smooth's bundler plugin (`smooth-ad/plugin`) writes
 * this for the functions given to transforms; in Node the library reads closures without it. `site`
 * ("file:line:column", 1-based line) names where the function is written in messages.
 */
export function withClosure<F extends AnyFn>(fn: F, read: ClosureRead, site?: string): F {
  if (typeof fn !== "function" || typeof read !== "function")
    throw new TypeError("withClosure(fn, read): fn and read must be functions");
  try {
    Object.defineProperty(fn, CLOSURE_KEY, { value: { read, ...(site ? { site } : {}) }, configurable: true });
  } catch {
    // A frozen function keeps no accessor: its closure is read as any other function's.
  }
  return fn;
}

export const accessorOf = (fn: AnyFn): ClosureAccessor | undefined => {
  const a = (fn as unknown as { [CLOSURE_KEY]?: ClosureAccessor })[CLOSURE_KEY];
  return a && typeof a.read === "function" ? a : undefined;
};
