// The reverse of `if`: the reverse takes the branch the primal took, recomputing that branch's primal values it needs.
// The costly ones (transcendental scalars: BA's rotation computes sqrt, cos and sin in one branch) are returned by the
// primal `if` beside its value instead, as residuals, and the reverse branch reads them: each is computed once, not
// once more per reverse (a Jacobian by rows reverses the same branch once per row).

import { AnfBuilder, mkProj, nested, splitLets, wrapLets, type Binding } from "../ir/builder.js";
import { lit, mkTuple, typeOf, type Atom, type Expr, type If, type Var } from "../ir/ir.js";
import { copyFresh, substitute } from "../ir/rename.js";
import { DOUBLE, tupleOf } from "../types/types.js";
import type { Adj } from "./adjoints.js";
import { costly, pruned } from "./reverse-support.js";
import type { Reverse } from "./reverse.js";

/** Per branch, the residual of each costly let (by the let's variable id). */
export interface IfResiduals {
  readonly then: ReadonlyMap<number, Atom>;
  readonly else: ReadonlyMap<number, Atom>;
}

/** The branch's costly Double lets (top level): what the reverse would recompute at a price. */
function costlyLets(x: Expr): Binding[] {
  return splitLets(x).bindings.filter((bd) => bd.v.type.k === "double" && costly(bd.rhs));
}

/**
 * Emits the primal of an active `let v = if ...`: the `if` also returns its branch's costly values (zeros for the
 * other branch's). Returns where the reverse finds them, or undefined when there are none (the `if` is emitted as is).
 */
export function primalIf(v: Var, e: If, b: AnfBuilder): IfResiduals | undefined {
  const [ownThen, ownElse] = [costlyLets(e.then), costlyLets(e.else)];
  if (ownThen.length + ownElse.length === 0) {
    b.bindVar(v, e);
    return undefined;
  }
  const zero = lit(0, DOUBLE);
  const branch = (x: Expr, isThen: boolean) =>
    nested((bb) => {
      const value = bb.bind("r", x);
      const thenPart = ownThen.map((bd) => (isThen ? bd.v : zero));
      const elsePart = ownElse.map((bd) => (isThen ? zero : bd.v));
      return mkTuple([value, ...thenPart, ...elsePart]);
    });
  const type = tupleOf([v.type, ...ownThen.map(() => DOUBLE), ...ownElse.map(() => DOUBLE)]);
  const all = b.bind(`${v.name}_if`, {
    kind: "if",
    cond: e.cond,
    then: branch(e.then, true),
    else: branch(e.else, false),
    type,
  });
  b.bindVar(v, mkProj(0, all));
  const at = (lets: Binding[], from: number) =>
    new Map(lets.map((bd, j) => [bd.v.id, b.proj(from + j, all, bd.v.name)]));
  return { then: at(ownThen, 1), else: at(ownElse, 1 + ownThen.length) };
}

export function reverseIf(r: Reverse, e: If, vb: Adj, b: AnfBuilder, stored: IfResiduals | undefined): void {
  const targets = r.targetsOf([e.then, e.else]);
  if (targets.length === 0) return;
  const branch = (x: Expr, residuals: ReadonlyMap<number, Atom> | undefined) =>
    r.saving(targets, () => {
      const copy = copyFresh(x);
      const reversed = nested((bb) => {
        const { steps, result } = r.forward(copy, bb);
        r.contribute(result, vb, bb);
        r.backward(steps, bb);
        return r.pack(targets, bb);
      });
      return pruned(residuals === undefined ? reversed : reading(reversed, x, copy, residuals));
    });
  const [yes, no] = [branch(e.then, stored?.then), branch(e.else, stored?.else)];
  const res = b.bind("dif", { kind: "if", cond: e.cond, then: yes, else: no, type: typeOf(yes) });
  r.unpack(targets, res, b);
}

/**
 * `reversed` (the recomputation of `copy`, a copy of the branch `original`, and its reverse) with the recomputed
 * costly lets replaced by the residuals of the corresponding lets of `original`, and so is any other costly let that
 * computes the same thing: the partial of `sin t` is `cos t`, which the branch computed too.
 */
function reading(reversed: Expr, original: Expr, copy: Expr, residuals: ReadonlyMap<number, Atom>): Expr {
  const pairs = splitLets(original).bindings;
  const copies = splitLets(copy).bindings;
  const subst = new Map<number, Atom>();
  // What each of the branch's variables is in the reverse: its residual, or its recomputed copy.
  const inReverse = new Map<number, Atom>();
  pairs.forEach((bd, k) => {
    const copied = copies[k];
    if (copied === undefined) return;
    const stored = residuals.get(bd.v.id);
    if (stored !== undefined) subst.set(copied.v.id, stored);
    inReverse.set(bd.v.id, stored ?? copied.v);
  });
  const key = (op: string, args: readonly Atom[]) =>
    `${op}(${args.map((a) => (a.kind === "var" ? `v${a.id}` : `${String(a.value)}`)).join(",")})`;
  const known = new Map<string, Atom>();
  for (const bd of pairs) {
    const stored = residuals.get(bd.v.id);
    if (stored === undefined || bd.rhs.kind !== "prim") continue;
    known.set(
      key(
        bd.rhs.op,
        bd.rhs.args.map((a) => (a.kind === "var" ? (inReverse.get(a.id) ?? a) : a)),
      ),
      stored,
    );
  }
  const atom = (a: Atom): Atom => (a.kind === "var" ? (subst.get(a.id) ?? a) : a);
  const { bindings, tail } = splitLets(reversed);
  const kept = bindings.filter((bd) => {
    if (subst.has(bd.v.id)) return false;
    if (bd.rhs.kind !== "prim" || !costly(bd.rhs)) return true;
    const same = known.get(key(bd.rhs.op, bd.rhs.args.map(atom)));
    if (same === undefined) return true;
    subst.set(bd.v.id, same);
    return false;
  });
  return substitute(wrapLets(kept, tail), subst);
}
