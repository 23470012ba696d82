// Which array components of an ifold's state keep their shape from one iteration to the next: those the body
// returns as the state's own component after only updates (setAt, addAt, addArray keep their operand's shape), also
// through an inner loop that keeps the shape of the component it started from. The
// code generator then holds their dimensions in the initial value's locals instead of reassigned ones, so bounds
// checks against them are known (e.g. an adjoint accumulated with addAt at the loop index needs none).

import { splitLets } from "./builder.js";
import type { Atom, Expr, Ifold } from "./ir.js";

const UPDATES = new Set(["setAt", "addAt", "addArray"]);

/** For each top-level component of the state (one entry when the state is not a tuple): its shape is invariant. */
export function invariantShapes(loop: Ifold): boolean[] {
  const t = loop.acc.type;
  const n = t.k === "tuple" ? t.elems.length : 1;
  const { bindings, tail } = splitLets(loop.body);
  const def = (a: Atom): Expr | undefined => (a.kind === "var" ? bindings.find((x) => x.v.id === a.id)?.rhs : undefined);
  /** `a` is component k of the state after a chain of updates (k = -1: the whole state). */
  const fromComponent = (a: Atom, k: number, depth = 0): boolean => {
    if (a.kind !== "var" || depth > 64) return false;
    if (k < 0 && a.id === loop.acc.id) return true;
    const d = def(a);
    if (d === undefined) return false;
    if (d.kind === "proj") {
      if (d.arg.kind !== "var") return false;
      if (d.arg.id === loop.acc.id) return k >= 0 && d.index === k;
      // A component of an inner loop that keeps its shape, started from this one: `snd (ifold f (x, s) n)`.
      const inner = def(d.arg);
      if (inner?.kind !== "ifold" || !invariantShapes(inner)[d.index]) return false;
      const init = inner.init.kind === "var" ? def(inner.init) : undefined;
      const start = init?.kind === "tuple" ? init.elems[d.index] : inner.type.k === "tuple" ? undefined : inner.init;
      return start !== undefined && fromComponent(start, k, depth + 1);
    }
    if (d.kind === "prim" && UPDATES.has(d.op)) return fromComponent(d.args[0]!, k, depth + 1);
    if (d.kind === "var") return fromComponent(d, k, depth + 1);
    return false;
  };
  if (t.k !== "tuple") return [tail.kind === "var" && t.k === "array" && fromComponent(tail, -1)];
  const tuple = tail.kind === "tuple" ? tail : tail.kind === "var" ? def(tail) : undefined;
  const result: readonly Atom[] = tuple?.kind === "tuple" ? tuple.elems : [];
  return Array.from({ length: n }, (_, k) => t.elems[k]!.k === "array" && k < result.length && fromComponent(result[k]!, k));
}
