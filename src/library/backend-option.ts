// Which compiled back end a function returned by the library runs on: `{ backend: "js" | "wasm" }` in the options of
// `compile` and of every transform that returns a function (grad, valueAndGrad, jacobian, hessian, vmap). The
// default is the registry's default engine (src/backends/registry.ts), which is a compiled one. `borrowResult` lets
// results stay in the compiled function's memory.

import { DEFAULT_ENGINE, type Engine } from "../backends/registry.js";
import { fail } from "../syntax/diagnostics.js";

/** The compiled back ends the library can run a function on. */
export type LibraryBackend = "js" | "wasm";

export interface BackendOption {
  /** The back end the function is compiled for: "js" (JavaScript) or "wasm" (WebAssembly). */
  readonly backend?: LibraryBackend;
  /**
   * Return arrays in the compiled function's own memory instead of fresh ones: no allocation or copy per call, but
   * a result is valid only until the function's next call (which overwrites it). For a caller that reads each result
   * before calling again, as a training loop does. Arrays given back as nested JS arrays or NDArrays are made either
   * way; Float64Array (and Float64Array-backed) results are the ones borrowed.
   */
  readonly borrowResult?: boolean;
}

const BACKENDS: readonly LibraryBackend[] = ["js", "wasm"];

export const DEFAULT_LIBRARY_BACKEND: LibraryBackend = DEFAULT_ENGINE === "wasm" ? "wasm" : "js";

/** The engine an options object asks for (the default when it names none); an argument error for anything else. */
export function backendOf(options: BackendOption | undefined, what: string): Engine {
  const b = options?.backend;
  if (b === undefined) return DEFAULT_LIBRARY_BACKEND;
  if (!BACKENDS.includes(b))
    fail("argument", `${what}: unknown backend \`${String(b)}\``, undefined, {
      expected: BACKENDS.map((x) => `"${x}"`).join(" or "),
      found: String(b),
    });
  return b;
}
