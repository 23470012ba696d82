// Which compiled back end a function returned by the library runs on: `{ backend: "js" | "wasm" | "webgpu" }` in the
// options of `compile` and of every transform that returns a function (grad, valueAndGrad, jacobian, hessian, vmap).
// The default is the registry's default engine (src/backends/registry.ts), which is a compiled one. `dtype:
// "float32"` computes in float32 (the wasm-f32 back end, or webgpu, which computes in float32 only). `webgpu` runs on
// the GPU and its functions return promises. `borrowResult` lets results stay in the compiled function's memory.
// `threads` sets how many threads the wasm back end may use; `memoryBudget` what reverse mode's loop tapes may take.

import { DEFAULT_ENGINE, type Engine } from "../backends/registry.js";
import { fail } from "../syntax/diagnostics.js";
import { checkThreads } from "../wasm/parallel-run.js";
import { checkMemoryBudget } from "../runtime/memory-budget.js";

/** The compiled back ends the library can run a function on. */
export type LibraryBackend = "js" | "wasm" | "webgpu";

export interface BackendOption {
  /**
   * The back end the function is compiled for: "js" (JavaScript), "wasm" (WebAssembly) or "webgpu" (WebGPU compute
   * kernels, in float32; the function then returns a promise of its result: `await f(x)`).
   */
  readonly backend?: LibraryBackend;
  /**
   * The precision Doubles are computed in: "float64" (the default) or "float32", every operation rounded to single
   * precision, in WebAssembly with four SIMD lanes (so with the wasm back end only). Arguments are rounded to float32;
   * results are float32 values (a Float32Array where the argument they correspond to was one).
   */
  readonly dtype?: "float64" | "float32";
  /**
   * Return arrays in the compiled function's own memory instead of fresh ones: no allocation or copy per call, but
   * a result is valid only until the function's next call (which overwrites it). For a caller that reads each result
   * before calling again, as a training loop does. Arrays given back as nested JS arrays or NDArrays are made either
   * way; Float64Array (and Float64Array-backed) results are the ones borrowed.
   */
  readonly borrowResult?: boolean;
  /**
   * How many threads the wasm back end may run the function's large loops on (its top-level builds of Doubles, rows
   * and sums): a whole number from 1; by default SMOOTH_THREADS, else the machine's cores. Results are the same bits
   * whatever the number. Where there are no worker threads (a browser), 1.
   */
  readonly threads?: number;
  /**
   * The memory, in bytes, reverse mode may use to store a loop's states (its tapes) in the derivatives this function
   * computes: a loop whose tapes would take more is checkpointed — it stores as many snapshots of its state as fit
   * and recomputes the others (Revolve's schedule), which gives the same gradient. By default SMOOTH_MEMORY_BUDGET
   * ("auto": a quarter of the machine's memory, 512 MiB where it cannot be known), else none: loops stay taped.
   */
  readonly memoryBudget?: number;
}

const BACKENDS: readonly LibraryBackend[] = ["js", "wasm", "webgpu"];

export const DEFAULT_LIBRARY_BACKEND: LibraryBackend = DEFAULT_ENGINE === "wasm" ? "wasm" : "js";

/** The engine an options object asks for (the default when it names none); an argument error for anything else. */
export function backendOf(options: BackendOption | undefined, what: string): Engine {
  const b = options?.backend;
  const dtype = options?.dtype;
  if (dtype !== undefined && dtype !== "float64" && dtype !== "float32")
    fail("argument", `${what}: unknown dtype \`${String(dtype)}\``, undefined, {
      expected: '"float64" or "float32"',
      found: String(dtype),
    });
  // WebGPU has no float64: the webgpu back end computes in float32 only, and says so rather than compute in float32
  // what was asked in float64.
  if (b === "webgpu") {
    if (dtype === "float64")
      fail("argument", `${what}: the webgpu back end computes in float32, not float64`, undefined, {
        hint: 'leave out `dtype` (or give dtype: "float32") with backend: "webgpu", or use backend: "wasm" for float64',
      });
    return "webgpu";
  }
  if (dtype === "float32") {
    if (b !== undefined && b !== "wasm")
      fail("argument", `${what}: dtype "float32" runs on the wasm back end, not \`${String(b)}\``, undefined, {
        hint: 'leave out `backend`, or give backend: "wasm" (or "webgpu")',
      });
    return "wasm-f32";
  }
  if (b === undefined) return DEFAULT_LIBRARY_BACKEND;
  if (!BACKENDS.includes(b))
    fail("argument", `${what}: unknown backend \`${String(b)}\``, undefined, {
      expected: BACKENDS.map((x) => `"${x}"`).join(" or "),
      found: String(b),
    });
  return b;
}

/** The memory budget an options object asks for (undefined: the default); an argument error for anything else. */
export function memoryBudgetOf(options: BackendOption | undefined, what: string): number | undefined {
  const bytes = options?.memoryBudget;
  return bytes === undefined ? undefined : checkMemoryBudget(bytes, what);
}

/** The threads an options object asks for (undefined: the default); an argument error for anything but 1, 2, ... */
export function threadsOf(options: BackendOption | undefined, what: string): number | undefined {
  const threads = options?.threads;
  if (threads === undefined) return undefined;
  try {
    return checkThreads(threads);
  } catch (e) {
    return fail("argument", `${what}: ${(e as Error).message}`, undefined, {
      expected: "a whole number of threads, 1 or more",
      found: String(threads),
    });
  }
}
