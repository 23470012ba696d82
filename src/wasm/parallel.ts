// Parallel builds (issue 16): a large `build` of Doubles at the top of a function runs across threads over a shared
// memory. This file finds those builds (the parallel sites) and writes their code; ./parallel-run.ts runs them.
//
// A site is `let xs = build n (fun i -> e)` on the function body's chain of lets (never inside a loop or branch)
// where e is a Double computed without allocating: every value in e is a scalar (or a row read out of an array, a
// view), with no build or while inside, and e is big: it holds a loop (an ifold) or at least MIN_BODY_NODES nodes.
// Not allocating keeps the arena (a bump allocator, not thread-safe) the main thread's alone.
//
// The body becomes the exported function `part_k(start, end, env)`, which writes elements [start, end) into the
// destination. At the site, `main` asks the host whether n elements are worth threads (`worth(k, n)`); if not, it
// runs the build as it would single-threaded (SIMD lanes included); if so, it allocates the destination and an env
// block in the arena, stores the destination and the slots of e's free variables there (8 bytes each), and calls
// the imported `parallel(k, n, env)`, which splits [0, n) into contiguous chunks, one per thread. Each element is
// computed by the same operations whichever thread runs it (a part's loop is a plain one; SIMD lanes compute each
// lane as the scalar code does): results are bit for bit those of one thread.

import { typeOf, type Build, type Expr, type IrFunction } from "../ir/ir.js";
import { children, freeVars, someNode } from "../ir/free.js";
import { leavesOf } from "../lowering/leaves.js";
import type { Type } from "../types/types.js";
import type { ModuleBuilder } from "./encoder.js";
import { call, f64, i32, load, op, store } from "./instructions.js";
import { WasmEmitter, type WSlots } from "./emit.js";
import { emitBuild } from "./build.js";
import type { Helpers } from "./memory.js";
import { address, elementShift, islot, isLocal, slotCode, ZERO, type Real, type WSlot } from "./slots.js";

/** A body without a loop is a site only from this many IR nodes (fewer: the plain loop, in SIMD lanes, is better). */
export const MIN_BODY_NODES = 40;
/** A loop's body counts this many times in the cost estimate (its trip count is not known when compiling). */
const LOOP_WEIGHT = 16;

/** A parallel site: its build and the estimated cost of one element (IR nodes, loop bodies weighted). */
export interface ParallelSite {
  readonly build: Build;
  readonly cost: number;
}

const scalar = (t: Type): boolean => leavesOf(t).every((l) => l.rank === 0 && l.kind !== "tape");

/** Whether computing `e` allocates nothing: scalars throughout, rows only as views (`get` of a matrix). */
function allocationFree(e: Expr): boolean {
  return !someNode(e, (node) => {
    switch (node.kind) {
      case "build":
      case "while":
      case "call":
      case "jvp":
      case "lam":
      case "app":
      case "custom":
        return true;
      case "prim":
        return node.op !== "get" && !scalar(node.type);
      case "if":
      case "ifold":
        return !scalar(node.type);
      default:
        return false;
    }
  });
}

/** The cost of one evaluation of `e`: its nodes, a loop's body counted LOOP_WEIGHT times. */
export function bodyCost(e: Expr): number {
  const inner = children(e).reduce((sum, c) => sum + bodyCost(c), 0);
  return 1 + (e.kind === "ifold" ? LOOP_WEIGHT * inner : inner);
}

/** The site `b` would be, or undefined when it is not one. */
function siteOf(b: Build): ParallelSite | undefined {
  if (b.type.k !== "array" || b.type.elem.k !== "double" || typeOf(b.body).k !== "double") return undefined;
  if (!allocationFree(b.body)) return undefined;
  const hasLoop = someNode(b.body, (node) => node.kind === "ifold");
  const cost = bodyCost(b.body);
  if (!hasLoop && cost < MIN_BODY_NODES) return undefined;
  return { build: b, cost };
}

/** The parallel sites of `fn`: builds on the chain of lets of its body (and at its end), in order. */
export function parallelSites(fn: IrFunction): ParallelSite[] {
  const sites: ParallelSite[] = [];
  const consider = (b: Build) => {
    const site = siteOf(b);
    if (site !== undefined) sites.push(site);
  };
  let e: Expr = fn.body;
  for (; e.kind === "let"; e = e.body) if (e.rhs.kind === "build") consider(e.rhs);
  if (e.kind === "build") consider(e);
  return sites;
}

/** What writing a site needs besides the emitter of `main`. */
export interface ParallelContext {
  readonly mb: ModuleBuilder;
  /** The imported `parallel(k, n, env)`, and `worth(k, n)`: whether n elements of site k pay for threads. */
  readonly dispatch: number;
  readonly worth: number;
  readonly sites: readonly ParallelSite[];
}

/**
 * If `b` is a parallel site, writes it: the part function, and in `main` a branch on whether the work is large enough
 * (the host's `worth(k, n)`) between the call to `parallel` and the single-threaded loop (./build.ts, SIMD lanes and
 * all). Its slots, or undefined when `b` is no site.
 */
export function emitParallelSite(em: WasmEmitter, b: Build, ctx: ParallelContext): WSlots | undefined {
  const k = ctx.sites.findIndex((s) => s.build === b);
  if (k < 0) return undefined;
  const n = em.atom(b.size)[0]!;
  const free = [...freeVars(b.body).values()].filter((v) => v.id !== b.index.id).sort((a, c) => a.id - c.id);
  const passed = free.flatMap((v) => em.atom(v).filter(isLocal));
  const out = em.local("i32");
  em.fb.if(call(ctx.worth, i32(k), slotCode(n)));
  em.checkCount(n, "build size", b.span);
  const shift = elementShift("double", em.real);
  const dest = em.define("i32", call(em.helpers.alloc, op("f64.convert_i32_s", slotCode(n)), i32(shift), i32(0)));
  // The env block: the destination, then each free variable's slots that are locals (constants are written in).
  const env = em.define("i32", call(em.helpers.alloc, f64(1 + passed.length), i32(3), i32(0)));
  const storeSlot = (s: WSlot, q: number) =>
    em.fb.emit(
      store(
        s.type === "i32" ? "i32.store" : s.type === "f64" ? "f64.store" : "f32.store",
        slotCode(env),
        slotCode(s),
        8 * q,
      ),
    );
  storeSlot(dest, 0);
  passed.forEach((s, q) => storeSlot(s, q + 1));
  em.fb.emit(call(ctx.dispatch, i32(k), slotCode(n), slotCode(env)));
  em.set(out, slotCode(dest));
  em.fb.else();
  const single = emitBuild(em, b);
  if (single.length !== 3 || "local" in single[1]! || single[1]!.value !== 0)
    throw new Error("wasm: a parallel site's single-threaded build is not one array at offset 0");
  em.set(out, slotCode(single[0]!));
  em.fb.end();
  writePart(em, ctx, k, free, passed.length);
  return [out, ZERO, n];
}

/** The exported function part_k(start, end, env): elements [start, end) of site k. */
function writePart(main: WasmEmitter, ctx: ParallelContext, k: number, free: Build["index"][], passed: number): void {
  const b = ctx.sites[k]!.build;
  const fb = ctx.mb.addFunction({ params: ["i32", "i32", "i32"], results: [] });
  ctx.mb.exportFunction(`part_${k}`, fb.index);
  const [start, end, envArg]: WSlot[] = [0, 1, 2].map((local) => ({ local, type: "i32" as const }));
  const em = new WasmEmitter(fb, noAllocation(main.helpers), main.real, main.errorArea);
  em.sites = main.sites;
  em.inPlace = main.inPlace;
  em.copyOnEntry = main.copyOnEntry;
  const loadSlot = (t: WSlot["type"], q: number) =>
    em.define(t, load(t === "i32" ? "i32.load" : t === "f64" ? "f64.load" : "f32.load", slotCode(envArg!), 8 * q));
  const dest = loadSlot("i32", 0);
  let q = 1;
  for (const v of free) {
    const slots: WSlots = main.atom(v).map((s) => (isLocal(s) ? loadSlot(s.type, q++) : s));
    em.bind(v, slots);
    em.markDimensions(slots, v.type);
  }
  if (q !== 1 + passed) throw new Error("wasm: a parallel site's env block does not match its part");
  const i = em.loopVariable(b.index, end!);
  const shift = elementShift("double", em.real);
  em.countedLoop(
    i,
    end!,
    () => {
      const value = em.expr(b.body)[0]!;
      fb.emit(store(em.real === "f64" ? "f64.store" : "f32.store", address(dest, islot(i), shift), slotCode(value)));
    },
    start,
  );
  main.savedCount = Math.max(main.savedCount, em.savedCount);
}

/** The helpers of `main`, except that allocating is a bug: a site's body was chosen not to allocate. */
function noAllocation(h: Helpers): Helpers {
  return Object.create(h, {
    alloc: {
      get: () => {
        throw new Error("wasm: a parallel site's body allocates");
      },
    },
  }) as Helpers;
}

export type { Real };
