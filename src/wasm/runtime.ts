// Calling a compiled wasm function from JavaScript: arguments in, results out, errors raised.
//
// A call copies each argument array into the module's memory once (an array passed twice is copied once), writes the
// scalar slots into the argument area, and runs `main` with the address where the arena starts. Results are read
// from the result area: scalars as numbers, arrays as views of the memory, copied out unless the caller borrows the
// result (then they are valid until the next call, as the JavaScript back end's arena arrays are). A trap with an
// error site set is the SmoothError of that site, raised from the numbers the check saved (./emit.ts).

import { budgetTooSmall, indexOutOfRange, sizesDiffer, toIndex } from "../prims/table.js";
import { RUNTIME } from "../codegen/runtime.js";
import { addShapeError, updateShapeError } from "../runtime/update.js";
import type { FlatData, Value } from "../runtime/value.js";
import { fail } from "../syntax/diagnostics.js";
import type { Span } from "../syntax/source.js";
import type { Type } from "../types/types.js";
import { slotsToValue, type Slot } from "../lowering/leaves.js";
import type { ErrorRaisers } from "./memory.js";
import type { WasmProgram } from "./module.js";
import { compileOptimised } from "./compile-tier.js";
import { parallelHost } from "./parallel-run.js";

/** The errors generated code raises, with the interpreter's messages (spans and types come from the error sites). */
export const RAISE: ErrorRaisers = {
  badCount: (what, n, span) => RUNTIME.badCount(what, n, span as Span | undefined),
  indexOutOfRange: (index, length, span) => indexOutOfRange(index, length, span as Span | undefined),
  sizesDiffer: (n, m, span) => sizesDiffer(n, m, span as Span | undefined),
  budgetTooSmall: (budget, bytes, span) => budgetTooSmall(budget, bytes, span as Span | undefined),
  intDivByZero: (span) => fail("index", "integer division by zero", span as Span | undefined),
  toIndex: (x, span) => {
    toIndex(x, span as Span | undefined);
    throw new Error(`wasm: toIndex(${x}) failed in wasm but not in JavaScript`);
  },
  irregular: (span, elemType, common, index, first, found) =>
    RUNTIME.irregular(span as Span | undefined, elemType as Type, common, index, first, found),
  updateShapeError: (set, value, element, span) => updateShapeError(set, value, element, span as Span | undefined),
  addShapeError: (a, b, span) => addShapeError(a, b, span as Span | undefined),
};

// The parts of the WebAssembly JavaScript API used here, declared locally: the core type-checks without the DOM's
// or Node's declarations of it (it runs in both).
interface WasmMemory {
  /** A SharedArrayBuffer when the memory is shared (parallel sites); read through typed arrays the same way. */
  readonly buffer: ArrayBuffer;
  grow(pages: number): number;
}
interface Exports {
  readonly main: (heapStart: number) => void;
  readonly memory: WasmMemory;
  readonly errorSite: { readonly value: number };
}
interface WasmApi {
  readonly Module: new (bytes: Uint8Array<ArrayBuffer>) => object;
  readonly Instance: new (module: object, imports: object) => { readonly exports: object };
  readonly Memory: new (descriptor: { initial: number; maximum?: number }) => object;
}

/** The host's WebAssembly, or an unsupported error where there is none. */
export function wasmApi(): WasmApi {
  const api = (globalThis as { WebAssembly?: WasmApi }).WebAssembly;
  if (api === undefined)
    return fail("unsupported", "this JavaScript engine has no WebAssembly", undefined, { hint: "use the js engine" });
  return api;
}

/** How many calls have run on an unshared twin in this process (for tests: which instance a call ran on). */
let twinCalls = 0;
export const unsharedTwinCalls = (): number => twinCalls;

/** A compiled module, instantiated: `run(args, borrowed)` as the JavaScript back end's compiled functions. */
export function instantiate(program: WasmProgram): (args: readonly Value[], borrowed: boolean) => Value {
  const api = wasmApi();
  const module = compileOptimised(api.Module, program.bytes, (program.checkpointBranches ?? 0) > 0);
  if (program.parallelCosts.length === 0) return caller(program, new api.Instance(module, { Math }).exports);
  // A module with parallel sites imports a shared memory and the function that runs a site across threads.
  const host = parallelHost(module, program.parallelCosts, program.threads);
  /** Whether a site of the current call was (or, on the unshared twin, would have been) worth threads. */
  let wanted = false;
  const worth = (site: number, n: number) => {
    const yes = host.worth(site, n);
    if (yes === 1) wanted = true;
    return yes;
  };
  // The twin runs every site on its one thread, and notes whether threads would have paid.
  const notWorth = (site: number, n: number) => (worth(site, n), 0);
  const instance = new api.Instance(module, { Math, env: { memory: host.memory, parallel: host.parallel, worth } });
  host.attach(instance.exports);
  const shared = caller(program, instance.exports);
  // Calls that stay on one thread run on an unshared twin of the module, compiled once TWIN_AFTER calls in a row have
  // not used threads: V8 copies arrays into and out of a SharedArrayBuffer with word-by-word relaxed copies (800 KB:
  // 36 us against 22), a fifth of a small kernel's call. A call after one that wanted threads runs on the shared one
  // (results are the same bits either way); a call on the twin whose site would pay runs it on one thread. The twin
  // is compiled synchronously: a compile in the background would only be seen by a caller that returns to the event
  // loop between calls, which a loop of calls (a benchmark's, a training loop's) does not. It is compiled as V8 does
  // by default (baseline code first), not by the optimising compiler at once like the module: its calls are the small
  // ones, for which a 20 ms compile in the middle of a run of calls costs more than a few slower calls.
  let unshared: ((args: readonly Value[], borrowed: boolean) => Value) | undefined;
  let alone = 0;
  const twin = () => {
    if (unshared !== undefined || program.unsharedBytes === undefined || ++alone < TWIN_AFTER) return;
    const env = {
      memory: new api.Memory({ initial: 1, maximum: 65536 }),
      parallel: () => {
        throw new Error("wasm: the unshared twin ran a parallel site");
      },
      worth: notWorth,
    };
    unshared = caller(program, new api.Instance(new api.Module(program.unsharedBytes), { Math, env }).exports);
  };
  return (args, borrowed) => {
    const onTwin = unshared !== undefined && !wanted;
    wanted = false;
    if (onTwin) twinCalls++;
    const result = onTwin ? unshared!(args, borrowed) : shared(args, borrowed);
    if (wanted) alone = 0;
    else twin();
    return result;
  };
}

/** Calls in a row that stay on one thread before a module compiled for threads gets its unshared twin. */
const TWIN_AFTER = 3;

/** The calls of one instance of `program` (its exports): arguments into its memory, `main`, results out. */
function caller(program: WasmProgram, exports: object): (args: readonly Value[], borrowed: boolean) => Value {
  const ex = exports as unknown as Exports;
  const { layout, argSlots, resultSlots, paramTypes, resultType, dataStart, real } = program;
  const doubleBytes = real === "f64" ? 8 : 4;
  let buffer = ex.memory.buffer;
  let f64 = new Float64Array(buffer);
  let i32 = new Int32Array(buffer);
  const refresh = () => {
    if (ex.memory.buffer !== buffer) {
      buffer = ex.memory.buffer;
      f64 = new Float64Array(buffer);
      i32 = new Int32Array(buffer);
    }
  };
  const ensure = (bytes: number) => {
    const have = ex.memory.buffer.byteLength;
    if (bytes > have) {
      try {
        ex.memory.grow(Math.ceil((bytes - have) / 65536));
      } catch {
        fail("unsupported", "the arguments need more memory than WebAssembly can address");
      }
    }
    refresh();
  };

  // float32 results are widened to Float64Arrays; borrowed ones (valid until the next call) into the same arrays at
  // every call: a fresh array of that size per call costs more (allocation, page faults) than the copy.
  const widened: Widened = { arrays: [], next: 0 };
  return (args, borrowed) => {
    const slots = RUNTIME.unpackArgs(args, paramTypes);
    // Where each distinct argument array goes.
    const placed = new Map<FlatData, number>();
    let end = dataStart;
    for (const s of slots)
      if (ArrayBuffer.isView(s) && !placed.has(s)) {
        placed.set(s, end);
        end += (bytesIn(s, doubleBytes) + 15) & ~15;
      }
    ensure(end);
    for (const [data, at] of placed) copyIn(buffer, at, data, real);
    slots.forEach((s, q) => {
      const cell = layout.argArea + 8 * q;
      if (ArrayBuffer.isView(s)) i32[cell >> 2] = placed.get(s)!;
      else if (argSlots[q] === "i32") i32[cell >> 2] = typeof s === "boolean" ? (s ? 1 : 0) : s;
      else f64[cell >> 3] = s as number;
    });
    try {
      ex.main(end);
    } catch (e) {
      const site = ex.errorSite.value;
      if (site > 0) {
        refresh();
        const saved = Array.from(f64.subarray(layout.errorArea >> 3, dataStart >> 3));
        program.sites[site - 1]!(saved);
      }
      throw e;
    }
    refresh();
    widened.next = 0;
    const mem = { f64, i32, buffer, widened };
    return readResult(resultType, resultSlots, (q) => layout.resultArea + 8 * q, mem, real, borrowed);
  };
}

function bytesIn(data: FlatData, doubleBytes: number): number {
  return data instanceof Float64Array ? data.length * doubleBytes : data.byteLength;
}

function copyIn(buffer: ArrayBuffer, at: number, data: FlatData, real: "f64" | "f32"): void {
  if (data instanceof Float64Array) {
    if (real === "f64") new Float64Array(buffer, at, data.length).set(data);
    else new Float32Array(buffer, at, data.length).set(data);
  } else if (data instanceof Int32Array) new Int32Array(buffer, at, data.length).set(data);
  else new Uint8Array(buffer, at, data.length).set(data);
}

/** The result value from the result slots: arrays as views of memory, copied unless borrowed. */
function readResult(
  t: Type,
  types: readonly string[],
  cell: (q: number) => number,
  mem: { f64: Float64Array; i32: Int32Array; buffer: ArrayBuffer; widened: Widened },
  real: "f64" | "f32",
  borrowed: boolean,
): Value {
  const raw = types.map((ty, q) => (ty === "i32" ? mem.i32[cell(q) >> 2]! : mem.f64[cell(q) >> 3]!));
  // Replace each array leaf's [address, offset, dims] by a typed array of exactly its elements, offset 0.
  const slots: Slot[] = [];
  const walk = (ty: Type, depth: number): void => {
    switch (ty.k) {
      case "double":
      case "int":
      case "bool": {
        if (depth === 0) {
          const x = raw[slots.length]!;
          slots.push(ty.k === "bool" ? x !== 0 : x);
          return;
        }
        const start = slots.length;
        const addr = raw[start]!;
        const offset = raw[start + 1]!;
        const dims = raw.slice(start + 2, start + 2 + depth);
        const n = dims.reduce((a, b) => a * b, 1);
        slots.push(view(ty.k, mem.buffer, addr, offset, n, real, borrowed ? mem.widened : undefined), 0, ...dims);
        return;
      }
      case "tuple":
        ty.elems.forEach((e) => walk(e, depth));
        return;
      case "array":
        walk(ty.elem, depth + 1);
        return;
      case "fun":
        throw new Error("wasm: a function-valued result");
    }
  };
  walk(t, 0);
  return slotsToValue(slots, t);
}

/** Float64Arrays that float32 results are widened into, reused from call to call for borrowed results. */
interface Widened {
  readonly arrays: Float64Array[];
  next: number;
}

/** An array leaf's elements: a view of memory (copied unless borrowed), or float32 widened to a Float64Array. */
function view(
  kind: "double" | "int" | "bool",
  buffer: ArrayBuffer,
  addr: number,
  offset: number,
  n: number,
  real: "f64" | "f32",
  borrowed: Widened | undefined,
): FlatData {
  if (kind === "double") {
    if (real === "f32") {
      const k = borrowed === undefined ? -1 : borrowed.next++;
      const kept = k < 0 ? undefined : borrowed!.arrays[k];
      const out = kept !== undefined && kept.length === n ? kept : new Float64Array(n);
      if (k >= 0) borrowed!.arrays[k] = out;
      out.set(new Float32Array(buffer, addr + 4 * offset, n));
      return out;
    }
    const v = new Float64Array(buffer, addr + 8 * offset, n);
    return borrowed !== undefined ? v : v.slice();
  }
  const v = kind === "int" ? new Int32Array(buffer, addr + 4 * offset, n) : new Uint8Array(buffer, addr + offset, n);
  return borrowed !== undefined ? v : v.slice();
}
