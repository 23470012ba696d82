// The reverse of a call `g x` that remains after inlining (./reverse.ts): g is a function with custom derivative rules
// (./custom.ts), kept as a call until differentiation is done. Its reverse adds to x's adjoint what g's rules say:
//  - customVjp: the primal calls fwd instead of g and keeps its residuals; the reverse applies bwd to them and ȳ;
//  - checkpoint f, f a known lambda: the primal calls g (which stores nothing: it becomes f's code once inlined);
//    the reverse runs f's body again there and reverses it, as a loop's reverse does with a step: what f's reverse
//    reads is recomputed, not stored, and f's captures are in scope (their adjoints accumulate as f's own lets do);
//  - otherwise: the reverse adds `snd (vjp g x ȳ)`, a `vjp` node the forward-ad pass expands with g's rules.

import type { AnfBuilder } from "../ir/builder.js";
import { mkProj } from "../ir/builder.js";
import { vjpType, type App, type Atom, type Expr, type Jvp, type Lam, type Var } from "../ir/ir.js";
import { copyFresh } from "../ir/rename.js";
import { materialize, type Adj } from "./adjoints.js";
import { vjpRules } from "./custom.js";
import type { Reverse, Step } from "./reverse.js";

export interface CallResiduals {
  readonly bwd: Atom;
  readonly residuals: Atom;
}

/** Emits the primal of `let v = g x` (g's definition from `definition`); returns what its reverse needs. */
export function primalCall(
  v: Var,
  e: App,
  b: AnfBuilder,
  definition: (g: Var) => Expr | undefined,
): CallResiduals | undefined {
  const rules = e.fn.kind === "var" ? vjpRules(definition(e.fn)) : undefined;
  if (rules === undefined) {
    b.bindVar(v, e);
    return undefined;
  }
  const yr = b.app(rules.fwd, e.arg, `${v.name}_fwd`);
  b.bindVar(v, mkProj(0, yr));
  return { bwd: rules.bwd, residuals: b.proj(1, yr, "res") };
}

export function reverseCall(r: Reverse, v: Var, e: App, vb: Adj, b: AnfBuilder, call: CallResiduals | undefined): void {
  const x = e.arg;
  if (!r.isActive(x)) return;
  const ct = materialize(vb, v.type, v, b);
  if (call !== undefined) {
    r.contribute(x, b.app(b.app(call.bwd, call.residuals, "bwd"), ct, `d${x.name}`), b);
    return;
  }
  const recomputed = checkpointed(r, e.fn);
  if (recomputed !== undefined) {
    // let param = x in body, walked again (its primal, then its reverse for ct): param's adjoint reaches x.
    const steps: Step[] = [];
    r.step(recomputed.param, x, b, steps);
    const walked = r.forward(recomputed.body, b);
    r.contribute(walked.result, ct, b);
    r.backward([...steps, ...walked.steps], b);
    return;
  }
  const node: Jvp = { kind: "jvp", reverse: true, fn: e.fn, type: vjpType(e.fn.type) };
  const back = b.bind("back", node);
  const res = b.app(b.app(back, x, "pullback"), ct, "vjp");
  r.contribute(x, b.proj(1, res, `d${x.name}`), b);
}

/** A fresh copy of the lambda f when `g` is `checkpoint f` with f a known lambda. */
function checkpointed(r: Reverse, g: Atom): Lam | undefined {
  const def = g.kind === "var" ? r.definition(g) : undefined;
  if (def?.kind !== "custom" || def.mode !== "checkpoint" || def.fn.kind !== "var") return undefined;
  const f = r.definition(def.fn);
  return f?.kind === "lam" ? (copyFresh(f) as Lam) : undefined;
}
