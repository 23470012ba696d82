// Binding times of a first-order function (partial evaluation's binding-time analysis): which values depend on some
// of its parameters (the "dynamic" ones; for linearize, the tangents) and which do not ("static": the primal values,
// computable before the tangents are known). Forward mode packs a primal and its tangent in one tuple (a dual, an
// array of duals, a loop state of both), so a value's binding time is kept per tuple component: a Mask.

import { splitLets } from "../ir/builder.js";
import { freeVars } from "../ir/free.js";
import type { Expr, IrFunction } from "../ir/ir.js";

/**
 * Per component of a value's tuple structure, whether it is dynamic; `true`/`false` for the whole value. An array has
 * the mask of its elements (arrays of tuples are arrays of each component).
 */
export type Mask = boolean | readonly Mask[];

/** Whether any part of the value is dynamic. */
export const isDynamic = (m: Mask): boolean => (typeof m === "boolean" ? m : m.some(isDynamic));

/** The binding time of a value holding either value (per component where both are tuples of the same size). */
export function join(a: Mask, b: Mask): Mask {
  if (typeof a !== "boolean" && typeof b !== "boolean" && a.length === b.length) return a.map((x, i) => join(x, b[i]!));
  return isDynamic(a) || isDynamic(b);
}

const sameMask = (a: Mask, b: Mask): boolean =>
  typeof a === "boolean" || typeof b === "boolean"
    ? a === b
    : a.length === b.length && a.every((x, i) => sameMask(x, b[i]!));

/** The binding times of every variable of `fn` (by id) when the parameters at `dynamic` are dynamic. */
export function bindingTimes(fn: IrFunction, dynamic: ReadonlySet<number>): Map<number, Mask> {
  const masks = new Map<number, Mask>();
  fn.params.forEach((p, k) => masks.set(p.id, dynamic.has(k)));
  const atom = (e: Expr): Mask => (e.kind === "var" ? (masks.get(e.id) ?? false) : false);
  // A loop's state starts as its initial value's binding time and joins its body's until it no longer changes.
  const fixpoint = (start: Mask, set: (m: Mask) => void, body: () => Mask): Mask => {
    let m = start;
    for (;;) {
      set(m);
      const next = join(m, body());
      if (sameMask(next, m)) return m;
      m = next;
    }
  };
  const walk = (e: Expr): Mask => {
    switch (e.kind) {
      case "var":
      case "lit":
        return atom(e);
      case "let": {
        const { bindings, tail } = splitLets(e);
        for (const b of bindings) masks.set(b.v.id, walk(b.rhs));
        return walk(tail);
      }
      case "tuple":
        return e.elems.map(atom);
      case "proj": {
        const m = atom(e.arg);
        return typeof m === "boolean" ? m : m[e.index]!;
      }
      case "prim":
        // An element has its array's binding time; a length is static (only an array's contents are dynamic).
        if (e.op === "get") return atom(e.args[0]!);
        if (e.op === "length") return false;
        if (e.op === "field") {
          const m = atom(e.args[0]!);
          return typeof m === "boolean" ? m : m[e.args[1]!.kind === "lit" ? Number(e.args[1]!.value) : 0]!;
        }
        return e.args.some((a) => isDynamic(atom(a)));
      case "if":
        return join(join(walk(e.then), walk(e.else)), atom(e.cond));
      case "build":
        masks.set(e.index.id, false);
        return walk(e.body);
      case "ifold":
        masks.set(e.index.id, false);
        return fixpoint(
          atom(e.init),
          (m) => masks.set(e.acc.id, m),
          () => walk(e.body),
        );
      case "while":
        return fixpoint(
          atom(e.init),
          (m) => masks.set(e.acc.id, m),
          () => join(walk(e.body), isDynamic(walk(e.cond))),
        );
      case "call":
        return e.args.some((a) => isDynamic(atom(a)));
      default:
        // (Lambdas, applications and derivative nodes do not survive into first-order code; whole if they did.)
        return [...freeVars(e).values()].some((v) => isDynamic(atom(v)));
    }
  };
  walk(fn.body);
  return masks;
}
