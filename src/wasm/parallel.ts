// Parallel sites (issue 16): the code of a large `build` of Doubles, or a large sum, at the top of a function that
// runs across threads over a shared memory (./parallel-sites.ts finds the sites; ./parallel-run.ts runs them).
//
// The element becomes the exported function `part_k(n, grain, env)`: threads claim `grain` elements at a time from
// the claim word in the env block (one atomic add) and write them into the destination, until none are left, so
// uneven elements balance. At the site, `main` asks the host whether n elements are worth threads (`worth(k, n)`);
// if not, it runs the build or the ifold as it would single-threaded (SIMD lanes included); if so, it allocates the
// destination and an env block in the arena, stores the destination, its arena's top (where parts' chunks start)
// and the slots of e's free variables there (8 bytes each), and calls the imported `parallel(k, n, env)`. Each
// element is computed by the same operations whichever thread runs it (a part's loop is a plain one; SIMD lanes
// compute each lane as the scalar code does): results are bit for bit those of one thread.

import { freshVar, type Build, type Ifold, type Prim, type Var } from "../ir/ir.js";
import { freeVars } from "../ir/free.js";
import { elemKind, leafStarts, leavesOf } from "../lowering/leaves.js";
import { arrayOf, INT } from "../types/types.js";
import type { ModuleBuilder } from "./encoder.js";
import { atomicAdd, call, f64, globalGet, globalSet, i32, load, op, store } from "./instructions.js";
import { WasmEmitter, type WSlots } from "./emit.js";
import { emitBuild, type BuildInto } from "./build.js";
import { emitOutlinedLoop } from "./outline.js";
import type { ArenaGlobals, Helpers } from "./memory.js";
import {
  ENV_CLAIM,
  ENV_DEST,
  ENV_SLOTS,
  ENV_TOP,
  resetPartArena,
  startPartArena,
  type PartArena,
} from "./part-arena.js";
import {
  address,
  distinctLocals,
  elementShift,
  iconst,
  imul,
  islot,
  isLocal,
  slotCode,
  slotKey,
  ZERO,
  type Real,
  type WSlot,
} from "./slots.js";
import type { ParallelSite } from "./parallel-sites.js";
import {
  chunkFits,
  chunkShapes,
  chunkStartSlots,
  checkWholeArrays,
  writeChunkElement,
  type ChunkDestination,
  type ChunkPlan,
} from "./chunk-sites.js";

/** What writing a site needs besides the emitter of `main`. */
export interface ParallelContext {
  readonly mb: ModuleBuilder;
  /** The imported `parallel(k, n, env)`, and `worth(k, n)`: whether n elements of site k pay for threads. */
  readonly dispatch: number;
  readonly worth: number;
  readonly sites: readonly ParallelSite[];
  /** `main`'s arena (its top is where parts' chunks start), and the parts' arena, when some site allocates. */
  readonly arena: ArenaGlobals;
  readonly partArena?: PartArena;
  /** The sites whose part is written: their part's function. */
  readonly written: Map<number, number>;
}

/**
 * If `e` is a parallel site, writes it: the part function, and in `main` a branch on whether the work is large enough
 * (the host's `worth(k, n)`) between the call to `parallel` (and for a sum, the sum of the terms in order) and the
 * single-threaded code (SIMD lanes and all). Its slots, or undefined when `e` is no site.
 */
export function emitParallelSite(em: WasmEmitter, e: Build | Ifold, ctx: ParallelContext): WSlots | undefined {
  const k = ctx.sites.findIndex((s) => s.source === e);
  if (k < 0) return undefined;
  const site = ctx.sites[k]!;
  const b = site.build;
  const n = em.atom(b.size)[0]!;
  const free = partFree(site);
  const passed = distinctLocals(free.flatMap((v) => em.atom(v)));
  let result: WSlots;
  if (site.chunk?.keepsShape) result = emitChunkSiteOfParts(em, b, site.chunk, ctx, k, n, free, passed);
  else if (site.chunk !== undefined) result = emitChunkSite(em, b, site.chunk, ctx, k, n, passed);
  else {
    const out = site.step === undefined ? em.local("i32") : em.local(em.real);
    const rowLength = site.row === undefined ? undefined : em.local("i32");
    em.fb.if(call(ctx.worth, i32(k), slotCode(n)));
    em.checkCount(n, site.step === undefined ? "build size" : "ifold count", b.span);
    const shift = elementShift("double", em.real);
    const count = op("f64.convert_i32_s", slotCode(n));
    const elements = site.row === undefined ? count : op("f64.mul", count, f64(site.row));
    const dest = em.define("i32", call(em.helpers.alloc, elements, i32(shift), i32(0)));
    callParts(em, ctx, k, n, dest, [], passed);
    if (site.step === undefined) em.set(out, slotCode(dest));
    else em.set(out, slotCode(sumTerms(em, e as Ifold, site.step, [dest, ZERO, n])[0]!));
    if (rowLength !== undefined) em.set(rowLength, i32(site.row!));
    em.fb.else();
    if (site.step === undefined) {
      const single = emitBuild(em, e as Build);
      if (single.length !== (rowLength === undefined ? 3 : 4) || "local" in single[1]! || single[1]!.value !== 0)
        throw new Error("wasm: a parallel site's single-threaded build is not one array at offset 0");
      em.set(out, slotCode(single[0]!));
      if (rowLength !== undefined) em.set(rowLength, slotCode(single[3]!));
    } else em.set(out, slotCode(em.ifold(e as Ifold)[0]!));
    em.fb.end();
    result = site.step !== undefined ? [out] : rowLength === undefined ? [out, ZERO, n] : [out, ZERO, n, rowLength];
  }
  partOf(em, ctx, k, free, passed.length);
  return result;
}

/** Site k's part function, written the first time (a node the IR shares between two places is one site). */
function partOf(em: WasmEmitter, ctx: ParallelContext, k: number, free: readonly Var[], passed: number): number {
  let part = ctx.written.get(k);
  if (part === undefined) ctx.written.set(k, (part = writePart(em, ctx, k, free, passed)));
  return part;
}

/** The variables a site's part reads from the env block, in order: its element's free variables. */
function partFree(site: ParallelSite): Var[] {
  const b = site.build;
  const free = freeVars(site.chunk?.body ?? b.body);
  for (const v of site.chunk?.shapes ?? []) free.set(v.id, v);
  if (site.chunk !== undefined) free.delete(site.chunk.start.id);
  return [...free.values()].filter((v) => v.id !== b.index.id).sort((a, c) => a.id - c.id);
}

/**
 * The env block of a call of site k's parts (the destination `dest`, the claim word, the top of main's arena, then
 * `words`, then the free variables' slots that are locals: constants are written into the part), and the call. With
 * `part` (the part's function), the call is made only when n elements are worth threads (`worth`); otherwise `main`
 * runs the part itself, over all n.
 */
function callParts(
  em: WasmEmitter,
  ctx: ParallelContext,
  k: number,
  n: WSlot,
  dest: WSlot,
  words: readonly WSlot[],
  passed: readonly WSlot[],
  part?: number,
): WSlot {
  const env = em.define("i32", call(em.helpers.alloc, f64(ENV_SLOTS + words.length + passed.length), i32(3), i32(0)));
  const storeSlot = (s: WSlot, q: number) =>
    em.fb.emit(
      store(
        s.type === "i32" ? "i32.store" : s.type === "f64" ? "f64.store" : "f32.store",
        slotCode(env),
        slotCode(s),
        8 * q,
      ),
    );
  storeSlot(dest, ENV_DEST / 8);
  em.fb.emit(store("i64.store", slotCode(env), op("i64.extend_i32_u", globalGet(ctx.arena.heap)), ENV_TOP));
  [...words, ...passed].forEach((s, q) => storeSlot(s, q + ENV_SLOTS));
  if (part === undefined) em.fb.emit(call(ctx.dispatch, i32(k), slotCode(n), slotCode(env)));
  else {
    em.fb.if(call(ctx.worth, i32(k), slotCode(n)));
    em.fb.emit(call(ctx.dispatch, i32(k), slotCode(n), slotCode(env)));
    em.fb.else();
    // No element claimed yet (the host's `parallel` clears the claim word itself).
    em.fb.emit(store("i32.store", slotCode(env), i32(0), ENV_CLAIM));
    em.fb.emit(call(part, slotCode(n), slotCode(n), slotCode(env)));
    em.fb.end();
  }
  if (ctx.sites[k]!.allocates) {
    // What the parts wrote, up to the top they reached, must be cleared before main's own arrays there are read.
    const top = op("i32.wrap_i64", load("i64.load", slotCode(env), ENV_TOP));
    const dirty = globalGet(ctx.arena.dirty);
    em.fb.emit(globalSet(ctx.arena.dirty, op("select", top, dirty, op("i32.gt_u", top, dirty))));
  }
  return env;
}

/**
 * A chunk site in `main`: when worth it (and the destination within the array limit), the destination's leaves
 * [n, ...the element's dimensions], the call, and its result unless an element's shape was not the destination's
 * (the flag, the env block's first word); otherwise, or then, the build as one thread runs it.
 */
function emitChunkSite(
  em: WasmEmitter,
  b: Build,
  plan: ChunkPlan,
  ctx: ParallelContext,
  k: number,
  n: WSlot,
  passed: readonly WSlot[],
): WSlots {
  const fb = em.fb;
  const shapes = chunkShapes(em, plan);
  const { dims, sizes } = shapes;
  const types = leavesOf(b.type);
  const out = types.map((l) => ({
    data: em.local("i32"),
    dims: Array.from({ length: l.rank - 1 }, () => em.local("i32")),
  }));
  const done = em.define("i32", i32(0));
  fb.if(op("i32.and", call(ctx.worth, i32(k), slotCode(n)), chunkFits(n, shapes)));
  em.checkCount(n, "build size", b.span);
  const data = allocDestination(em, b, n, sizes);
  const env = callParts(em, ctx, k, n, data[0]!, [ZERO, ...data], passed);
  em.set(done, op("i32.eqz", load("i32.load", slotCode(env), 8 * ENV_SLOTS)));
  out.forEach((o, q) => {
    em.set(o.data, slotCode(data[q]!));
    o.dims.forEach((d, r) => em.set(d, slotCode(dims[q]![r]!)));
  });
  fb.end();
  fb.if(op("i32.eqz", slotCode(done)));
  const single = emitBuild(em, b);
  checkWholeArrays(single, b);
  const starts = leafStarts(types);
  out.forEach((o, q) => {
    em.set(o.data, slotCode(single[starts[q]!]!));
    o.dims.forEach((d, r) => em.set(d, slotCode(single[starts[q]! + 3 + r]!)));
  });
  fb.end();
  const result = out.flatMap((o) => [o.data, ZERO, n, ...o.dims]);
  em.markDimensions(result, b.type);
  return result;
}

/**
 * A chunk site whose elements all have the destination's shape (`keepsShape`): the destination's leaves
 * [n, ...the element's dimensions] (an allocation over the array limit fails as the build's own would), then the
 * parts, across threads or, when n elements are not worth them, on this thread. No build of its own: one copy of the
 * element's code (its loop over the points in a function of its own, ./outline.ts) serves both.
 */
function emitChunkSiteOfParts(
  em: WasmEmitter,
  b: Build,
  plan: ChunkPlan,
  ctx: ParallelContext,
  k: number,
  n: WSlot,
  free: readonly Var[],
  passed: readonly WSlot[],
): WSlots {
  const part = partOf(em, ctx, k, free, passed.length);
  const { dims, sizes } = chunkShapes(em, plan);
  em.checkCount(n, "build size", b.span);
  const data = allocDestination(em, b, n, sizes);
  callParts(em, ctx, k, n, data[0]!, [ZERO, ...data], passed, part);
  const result = data.flatMap((d, q) => [d, ZERO, n, ...dims[q]!]);
  em.markDimensions(result, b.type);
  return result;
}

/** The leaves of a chunk site's destination: n elements of `sizes[leaf]` scalars each (uncleared: parts clear). */
function allocDestination(em: WasmEmitter, b: Build, n: WSlot, sizes: readonly WSlot[]): WSlot[] {
  return leavesOf(b.type).map((l, q) =>
    em.define(
      "i32",
      call(
        em.helpers.alloc,
        op("f64.mul", op("f64.convert_i32_s", slotCode(n)), op("f64.convert_i32_s", slotCode(sizes[q]!))),
        i32(elementShift(elemKind(l), em.real)),
        i32(0),
      ),
    ),
  );
}

/** The sum site's result from its terms (the slots of an array): `ifold (fun acc i -> acc ⊕ terms[i]) z n`. */
function sumTerms(em: WasmEmitter, f: Ifold, step: NonNullable<ParallelSite["step"]>, terms: WSlots): WSlots {
  const array = freshVar("terms", arrayOf(f.type));
  em.bind(array, terms);
  em.markDimensionSlots([terms[2]!]);
  const [acc, i, x] = [freshVar("acc", f.type), freshVar("i", f.index.type), freshVar("term", f.type)];
  const get: Prim = { kind: "prim", op: "get", args: [array, i], type: f.type };
  const add: Prim = { kind: "prim", op: step.op, args: step.accFirst ? [acc, x] : [x, acc], type: f.type };
  const loop: Ifold = { ...f, acc, index: i, body: { kind: "let", v: x, rhs: get, body: add } };
  // The listing counts the program's loops in lanes, as one thread runs them: this one is not the program's.
  const laneLoops = em.laneLoops;
  const sum = em.ifold(loop);
  em.laneLoops = laneLoops;
  return sum;
}

/** The exported function part_k(n, grain, env): claims `grain` elements of site k at a time until none are left. */
function writePart(main: WasmEmitter, ctx: ParallelContext, k: number, free: readonly Var[], passed: number): number {
  const site = ctx.sites[k]!;
  const b = site.build;
  const fb = ctx.mb.addFunction({ params: ["i32", "i32", "i32"], results: [] });
  ctx.mb.exportFunction(`part_${k}`, fb.index);
  const [n, grain, envArg]: WSlot[] = [0, 1, 2].map((local) => ({ local, type: "i32" as const }));
  const arena = site.allocates ? ctx.partArena : undefined;
  if (site.allocates && arena === undefined) throw new Error("wasm: an allocating parallel site without a part arena");
  const em = new WasmEmitter(fb, partHelpers(main.helpers, arena), main.real, main.errorArea);
  em.sites = main.sites;
  em.inPlace = main.inPlace;
  em.copyOnEntry = main.copyOnEntry;
  if (arena !== undefined) startPartArena(fb, arena, 2);
  const loadSlot = (t: WSlot["type"], q: number) =>
    em.define(t, load(t === "i32" ? "i32.load" : t === "f64" ? "f64.load" : "f32.load", slotCode(envArg!), 8 * q));
  const dest = loadSlot("i32", ENV_DEST / 8);
  let q = ENV_SLOTS;
  // A chunk site's words: the flag, then the destination's leaves.
  const flag = op("i32.add", slotCode(envArg!), i32(8 * ENV_SLOTS));
  const leafData = site.chunk === undefined ? [] : leavesOf(b.type).map((_, l) => loadSlot("i32", q + 1 + l));
  if (site.chunk !== undefined) q += 1 + leafData.length;
  const first = q;
  // Each local of `main` once (as distinctLocals passes them): the part's local for main's.
  const loaded = new Map<number, WSlot>();
  const partSlot = (s: WSlot): WSlot => {
    if (!isLocal(s)) return s;
    let mine = loaded.get(s.local);
    if (mine === undefined) loaded.set(s.local, (mine = loadSlot(s.type, q++)));
    return mine;
  };
  for (const v of free) {
    const outer = main.atom(v);
    const slots: WSlots = outer.map(partSlot);
    em.bind(v, slots);
    em.markDimensions(slots, v.type);
    // A count that is a dimension in `main` (`let n = length x`) is one here too (what ./outline.ts asks).
    outer.forEach((s, j) => {
      if (isLocal(s) && main.bounds.isDimension(slotKey(s))) em.bounds.dimension(slotKey(slots[j]!));
    });
  }
  if (q !== first + passed) throw new Error("wasm: a parallel site's env block does not match its part");
  const start = em.local("i32");
  const end = em.local("i32");
  fb.block("done");
  fb.loop("claim");
  // (A chunk site's elements are few and heavy: one at a time.)
  const claimed = site.chunk === undefined ? slotCode(grain!) : i32(1);
  em.set(start, atomicAdd("i32", slotCode(envArg!), claimed, ENV_CLAIM));
  fb.brIf("done", op("i32.ge_s", slotCode(start), slotCode(n!)));
  const next = op("i32.add", slotCode(start), claimed);
  em.set(end, op("select", slotCode(n!), next, op("i32.gt_s", next, slotCode(n!))));
  const shift = elementShift("double", em.real);
  if (site.row !== undefined) writeRows(em, b, site.row, arena, dest, start, end);
  else if (site.chunk !== undefined) {
    const plan = site.chunk;
    const into: ChunkDestination = { data: leafData, ...chunkShapes(em, plan) };
    const offsets = plan.leaves.map(() => em.local("i32"));
    em.bind(plan.start, chunkStartSlots(em, plan, into, offsets));
    em.markDimensions(em.atom(plan.start), plan.start.type);
    // One element per claim, written without a loop around it: its loop over the points is then at the top of the
    // part, where it may be a function of its own (./outline.ts), so V8 optimises it during the first call.
    const c = em.loopVariable(b.index, end);
    em.set(c, slotCode(start));
    em.outline = (e, count, state) => emitOutlinedLoop(em, ctx.mb, e, count, state);
    if (arena !== undefined) resetPartArena(fb, arena);
    writeChunkElement(em, b, plan, into, offsets, c, flag);
  } else {
    const i = em.loopVariable(b.index, end);
    em.countedLoop(
      i,
      end,
      () => {
        if (arena !== undefined) resetPartArena(fb, arena);
        const value = em.expr(b.body)[0]!;
        fb.emit(store(em.real === "f64" ? "f64.store" : "f32.store", address(dest, islot(i), shift), slotCode(value)));
      },
      start,
    );
  }
  fb.br("claim");
  fb.end();
  fb.end();
  main.savedCount = Math.max(main.savedCount, em.savedCount);
  return fb.index;
}

/**
 * Rows [start, end) of a row site: the build of that many rows, `build (end - start) (fun j -> let i = j + start in
 * e)`, written as one thread writes the site (each row in place, SIMD lanes where they apply) straight into the
 * destination (else into the part's arena, then copied). The arena is reset per chunk.
 */
function writeRows(
  em: WasmEmitter,
  b: Build,
  row: number,
  arena: PartArena | undefined,
  dest: WSlot,
  start: WSlot,
  end: WSlot,
): void {
  const fb = em.fb;
  if (arena !== undefined) resetPartArena(fb, arena);
  const count = em.define("i32", op("i32.sub", slotCode(end), slotCode(start)));
  const [j, from, size] = [freshVar("j", b.index.type), freshVar("start", b.index.type), freshVar("count", INT)];
  em.bind(from, [start]);
  em.bind(size, [count]);
  const index: Prim = { kind: "prim", op: "add", args: [j, from], type: b.index.type };
  const chunk: Build = { ...b, size, index: j, body: { kind: "let", v: b.index, rhs: index, body: b.body } };
  const shift = elementShift("double", em.real);
  const to = em.define("i32", address(dest, imul(islot(start), iconst(row)), shift));
  const into: BuildInto = { address: to, used: false };
  const [data, offset] = emitBuild(em, chunk, undefined, into);
  if (into.used) return;
  const bytes = op("i32.shl", op("i32.mul", slotCode(count), i32(row)), i32(shift));
  fb.emit(op("memory.copy", slotCode(to), address(data!, islot(offset!), shift), bytes));
}

/** The helpers of `main` with the part arena's allocator; without one, allocating is a bug (no site allocates). */
function partHelpers(h: Helpers, arena: PartArena | undefined): Helpers {
  return Object.create(h, {
    alloc: {
      get: () => {
        if (arena === undefined) throw new Error("wasm: a parallel site's body allocates");
        return arena.alloc;
      },
    },
    // Loop iterations in a part keep what they allocate (the part arena is given back per element).
    heap: { value: undefined },
  }) as Helpers;
}

export type { Real };
