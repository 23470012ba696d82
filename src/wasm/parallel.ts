// Parallel sites (issue 16): a large `build` of Doubles, or a large sum, at the top of a function runs across threads
// over a shared memory. This file finds those sites and writes their code; ./parallel-run.ts runs them.
//
// A build site is `let xs = build n (fun i -> e)` on the function body's chain of lets, or a chain or branch such a
// let runs (never inside a loop), where e is a Double, is big (it holds an ifold, or at least MIN_BODY_NODES nodes)
// and calls no function. A sum site is `let s = ifold (fun acc i -> ... in acc + x) z n` there (also `*`, `max`,
// `min`; acc used only in the step) whose term, the lets and x, would be a build site: threads compute the terms
// into an array, then the calling thread adds them to z in order, the same additions in the same order as one thread
// (gmm's sum over points). A chunk site (./chunk-sites.ts) is a build there whose elements are arrays accumulated by
// an ifold from zeros of arrays bound outside it (an accumulation split into a fixed number of chunks): its
// destination's shape is known before any element runs, each element runs in place in its slice, claimed one at a
// time. An element may allocate: in a part, arrays come from the thread's own arena (./part-arena.ts), free again at
// the next element (nothing it allocates outlives it: it is a scalar, or arrays left in the destination).
//
// The element becomes the exported function `part_k(n, grain, env)`: threads claim `grain` elements at a time from
// the claim word in the env block (one atomic add) and write them into the destination, until none are left, so
// uneven elements balance. At the site, `main` asks the host whether n elements are worth threads (`worth(k, n)`);
// if not, it runs the build or the ifold as it would single-threaded (SIMD lanes included); if so, it allocates the
// destination and an env block in the arena, stores the destination, its arena's top (where parts' chunks start)
// and the slots of e's free variables there (8 bytes each), and calls the imported `parallel(k, n, env)`. Each
// element is computed by the same operations whichever thread runs it (a part's loop is a plain one; SIMD lanes
// compute each lane as the scalar code does): results are bit for bit those of one thread.

import {
  freshVar,
  typeOf,
  type Atom,
  type Build,
  type Expr,
  type Ifold,
  type IrFunction,
  type Let,
  type Prim,
  type Var,
} from "../ir/ir.js";
import { children, forEachNode, freeVars, someNode } from "../ir/free.js";
import { elemKind, leafStarts, leavesOf } from "../lowering/leaves.js";
import { arrayOf, INT, type Type } from "../types/types.js";
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
import {
  chunkFits,
  chunkPlanOf,
  chunkShapes,
  chunkStartSlots,
  checkWholeArrays,
  writeChunkElement,
  type ChunkDestination,
  type ChunkPlan,
} from "./chunk-sites.js";

/** A body without a loop is a site only from this many IR nodes (fewer: the plain loop, in SIMD lanes, is better). */
export const MIN_BODY_NODES = 40;
/** A loop's body counts this many times in the cost estimate (its trip count is not known when compiling). */
const LOOP_WEIGHT = 16;
/** The steps a sum site takes: the calling thread combines the terms with the same operator, in order. */
const SUM_STEPS: ReadonlySet<string> = new Set(["add", "mul", "max", "min"]);

/** A parallel site: the build its threads compute, and the estimated cost of one element (IR nodes, loops weighted). */
export interface ParallelSite {
  /** A build site's build; for a sum site, the build of its terms (made here: the lets of its body, then x). */
  readonly build: Build;
  /** The node on the chain of lets that the site replaces: the build, or the ifold of a sum site. */
  readonly source: Build | Ifold;
  readonly cost: number;
  /** Whether an element allocates arrays (then parts use their own arena, ./part-arena.ts). */
  readonly allocates: boolean;
  /** A build site whose elements are rows of this many Doubles (bundle adjustment's residuals and Jacobian blocks). */
  readonly row?: number;
  /** A sum site's step: the ifold's own, with the accumulator first or second. */
  readonly step?: { readonly op: Prim["op"]; readonly accFirst: boolean };
  /** A chunk site (./chunk-sites.ts): elements of arrays accumulated from zeros, claimed one at a time. */
  readonly chunk?: ChunkPlan;
}

const scalar = (t: Type): boolean => leavesOf(t).every((l) => l.rank === 0 && l.kind !== "tape");

/** Whether `e` calls no function (a part is one wasm function with no table of the program's functions). */
const callsNothing = (e: Expr): boolean =>
  !someNode(e, (node) => ["while", "call", "jvp", "lam", "app", "custom"].includes(node.kind));

/** Whether computing `e` allocates: builds, or arrays made by primitives, branches or loops (rows read are views). */
const allocates = (e: Expr): boolean =>
  someNode(e, (node) => {
    switch (node.kind) {
      case "build":
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

/** The cost of one evaluation of `e`: its nodes, a loop's body counted LOOP_WEIGHT times. */
export function bodyCost(e: Expr): number {
  const inner = children(e).reduce((sum, c) => sum + bodyCost(c), 0);
  return 1 + (e.kind === "ifold" ? LOOP_WEIGHT * inner : inner);
}

/** The length of the rows of `b` when its element is a row `build m (fun k -> x)` of Doubles, m a literal. */
function rowOf(b: Build): number | undefined {
  let tail = b.body;
  while (tail.kind === "let") tail = tail.body;
  if (tail.kind !== "build" || tail.size.kind !== "lit" || typeOf(tail.body).k !== "double") return undefined;
  const m = tail.size.value as number;
  return m >= 1 && b.type.k === "array" && b.type.elem.k === "array" ? m : undefined;
}

/** The site `b` would be, or undefined when it is not one. */
function siteOf(b: Build, source: Build | Ifold = b, step?: ParallelSite["step"]): ParallelSite | undefined {
  if (b.type.k !== "array") return undefined;
  const row = step === undefined ? rowOf(b) : undefined;
  if (row === undefined && (b.type.elem.k !== "double" || typeOf(b.body).k !== "double")) return undefined;
  if (!callsNothing(b.body)) return undefined;
  const hasLoop = someNode(b.body, (node) => node.kind === "ifold");
  const cost = bodyCost(b.body);
  if (!hasLoop && cost < MIN_BODY_NODES) return undefined;
  return { build: b, source, cost, allocates: allocates(b.body), step, row };
}

/** The chunk site `b` would be (./chunk-sites.ts); `bound`: the right-hand side of every let of the function. */
function chunkSiteOf(b: Build, bound: ReadonlyMap<number, Expr>): ParallelSite | undefined {
  if (!callsNothing(b.body)) return undefined;
  const chunk = chunkPlanOf(b, bound);
  if (chunk === undefined) return undefined;
  return { build: b, source: b, cost: bodyCost(b.body), allocates: allocates(chunk.body), chunk };
}

/**
 * The sum site `f` would be: `ifold (fun acc i -> lets in acc ⊕ x) z n` (or `let r = acc ⊕ x in r`), acc a Double
 * used only in the step, whose terms `build n (fun i -> lets in x)` would be a site.
 */
function sumSiteOf(f: Ifold): ParallelSite | undefined {
  if (f.acc.type.k !== "double") return undefined;
  const lets: Let[] = [];
  let tail = f.body;
  for (; tail.kind === "let"; tail = tail.body) lets.push(tail);
  const last = lets[lets.length - 1];
  if (tail.kind === "var" && last !== undefined && last.v.id === tail.id) {
    lets.pop();
    tail = last.rhs;
  }
  if (tail.kind !== "prim" || !SUM_STEPS.has(tail.op) || tail.tangent !== undefined) return undefined;
  const [x, y] = tail.args as [Atom, Atom];
  const isAcc = (a: Atom) => a.kind === "var" && a.id === f.acc.id;
  if (isAcc(x) === isAcc(y)) return undefined;
  const term = isAcc(x) ? y : x;
  if (lets.some((l) => freeVars(l.rhs).has(f.acc.id))) return undefined;
  let body: Expr = term;
  for (let k = lets.length - 1; k >= 0; k--) body = { ...lets[k]!, body };
  const terms: Build = { kind: "build", size: f.count, index: f.index, body, type: arrayOf(f.type), span: f.span };
  return siteOf(terms, f, { op: tail.op, accFirst: isAcc(x) });
}

/**
 * The parallel sites of `fn`: builds and sums on the chain of lets of its body (and at its end), in order. A let
 * whose right-hand side is a chain of lets runs that chain once too (`let t = (let s = ifold ... in s * 2.) in ...`),
 * and a branch at most once (the nests ../lowering/transpose-rows.ts writes twice, `if pays then ... else ...`):
 * their sites count. Nothing inside a loop is a site.
 */
export function parallelSites(fn: IrFunction): ParallelSite[] {
  const sites: ParallelSite[] = [];
  // (Binders are unique: a variable a chunk site's initial state names is bound where it is in scope.)
  const bound = new Map<number, Expr>();
  forEachNode(fn.body, (node) => {
    if (node.kind === "let") bound.set(node.v.id, node.rhs);
  });
  const walk = (chain: Expr) => {
    let e = chain;
    for (; e.kind === "let"; e = e.body) walk(e.rhs);
    if (e.kind === "if") {
      walk(e.then);
      walk(e.else);
    }
    const site =
      e.kind === "build" ? (siteOf(e) ?? chunkSiteOf(e, bound)) : e.kind === "ifold" ? sumSiteOf(e) : undefined;
    if (site !== undefined) sites.push(site);
  };
  walk(fn.body);
  return sites;
}

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
  /** The sites whose part is written. */
  readonly written: Set<number>;
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
  const passed = free.flatMap((v) => em.atom(v).filter(isLocal));
  let result: WSlots;
  if (site.chunk !== undefined) result = emitChunkSite(em, b, site.chunk, ctx, k, n, passed);
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
  // (A node the IR shares between two places is one site: its part is written once.)
  if (!ctx.written.has(k)) writePart(em, ctx, k, free, passed.length);
  ctx.written.add(k);
  return result;
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
 * `words`, then the free variables' slots that are locals: constants are written into the part), and the call.
 */
function callParts(
  em: WasmEmitter,
  ctx: ParallelContext,
  k: number,
  n: WSlot,
  dest: WSlot,
  words: readonly WSlot[],
  passed: readonly WSlot[],
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
  em.fb.emit(call(ctx.dispatch, i32(k), slotCode(n), slotCode(env)));
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
  const data = types.map((l, q) =>
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
function writePart(main: WasmEmitter, ctx: ParallelContext, k: number, free: Build["index"][], passed: number): void {
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
  for (const v of free) {
    const outer = main.atom(v);
    const slots: WSlots = outer.map((s) => (isLocal(s) ? loadSlot(s.type, q++) : s));
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
  }) as Helpers;
}

export type { Real };
