// The wasm back end's entry point: a first-order IrFunction becomes one WebAssembly module. Its function `main`
// reads the argument slots from linear memory (./memory.ts has the layout), runs the function body (./emit.ts) and
// writes the result slots; the module's other functions are the arena's allocator, Index powers, exp and log
// (./math.ts), tanh (./math-tanh.ts); sin, cos, tan and pow are V8's own, imported from `Math` (and atan, asin, acos,
// atan2 by a module whose code calls one: imports come before the module's functions, so they are decided first).
//
// The module holds no program text: error messages, spans and types stay in JavaScript, with the error sites
// (./runtime.ts raises them).

import { typeOf, type IrFunction } from "../ir/ir.js";
import { someNode } from "../ir/free.js";
import { ownership } from "../lowering/ownership.js";
import type { Type } from "../types/types.js";
import { leafStarts, leavesOf } from "../lowering/leaves.js";
import { ModuleBuilder, type FuncType, type FunctionBuilder, type ValType } from "./encoder.js";
import { call, globalGet, globalSet, i32, load, localGet, localSet, op, shuffle, store } from "./instructions.js";
import { WasmEmitter, type RaiseError } from "./emit.js";
import { writeExp, writeLog } from "./math.js";
import { writeExpm1, writeTanh } from "./math-tanh.js";
import { writeExpF64x2, writeLogF64x2 } from "./simd-math.js";
import {
  addArenaGlobals,
  layoutFor,
  type Helpers,
  raiseOutOfMemory,
  raiseTooLarge,
  writeAlloc,
  writeIntPow,
  type ErrorRaisers,
  type InverseTrig,
  type Layout,
} from "./memory.js";
import { emitParallelSite } from "./parallel.js";
import { parallelSites } from "./parallel-sites.js";
import { addPartArena } from "./part-arena.js";
import { emitOutlinedBranch, emitOutlinedLets, emitOutlinedLoop } from "./outline.js";
import { slotCode, slotTypes, type Real, type WSlot } from "./slots.js";

/** A compiled module and what ./runtime.ts needs to call it. */
export interface WasmProgram {
  readonly bytes: Uint8Array<ArrayBuffer>;
  readonly real: Real;
  readonly layout: Layout;
  readonly paramTypes: readonly Type[];
  readonly resultType: Type;
  /** The types of the argument and result slots (in leaf order). */
  readonly argSlots: readonly ValType[];
  readonly resultSlots: readonly ValType[];
  /** Error sites, numbered from 1: sites[k - 1] raises site k's error. */
  readonly sites: readonly RaiseError[];
  /** The first address past the fixed areas (where argument arrays go). */
  readonly dataStart: number;
  /**
   * How many loops run in SIMD lanes, how many of them run across the lanes of the loop around them, and how many
   * folds run in the loop of the build they read; how many builds write into a dead array they read elementwise.
   */
  readonly laneLoops: number;
  readonly outerLaneLoops: number;
  readonly fusedFolds: number;
  readonly buildsInPlace: number;
  /** How many loops step their index arithmetic by differences (./induction.ts). */
  readonly steppedLoops: number;
  /** How many loops are functions of their own (./outline.ts). */
  readonly outlined: number;
  /**
   * How many checkpointed branches are functions of their own (./outline.ts): the module is then compiled without
   * TurboFan's node splitting (./compile-tier.ts). Absent in a cache entry written before it existed.
   */
  readonly checkpointBranches?: number;
  /**
   * The most locals of one of its functions (`main`, a loop body of its own: every value gets its own local, and a
   * very long program can pass the engines' limit).
   */
  readonly localCount: number;
  /**
   * The estimated cost of one element of each parallel site (./parallel.ts), by site number; none: the module has its
   * own memory and runs on one thread.
   */
  readonly parallelCosts: readonly number[];
  /** The threads its parallel sites run on. */
  readonly threads: number;
  /**
   * With parallel sites: the same module importing an unshared memory (limits flag 1), for calls that stay on one
   * thread (./runtime.ts).
   */
  readonly unsharedBytes?: Uint8Array<ArrayBuffer>;
}

/** The bytes of lanes 2 and 3 of an f32x4 moved to lanes 0 and 1. */
const HIGH_HALF = [8, 9, 10, 11, 12, 13, 14, 15, 8, 9, 10, 11, 12, 13, 14, 15];

const F64_TO_F64 = { params: ["f64"], results: ["f64"] } as const satisfies { params: ValType[]; results: ValType[] };

/**
 * `threads` > 1 lets the large builds and sums at the top of `fn` run across threads (./parallel.ts); with 1 (or
 * none found) the module is the single-threaded one, byte for byte. `foundSites` is called before the module is
 * written when it has parallel sites (the back end starts the worker threads then, to boot while it writes).
 */
export function generateModule(
  fn: IrFunction,
  raise: ErrorRaisers,
  real: Real = "f64",
  threads = 1,
  foundSites?: () => void,
): WasmProgram {
  const paramTypes = fn.params.map((p) => p.type);
  const resultType = typeOf(fn.body);
  const argSlots = paramTypes.flatMap((t) => slotTypes(t, real));
  const resultSlots = slotTypes(resultType, real);
  const layout = layoutFor(argSlots.length, resultSlots.length);

  const mb = new ModuleBuilder();
  const math = {
    sin: mb.importFunction("Math", "sin", F64_TO_F64),
    cos: mb.importFunction("Math", "cos", F64_TO_F64),
    tan: mb.importFunction("Math", "tan", F64_TO_F64),
    pow: mb.importFunction("Math", "pow", { params: ["f64", "f64"], results: ["f64"] }),
    ...inverseTrigonometry(mb, fn),
  };
  const sites = threads > 1 ? parallelSites(fn) : [];
  if (sites.length > 0) {
    mb.sharedMemory = true;
    foundSites?.();
  }
  const dispatch =
    sites.length > 0 ? mb.importFunction("env", "parallel", { params: ["i32", "i32", "i32"], results: [] }) : -1;
  const worth = sites.length > 0 ? mb.importFunction("env", "worth", { params: ["i32", "i32"], results: ["i32"] }) : -1;
  const arena = addArenaGlobals(mb);
  const errorSite = mb.addGlobal("i32", i32(0));
  mb.exportGlobal("errorSite", errorSite);

  const alloc = mb.addFunction({ params: ["f64", "i32", "i32"], results: ["i32"] });
  writeAlloc(alloc, arena, errorSite, layout.errorArea);
  const intPow = mb.addFunction({ params: ["i32", "i32"], results: ["i32"] });
  writeIntPow(intPow);
  // The math functions are added to the module the first time the code calls them: a program that uses no tanh
  // carries none (each is a few hundred bytes for V8 to compile, and time to write).
  const lazily = (make: () => number): (() => number) => {
    let index: number | undefined;
    return () => (index ??= make());
  };
  const written = (type: FuncType, write: (fb: FunctionBuilder) => void) =>
    lazily(() => {
      const fb = mb.addFunction(type);
      write(fb);
      return fb.index;
    });
  const exp64 = written(F64_TO_F64, writeExp);
  const log64 = written(F64_TO_F64, writeLog);
  const expm1 = written(F64_TO_F64, writeExpm1);
  const tanh = written(F64_TO_F64, (fb) => writeTanh(fb, expm1()));
  // exp and log of a lane loop's groups of lanes: one function per count of groups, called once per step (written
  // inline at every use, they were two thirds of a gradient's module: gmm's 88 KB, 30 KB with calls).
  const v128s = (n: number): ValType[] => Array.from({ length: n }, () => "v128");
  const groupFunctions = new Map<string, () => number>();
  /** The function of `groups` v128s in and out that `write` writes, made once per key. */
  const groupFunction = (key: string, groups: number, write: (w: FunctionBuilder) => void): number => {
    let fn = groupFunctions.get(key);
    if (fn === undefined) {
      fn = written({ params: v128s(groups), results: v128s(groups) }, write);
      groupFunctions.set(key, fn);
    }
    return fn();
  };
  const lanes64 = (f: "exp" | "log", groups: number): number =>
    groupFunction(`${f}${groups}`, groups, (w) => (f === "exp" ? writeExpF64x2 : writeLogF64x2)(w, groups));
  // float32: the f64 function of the widened value, rounded (one rounding of a result within an ulp of f64's).
  const narrowed = (f: () => number) =>
    written({ params: ["f32"], results: ["f32"] }, (w) =>
      w.emit(op("f32.demote_f64", call(f(), op("f64.promote_f32", localGet(0))))),
    );
  // Groups of four f32 lanes: the low and high pairs of each widened, through the f64 function of twice as many
  // groups, rounded and put together.
  const narrowedLanes = (f: "exp" | "log", groups: number): number =>
    groupFunction(`${f}${groups}f32`, groups, (w) => {
      const wide = Array.from({ length: groups }, (_, g) => [
        op("f64x2.promote_low_f32x4", localGet(g)),
        op("f64x2.promote_low_f32x4", shuffle(localGet(g), localGet(g), HIGH_HALF)),
      ]).flat();
      w.emit(call(lanes64(f, 2 * groups), ...wide));
      const halves = wide.map(() => w.local("v128"));
      for (let h = halves.length - 1; h >= 0; h--) w.emit(localSet(halves[h]!, []));
      for (let g = 0; g < groups; g++) {
        const [lo, hi] = [2 * g, 2 * g + 1].map((h) => op("f32x4.demote_f64x2_zero", localGet(halves[h]!)));
        w.emit(shuffle(lo!, hi!, [0, 1, 2, 3, 4, 5, 6, 7, 16, 17, 18, 19, 20, 21, 22, 23]));
      }
    });
  const [exp, log] = real === "f64" ? [exp64, log64] : [narrowed(exp64), narrowed(log64)];
  const lanes = real === "f64" ? lanes64 : narrowedLanes;
  const helpers: Helpers = {
    alloc: alloc.index,
    heap: arena.heap,
    intPow: intPow.index,
    get exp() {
      return exp();
    },
    get log() {
      return log();
    },
    lanes,
    math: {
      ...math,
      get tanh() {
        return tanh();
      },
    },
    errorSite,
    raise,
  };

  const main = mb.addFunction({ params: ["i32"], results: [] });
  mb.exportFunction("main", main.index);
  mb.exportMemory("memory");
  // The call starts: the arena begins at the heap start given (past the argument arrays, which count as written).
  main.emit(
    globalSet(arena.heap, localGet(0)),
    globalSet(errorSite, i32(0)),
    globalSet(
      arena.dirty,
      op("select", localGet(0), globalGet(arena.dirty), op("i32.gt_u", localGet(0), globalGet(arena.dirty))),
    ),
  );

  const em = new WasmEmitter(main, helpers, real, layout.errorArea);
  em.sites.push(raiseTooLarge, raiseOutOfMemory);
  const owned = ownership(fn);
  em.inPlace = owned.inPlace;
  em.buildInto = owned.buildInto;
  em.copyOnEntry = owned.copyOnEntry;
  // Parts that allocate take their arrays from an arena of their own (./part-arena.ts).
  const partArena = sites.some((s) => s.allocates) ? addPartArena(mb, errorSite, layout.errorArea) : undefined;
  const ctx = { mb, dispatch, worth, sites, arena, partArena, written: new Map<number, number>() };
  if (sites.length > 0) em.parallelSite = (e) => emitParallelSite(em, e, ctx);
  em.outline = (e, count, state) => emitOutlinedLoop(em, mb, e, count, state);
  em.outlineLets = (lets, live) => emitOutlinedLets(em, mb, lets, live);
  em.outlineBranch = (flag, lets, live) => emitOutlinedBranch(em, mb, flag, lets, live);

  let at = 0;
  for (const p of fn.params) {
    const types = slotTypes(p.type, real);
    const leaves = leavesOf(p.type);
    // Arguments are whole arrays (their offsets are the constant 0).
    const offsets = new Set(
      leafStarts(leaves)
        .filter((_, l) => leaves[l]!.rank > 0)
        .map((s) => s + 1),
    );
    const slots: WSlot[] = types.map((t, q) => {
      if (offsets.has(q)) return { value: 0, type: "i32" };
      const addr = i32(layout.argArea + 8 * (at + q));
      return em.define(
        t,
        t === "i32"
          ? load("i32.load", addr)
          : t === "f64"
            ? load("f64.load", addr)
            : op("f32.demote_f64", load("f64.load", addr)),
      );
    });
    at += types.length;
    em.bind(p, slots);
    em.markDimensions(slots, p.type);
  }
  const result = em.expr(fn.body);
  result.forEach((s, q) => {
    const addr = i32(layout.resultArea + 8 * q);
    const t = resultSlots[q]!;
    main.emit(
      t === "i32"
        ? store("i32.store", addr, slotCode(s))
        : store("f64.store", addr, t === "f64" ? slotCode(s) : op("f64.promote_f32", slotCode(s))),
    );
  });
  const dataStart = (layout.errorArea + 8 * em.savedCount + 15) & ~15;
  const bytes = mb.encode();
  let unsharedBytes: Uint8Array<ArrayBuffer> | undefined;
  if (mb.sharedFlagAt !== undefined) {
    unsharedBytes = bytes.slice();
    unsharedBytes[mb.sharedFlagAt] = 0x01;
  }
  return {
    bytes,
    ...(unsharedBytes === undefined ? {} : { unsharedBytes }),
    real,
    layout,
    paramTypes,
    resultType,
    argSlots,
    resultSlots,
    sites: em.sites,
    dataStart,
    laneLoops: em.laneLoops,
    outerLaneLoops: em.outerLaneLoops,
    fusedFolds: em.fusedFolds,
    buildsInPlace: em.buildsInPlace,
    steppedLoops: em.stepping.loops.size,
    outlined: em.outlined,
    checkpointBranches: em.checkpointBranches,
    localCount: mb.mostLocals,
    parallelCosts: sites.map((s) => s.cost),
    threads,
  };
}

const INVERSE_TRIG: readonly InverseTrig[] = ["atan", "asin", "acos", "atan2"];

/** Imports of `Math`'s inverse trigonometric functions when the function (or one it calls) uses one; else none. */
function inverseTrigonometry(mb: ModuleBuilder, fn: IrFunction): Partial<Record<InverseTrig, number>> {
  const bodies = [fn.body, ...(fn.functions ?? []).map((f) => f.body)];
  const uses = bodies.some((body) =>
    someNode(body, (n) => n.kind === "prim" && (INVERSE_TRIG as readonly string[]).includes(n.op)),
  );
  if (!uses) return {};
  return Object.fromEntries(
    INVERSE_TRIG.map((name) => [
      name,
      mb.importFunction("Math", name, name === "atan2" ? { params: ["f64", "f64"], results: ["f64"] } : F64_TO_F64),
    ]),
  );
}
