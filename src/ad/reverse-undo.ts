// In-place updates of a loop's array state, reversed by undo logs (Futhark's treatment of in-place updates, used by
// ./reverse-ifold.ts): when a loop body threads an array component of its state through `setAt`/`addAt` only, the
// primal loop logs, per update, the position it writes and the element it overwrites, instead of taping the whole
// array every iteration (O(n) per iteration, O(n²) for a loop of n updates on an n-array). The reverse loop carries
// the array itself, starting from its final value: before reversing iteration i it puts back the elements iteration
// i overwrote, last update first, which gives the array as it was before iteration i, in O(updates).
//
// The body qualifies when, for the component:
//  - every version of the array (the state's, then each update's result) is updated at most once (a linear chain);
//  - elements are read (`get`) only from the state's own version, so that the recomputation in the reverse loop reads
//    the restored array, and the updates themselves are dead there;
//  - update positions are Indexes and elements scalars; updates are in the body or in its branches (an `if` whose
//    branches both return a version), not in nested loops; the body's result holds a version at the component.
// An update in a branch that did not run logs the position -1, which the restore skips.

import { AnfBuilder, litIndex, mkIf, mkProj, nested, splitLets } from "../ir/builder.js";
import { freeVars } from "../ir/free.js";
import { freshVar, isAtom, mkTuple, typeOf, type Atom, type Expr, type Var } from "../ir/ir.js";
import { INT, isScalar, tupleOf, type Type } from "../types/types.js";
import { zeroScalar } from "./reverse-support.js";

/**
 * How a value relates to the threaded array: a version of it, or a tuple holding one at a component (maybe inside a
 * tuple there: a branch that also returns residuals, ./reverse-if.ts); undefined for neither.
 */
type Kind =
  | { readonly k: "version"; readonly initial: boolean }
  | { readonly k: "holder"; readonly at: number; readonly inner: Kind };

const VERSION: Kind = { k: "version", initial: false };

/** What the primal loop logs per update: its position (an Index) and the element it overwrote (a scalar). */
export interface UpdateLog {
  readonly pos: Atom;
  readonly old: Atom;
}

/** A logged body: its lets (emitted), its result, and the logs of its updates in program order. */
interface Logged {
  readonly expr: Expr;
  readonly result: Kind | undefined;
  readonly logs: readonly UpdateLog[];
}

class NotThreaded extends Error {}

/**
 * The body of a loop whose state is `acc`, with every update of the array at `component` (-1: the whole state)
 * logged: its result is `(next state, pos₁, old₁, ..., posₘ, oldₘ)`. Undefined when the body does not only update
 * the array in place (see the top of the file); `sites` gives the element types of the logs, in order.
 */
export function loggingBody(
  body: Expr,
  acc: Var,
  component: number,
): { body: Expr; sites: readonly Type[] } | undefined {
  const t = new Threading(acc, component);
  try {
    const out = t.scope(body);
    const r = out.result;
    const threaded =
      component < 0 ? r?.k === "version" : r?.k === "holder" && r.at === component && r.inner.k === "version";
    if (!threaded) return undefined;
    if (out.logs.length === 0) return undefined;
    const b = new AnfBuilder();
    const next = b.bind("next", out.expr);
    const result = mkTuple([next, ...out.logs.flatMap((l) => [l.pos, l.old])]);
    return { body: b.finish(result), sites: out.logs.map((l) => l.old.type) };
  } catch (e) {
    if (e instanceof NotThreaded) return undefined;
    throw e;
  }
}

class Threading {
  private readonly kinds = new Map<number, Kind>();
  /** Versions already updated (on the path being walked: the branches of an `if` update their own). */
  private consumed = new Set<number>();

  constructor(acc: Var, component: number) {
    const initial: Kind = { k: "version", initial: true };
    this.kinds.set(acc.id, component < 0 ? initial : { k: "holder", at: component, inner: initial });
    this.initialHolder = component < 0 ? undefined : acc.id;
  }

  /** The state itself: its component is the initial version. */
  private readonly initialHolder: number | undefined;

  private kindOf(a: Atom): Kind | undefined {
    return a.kind === "var" ? this.kinds.get(a.id) : undefined;
  }

  scope(e: Expr): Logged {
    const b = new AnfBuilder();
    const logs: UpdateLog[] = [];
    const { bindings, tail } = splitLets(e);
    for (const { v, rhs } of bindings) {
      const kind = this.let(v, rhs, b, logs);
      if (kind) this.kinds.set(v.id, kind);
    }
    if (isAtom(tail)) return { expr: b.finish(tail), result: this.kindOf(tail), logs };
    const r = freshVar("r", typeOf(tail));
    const kind = this.let(r, tail, b, logs);
    if (kind) this.kinds.set(r.id, kind);
    return { expr: b.finish(r), result: kind, logs };
  }

  /** Emits `let v = rhs` (logged) into b; returns v's kind. */
  private let(v: Var, rhs: Expr, b: AnfBuilder, logs: UpdateLog[]): Kind | undefined {
    const uses = [...freeVars(rhs).values()].filter((x) => this.kinds.has(x.id));
    if (rhs.kind === "if") return this.branch(v, rhs, b, logs);
    if (uses.length === 0) {
      b.bindVar(v, rhs);
      return undefined;
    }
    switch (rhs.kind) {
      case "var": {
        b.bindVar(v, rhs);
        return this.kindOf(rhs);
      }
      case "proj": {
        b.bindVar(v, rhs);
        const k = this.kindOf(rhs.arg);
        if (k?.k !== "holder") throw new NotThreaded();
        if (rhs.index !== k.at) return undefined;
        if (k.inner.k === "holder") return k.inner;
        return { k: "version", initial: rhs.arg.kind === "var" && rhs.arg.id === this.initialHolder };
      }
      case "tuple": {
        const at = rhs.elems.flatMap((a, k) => (this.kindOf(a) !== undefined ? [k] : []));
        if (at.length !== 1) throw new NotThreaded();
        b.bindVar(v, rhs);
        return { k: "holder", at: at[0]!, inner: this.kindOf(rhs.elems[at[0]!]!)! };
      }
      case "prim": {
        const [a, p, x] = rhs.args as [Atom, Atom, Atom];
        const arr = this.kindOf(a);
        const others = rhs.args.slice(1).some((y) => this.kindOf(y) !== undefined);
        if (arr?.k !== "version" || others) throw new NotThreaded();
        if (rhs.op === "length") {
          b.bindVar(v, rhs);
          return undefined;
        }
        if (rhs.op === "get") {
          if (!arr.initial) throw new NotThreaded();
          b.bindVar(v, rhs);
          return undefined;
        }
        if (rhs.op !== "setAt" && rhs.op !== "addAt") throw new NotThreaded();
        if (p.type.k !== "int" || !isScalar(x.type) || this.consumed.has((a as Var).id)) throw new NotThreaded();
        this.consumed.add((a as Var).id);
        logs.push({ pos: p, old: b.prim("get", [a, p], "old") });
        b.bindVar(v, rhs);
        return VERSION;
      }
      default:
        throw new NotThreaded();
    }
  }

  /**
   * An `if`: each branch logged; the `if` also returns its branch's logs (defaults for the other branch's updates,
   * position -1), and its result is a version (or holder) when both branches' are.
   */
  private branch(v: Var, e: Expr & { kind: "if" }, b: AnfBuilder, logs: UpdateLog[]): Kind | undefined {
    const before = this.consumed;
    this.consumed = new Set(before);
    const yes = this.scope(e.then);
    const afterYes = this.consumed;
    this.consumed = new Set(before);
    const no = this.scope(e.else);
    this.consumed = new Set([...afterYes, ...this.consumed]);
    const kind = sameKind(yes.result, no.result);
    if (kind === null) throw new NotThreaded();
    if (yes.logs.length + no.logs.length === 0) {
      b.bindVar(v, { ...e, then: yes.expr, else: no.expr });
      return kind;
    }
    const defaults = (ls: readonly UpdateLog[]) => ls.flatMap((l) => [litIndex(-1), zeroScalar(l.old.type)]);
    const withLogs = (x: Logged, before: readonly Atom[], after: readonly Atom[]) =>
      nested((bb) => {
        const value = bb.bind("r", x.expr);
        return mkTuple([value, ...before, ...x.logs.flatMap((l) => [l.pos, l.old]), ...after]);
      });
    const all = b.bind(
      `${v.name}_if`,
      mkIf(e.cond, withLogs(yes, [], defaults(no.logs)), withLogs(no, defaults(yes.logs), [])),
    );
    b.bindVar(v, mkProj(0, all));
    const n = yes.logs.length + no.logs.length;
    for (let j = 0; j < n; j++) logs.push({ pos: b.proj(1 + 2 * j, all, "pos"), old: b.proj(2 + 2 * j, all, "old") });
    return kind;
  }
}

/** The kind of an `if`'s result from its branches' (null: they disagree, so the array is not threaded). */
function sameKind(a: Kind | undefined, b: Kind | undefined): Kind | undefined | null {
  if (a === undefined || b === undefined) return a === b ? undefined : null;
  if (a.k === "version" && b.k === "version") return a.initial && b.initial ? a : VERSION;
  if (a.k !== "holder" || b.k !== "holder" || a.at !== b.at) return null;
  const inner = sameKind(a.inner, b.inner);
  return inner ? { k: "holder", at: a.at, inner } : null;
}

/** The type of one iteration's log: (position, old element) for each update, in program order. */
export function logType(sites: readonly Type[]): Type {
  return tupleOf(sites.flatMap((t) => [INT, t]));
}

/**
 * The array before iteration i, from `cur` (the array after it): iteration i's logged updates undone, last first.
 * `log` holds one entry per iteration (see logType).
 */
export function restoreBefore(b: AnfBuilder, cur: Atom, log: Var, sites: number, i: Atom): Atom {
  const entry = b.prim("get", [log, i], "log");
  let a = cur;
  for (let j = sites - 1; j >= 0; j--) {
    const p = b.proj(2 * j, entry, "pos");
    const o = b.proj(2 * j + 1, entry, "old");
    const ran = b.prim("ge", [p, litIndex(0)], "ran");
    const before = a;
    a = b.if(
      ran,
      (bb) => bb.prim("setAt", [before, p, o], "a"),
      () => before,
      "a",
    );
  }
  return a;
}
