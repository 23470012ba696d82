// Which variables reverse mode gives adjoints to: the *active* ones, which depend on a differentiated input and carry
// Doubles. For tuples the answer is kept per component where only some are active, so that a loop whose state is
// (residual, power), with the powers never depending on the inputs (llsq), carries no adjoint for them: otherwise the
// reverse loop runs a chain of multiply-adds per iteration for a value nothing reads.

import { splitLets } from "../ir/builder.js";
import { freeVars } from "../ir/free.js";
import type { Atom, Expr, Ifold, Var, While } from "../ir/ir.js";
import { PRIMS } from "../prims/table.js";
import { hasTangent } from "./dual-types.js";

export interface ActivityState {
  /** Active variables, by id. */
  readonly active: Set<number>;
  /** For an active tuple variable of which only some components are active: those components. */
  readonly components: Map<number, ReadonlySet<number>>;
}

const isActiveAtom = (s: ActivityState, a: Atom) => a.kind === "var" && s.active.has(a.id);

/** The components of tuple `a` that are active (all of them for an active atom without a component record). */
export function activeComponents(s: ActivityState, a: Atom, arity: number): ReadonlySet<number> {
  if (!isActiveAtom(s, a)) return new Set();
  return s.components.get((a as Var).id) ?? new Set(Array.from({ length: arity }, (_, i) => i));
}

/**
 * Whether `let v = rhs` is active, given the variables active so far; when only some components of a tuple are,
 * records them in `s.components` (the caller adds v to `s.active`).
 */
export function letActivity(s: ActivityState, v: Var, rhs: Expr): boolean {
  if (!hasTangent(v.type)) return false;
  // A zero-tangent primitive's result (stopGradient, floor, toDouble) is a constant to AD: never active.
  if (rhs.kind === "prim" && PRIMS[rhs.op].derivative.kind === "zero-tangent") return false;
  if (rhs.kind === "proj") return activeComponents(s, rhs.arg, arity(rhs.arg)).has(rhs.index);
  if (rhs.kind === "tuple")
    return record(s, v, new Set(rhs.elems.flatMap((a, i) => (isActiveAtom(s, a) ? [i] : []))), rhs.elems.length);
  if ((rhs.kind === "ifold" || rhs.kind === "while") && rhs.acc.type.k === "tuple")
    return record(s, v, loopStateActivity(s, rhs), rhs.acc.type.elems.length);
  return [...freeVars(rhs).keys()].some((id) => s.active.has(id));
}

function arity(a: Atom): number {
  return a.type.k === "tuple" ? a.type.elems.length : 1;
}

function record(s: ActivityState, v: Var, comps: ReadonlySet<number>, n: number): boolean {
  if (comps.size === 0) return false;
  if (comps.size < n) s.components.set(v.id, comps);
  return true;
}

/**
 * The components of a loop's tuple state that depend on a differentiated input: those of the initial state, and,
 * until nothing changes, those the body computes from an active value or an active state component. The body's lets
 * are followed one level deep; anything nested counts through its free variables (an over-approximation: safe).
 */
export function loopStateActivity(s: ActivityState, e: Ifold | While): ReadonlySet<number> {
  const n = arity(e.acc);
  const varied = new Set(activeComponents(s, e.init, n));
  const { bindings, tail } = splitLets(e.body);
  for (let round = 0; round <= n; round++) {
    // A simulation of the walk over the body, with the state's varied components active.
    const local: ActivityState = { active: new Set(s.active), components: new Map(s.components) };
    if (varied.size > 0) {
      local.active.add(e.acc.id);
      if (varied.size < n) local.components.set(e.acc.id, new Set(varied));
    }
    for (const { v, rhs } of bindings) if (letActivity(local, v, rhs)) local.active.add(v.id);
    const out =
      tail.kind === "tuple"
        ? new Set(tail.elems.flatMap((a, i) => (isActiveAtom(local, a) ? [i] : [])))
        : tail.kind === "var"
          ? activeComponents(local, tail, n)
          : new Set<number>([...Array(n).keys()]);
    const before = varied.size;
    for (const c of out) varied.add(c);
    if (varied.size === before) break;
  }
  return varied;
}
