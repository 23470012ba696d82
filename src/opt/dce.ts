// Dead-let elimination, exact in one backward pass: the body of a let chain is cleaned before its bindings, from the
// last binding to the first, and a right-hand side's uses are counted only if its let is kept. So a chain of lets
// that only feed each other disappears at once. What it does not change it returns as it was (the same objects): most
// sweeps remove nothing from most of a function, and copying it all was a large part of compile time.
//
// All IR is pure, so any unused let may go. One observable difference is accepted: removing an unused `get` also
// removes the index error it would have raised out of range, and removing an unused loop its shape errors.

import { operands } from "../ir/free.js";
import { splitLets, wrapLets, type Binding } from "../ir/builder.js";
import { mkLet, type Expr, type Let, type Proj, type Var } from "../ir/ir.js";
import { compileWork } from "../ir/work.js";
import type { Pass } from "./pass.js";

export const dcePass: Pass = {
  name: "dce",
  run: (fn) => ({ ...fn, body: removeDeadLets(fn.body).expr }),
};

/**
 * `e` without its dead lets (those `removable` allows to go). `clean` holds nodes already cleaned with the same
 * `removable`, each with the ids of its free variables: such a node is kept as it is, its uses counted without walking
 * it again (the inliner cleans each lambda's body, then the lambdas around it: ./inline.ts; the rewriter each scope,
 * then the scopes around it: ./rewrite.ts). `free` is the ids of the free variables of the result: only those, so
 * that what an enclosing scope counts for a nested one does not grow with the nesting.
 */
export function removeDeadLets(
  e: Expr,
  removable: (v: Var, rhs: Expr) => boolean = () => true,
  clean?: CleanNodes,
  fuse?: Fuse,
): { expr: Expr; removed: number; free: () => number[] } {
  const d = new DeadLets(removable, clean, fuse);
  const expr = d.expr(e);
  // Without clean nodes nothing was recorded in `bound`: no caller asks for `free` then.
  return { expr, removed: d.removed, free: () => [...d.live.keys()].filter((id) => !d.bound.has(id)) };
}

/** Nodes known to be clean, with the ids of their free variables. */
export interface CleanNodes {
  get(e: Expr): readonly number[] | undefined;
}

/**
 * What replaces `proj k t` when that projection, by a later let of the same chain or by its tail, is the one use left
 * of `let t = def` (undefined: nothing, both stay). Exact use counts are known here, as the chain is cleaned from its
 * end: the rewriter's rules, which see the counts of the start of the sweep, cannot tell that a tuple's other
 * components died after them (../rewrite.ts uses it for proj-of-if and fission).
 */
export type Fuse = (def: Expr, k: number) => Expr | undefined;

class DeadLets {
  readonly live = new Map<number, number>();
  /**
   * The variables bound in the result outside the clean nodes (whose lists hold only their free variables); kept only
   * when there are clean nodes (the callers that ask for `free`).
   */
  readonly bound = new Set<number>();
  removed = 0;

  constructor(
    private readonly removable: (v: Var, rhs: Expr) => boolean,
    private readonly clean: CleanNodes | undefined,
    private readonly fuse: Fuse | undefined,
  ) {}

  /** Records the binders of a node other than a let (without the array `binders` makes: this runs on every node). */
  private bindsIn(e: Expr): void {
    switch (e.kind) {
      case "lam":
        this.bound.add(e.param.id);
        return;
      case "build":
        this.bound.add(e.index.id);
        return;
      case "ifold":
        this.bound.add(e.index.id);
        this.bound.add(e.acc.id);
        return;
      case "while":
        this.bound.add(e.acc.id);
        return;
      default:
        return;
    }
  }

  /** A let chain, cleaned from its end: the body before the bindings, a right-hand side's uses only if it is kept. */
  private chain(e: Let): Expr {
    if (this.fuse !== undefined) return this.fusingChain(e, this.fuse);
    const lets: Let[] = [];
    let tail: Expr = e;
    for (; tail.kind === "let"; tail = tail.body) lets.push(tail);
    const cleanTail = this.expr(tail);
    // `out` is the clean rest of the chain; while nothing after lets[i] changed, it is lets[i].body itself.
    let out = cleanTail;
    let same = cleanTail === tail;
    for (let i = lets.length - 1; i >= 0; i--) {
      const l = lets[i]!;
      if (!this.live.get(l.v.id) && this.removable(l.v, l.rhs)) {
        this.removed++;
        same = false;
        continue;
      }
      if (this.clean !== undefined) this.bound.add(l.v.id);
      const rhs = this.expr(l.rhs);
      same &&= rhs === l.rhs;
      out = same ? l : mkLet(l.v, rhs, out);
    }
    return out;
  }

  /** `chain`, with `fuse` offered each let whose one use left is a projection by a later let (or the tail). */
  private fusingChain(e: Let, fuse: Fuse): Expr {
    const lets: Let[] = [];
    let tail: Expr = e;
    for (; tail.kind === "let"; tail = tail.body) lets.push(tail);
    /** Right-hand sides kept (by position; lets.length: the tail), undefined for a let removed. */
    const rhss = new Array<Expr | undefined>(lets.length + 1);
    rhss[lets.length] = this.expr(tail);
    /** Lets that a fused right-hand side brought, to go in front of its position (made when first needed). */
    let before: Map<number, Binding[]> | undefined;
    /** Variable id -> the position whose right-hand side projects it (made when first needed). */
    let projectedAt: Map<number, number> | undefined;
    for (let i = lets.length; i >= 0; i--) {
      if (i < lets.length) {
        const l = lets[i]!;
        if (!this.live.get(l.v.id) && this.removable(l.v, l.rhs)) {
          this.removed++;
          continue;
        }
        const at = this.live.get(l.v.id) === 1 ? projectedAt?.get(l.v.id) : undefined;
        const fused = at === undefined ? undefined : fuse(l.rhs, (rhss[at] as Proj).index);
        if (fused !== undefined) {
          // The projection, t's one use, computes its component itself: t goes, the uses of what replaced it count.
          this.live.set(l.v.id, 0);
          const { bindings, tail: t } = splitLets(this.expr(fused));
          before ??= new Map();
          before.set(at!, [...bindings, ...(before.get(at!) ?? [])]);
          rhss[at!] = t;
          continue;
        }
        if (this.clean !== undefined) this.bound.add(l.v.id);
        rhss[i] = this.expr(l.rhs);
      }
      const rhs = rhss[i]!;
      if (rhs.kind === "proj" && rhs.arg.kind === "var") (projectedAt ??= new Map()).set(rhs.arg.id, i);
    }
    let out = rhss[lets.length]!;
    let same = out === tail && before?.has(lets.length) !== true;
    if (before?.has(lets.length)) out = wrapLets(before.get(lets.length)!, out);
    for (let i = lets.length - 1; i >= 0; i--) {
      const l = lets[i]!;
      const rhs = rhss[i];
      if (rhs === undefined) {
        same = false;
        continue;
      }
      const added = before?.get(i);
      same &&= rhs === l.rhs && added === undefined;
      out = same ? l : mkLet(l.v, rhs, out);
      if (added !== undefined) out = wrapLets(added, out);
    }
    return out;
  }

  /** `e` without its dead lets; `e` itself (and every unchanged subtree) when nothing in it is removed. */
  expr(e: Expr): Expr {
    compileWork.nodes++;
    // A clean node, a let chain (a scope the rewriter finished) as well as any other.
    const used = this.clean?.get(e);
    if (used !== undefined) {
      for (const id of used) this.live.set(id, (this.live.get(id) ?? 0) + 1);
      return e;
    }
    if (e.kind === "let") return this.chain(e);
    for (const a of operands(e)) if (a.kind === "var") this.live.set(a.id, (this.live.get(a.id) ?? 0) + 1);
    if (this.clean !== undefined) this.bindsIn(e);
    switch (e.kind) {
      case "if": {
        const then = this.expr(e.then);
        const els = this.expr(e.else);
        return then === e.then && els === e.else ? e : { ...e, then, else: els };
      }
      case "lam":
      case "build":
      case "ifold": {
        const body = this.expr(e.body);
        return body === e.body ? e : { ...e, body };
      }
      case "while": {
        const cond = this.expr(e.cond);
        const body = this.expr(e.body);
        return cond === e.cond && body === e.body ? e : { ...e, cond, body };
      }
      default:
        return e;
    }
  }
}
