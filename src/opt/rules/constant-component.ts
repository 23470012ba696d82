// A tuple component that is the same literal wherever the tuple comes from (every branch of a conditional, every
// element of a build of tuples): the zero tangents of forward mode once a case split has decided that the seed does
// not hit this element. The projection is that literal, so the arithmetic on it folds away. 0. and -0. are different
// literals here: a component is not known to be a tangent (whose sign of zero would not count, ./ring.ts).

import { type Atom, type Expr, type Lit } from "../../ir/ir.js";
import { splitLets } from "../../ir/builder.js";
import { rule, type RuleContext } from "./rule.js";

/** How deeply definitions and branches are followed. */
const MAX_DEPTH = 6;

/**
 * The literal component k of every tuple `e` can end with (of every element of the array it ends with, when
 * `element`), if there is one.
 */
function constantComponent(e: Expr, k: number, ctx: RuleContext, depth: number, element = false): Lit | undefined {
  if (depth > MAX_DEPTH) return undefined;
  const { bindings, tail } = splitLets(e);
  const local = (a: Atom): Expr | undefined =>
    a.kind === "var" ? (bindings.find((b) => b.v.id === a.id)?.rhs ?? ctx.definition(a)) : undefined;
  const of = (x: Expr): Lit | undefined => {
    switch (x.kind) {
      case "build":
        return element ? constantComponent(x.body, k, ctx, depth + 1) : undefined;
      case "tuple": {
        if (element) return undefined;
        const c = x.elems[k]!;
        return c.kind === "lit" ? c : undefined;
      }
      case "if": {
        const a = constantComponent(x.then, k, ctx, depth + 1, element);
        const b = a && constantComponent(x.else, k, ctx, depth + 1, element);
        if (a === undefined || b === undefined) return undefined;
        return Object.is(a.value, b.value) ? a : undefined;
      }
      case "var": {
        const d = local(x);
        return d === undefined ? undefined : constantComponent(d, k, ctx, depth + 1, element);
      }
      case "prim": {
        // An element of a build of tuples.
        if (x.op !== "get" || element) return undefined;
        const xs = local(x.args[0]!);
        return xs === undefined ? undefined : constantComponent(xs, k, ctx, depth + 1, true);
      }
      default:
        return undefined;
    }
  };
  return of(tail);
}

export const projConstant = rule({
  name: "proj-constant",
  head: "proj",
  doc: "proj k t -> L   (component k of t is the literal L in every branch and build element t comes from)",
  apply(node, ctx) {
    const d = ctx.definition(node.arg);
    if (d === undefined || d.kind === "tuple") return undefined;
    return constantComponent(d, node.index, ctx, 0);
  },
});
