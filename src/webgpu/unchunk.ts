// The chunked accumulations of ../opt/chunk-accumulations.ts undone for the parallel plan. That pass splits reverse
// mode's sweep over a dataset into a few chunks (8) so that the wasm back end's threads each take one:
//
//   let parts = build chunks (fun c -> let lo = .. in let hi = .. in
//     ifold (fun s i -> if i < lo then s else if i < hi then B else s) zeros n)
//   let part_p = field parts p
//   let sum_p = ifold (fun acc c -> acc + part_p[c]) x_p chunks          (add or addArray, per component p)
//
// A GPU wants a thread per iteration, not 8 threads, and a build whose elements are arrays is not a shape the parallel
// plan maps. So the parallel plan sees the loop as it was before chunking, which its scatter plan (./loops.ts) runs
// with a thread per iteration adding atomically:
//
//   let init = (x_0, ..., kept literals ...)
//   let u = ifold (fun s i -> B) init n
//   let sum_p = u.p
//
// The sums come out in another order (as the chunks' already do), within float32 rounding. The lets that only computed
// the number of chunks go with it. A chain that does not match exactly is left as it is.

import { mkProj, splitLets, splitStep, wrapLets, type Binding } from "../ir/builder.js";
import { freeVars } from "../ir/free.js";
import {
  freshVar,
  mkTuple,
  type Atom,
  type Build,
  type Expr,
  type Ifold,
  type IrFunction,
  type Var,
} from "../ir/ir.js";

/** `fn` with every chunked accumulation at the top of its body back to one loop (fn itself when there is none). */
export function unchunk(fn: IrFunction): IrFunction {
  const split = splitLets(fn.body);
  const tail = split.tail;
  let bindings = split.bindings;
  let changed = false;
  for (let i = 0; i < bindings.length; i++) {
    const next = unchunkAt(bindings, i, tail);
    if (next === undefined) continue;
    bindings = next;
    changed = true;
  }
  return changed ? { ...fn, body: wrapLets(bindings, tail) } : fn;
}

const isVar = (a: Atom, v: Var): boolean => a.kind === "var" && a.id === v.id;

/** The chunk loop of a `parts` build: its lets before the loop, the loop, and B. */
function chunkLoop(b: Build): { lets: Binding[]; loop: Ifold; step: Expr } | undefined {
  const { bindings, tail } = splitLets(b.body);
  if (tail.kind !== "ifold") return undefined;
  const loop = tail;
  // if i < lo then s else if i < hi then B else s, the tests let-bound
  const below = splitLets(loop.body);
  if (below.bindings.length !== 1 || below.tail.kind !== "if") return undefined;
  const [lt] = below.bindings;
  const outer = below.tail;
  const keeps = (e: Expr) => e.kind === "var" && e.id === loop.acc.id;
  if (!isVar(outer.cond, lt!.v) || lt!.rhs.kind !== "prim" || lt!.rhs.op !== "lt" || !keeps(outer.then))
    return undefined;
  const inner = splitLets(outer.else);
  if (inner.bindings.length !== 1 || inner.tail.kind !== "if") return undefined;
  const [lt2] = inner.bindings;
  const ifInside = inner.tail;
  if (!isVar(ifInside.cond, lt2!.v) || lt2!.rhs.kind !== "prim" || lt2!.rhs.op !== "lt" || !keeps(ifInside.else))
    return undefined;
  for (const t of [lt!.rhs, lt2!.rhs]) if (!isVar(t.args[0]!, loop.index)) return undefined;
  return { lets: bindings, loop, step: ifInside.then };
}

/** A sum over the chunks: `ifold (fun acc c -> acc ⊕ leaf[c]) x chunks`; its leaf. */
function chunkSum(rhs: Expr, chunks: Atom): Var | undefined {
  if (rhs.kind !== "ifold" || rhs.count.kind !== "var" || chunks.kind !== "var" || rhs.count.id !== chunks.id)
    return undefined;
  const { bindings, step } = splitStep(rhs.body);
  if (bindings.length !== 1 || step.kind !== "prim" || !["add", "addArray"].includes(step.op)) return undefined;
  const get = bindings[0]!;
  if (get.rhs.kind !== "prim" || get.rhs.op !== "get" || !isVar(get.rhs.args[1]!, rhs.index)) return undefined;
  const [a, b] = step.args;
  if (!(isVar(a!, rhs.acc) && isVar(b!, get.v)) && !(isVar(b!, rhs.acc) && isVar(a!, get.v))) return undefined;
  const leaf = get.rhs.args[0]!;
  return leaf.kind === "var" ? leaf : undefined;
}

/** The bindings with the chunked accumulation bound at i undone; undefined when bindings[i] is not one. */
function unchunkAt(bindings: readonly Binding[], i: number, tail: Expr): Binding[] | undefined {
  const { v: parts, rhs } = bindings[i]!;
  if (rhs.kind !== "build") return undefined;
  const found = chunkLoop(rhs);
  if (found === undefined) return undefined;
  const { lets, loop, step } = found;
  const state = loop.acc.type;
  const count = state.k === "tuple" ? state.elems.length : 1;
  // B may read lets of the chunk's body that do not depend on the chunk (hoisted there): they move out with it.
  const dependsOnChunk = new Set<number>([rhs.index.id]);
  for (const l of lets)
    if ([...freeVars(l.rhs).keys()].some((id) => dependsOnChunk.has(id))) dependsOnChunk.add(l.v.id);
  const stepFree = freeVars(step);
  if ([...dependsOnChunk].some((id) => stepFree.has(id))) return undefined;
  if (loop.init.kind === "var" && dependsOnChunk.has(loop.init.id)) return undefined;
  const zeros = loop.init.kind === "var" ? lets.find((l) => l.v.id === (loop.init as Var).id)?.rhs : loop.init;
  const zeroAtoms: readonly Atom[] | undefined =
    count === 1 ? [loop.init] : zeros?.kind === "tuple" ? zeros.elems : undefined;
  if (zeroAtoms === undefined) return undefined;

  // The leaves of parts (parts itself, or `field parts p`), and each component's sum.
  const leafOf = new Map<number, number>();
  if (count === 1) leafOf.set(parts.id, 0);
  const sums = new Map<number, { at: number; init: Atom }>();
  const bound = new Set<number>(bindings.slice(0, i).map((b) => b.v.id));
  for (let j = i + 1; j < bindings.length; j++) {
    const b = bindings[j]!;
    if (b.rhs.kind === "prim" && b.rhs.op === "field" && isVar(b.rhs.args[0]!, parts)) {
      const p = b.rhs.args[1]!;
      if (p.kind !== "lit" || typeof p.value !== "number") return undefined;
      leafOf.set(b.v.id, p.value);
      continue;
    }
    const leaf = chunkSum(b.rhs, rhs.size);
    const p = leaf === undefined ? undefined : leafOf.get(leaf.id);
    if (p === undefined || sums.has(p)) continue;
    const init = (b.rhs as Ifold).init;
    if (init.kind === "var" && !bound.has(init.id)) return undefined;
    sums.set(p, { at: j, init });
  }
  // Every component is summed, or kept at a literal the loop starts from.
  const inits: Atom[] = [];
  for (let p = 0; p < count; p++) {
    const s = sums.get(p);
    const z = zeroAtoms[p]!;
    if (s !== undefined) inits.push(s.init);
    else if (z.kind === "lit") inits.push(z);
    else return undefined;
  }
  // Nothing else reads parts, its leaves or the chunks' count.
  const gone = new Set<number>([parts.id, ...leafOf.keys()]);
  const sumAt = new Set([...sums.values()].map((s) => s.at));
  const rest = bindings.slice(i + 1).filter((b, k) => !sumAt.has(i + 1 + k) && !leafOf.has(b.v.id));
  const readsGone = (e: Expr) => [...freeVars(e).keys()].some((id) => gone.has(id));
  if (rest.some((b) => readsGone(b.rhs)) || readsGone(tail)) return undefined;

  const out: Binding[] = [...bindings.slice(0, i)];
  out.push(...lets.filter((l) => !dependsOnChunk.has(l.v.id)));
  let init: Atom = inits[0]!;
  if (count > 1) {
    const tuple = freshVar("init", state);
    out.push({ v: tuple, rhs: mkTuple(inits) });
    init = tuple;
  }
  const whole = freshVar("whole", state);
  out.push({ v: whole, rhs: { ...loop, init, body: step } });
  for (let j = i + 1; j < bindings.length; j++) {
    const b = bindings[j]!;
    if (leafOf.has(b.v.id)) continue;
    const p = [...sums.entries()].find(([, s]) => s.at === j)?.[0];
    if (p === undefined) out.push(b);
    else out.push({ v: b.v, rhs: count === 1 ? whole : mkProj(p, whole) });
  }
  // The chunks' count and the chunk's zeros (moved out with the lets B reads) are dead now unless read elsewhere.
  // So are tuples nothing reads any more (the loop's initial state before chunking).
  const renamings = out.filter((b) => ["tuple", "proj", "var", "lit"].includes(b.rhs.kind)).map((b) => b.v.id);
  const dead = new Set([...freeVars(rhs.size).keys(), ...lets.map((l) => l.v.id), ...renamings]);
  return dropDead(out, tail, dead);
}

/**
 * The bindings without those of `candidates` (and what only they read) that nothing reads any more: the computation of
 * the chunks' count.
 */
function dropDead(bindings: Binding[], tail: Expr, candidates: ReadonlySet<number>): Binding[] {
  const feeds = new Set(candidates);
  for (let k = bindings.length - 1; k >= 0; k--)
    if (feeds.has(bindings[k]!.v.id)) for (const id of freeVars(bindings[k]!.rhs).keys()) feeds.add(id);
  const live = new Set(freeVars(tail).keys());
  const kept: Binding[] = [];
  for (let k = bindings.length - 1; k >= 0; k--) {
    const b = bindings[k]!;
    if (feeds.has(b.v.id) && !live.has(b.v.id)) continue;
    kept.push(b);
    for (const id of freeVars(b.rhs).keys()) live.add(id);
  }
  return kept.reverse();
}
