// Rewrite rules are named data: a name, the head construct they match (the rule index is keyed by it), a one-line
// description, and a function from a node to its replacement (or undefined when the rule does not apply).
// The rewrite engine (../rewrite.ts) calls a rule on a node whose operands are already substituted and whose nested
// bodies are already rewritten, with a context that knows what each variable in scope is let-bound to.

import type { Atom, Expr, Var } from "../../ir/ir.js";
import type { PrimName } from "../../prims/names.js";
import type { Facts } from "../facts.js";
import type { UseInfo } from "../occurrences.js";

export type Head = Expr["kind"];
export type NodeOf<H extends Head> = Extract<Expr, { kind: H }>;

export interface RuleContext {
  /** The (already rewritten) right-hand side `v` is let-bound to, if it is let-bound in scope. */
  definition(v: Atom): Expr | undefined;
  /**
   * How `v` was used when this iteration started. Stale by design: rewriting only removes or copies existing uses,
   * so a guard that holds on this information still holds; new variables (copies) have none.
   */
  uses(v: Var): UseInfo | undefined;
  /** What is known where the node is (enclosing loop indexes and conditions, see ../facts.ts). */
  readonly facts: Facts;
  /** True inside a loop when `e` uses nothing bound in the innermost enclosing loop (its index, state or body). */
  isLoopInvariant(e: Expr): boolean;
  /** The variable the node is about to be let-bound to, if it is a let's right-hand side. */
  readonly binder: Var | undefined;
  /** `copyFresh(e, subst)` of `e` without its dead lets: what a rule copying a scope copies (../rewrite.ts). */
  copy(e: Expr, subst?: ReadonlyMap<number, Atom>): Expr;
}

export interface Rule<H extends Head = Head> {
  readonly name: string;
  readonly head: H;
  /** The rewrite, e.g. "length (build n f) -> n". */
  readonly doc: string;
  /** On `prim`: the primitives the rule can rewrite, so that it is not tried on others (absent: any primitive). */
  readonly ops?: readonly PrimName[];
  /** The replacement (of the same type, meaning the same), or undefined if the rule does not apply to `node`. */
  apply(node: NodeOf<H>, ctx: RuleContext): Expr | undefined;
}

export type AnyRule = { [H in Head]: Rule<H> }[Head];

/** Identity, for type inference of the head. */
export const rule = <H extends Head>(r: Rule<H>): Rule<H> => r;

/**
 * Tests set this: then a primitive is also offered to the rules whose `ops` leave its op out, and one that rewrites it
 * is a bug (its `ops` would have kept a rewrite from happening).
 */
let checkingOps = false;
export const checkRuleOps = (on: boolean): void => {
  checkingOps = on;
};

/** Rules indexed by head construct (and a primitive's by its op), tried in the order given. */
export class RuleSet {
  private readonly byHead = new Map<Head, AnyRule[]>();
  /** The rules of `prim` that can rewrite each op: a primitive is offered to a few rules, not to all of them. */
  private readonly byOp = new Map<PrimName, AnyRule[]>();

  /** The names of the rules. */
  readonly names = new Set<string>();

  constructor(readonly rules: readonly AnyRule[]) {
    const names = this.names;
    for (const r of rules) {
      if (names.has(r.name)) throw new Error(`duplicate rule name ${r.name}`);
      names.add(r.name);
      const list = this.byHead.get(r.head) ?? [];
      list.push(r);
      this.byHead.set(r.head, list);
    }
  }

  private rulesFor(node: Expr): readonly AnyRule[] {
    if (node.kind !== "prim") return this.byHead.get(node.kind) ?? [];
    let list = this.byOp.get(node.op);
    if (list === undefined) {
      list = (this.byHead.get("prim") ?? []).filter((r) => r.ops === undefined || r.ops.includes(node.op));
      this.byOp.set(node.op, list);
    }
    return list;
  }

  /** The first rule that applies to `node`, and its result. */
  apply(node: Expr, ctx: RuleContext): { rule: AnyRule; result: Expr } | undefined {
    for (const r of this.rulesFor(node)) {
      const result = (r.apply as (n: Expr, c: RuleContext) => Expr | undefined)(node, ctx);
      if (result !== undefined) return { rule: r, result };
    }
    if (checkingOps && node.kind === "prim")
      for (const r of this.byHead.get("prim") ?? [])
        if (r.ops !== undefined && !r.ops.includes(node.op) && r.apply(node as never, ctx) !== undefined)
          throw new Error(`rule ${r.name} rewrites ${node.op}, which its ops [${r.ops.join(", ")}] leave out`);
    return undefined;
  }
}
