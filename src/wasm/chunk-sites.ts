// Chunk sites (issue 16): `build m (fun c -> ... ifold (fun s i -> B) z n)` whose elements are tuples of arrays (or
// one array) accumulated from zeros: the form in which an accumulation loop over n points is split into a fixed
// number of chunks, each accumulating its own adjoint arrays, later added in order. ./parallel.ts runs such a build
// across threads, one element at a time (grain 1: each element is heavy); this file recognises the form and writes
// what is particular to it.
//
// The element's shape is known before any element runs: its state starts from `zerosLike a` of arrays a bound
// outside the build (and Double or Index literals), in the element or hoisted out of it by the optimiser. So `main`
// allocates the destination's leaves [m, ...dims(a)] (a scalar leaf [m]) up front, and element c's state starts in
// place as the destination's slice c, cleared: the ifold updates it there when ownership.ts lets its updates run in
// place (the slice is the element's alone, so the loop needs no copy on entry); otherwise the final state is copied
// into the slice. An element whose final shape differs from a's (the loop's body replaced an array) sets a flag in
// the env block, and `main` then runs the build single-threaded, which raises the irregular build's error or returns
// what one thread returns: results are bit for bit one thread's either way (the same operations per element).

import { freshVar, type Atom, type Build, type Expr, type Ifold, type Var } from "../ir/ir.js";
import { freeVars, useCounts } from "../ir/free.js";
import { allFlags, invariantShapePaths } from "../ir/invariant-shapes.js";
import { elemKind, leafSlotCount, leafStarts, leavesOf } from "../lowering/leaves.js";
import { MAX_ARRAY_ELEMENTS } from "../runtime/limits.js";
import type { Code } from "./encoder.js";
import { f64, i32, op, store } from "./instructions.js";
import type { WasmEmitter, WSlots } from "./emit.js";
import { DOUBLE, INT } from "../types/types.js";
import {
  address,
  elementShift,
  iconst,
  imul,
  islot,
  isLocal,
  product,
  slotCode,
  slotKey,
  ZERO,
  type WSlot,
} from "./slots.js";

/**
 * Where a leaf of the element's initial state comes from: a literal, leaf `leaf` of `zerosLike of`, or a build of
 * zeros `build n (fun _ -> build m (fun _ -> 0.))` of these sizes (what the optimiser makes of zerosLike of a build).
 */
export type ChunkLeaf =
  | { readonly kind: "literal"; readonly value: number | boolean }
  | { readonly kind: "zeros"; readonly of: Var; readonly leaf: number }
  | { readonly kind: "zeroBuild"; readonly sizes: readonly Atom[] };

export interface ChunkPlan {
  /** The element's body with its ifold's initial state replaced by `start`, and the lets only it used dropped. */
  readonly body: Expr;
  /** The initial state: bound, in a part, to the destination's cleared slices and the literals. */
  readonly start: Var;
  /** Per leaf of the element. */
  readonly leaves: readonly ChunkLeaf[];
  /** The arrays whose zeros start the state and the sizes of zero builds (the element's dimensions): passed on. */
  readonly shapes: readonly Var[];
  /**
   * Every element has the destination's shape: the state starts from literals and zeros of arrays (dimensions never
   * negative) and the loop keeps its shape (ir/invariant-shapes.ts: it only updates the state). Then no element
   * can set the flag, and one thread runs the part too instead of a build of its own (./parallel.ts).
   */
  readonly keepsShape: boolean;
}

/**
 * The chunk plan of `b`, or undefined when `b` is not of the form: its element is not scalar, and the tail of its
 * body is an ifold (or `let r = ifold ... in r`) whose initial state resolves, through tuples and variables bound in
 * the body or in `outside` (the lets in scope at the build), to literals and zerosLike of arrays bound outside the
 * build. The initial state is used nowhere else in the body (its slices are the loop's alone).
 */
export function chunkPlanOf(b: Build, outside: ReadonlyMap<number, Expr>): ChunkPlan | undefined {
  if (b.type.k !== "array" || leavesOf(b.type.elem).every((l) => l.rank === 0)) return undefined;
  const inside = new Map<number, Expr>();
  const lets: { v: Var; rhs: Expr }[] = [];
  let tail = b.body;
  for (; tail.kind === "let"; tail = tail.body) {
    lets.push({ v: tail.v, rhs: tail.rhs });
    inside.set(tail.v.id, tail.rhs);
  }
  let fold: Ifold | undefined;
  if (tail.kind === "ifold") fold = tail;
  else if (tail.kind === "var" && lets.length > 0 && lets[lets.length - 1]!.v.id === tail.id) {
    const last = lets[lets.length - 1]!.rhs;
    if (last.kind === "ifold") fold = last;
  }
  if (fold === undefined || fold.init.kind !== "var") return undefined;
  // Bound in the element (its index, its chain of lets): never a zerosLike operand or a zero build's size (the shape
  // could depend on the element).
  const boundInside = new Set([b.index.id, ...inside.keys()]);
  const shapes = new Map<number, Var>();
  const resolve = (a: Atom, depth: number): ChunkLeaf[] | undefined => {
    if (a.kind === "lit")
      return a.type.k === "double" || a.type.k === "int" ? [{ kind: "literal", value: a.value }] : undefined;
    const rhs = inside.get(a.id) ?? outside.get(a.id);
    if (rhs === undefined || depth > 16) return undefined;
    if (rhs.kind === "tuple") {
      const parts = rhs.elems.map((x) => resolve(x, depth + 1));
      return parts.every((p) => p !== undefined) ? parts.flat() : undefined;
    }
    if (rhs.kind === "build") {
      const sizes = zeroBuildSizes(rhs);
      if (sizes === undefined || sizes.some((n) => n.kind === "var" && boundInside.has(n.id))) return undefined;
      for (const n of sizes) if (n.kind === "var") shapes.set(n.id, n);
      return [{ kind: "zeroBuild", sizes }];
    }
    if (rhs.kind !== "prim" || rhs.op !== "zerosLike") return undefined;
    const of = rhs.args[0]!;
    if (of.kind !== "var" || boundInside.has(of.id)) return undefined;
    shapes.set(of.id, of);
    return leavesOf(of.type).map((_, leaf) => ({ kind: "zeros", of, leaf }));
  };
  const leaves = resolve(fold.init, 0);
  if (leaves === undefined || leaves.length !== leavesOf(fold.acc.type).length) return undefined;
  if ((useCounts(b.body).get(fold.init.id) ?? 0) !== 1) return undefined;
  const start = freshVar("chunkStart", fold.init.type);
  const newFold: Ifold = { ...fold, init: start };
  // The body again, the ifold starting from `start`; then lets of tuples and zeros that nothing uses any more.
  let body: Expr = tail.kind === "ifold" ? newFold : tail;
  for (let k = lets.length - 1; k >= 0; k--) {
    const { v, rhs } = lets[k]!;
    const replaced = rhs === fold ? newFold : rhs;
    const pure =
      rhs.kind === "tuple" || (rhs.kind === "prim" && rhs.op === "zerosLike") || zeroBuildSizes(rhs) !== undefined;
    if (pure && !freeVars(body).has(v.id)) continue;
    body = { kind: "let", v, rhs: replaced, body };
  }
  const keepsShape = leaves.every((l) => l.kind !== "zeroBuild") && allFlags(invariantShapePaths(fold));
  return { body, start, leaves, shapes: [...shapes.values()], keepsShape };
}

/**
 * The sizes of `build n (fun i -> build m (fun j -> 0.))` (Double or Index zeros, nested directly: each size bound
 * outside the builds), or undefined.
 */
function zeroBuildSizes(e: Expr): Atom[] | undefined {
  const sizes: Atom[] = [];
  const indexes = new Set<number>();
  let cur = e;
  for (; cur.kind === "build"; cur = cur.body) {
    if (cur.size.kind === "var" && indexes.has(cur.size.id)) return undefined;
    sizes.push(cur.size);
    indexes.add(cur.index.id);
  }
  const zero = cur.kind === "lit" && (cur.type.k === "double" || cur.type.k === "int") && Object.is(cur.value, 0);
  return zero && sizes.length > 0 ? sizes : undefined;
}

/** The slots of a chunk site's destination leaves and the sizes of their elements. */
export interface ChunkDestination {
  /** Per leaf: its address, and the element's dimensions (none for a scalar leaf). */
  readonly data: readonly WSlot[];
  readonly dims: readonly (readonly WSlot[])[];
  /** Per leaf: the scalars in one element (1 for a scalar leaf). */
  readonly sizes: readonly WSlot[];
}

/** The dimensions of each leaf of an element, and its size in scalars (from the zerosLike operands' slots). */
export function chunkShapes(em: WasmEmitter, plan: ChunkPlan): Omit<ChunkDestination, "data"> {
  const dims = plan.leaves.map((l) => {
    if (l.kind === "literal") return [];
    if (l.kind === "zeroBuild") return l.sizes.map((n) => em.atom(n)[0]!);
    const leaves = leavesOf(l.of.type);
    const s = leafStarts(leaves)[l.leaf]!;
    return em.atom(l.of).slice(s + 2, s + leafSlotCount(leaves[l.leaf]!));
  });
  const sizes = dims.map((d) => (d.length === 0 ? iconst(1) : product(d))).map((p) => em.index(p));
  return { dims, sizes };
}

/**
 * Whether every destination leaf of m elements fits the array limit, and no dimension is negative (a zero build's
 * size): else the single-threaded build reports it.
 */
export function chunkFits(m: WSlot, shapes: Omit<ChunkDestination, "data">): Code {
  // In f64: a product of dimensions may pass 2^31.
  const real = (s: WSlot) => op("f64.convert_i32_s", slotCode(s));
  return [
    ...shapes.dims.map((d) =>
      op(
        "f64.le",
        d.map(real).reduce((x, y) => op("f64.mul", x, y), real(m)),
        f64(MAX_ARRAY_ELEMENTS),
      ),
    ),
    ...shapes.dims.flat().map((d) => op("i32.ge_s", slotCode(d), i32(0))),
  ].reduce((x, y) => op("i32.and", x, y));
}

/** The element kind of leaf l of the build's element (Double literals are Doubles, Index literals Indexes). */
const leafKinds = (b: Build) => leavesOf(b.type).map(elemKind);

/**
 * In a part: element `c` of the chunk site, written into the destination. The state's slices are cleared, the body
 * runs from them (`start` is bound to them, with the offset locals `offsets` set here), and the result's leaves are
 * stored: scalars at c, arrays copied into slice c unless the loop left them there; a shape that is not the
 * destination's sets the flag at `flag` instead.
 */
export function writeChunkElement(
  em: WasmEmitter,
  b: Build,
  plan: ChunkPlan,
  dest: ChunkDestination,
  offsets: readonly WSlot[],
  c: WSlot,
  flag: Code,
): void {
  const fb = em.fb;
  const kinds = leafKinds(b);
  const bytes = (l: number, count: WSlot) => op("i32.shl", slotCode(count), i32(elementShift(kinds[l]!, em.real)));
  const slice = (l: number) => address(dest.data[l]!, islot(offsets[l]!), elementShift(kinds[l]!, em.real));
  plan.leaves.forEach((leaf, l) => {
    if (leaf.kind === "literal") return;
    em.set(offsets[l]!, imul(islot(c), islot(dest.sizes[l]!)).code);
    fb.emit(op("memory.fill", slice(l), i32(0), bytes(l, dest.sizes[l]!)));
  });
  const result = em.expr(plan.body);
  const leaves = leavesOf(plan.start.type);
  leafStarts(leaves).forEach((s, l) => {
    const shift = elementShift(kinds[l]!, em.real);
    if (leaves[l]!.rank === 0) {
      const kind = kinds[l]!;
      const storeOp =
        kind === "double"
          ? em.real === "f64"
            ? "f64.store"
            : "f32.store"
          : kind === "int"
            ? "i32.store"
            : "i32.store8";
      fb.emit(store(storeOp, address(dest.data[l]!, islot(c), shift), slotCode(result[s]!)));
      return;
    }
    const [data, offset, ...dims] = result.slice(s, s + leafSlotCount(leaves[l]!));
    if (plan.keepsShape) {
      copyUnlessInPlace(em, address(data!, islot(offset!), shift), slice(l), bytes(l, dest.sizes[l]!));
      return;
    }
    const differs = dims
      .map((d, q) => op("i32.ne", slotCode(d), slotCode(dest.dims[l]![q]!)))
      .reduce((x, y) => op("i32.or", x, y));
    fb.if(differs);
    fb.emit(store("i32.store", flag, i32(1)));
    fb.else();
    copyUnlessInPlace(em, address(data!, islot(offset!), shift), slice(l), bytes(l, dest.sizes[l]!));
    fb.end();
  });
}

/** Copies `bytes` from `source` to `target` unless the loop left its result there (its updates ran in place). */
function copyUnlessInPlace(em: WasmEmitter, source: Code, target: Code, bytes: Code): void {
  const from = em.define("i32", source);
  const to = em.define("i32", target);
  em.fb.if(op("i32.ne", slotCode(from), slotCode(to)));
  em.fb.emit(op("memory.copy", slotCode(to), slotCode(from), bytes));
  em.fb.end();
}

/** The slots `start` is bound to in a part: literals, and per array leaf [data, offset local, dims]. */
export function chunkStartSlots(
  em: WasmEmitter,
  plan: ChunkPlan,
  dest: ChunkDestination,
  offsets: readonly WSlot[],
): WSlots {
  const kinds = leavesOf(plan.start.type);
  return plan.leaves.flatMap((leaf, l) =>
    leaf.kind === "literal"
      ? [em.literal(leaf.value, kinds[l]!.kind === "int" ? INT : DOUBLE)]
      : [dest.data[l]!, offsets[l]!, ...dest.dims[l]!],
  );
}

/** The single-threaded build's result is whole arrays at offset 0 (the destination's layout). */
export function checkWholeArrays(slots: WSlots, b: Build): void {
  const leaves = leavesOf(b.type);
  for (const s of leafStarts(leaves))
    if (isLocal(slots[s + 1]!) || slotKey(slots[s + 1]!) !== slotKey(ZERO))
      throw new Error("wasm: a chunk site's single-threaded build is not whole arrays at offset 0");
}
