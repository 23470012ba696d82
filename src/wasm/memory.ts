// Linear memory of a compiled wasm function: its layout, the arena its arrays come from, and the helpers generated
// code calls to allocate and copy.
//
//   [0, 16)                 unused (no array starts at address 0)
//   [argArea, ...)          the argument slots, 8 bytes each (written by ./runtime.ts before the call)
//   [resultArea, ...)       the result slots, 8 bytes each (written by the function, read by ./runtime.ts)
//   [errorArea, ...)        the numbers a failed check saves for its message, 8 bytes each
//   [dataStart, heapStart)  the argument arrays, copied in by ./runtime.ts
//   [heapStart, ...)        the arena: arrays the call allocates, bump-allocated (`alloc`), all released when the next
//                           call starts; memory grows as a call needs and is kept for the next calls
//
// Fresh arrays read as zeros unless the code writes every element first: memory past the highest address any call
// has written (`dirty`) is still zero from the engine, so `alloc` clears only what an earlier call left below it.
// Arrays start 16-byte aligned (vector loads of their first elements are aligned).

import { arrayTooLarge, MAX_ARRAY_ELEMENTS } from "../runtime/limits.js";
import type { ScalarKind } from "../runtime/value.js";
import { fail } from "../syntax/diagnostics.js";
import type { Code, FunctionBuilder, ModuleBuilder } from "./encoder.js";
import {
  call,
  f64,
  globalGet,
  globalSet,
  i32,
  i64,
  localGet,
  localSet,
  op,
  store,
  unreachable,
} from "./instructions.js";
import type { WasmEmitter } from "./emit.js";
import { address, elementShift, islot, ishl, product, slotCode, type WSlot } from "./slots.js";

/** The functions and globals of the module that generated code uses besides its own. */
export interface Helpers {
  /** alloc(count: f64, shift: i32, zeroed: i32) -> i32: the address of `count` elements of 2^shift bytes. */
  readonly alloc: number;
  /**
   * The global holding the next free address of `alloc`'s arena, which a loop iteration may set back to give memory
   * back (src/lowering/regions.ts); undefined where allocation comes from elsewhere (a parallel site's part arena).
   */
  readonly heap?: number;
  /** intPow(a, b): Index power with wrap-around. */
  readonly intPow: number;
  /** exp and log of the real type, bit for bit V8's `Math.exp` and `Math.log` (./math.ts). */
  readonly exp: number;
  readonly log: number;
  /**
   * The function of exp or log of `groups` v128s of reals (two f64 or four f32 lanes each), as many v128 results
   * (./simd-math.ts).
   */
  readonly lanes: (f: "exp" | "log", groups: number) => number;
  /**
   * Functions of f64 that are V8's `Math` ones: sin, cos, tan and pow imported, tanh written (./math-tanh.ts); atan,
   * asin, acos and atan2 imported by the modules that use them.
   */
  readonly math: Readonly<Record<"sin" | "cos" | "tan" | "tanh" | "pow", number>> &
    Readonly<Partial<Record<InverseTrig, number>>>;
  /** The global holding the number of the error site that failed (0: none). */
  readonly errorSite: number;
  /** The functions that raise each kind of error from the numbers a check saved (JavaScript, after the trap). */
  readonly raise: ErrorRaisers;
}

/** The inverse trigonometric functions, imported from `Math` only by a module whose code calls one. */
export type InverseTrig = "atan" | "asin" | "acos" | "atan2";

export interface ErrorRaisers {
  badCount(what: "build size" | "ifold count", n: number, span: unknown): never;
  indexOutOfRange(index: number, length: number, span: unknown): never;
  sizesDiffer(n: number, m: number, span: unknown): never;
  budgetTooSmall(budget: number, bytes: number, span: unknown): never;
  intDivByZero(span: unknown): never;
  toIndex(x: number, span: unknown): never;
  irregular(span: unknown, elemType: unknown, common: number, index: number, first: number[], found: number[]): never;
  updateShapeError(set: boolean, value: number[], element: number[], span: unknown): never;
  addShapeError(a: number[], b: number[], span: unknown): never;
}

/** Addresses of the fixed areas, for a function with `argSlots` argument and `resultSlots` result slots. */
export interface Layout {
  readonly argArea: number;
  readonly resultArea: number;
  readonly errorArea: number;
}

export function layoutFor(argSlots: number, resultSlots: number): Layout {
  const argArea = 16;
  const resultArea = argArea + 8 * argSlots;
  return { argArea, resultArea, errorArea: resultArea + 8 * resultSlots };
}

/** The error sites every module has, before the checks of its code (numbers 1 and 2). */
export const SITE_TOO_LARGE = 1;
export const SITE_OUT_OF_MEMORY = 2;

export const raiseTooLarge = ([n]: readonly number[]): never => arrayTooLarge("an array", n!, undefined);
export const raiseOutOfMemory = (): never =>
  fail("unsupported", "the program needs more memory than WebAssembly can address", undefined, {
    hint: "reduce the sizes (a reverse-mode tape holds one state per loop iteration), or use --engine js",
  });

/** The arena's globals: the next free address and the highest address ever written. */
export interface ArenaGlobals {
  readonly heap: number;
  readonly dirty: number;
}

/**
 * Writes `alloc` into `fb` (count: f64, shift: i32, zeroed: i32) -> i32. Past the array limit it fails with the
 * limit's error; when memory cannot grow, with the out-of-memory error (both through the error area, see emit.ts).
 */
export function writeAlloc(fb: FunctionBuilder, g: ArenaGlobals, errorSite: number, errorArea: number): void {
  const [count, shift, zeroed] = [0, 1, 2];
  const [p, end, pages] = [fb.local("i32"), fb.local("i64"), fb.local("i32")];
  const fail = (site: number) => {
    fb.emit(globalSet(errorSite, i32(site)), unreachable);
  };
  fb.if(op("f64.gt", localGet(count), f64(MAX_ARRAY_ELEMENTS)));
  fb.emit(store("f64.store", i32(errorArea), localGet(count)));
  fail(SITE_TOO_LARGE);
  fb.end();
  fb.emit(localSet(p, globalGet(g.heap)));
  // end = (p + bytes + 15) & ~15, in 64 bits: past 4 GiB there is no memory to give.
  const bytes = op(
    "i64.shl",
    op("i64.extend_i32_u", op("i32.trunc_f64_s", localGet(count))),
    op("i64.extend_i32_u", localGet(shift)),
  );
  fb.emit(
    localSet(
      end,
      op("i64.and", op("i64.add", op("i64.add", op("i64.extend_i32_u", localGet(p)), bytes), i64(15n)), i64(~15n)),
    ),
  );
  fb.if(op("i64.gt_u", localGet(end), i64(0x1_0000_0000n)));
  fail(SITE_OUT_OF_MEMORY);
  fb.end();
  // Pages needed: ceil(end / 64 KiB).
  fb.emit(localSet(pages, op("i32.wrap_i64", op("i64.shr_u", op("i64.add", localGet(end), i64(0xffffn)), i64(16n)))));
  // Growing costs about half a millisecond whatever the size (V8): grow by half the memory at least (16 MiB at
  // least), and by just what is needed when that much is not to be had.
  fb.if(op("i32.gt_u", localGet(pages), op("memory.size")));
  const needed = op("i32.sub", localGet(pages), op("memory.size"));
  const half = op("i32.shr_u", op("memory.size"), i32(1));
  const larger = (a: Code, b: Code) => op("select", a, b, op("i32.gt_u", a, b));
  fb.if(op("i32.eq", op("memory.grow", larger(needed, larger(half, i32(256)))), i32(-1)));
  fb.if(op("i32.eq", op("memory.grow", op("i32.sub", localGet(pages), op("memory.size"))), i32(-1)));
  fail(SITE_OUT_OF_MEMORY);
  fb.end();
  fb.end();
  fb.end();
  const endAddr = op("i32.wrap_i64", localGet(end));
  fb.emit(globalSet(g.heap, endAddr));
  // Clear what an earlier call wrote, up to the end of this array.
  fb.if(op("i32.and", localGet(zeroed), op("i32.lt_u", localGet(p), globalGet(g.dirty))));
  const upTo = op("select", endAddr, globalGet(g.dirty), op("i32.lt_u", endAddr, globalGet(g.dirty)));
  fb.emit(op("memory.fill", localGet(p), i32(0), op("i32.sub", upTo, localGet(p))));
  fb.end();
  fb.if(op("i32.gt_u", endAddr, globalGet(g.dirty)));
  fb.emit(globalSet(g.dirty, endAddr));
  fb.end();
  fb.emit(localGet(p));
}

/** Writes intPow(a, b): exponentiation by squaring with i32 wrap-around; negative exponents truncate (as intPow). */
export function writeIntPow(fb: FunctionBuilder): void {
  const [a, b] = [0, 1];
  const [result, base, e] = [fb.local("i32"), fb.local("i32"), fb.local("i32")];
  fb.if(op("i32.lt_s", localGet(b), i32(0)));
  // a = 1: 1; a = -1: ±1 by the parity of b; otherwise 0.
  const parity = op("select", i32(1), i32(-1), op("i32.eqz", op("i32.and", localGet(b), i32(1))));
  fb.emit(
    op(
      "select",
      i32(1),
      op("select", parity, i32(0), op("i32.eq", localGet(a), i32(-1))),
      op("i32.eq", localGet(a), i32(1)),
    ),
    op("return"),
  );
  fb.end();
  fb.emit(localSet(result, i32(1)), localSet(base, localGet(a)), localSet(e, localGet(b)));
  fb.block("done");
  fb.loop("square");
  fb.brIf("done", op("i32.le_s", localGet(e), i32(0)));
  fb.if(op("i32.and", localGet(e), i32(1)));
  fb.emit(localSet(result, op("i32.mul", localGet(result), localGet(base))));
  fb.end();
  fb.emit(
    localSet(base, op("i32.mul", localGet(base), localGet(base))),
    localSet(e, op("i32.shr_u", localGet(e), i32(1))),
  );
  fb.br("square");
  fb.end();
  fb.end();
  fb.emit(localGet(result));
}

/** The globals of the arena, added to `mb`. */
export function addArenaGlobals(mb: ModuleBuilder): ArenaGlobals {
  return { heap: mb.addGlobal("i32", i32(0)), dirty: mb.addGlobal("i32", i32(0)) };
}

/**
 * A new array of the product of `factors` elements of `kind`: zero-filled, or with whatever the arena's memory holds
 * when the code writes every element before reading any (`zeroed` false). The product is taken in f64, so a product
 * of sizes that overflows an Index is still found over the limit.
 */
export function allocate(em: WasmEmitter, kind: ScalarKind, factors: readonly WSlot[], zeroed: boolean): WSlot {
  const count = factors.reduce<{ code: number[] | readonly number[]; value?: number }>(
    (acc, f) => {
      if ("value" in f && acc.value !== undefined)
        return { code: f64(acc.value * f.value), value: acc.value * f.value };
      const x = "value" in f ? f64(f.value) : op("f64.convert_i32_s", slotCode(f));
      return { code: acc.value === 1 ? x : op("f64.mul", acc.code, x) };
    },
    { code: f64(1), value: 1 },
  );
  const shift = elementShift(kind, em.real);
  return em.define("i32", call(em.helpers.alloc, count.code, i32(shift), i32(zeroed ? 1 : 0)));
}

/** A copy of the elements [offset, offset + product(dims)) of `data` into a fresh array: its data slot. */
export function copyLeaf(em: WasmEmitter, kind: ScalarKind, data: WSlot, offset: WSlot, dims: readonly WSlot[]): WSlot {
  const shift = elementShift(kind, em.real);
  const n = em.index(product(dims));
  const to = allocate(em, kind, [n], false);
  em.fb.emit(op("memory.copy", slotCode(to), address(data, islot(offset), shift), ishl(islot(n), shift).code));
  return to;
}
