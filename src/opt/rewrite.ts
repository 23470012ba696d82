// The rewrite engine: one sweep over a function applying named rules bottom-up, in A-normal form.
//
// The sweep walks let chains in order, emitting into an AnfBuilder, and remembers what each variable is bound to
// (rules look definitions up through the RuleContext). Two rewrites are structural and always done here:
//  - let-flatten (paper Fig. 7b): `let x = (let y = a in b) in c` -> `let y = a in let x = b in c`;
//  - copy-propagation (paper Fig. 7b, for atoms): `let x = y in e` and `let x = 3. in e` -> e[x := atom].
// A node is offered to the rules after its operands are substituted and its nested bodies rewritten; a rule's result
// is swept again, so rewrites that enable each other (fusion exposing a literal index) chain within one sweep.

import { AnfBuilder } from "../ir/builder.js";
import { isAtom, type Atom, type Expr, type Var } from "../ir/ir.js";
import type { UseInfo } from "./occurrences.js";
import type { RuleContext, RuleSet } from "./rules/rule.js";

export class Rewriter implements RuleContext {
  private readonly defs = new Map<number, Expr>();
  private readonly subst = new Map<number, Atom>();
  /** Use information of variables that took over another's uses (see `rebindLast`). */
  private readonly merged = new Map<number, UseInfo | undefined>();

  constructor(
    private readonly rules: RuleSet,
    private readonly useInfo: ReadonlyMap<number, UseInfo>,
    /** Counts of rewrites done, by rule name (added to). */
    readonly fired: Map<string, number>,
  ) {}

  definition(v: Atom): Expr | undefined {
    return v.kind === "var" ? this.defs.get(v.id) : undefined;
  }

  uses(v: Var): UseInfo | undefined {
    return this.merged.has(v.id) ? this.merged.get(v.id) : this.useInfo.get(v.id);
  }

  /** `e` rewritten as a closed scope (its own let chain). */
  scope(e: Expr): Expr {
    const b = new AnfBuilder();
    return b.finish(this.into(e, b));
  }

  private count(name: string): void {
    this.fired.set(name, (this.fired.get(name) ?? 0) + 1);
  }

  private atom(a: Atom): Atom {
    // Transitive: a variable rebound to a later name maps to that name's replacement in turn.
    while (a.kind === "var") {
      const to = this.subst.get(a.id);
      if (to === undefined) break;
      a = to;
    }
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
    this.merged.set(to.id, { total: a.total + b.total - 1, asArray: a.asArray + b.asArray });
  }

  /** Rewrites `e`, emitting its lets into `b`; returns the tail (never a let). */
  private into(e: Expr, b: AnfBuilder): Expr {
    while (e.kind === "let") {
      if (e.rhs.kind === "let") this.count("let-flatten");
      const rhs = this.into(e.rhs, b);
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
      }
      e = e.body;
    }
    const node = this.rebuild(e);
    const hit = this.rules.apply(node, this);
    if (hit === undefined) return node;
    this.count(hit.rule.name);
    return this.into(hit.result, b);
  }

  /** The node with its operands substituted and its nested bodies rewritten. */
  private rebuild(e: Exclude<Expr, { kind: "let" }>): Expr {
    switch (e.kind) {
      case "var":
      case "lit":
        return this.atom(e);
      case "prim":
        return { ...e, args: e.args.map((a) => this.atom(a)) };
      case "tuple":
        return { ...e, elems: e.elems.map((a) => this.atom(a)) };
      case "proj":
        return { ...e, arg: this.atom(e.arg) };
      case "app":
        return { ...e, fn: this.atom(e.fn), arg: this.atom(e.arg) };
      case "jvp":
        return { ...e, fn: this.atom(e.fn) };
      case "lam":
        return { ...e, body: this.scope(e.body) };
      case "if":
        return { ...e, cond: this.atom(e.cond), then: this.scope(e.then), else: this.scope(e.else) };
      case "build":
        return { ...e, size: this.atom(e.size), body: this.scope(e.body) };
      case "ifold":
        return { ...e, init: this.atom(e.init), count: this.atom(e.count), body: this.scope(e.body) };
    }
  }
}
