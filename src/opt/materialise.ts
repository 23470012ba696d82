// Materialising a shared element computation: when the same pure, cannot-fail computation g(j) of a loop index j
// over a size n (a let chain ending in a transcendental: exp, log, sin, ...) appears in two or more loops over n,
// it is computed once, as `let G = build n (fun j -> g(j))`, and each occurrence becomes `G[j']`. The forward
// derivative of logsumexp is the case in point: `exp (v[j] - p)` is the denominator's terms, the softmax entries and
// the hot branch's sum, three passes of exp where one suffices.
//
// Bounds (the choices): only chains whose free variables are parameters or lets of the function's outermost chain
// (G is placed right after the last of them, so it is in scope at every occurrence); only chains of primitives,
// tuples and projections (no loops, branches or applications inside g); only when g cannot fail in a loop over n
// (./failure.ts, with the facts of definitions alone), so computing G early never raises an error; an occurrence that
// is already a build of exactly g over n is not counted. A materialised G costs one array of n Doubles, and n elements
// computed even when the occurrences' branches never run: never more than one occurrence's loop would cost. The
// fusion rule's cost guard (./rules/fusion.ts) does not fuse such an array back into several reads.

import { mkBuild, mkPrim, splitLets, wrapLets, type Binding } from "../ir/builder.js";
import { alphaEqual, alphaKey } from "../ir/equal.js";
import { freeVars, mapNode } from "../ir/free.js";
import {
  freshVar,
  typeOf,
  type Atom,
  type Build,
  type Expr,
  type Ifold,
  type IrFunction,
  type Prim,
  type Var,
} from "../ir/ir.js";
import { copyFresh } from "../ir/rename.js";
import type { PrimName } from "../prims/names.js";
import { PRIMS } from "../prims/table.js";
import { Facts } from "./facts.js";
import { mayFail } from "./failure.js";
import type { Pass } from "./pass.js";

/** A primitive costing a library call (PrimRule.cost): worth computing once per element rather than once per read. */
export const isTranscendental = (op: PrimName): boolean => PRIMS[op].cost === "transcendental";

type Loop = Build | Ifold;

/**
 * The most lets an element computation g may have. Its slice is collected for every transcendental in a loop, and a
 * chain of them (`a = a + sin a` repeated) would otherwise collect the chain before each one: quadratic in its
 * length. The computations worth sharing are a few operations (logsumexp's `exp (v[j] - p)`: two lets).
 */
const MAX_SLICE = 32;

/** One occurrence: a transcendental primitive `root` (a let's right-hand side or a tail) in a loop over `size`. */
interface Occurrence {
  readonly root: Prim;
  readonly loop: Loop;
  readonly index: Var;
  readonly size: Atom;
  /** `build size (fun index -> slice; root)`: the element computation as an array, compared by alphaEqual. */
  readonly g: Build;
}

export function materialiseShared(fn: IrFunction): { fn: IrFunction; materialised: number } {
  const scan = new Scan(fn);
  scan.top(fn.body);
  // Occurrences with the same key are compared, not every pair: a loop body of many transcendentals has as many
  // occurrences, nearly all of them different.
  const groups: Occurrence[][] = [];
  const byKey = new Map<string, Occurrence[][]>();
  for (const o of scan.occurrences) {
    const key = alphaKey(o.g);
    const candidates = byKey.get(key) ?? [];
    const group = candidates.find((g) => alphaEqual(g[0]!.g, o.g));
    if (group) group.push(o);
    else {
      groups.push([o]);
      candidates.push(groups[groups.length - 1]!);
      byKey.set(key, candidates);
    }
  }
  // Occurrence node -> the array and index that read it instead; top-level binder id (or -1: the start) -> new lets
  // after it.
  const replace = new Map<Expr, { array: Var; index: Var }>();
  const after = new Map<number, Binding[]>();
  let materialised = 0;
  for (const group of groups) {
    const counted = group.filter((o) => !(o.loop.kind === "build" && alphaEqual(o.loop, o.g)));
    if (counted.length < 2) continue;
    const g = group[0]!.g;
    if (!scan.cannotFail(g)) continue;
    const place = scan.placement(g);
    if (place === undefined) continue;
    const array = freshVar("mat", typeOf(g));
    for (const o of counted) replace.set(o.root, { array, index: o.index });
    const list = after.get(place) ?? [];
    list.push({ v: array, rhs: copyFresh(g) });
    after.set(place, list);
    materialised++;
  }
  if (materialised === 0) return { fn, materialised };
  const rewrite = (e: Expr): Expr => {
    const { bindings, tail } = splitLets(e);
    const out = bindings.map(({ v, rhs }) => ({ v, rhs: rewriteNode(rhs) }));
    return wrapLets(out, rewriteNode(tail));
  };
  const rewriteNode = (e: Expr): Expr => {
    const r = replace.get(e);
    if (r) return mkPrim("get", [r.array, r.index]);
    return e.kind === "let" ? rewrite(e) : mapNode(e, (a) => a, rewrite);
  };
  const { bindings, tail } = splitLets(rewrite(fn.body));
  const top: Binding[] = [...(after.get(-1) ?? [])];
  for (const b of bindings) top.push(b, ...(after.get(b.v.id) ?? []));
  return { fn: { ...fn, body: wrapLets(top, tail) }, materialised };
}

export const materialisePass: Pass = {
  name: "materialise",
  run: (fn) => materialiseShared(fn).fn,
};

class Scan {
  readonly occurrences: Occurrence[] = [];
  /** Every let's definition (ids are unique in a function). */
  private readonly defs = new Map<number, Expr>();
  /** Let binder id -> its innermost enclosing loop (null: not in a loop) and its position in program order. */
  private readonly letLoop = new Map<number, Loop | null>();
  private readonly order = new Map<number, number>();
  /** Parameters (-1) and lets of the outermost chain (their position in it). */
  private readonly topPosition = new Map<number, number>();
  private readonly topIds: number[] = [];

  constructor(fn: IrFunction) {
    for (const p of fn.params) this.topPosition.set(p.id, -1);
  }

  top(body: Expr): void {
    splitLets(body).bindings.forEach((b, k) => {
      this.topPosition.set(b.v.id, k);
      this.topIds.push(b.v.id);
    });
    this.walk(body, null);
  }

  private walk(e: Expr, loop: Loop | null): void {
    const { bindings, tail } = splitLets(e);
    for (const { v, rhs } of bindings) {
      this.defs.set(v.id, rhs);
      this.letLoop.set(v.id, loop);
      this.order.set(v.id, this.order.size);
      if (loop && rhs.kind === "prim" && isTranscendental(rhs.op)) this.consider(rhs, loop);
      this.node(rhs, loop);
    }
    if (loop && tail.kind === "prim" && isTranscendental(tail.op)) this.consider(tail, loop);
    this.node(tail, loop);
  }

  private node(e: Expr, loop: Loop | null): void {
    switch (e.kind) {
      case "let":
        return this.walk(e, loop);
      case "lam":
        return this.walk(e.body, null);
      case "if":
        this.walk(e.then, loop);
        return this.walk(e.else, loop);
      case "build":
      case "ifold":
        return this.walk(e.body, e);
      case "while":
        // No index: nothing in it is a function of one. Its lets count as bound in no loop of the scan.
        this.walk(e.cond, null);
        return this.walk(e.body, null);
      default:
        return;
    }
  }

  /** Records `root` if its backward slice in its loop depends only on the loop index and values bound outside. */
  private consider(root: Prim, loop: Loop): void {
    const slice = new Map<number, Binding>();
    const pending: Var[] = [];
    const visit = (rhs: Expr): boolean => {
      for (const u of freeVars(rhs).values()) {
        if (u.id === loop.index.id) continue;
        if (this.letLoop.get(u.id) === loop) pending.push(u);
        else if (!this.topPosition.has(u.id)) return false; // a loop accumulator, an outer index, a lambda parameter...
      }
      return true;
    };
    if (!visit(root)) return;
    while (pending.length > 0) {
      const v = pending.pop()!;
      if (slice.has(v.id)) continue;
      const rhs = this.defs.get(v.id)!;
      if (
        rhs.kind !== "prim" &&
        rhs.kind !== "tuple" &&
        rhs.kind !== "proj" &&
        rhs.kind !== "lit" &&
        rhs.kind !== "var"
      )
        return;
      slice.set(v.id, { v, rhs });
      if (slice.size > MAX_SLICE || !visit(rhs)) return;
    }
    const ordered = [...slice.values()].sort((a, b) => this.order.get(a.v.id)! - this.order.get(b.v.id)!);
    const size = loop.kind === "build" ? loop.size : loop.count;
    const g = mkBuild(size, loop.index, wrapLets(ordered, root));
    this.occurrences.push({ root, loop, index: loop.index, size, g });
  }

  /** g's elements cannot fail, knowing only definitions (no branch conditions of any occurrence). */
  cannotFail(g: Build): boolean {
    const facts = new Facts((a) => (a.kind === "var" ? this.defs.get(a.id) : undefined));
    if (!facts.isNonNegative(g.size)) return false;
    facts.enterLoop(g.index, g.size);
    return !mayFail(g.body, facts);
  }

  /**
   * The top-level binder after which g's free variables are all bound (-1: at the start), if they all are top-level.
   */
  placement(g: Build): number | undefined {
    let last = -1;
    for (const u of freeVars(g).values()) {
      const k = this.topPosition.get(u.id);
      if (k === undefined) return undefined;
      last = Math.max(last, k);
    }
    return last < 0 ? -1 : this.topIds[last]!;
  }
}
