// Dead-let elimination, exact in one backward pass: the body of a let chain is cleaned before its bindings, from the
// last binding to the first, and a right-hand side's uses are counted only if its let is kept. So a chain of lets
// that only feed each other disappears at once.
//
// All IR is pure, so any unused let may go. One observable difference is accepted: removing an unused `get` also
// removes the index error it would have raised out of range, and removing an unused loop its shape errors.

import { splitLets } from "../ir/builder.js";
import { operands } from "../ir/free.js";
import { mkLet, type Expr, type Var } from "../ir/ir.js";
import type { Pass } from "./pass.js";

export const dcePass: Pass = {
  name: "dce",
  run: (fn) => ({ ...fn, body: removeDeadLets(fn.body).expr }),
};

export function removeDeadLets(
  e: Expr,
  removable: (v: Var, rhs: Expr) => boolean = () => true,
): { expr: Expr; removed: number } {
  const d = new DeadLets(removable);
  const expr = d.expr(e);
  return { expr, removed: d.removed };
}

class DeadLets {
  private readonly live = new Map<number, number>();
  removed = 0;

  constructor(private readonly removable: (v: Var, rhs: Expr) => boolean) {}

  expr(e: Expr): Expr {
    if (e.kind === "let") {
      const { bindings, tail } = splitLets(e);
      let out = this.expr(tail);
      for (let i = bindings.length - 1; i >= 0; i--) {
        const { v, rhs } = bindings[i]!;
        if (!this.live.get(v.id) && this.removable(v, rhs)) {
          this.removed++;
          continue;
        }
        out = mkLet(v, this.expr(rhs), out);
      }
      return out;
    }
    for (const a of operands(e)) if (a.kind === "var") this.live.set(a.id, (this.live.get(a.id) ?? 0) + 1);
    switch (e.kind) {
      case "if":
        return { ...e, then: this.expr(e.then), else: this.expr(e.else) };
      case "lam":
      case "build":
      case "ifold":
        return { ...e, body: this.expr(e.body) };
      case "while":
        return { ...e, cond: this.expr(e.cond), body: this.expr(e.body) };
      default:
        return e;
    }
  }
}
