// Loops at the top of a function whose state nests tuples, given a flat state for the parallel plan. Reverse mode's
// sweep over a batch carries the value and the adjoints as (loss, (seed, dW1, db1, dW2, db2)); the accumulation
// analysis (../opt/accumulation.ts) and the scatter plan (./loops.ts) take a flat tuple of scalars and arrays:
//
//   let v = ifold (fun s i -> lets; (a, (b, c))) init n
//     ~>
//   let init' = (x, y, z)                      (init's leaves: the atoms its tuples were built from, or projections)
//   let v' = ifold (fun s' i -> let s = ((s'.0, (s'.1, s'.2))) in lets; (a, b, c)) init' n
//   let v = (v'.0, (v'.1, v'.2))
//
// In the body's lets, `a - b` on Doubles becomes `a + (-b)`, the same float, which the analysis takes as an addition.
// The body's result is flattened through the tuples its own lets built, so that a component it keeps (reverse mode's
// seed) is the same atom at the start and at the end, as the scatter plan requires.

import { mkPrim, mkProj, splitLets, wrapLets, type Binding } from "../ir/builder.js";
import { freshVar, mkTuple, type Atom, type Expr, type Ifold, type IrFunction, type Var } from "../ir/ir.js";
import type { Type } from "../types/types.js";

const nests = (t: Type): boolean => t.k === "tuple" && t.elems.some((e) => e.k === "tuple");

/** The leaf types of a nested tuple type, in order. */
const leafTypes = (t: Type): Type[] => (t.k === "tuple" ? t.elems.flatMap(leafTypes) : [t]);

/** `fn` with its top-level loops over nested tuple states flattened (fn itself when there is none). */
export function flattenStates(fn: IrFunction): IrFunction {
  const { bindings, tail } = splitLets(fn.body);
  if (!bindings.some((b) => b.rhs.kind === "ifold" && nests(b.rhs.type))) return fn;
  const out: Binding[] = [];
  const defs = new Map<number, Expr>();
  for (const b of bindings) {
    defs.set(b.v.id, b.rhs);
    if (b.rhs.kind !== "ifold" || !nests(b.rhs.type)) out.push(b);
    else flatten(b.v, b.rhs, defs, out);
  }
  return { ...fn, body: wrapLets(out, tail) };
}

/** The leaves of atom `a` of type t: through the tuples `defs` binds, else projections bound in `out`. */
function leavesOf(a: Atom, t: Type, defs: ReadonlyMap<number, Expr>, out: Binding[]): Atom[] {
  if (t.k !== "tuple") return [a];
  const def = a.kind === "var" ? defs.get(a.id) : undefined;
  return t.elems.flatMap((et, k) => {
    if (def?.kind === "tuple") return leavesOf(def.elems[k]!, et, defs, out);
    const v = freshVar("leaf", et);
    out.push({ v, rhs: mkProj(k, a) });
    return leavesOf(v, et, defs, out);
  });
}

/** Binds `v` (of nested tuple type t) in `out` to the nested tuple of the flat value `flat`'s components. */
function rebuild(v: Var, flat: Atom, out: Binding[]): void {
  let next = 0;
  const build = (t: Type, target?: typeof v): Atom => {
    if (t.k !== "tuple") {
      const leaf = freshVar("part", t);
      out.push({ v: leaf, rhs: mkProj(next++, flat) });
      return leaf;
    }
    const elems = t.elems.map((et) => build(et));
    const tuple = target ?? freshVar("parts", t);
    out.push({ v: tuple, rhs: mkTuple(elems) });
    return tuple;
  };
  build(v.type, v);
}

function flatten(v: Binding["v"], loop: Ifold, defs: ReadonlyMap<number, Expr>, out: Binding[]): void {
  const state = loop.acc.type;
  const flatType: Type = { k: "tuple", elems: leafTypes(state) };
  const initLeaves = leavesOf(loop.init, state, defs, out);
  const init = freshVar("init", flatType);
  out.push({ v: init, rhs: mkTuple(initLeaves) });

  const acc = freshVar("state", flatType);
  const body: Binding[] = [];
  rebuild(loop.acc, acc, body);
  const inner = splitLets(loop.body);
  const bodyDefs = new Map(inner.bindings.map((b) => [b.v.id, b.rhs]));
  // `s - x` as `s + (-x)` (the same float): an accumulation adds, and a loss's sweep subtracts some of its terms.
  for (const b of inner.bindings) {
    if (b.rhs.kind !== "prim" || b.rhs.op !== "sub" || b.rhs.type.k !== "double" || b.rhs.tangent !== undefined) {
      body.push(b);
      continue;
    }
    const [x, y] = b.rhs.args as [Atom, Atom];
    const negated = freshVar("negated", y.type);
    body.push(
      { v: negated, rhs: mkPrim("neg", [y], b.rhs.span) },
      { v: b.v, rhs: mkPrim("add", [x, negated], b.rhs.span) },
    );
  }
  let result: Atom;
  if (inner.tail.kind === "var" || inner.tail.kind === "lit") result = inner.tail;
  else {
    result = freshVar("result", state);
    body.push({ v: result, rhs: inner.tail });
    bodyDefs.set(result.id, inner.tail);
  }
  const resultLeaves = leavesOf(result, state, bodyDefs, body);
  const flatBody = wrapLets(body, mkTuple(resultLeaves));
  const flatLoop: Ifold = { ...loop, init, acc, body: flatBody, type: flatType };
  const whole = freshVar("whole", flatType);
  out.push({ v: whole, rhs: flatLoop });
  rebuild(v, whole, out);
}
