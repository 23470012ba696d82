// Chunked accumulations (issue 16, all cores): a heavy accumulation loop at the top of a function (./accumulation.ts:
// reverse mode's sweep over a dataset, adding each point's contribution to the parameters' adjoints) becomes `chunks`
// loops, each adding its share of the iterations to zeros, then init plus the chunks' sums in order:
//
//   let r = ifold (fun s i -> B) init n
//     ~>
//   let parts = build chunks (fun c ->
//     let lo = c * n / chunks in let hi = (c + 1) * n / chunks in
//     ifold (fun s i -> if i < lo then s else if i < hi then B else s) (zeros of init's shape) n) in
//   let r = (init_0 + parts_0[0] + ... + parts_0[chunks - 1], ...)
//
// The chunks are independent, so the wasm back end can compute them on several threads (src/wasm/parallel.ts); the
// number of chunks is part of the program, not of the machine, so every back end and every thread count makes the same
// additions in the same order. It is CHUNKS unless CHUNKS copies of the largest array the loop adds into would pass
// the limit on one array's elements (`min CHUNKS (max 1 (limit / size))`, chunkCount): the chunks are the compiler's,
// and must not turn a gradient the program may compute into a size error. It changes the order of the loop's own
// additions (as any parallel sum must), which is why it is applied only to heavy loops: a body that runs loops of its
// own, where the chunks' extra zeros and sums are small beside the work. The skipped iterations cost a comparison each
// and keep i's range [0, n) for bounds facts. A state component the body keeps at a literal (reverse mode's seed, `1.`)
// stays that literal.

import { AnfBuilder, litIndex, mkIf, mkIfold, mkPrim, splitLets } from "../ir/builder.js";
import { children } from "../ir/free.js";
import { freshVar, lit, mkLet, type Atom, type Expr, type Ifold, type IrFunction, type Var } from "../ir/ir.js";
import { BOOL, type Type } from "../types/types.js";
import { MAX_ARRAY_ELEMENTS } from "../runtime/limits.js";
import { accumulation, type Added } from "./accumulation.js";
import type { Pass } from "./pass.js";
import { initialLeaf, leafKeeps, statePaths } from "./state-leaves.js";

/** The number of chunks: enough for the threads of a small machine with uneven chunks, few enough to sum cheaply. */
export const CHUNKS = 8;

export const chunkAccumulationsPass: Pass = {
  name: "chunk-accumulations",
  run: (fn: IrFunction) => ({ ...fn, body: chunkChain(fn.body) }),
};

/** The function body's chain of lets with its heavy accumulation loops chunked (nothing inside a loop or branch). */
function chunkChain(body: Expr): Expr {
  const { bindings, tail } = splitLets(body);
  const defs = new Map<number, Expr>();
  const out = new AnfBuilder();
  let changed = false;
  for (const { v, rhs } of bindings) {
    const chunked = rhs.kind === "ifold" ? chunkLoop(rhs, v, defs, out) : false;
    if (chunked) changed = true;
    else out.bindVar(v, rhs);
    defs.set(v.id, rhs);
  }
  return changed ? out.finish(tail) : body;
}

/** The components of `f`'s initial state: the atoms of the tuple it is bound to, or projections of it. */
function components(f: Ifold, count: number, definition: (a: Atom) => Expr | undefined, b: AnfBuilder): Atom[] {
  if (f.init.type.k !== "tuple") return [f.init];
  return Array.from({ length: count }, (_, p) => initialLeaf(f, [p], definition) ?? b.proj(p, f.init, "init"));
}

/**
 * Emits `let v = f` chunked into `b` when `f` is a heavy accumulation loop whose state is Doubles and arrays of
 * Doubles; returns false (emitting nothing) otherwise.
 */
function chunkLoop(f: Ifold, v: Var, defs: ReadonlyMap<number, Expr>, b: AnfBuilder): boolean {
  const types = f.type.k === "tuple" ? f.type.elems : [f.type];
  const doubles = (t: (typeof types)[number]): boolean => t.k === "double" || (t.k === "array" && doubles(t.elem));
  if (!types.every(doubles) || !types.some((t) => t.k === "array")) return false;
  const acc = accumulation(f);
  // Worth it only when iterations add into the same array elements: a loop whose arrays are added to only in the
  // iteration's own row (reverse mode's loops over a model's components) would pay the chunks' zeros and sums for
  // nothing. And only when an iteration's work is larger than those arrays: its loops nest deeper than they have
  // dimensions (GMM's sweep over points runs K x d x d per point into K x d and K x d(d-1)/2 adjoints), so the whole
  // loop is n times larger than the chunks' extra passes.
  const sharedRank = Math.max(0, ...[...(acc?.shared ?? [])].map((p) => rank(types[p]!)));
  if (acc === undefined || sharedRank === 0 || loopDepth(f.body) <= sharedRank) return false;
  const added = acc.result;
  const definition = (a: Atom) => (a.kind === "var" ? defs.get(a.id) : undefined);
  const kept = keptLiterals(f, added, definition);
  if (kept === undefined) return false;

  const inits = components(f, types.length, definition, b);
  const n = f.count;
  const chunks = chunkCount(
    inits.filter((x, p) => kept[p] === undefined && x.type.k === "array"),
    b,
  );
  const parts = b.build(
    chunks,
    (c, e) => {
      const lo = e.prim("div", [e.prim("mul", [c, n]), chunks], "lo");
      const hi = e.prim("div", [e.prim("mul", [e.prim("add", [c, litIndex(1)]), n]), chunks], "hi");
      const zeros = inits.map(
        (x, p) => kept[p] ?? (x.type.k === "array" ? e.prim("zerosLike", [x], "zeros") : lit(0, x.type)),
      );
      const z = types.length === 1 ? zeros[0]! : e.tuple(zeros, "zeros");
      const s = f.acc;
      const below = freshVar("below", BOOL);
      const inside = freshVar("inside", BOOL);
      const step = mkLet(
        below,
        mkPrim("lt", [f.index, lo]),
        mkIf(below, s, mkLet(inside, mkPrim("lt", [f.index, hi]), mkIf(inside, f.body, s))),
      );
      return mkIfold(z, n, s, f.index, step, f.span);
    },
    "parts",
    "chunk",
  );
  const sums = inits.map((x, p) => {
    const literal = kept[p];
    if (literal !== undefined) return literal;
    const leaf = types.length === 1 ? parts : b.prim("field", [parts, litIndex(p)], "part");
    const add = x.type.k === "array" ? "addArray" : "add";
    return b.ifold(x, chunks, (acc, c, e) => e.prim(add, [acc, e.prim("get", [leaf, c], "chunk")]), "sum");
  });
  b.bindVar(v, types.length === 1 ? sums[0]! : { kind: "tuple", elems: sums, type: f.type });
  return true;
}

/**
 * The number of chunks: CHUNKS, or fewer when CHUNKS copies of the largest array the loop adds into would pass the
 * limit on one array's elements (the chunks' results are one array per leaf, CHUNKS rows of it), and at least 1: an
 * adjoint of any size the program may hold is accumulated. It depends on the data only, never on the machine.
 */
function chunkCount(arrays: readonly Atom[], b: AnfBuilder): Atom {
  let largest: Atom = litIndex(1);
  for (const x of arrays) largest = b.prim("max", [largest, elementCount(x, b)], "largest");
  const fit = b.prim("div", [litIndex(MAX_ARRAY_ELEMENTS), largest], "fit");
  return b.prim("min", [litIndex(CHUNKS), b.prim("max", [litIndex(1), fit], "fit")], "chunks");
}

/** The number of Doubles in `x`, an array (of arrays) of Doubles: arrays are regular, so its dimensions multiplied. */
function elementCount(x: Atom, b: AnfBuilder): Atom {
  const rows = b.prim("length", [x], "rows");
  if (x.type.k !== "array" || x.type.elem.k !== "array") return rows;
  return b.if(
    b.prim("gt", [rows, litIndex(0)], "some"),
    (e) => e.prim("mul", [rows, elementCount(e.prim("get", [x, litIndex(0)], "row"), e)], "elements"),
    () => litIndex(0),
    "elements",
  );
}

const rank = (t: Type): number => (t.k === "array" ? 1 + rank(t.elem) : 0);

/** How deep loops nest in `e` (0: no loop). A chain of lets is walked as a loop (chains can be long). */
function loopDepth(e: Expr): number {
  let depth = 0;
  for (; e.kind === "let"; e = e.body) depth = Math.max(depth, loopDepth(e.rhs));
  const inner = children(e).reduce((d, c) => Math.max(d, loopDepth(c)), 0);
  return Math.max(depth, e.kind === "ifold" || e.kind === "build" || e.kind === "while" ? inner + 1 : inner);
}

/**
 * For each component the loop does not add to (indep in `added`), the literal it keeps: it starts as that literal and
 * every iteration leaves it so (./state-leaves.ts). Undefined when such a component is anything else.
 */
function keptLiterals(
  f: Ifold,
  added: readonly Added[],
  definition: (a: Atom) => Expr | undefined,
): (Atom | undefined)[] | undefined {
  const kept: (Atom | undefined)[] = [];
  const pathOf = statePaths(f);
  for (let p = 0; p < added.length; p++) {
    if (added[p]!.k === "acc") {
      kept.push(undefined);
      continue;
    }
    const init = initialLeaf(f, [p], definition);
    if (init?.kind !== "lit") return undefined;
    const same = (a: Atom) => a.kind === "lit" && a.value === init.value;
    if (!leafKeeps(f, [p], same, pathOf)) return undefined;
    kept.push(init);
  }
  return kept;
}
