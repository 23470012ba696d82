// The rewrite engine: one sweep over a function applying named rules bottom-up, in A-normal form.
//
// The sweep walks let chains in order, emitting into an AnfBuilder, and remembers what each variable is bound to
// (rules look definitions up through the RuleContext) and what is known where it is (../facts.ts: enclosing loop
// indexes and branch conditions). Three rewrites are structural and always done here:
//  - let-flatten (paper Fig. 7b): `let x = (let y = a in b) in c` -> `let y = a in let x = b in c`;
//  - copy-propagation (paper Fig. 7b, for atoms): `let x = y in e` and `let x = 3. in e` -> e[x := atom];
//  - let-tail: a scope ending `let x = e in x` ends with `e` (so rules see the loop body or branch as the node it is).
// A node is offered to the rules after its operands are substituted and its nested bodies rewritten; a rule's result
// is swept again, so rewrites that enable each other (fusion exposing a literal index) chain within one sweep.
// A scope or node in which nothing changed (no rewrite counted, no operand replaced) is returned as it was, the same
// object: most of a function is unchanged by most sweeps, and rebuilding it all was a large part of compile time.
// A rule copies a scope without its dead lets (`copy`), and the function leaves the sweep without them (dead-let).

import { AnfBuilder, splitLets, wrapLets } from "../ir/builder.js";
import { freeVars, mapNode } from "../ir/free.js";
import { isAtom, type Atom, type Expr, type Var } from "../ir/ir.js";
import { copyFresh } from "../ir/rename.js";
import { compileWork } from "../ir/work.js";
import { removeDeadLets, type Fuse } from "./dce.js";
import { fissionOf } from "./rules/fission.js";
import { projectIf } from "./rules/tuple.js";
import { Facts } from "./facts.js";
import type { UseInfo } from "./occurrences.js";
import type { RuleContext, RuleSet } from "./rules/rule.js";

/**
 * Scopes without their dead lets (`copy`), and the free variables of those: kept weakly, and valid for good (the IR
 * is immutable, so a clean scope stays clean).
 */
const CLEANED = new WeakMap<Expr, Expr>();
const FREE = new WeakMap<Expr, readonly number[]>();

export class Rewriter implements RuleContext {
  private readonly defs = new Map<number, Expr>();
  private readonly subst = new Map<number, Atom>();
  /** Use information of variables that took over another's uses (see `rebindLast`). */
  private readonly merged = new Map<number, UseInfo | undefined>();
  readonly facts: Facts = new Facts((a) => this.definition(a));
  binder: Var | undefined = undefined;
  /** How many loops enclose the node being rewritten, and at which such depth each variable is bound. */
  private loopDepth = 0;
  private readonly bindDepth = new Map<number, number>();
  /** Rewrites counted and operands replaced so far: unchanged across a scope, the scope is returned as it was. */
  private changes = 0;
  /**
   * proj-of-if and fission where dead-let removal finds a projection to be a tuple's one use left: in a chain of loops
   * or conditionals of dual numbers whose primal the next step no longer reads, each tuple loses its other use only as
   * the chain after it is cleaned, and the rules, seeing the uses of the start of the sweep, would take one step of the
   * chain per sweep.
   */
  private readonly fuse: Fuse = (def, k) => {
    const rule = def.kind === "if" ? "proj-of-if" : "fission";
    if (!this.rules.names.has(rule)) return undefined;
    const out = def.kind === "if" ? projectIf(def, k) : def.kind === "ifold" ? fissionOf(def, k) : undefined;
    if (out !== undefined) this.count(rule);
    return out;
  };
  /** `atom` and `scope` as functions, made once: `mapNode` takes them for most nodes of every sweep. */
  private readonly atomFn = (a: Atom) => this.atom(a);
  private readonly scopeFn = (e: Expr) => this.scope(e);

  constructor(
    private readonly rules: RuleSet,
    private readonly useInfo: ReadonlyMap<number, UseInfo>,
    /** Counts of rewrites done, by rule name (added to). */
    readonly fired: Map<string, number>,
  ) {}

  definition(v: Atom): Expr | undefined {
    return v.kind === "var" ? this.defs.get(v.id) : undefined;
  }

  isLoopInvariant(e: Expr): boolean {
    if (this.loopDepth === 0) return false;
    for (const id of freeVars(e).keys()) if ((this.bindDepth.get(id) ?? 0) >= this.loopDepth) return false;
    return true;
  }

  uses(v: Var): UseInfo | undefined {
    return this.merged.has(v.id) ? this.merged.get(v.id) : this.useInfo.get(v.id);
  }

  /**
   * A function's body rewritten, then without its dead lets, and with proj-of-if and fission where that finds a
   * projection to be a tuple's one use left (`fuse`).
   */
  body(e: Expr): Expr {
    const { expr, removed } = removeDeadLets(this.scope(e), undefined, undefined, this.fuse);
    if (removed > 0) this.count("dead-let", removed);
    return expr;
  }

  /** `e` rewritten as a closed scope (its own let chain). */
  scope(e: Expr): Expr {
    const before = this.changes;
    const b = new AnfBuilder();
    const tail = this.into(e, b, undefined);
    const out = b.finish(tail);
    const unchanged = () => (this.changes === before ? e : out);
    if (tail.kind !== "var" || out.kind !== "let") return unchanged();
    const { bindings, tail: t } = splitLets(out);
    const last = bindings[bindings.length - 1]!;
    if (last.v.id !== (t as Var).id) return unchanged();
    this.count("let-tail");
    return wrapLets(bindings.slice(0, -1), last.rhs);
  }

  /**
   * A copy of `e` with fresh binders and `subst` done, without the dead lets of `e`: the rewrites inside a scope leave
   * dead lets until the sweep ends (the arrays fused into it, say), and a rule copying the scope (fusion copies a
   * build's body to its read, ifold-once a loop body) would copy them too; nested builds then doubled in size per
   * level. Each scope is cleaned once however often it is copied (CLEANED).
   */
  copy(e: Expr, subst?: ReadonlyMap<number, Atom>): Expr {
    let clean = CLEANED.get(e);
    if (clean === undefined) {
      const { expr, free } = removeDeadLets(e, undefined, FREE);
      FREE.set(expr, free());
      CLEANED.set(e, (clean = expr));
    }
    return copyFresh(clean, subst);
  }

  private count(name: string, times = 1): void {
    this.changes += times;
    this.fired.set(name, (this.fired.get(name) ?? 0) + times);
  }

  private atom(a: Atom): Atom {
    const original = a;
    // Transitive: a variable rebound to a later name maps to that name's replacement in turn.
    for (
      let to = a.kind === "var" ? this.subst.get(a.id) : undefined;
      to !== undefined;
      to = a.kind === "var" ? this.subst.get(a.id) : undefined
    )
      a = to;
    if (a !== original) this.changes++;
    return a;
  }

  /** `to` now also has the uses of `from`, except the copy `let to = from` itself. */
  private mergeUses(from: Var, to: Var): void {
    const a = this.uses(from);
    const b = this.uses(to);
    if (a === undefined || b === undefined) {
      this.merged.set(to.id, undefined);
      return;
    }
    this.merged.set(to.id, {
      total: a.total + b.total - 1,
      asArray: a.asArray + b.asArray,
      gets: a.gets + b.gets,
      getsOncePerElement: a.getsOncePerElement + b.getsOncePerElement,
      getsInInnerLoop: a.getsInInnerLoop + b.getsInInnerLoop,
    });
  }

  /** Rewrites `e`, emitting its lets into `b`; returns the tail (never a let), which `binder` will be bound to. */
  private into(e: Expr, b: AnfBuilder, binder: Var | undefined): Expr {
    compileWork.nodes++;
    while (e.kind === "let") {
      if (e.rhs.kind === "let") this.count("let-flatten");
      const rhs = this.into(e.rhs, b, e.v);
      if (isAtom(rhs)) {
        this.count("copy-propagation");
        if (rhs.kind === "var" && b.rebindLast(rhs, e.v)) {
          // `let r = e in let x = r in ...` becomes `let x = e in ...`: x keeps the user's name; r's uses are x's.
          this.subst.set(rhs.id, e.v);
          this.defs.set(e.v.id, this.defs.get(rhs.id)!);
          this.mergeUses(rhs, e.v);
        } else {
          this.subst.set(e.v.id, rhs);
        }
      } else {
        b.bindVar(e.v, rhs);
        this.defs.set(e.v.id, rhs);
        this.bindDepth.set(e.v.id, this.loopDepth);
      }
      e = e.body;
    }
    const node = this.rebuild(e);
    this.binder = binder;
    const hit = this.rules.apply(node, this);
    this.binder = undefined;
    if (hit === undefined) return node;
    this.count(hit.rule.name);
    return this.into(hit.result, b, binder);
  }

  /** A nested scope, with what is known inside it. */
  private inside(e: Expr, learn: () => void): Expr {
    return this.facts.within(learn, () => this.scope(e));
  }

  /** A loop body, whose binders are bound one loop deeper. */
  private loopBody(e: Expr, binders: readonly Var[], bound: Atom, index: Var): Expr {
    this.loopDepth++;
    for (const v of binders) this.bindDepth.set(v.id, this.loopDepth);
    const out = this.inside(e, () => this.facts.enterLoop(index, bound));
    this.loopDepth--;
    return out;
  }

  /** The node with its operands substituted and its nested bodies rewritten. */
  private rebuild(e: Exclude<Expr, { kind: "let" }>): Expr {
    const before = this.changes;
    const out = this.rebuilt(e);
    return this.changes === before ? e : out;
  }

  private rebuilt(e: Exclude<Expr, { kind: "let" }>): Expr {
    switch (e.kind) {
      case "if": {
        const cond = this.atom(e.cond);
        const then = this.inside(e.then, () => this.facts.assume(cond, true));
        const els = this.inside(e.else, () => this.facts.assume(cond, false));
        return { ...e, cond, then, else: els };
      }
      case "build": {
        const size = this.atom(e.size);
        return { ...e, size, body: this.loopBody(e.body, [e.index], size, e.index) };
      }
      case "ifold": {
        const count = this.atom(e.count);
        const body = this.loopBody(e.body, [e.index, e.acc], count, e.index);
        return { ...e, init: this.atom(e.init), count, body };
      }
      case "while": {
        // A loop without an index: its state is bound one loop deeper, and nothing is learnt inside.
        this.loopDepth++;
        this.bindDepth.set(e.acc.id, this.loopDepth);
        const cond = this.inside(e.cond, () => undefined);
        const body = this.inside(e.body, () => undefined);
        this.loopDepth--;
        return { ...e, init: this.atom(e.init), cond, body };
      }
      default:
        return mapNode(e, this.atomFn, this.scopeFn);
    }
  }
}
