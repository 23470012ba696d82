// What a loop's tuple state holds at one leaf (a path of projections), read off the loop body: for rules and facts
// that reason by induction over the iterations (a leaf that starts as c and is only passed on or set to c is c).

import { splitLets } from "../ir/builder.js";
import type { Atom, Expr, Ifold } from "../ir/ir.js";

export type Path = readonly number[];
export const samePath = (a: Path, b: Path) => a.length === b.length && a.every((k, i) => k === b[i]);

/** The body's variables bound to a projection chain of the state, with their path in it. */
export function statePaths(node: Ifold): Map<number, Path> {
  const pathOf = new Map<number, Path>();
  for (const { v, rhs } of splitLets(node.body).bindings)
    if (rhs.kind === "proj" && rhs.arg.kind === "var") {
      const base = rhs.arg.id === node.acc.id ? [] : pathOf.get(rhs.arg.id);
      if (base !== undefined) pathOf.set(v.id, [...base, rhs.index]);
    }
  return pathOf;
}

/** The loop's initial state at `path`, through let-bound tuples (`definition`: what an atom is let-bound to). */
export function initialLeaf(node: Ifold, path: Path, definition: (a: Atom) => Expr | undefined): Atom | undefined {
  let a: Atom = node.init;
  for (const k of path) {
    const d = definition(a);
    if (d?.kind !== "tuple") return undefined;
    a = d.elems[k]!;
  }
  return a;
}

/**
 * Whether every iteration of `node` leaves at `path` either the state's own leaf there or an atom that `allowed`
 * accepts: through tuples, let-bound variables and both branches of an `if` (a bounded look). `pathOf`: the body's
 * statePaths, when the caller has them.
 */
export function leafKeeps(
  node: Ifold,
  path: Path,
  allowed: (a: Atom) => boolean,
  pathOf: ReadonlyMap<number, Path> = statePaths(node),
): boolean {
  const { bindings } = splitLets(node.body);
  const defs = new Map<number, Expr>(bindings.map((b) => [b.v.id, b.rhs]));
  return keeps(node.body, path, allowed, defs, pathOf, 0, 0);
}

function keeps(
  e: Expr,
  path: Path,
  allowed: (a: Atom) => boolean,
  defs: ReadonlyMap<number, Expr>,
  pathOf: ReadonlyMap<number, Path>,
  from: number,
  depth: number,
): boolean {
  if (depth > 16) return false;
  const { bindings, tail } = splitLets(e);
  const local = new Map(defs);
  for (const b of bindings) local.set(b.v.id, b.rhs);
  let x: Expr = tail;
  for (let k = from; ;) {
    if (x.kind === "lit") return k === path.length && allowed(x);
    if (x.kind === "var") {
      const at = pathOf.get(x.id);
      if (at !== undefined) return samePath([...at, ...path.slice(k)], path);
      if (k === path.length && allowed(x)) return true;
      const d = local.get(x.id);
      if (d === undefined) return false;
      x = d;
      continue;
    }
    if (x.kind === "tuple" && k < path.length) {
      x = x.elems[path[k]!]!;
      k++;
      continue;
    }
    if (x.kind === "if")
      return (
        keeps(x.then, path, allowed, local, pathOf, k, depth + 1) &&
        keeps(x.else, path, allowed, local, pathOf, k, depth + 1)
      );
    return false;
  }
}
