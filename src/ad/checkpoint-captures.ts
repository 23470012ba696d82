// `checkpoint f` where f captures values of the function being differentiated (a closure inside a loop's step over
// the model's weights, say): before reverse mode, the captures become arguments, as JAX's checkpoint makes a
// closure's captured values inputs of the checkpointed function. In the lambda about to be reversed,
//     let g = checkpoint f          (f = fun y -> body, body reading c1 .. ck)
//     ... let v = g x ...
// becomes
//     let g = checkpoint f
//     let f' = fun p -> let y = fst p, c1' = p.1, .. in body[c := c']
//     let g' = checkpoint f'
//     ... let v = g' (x, c1, .., ck) ...
// so reverse mode sees every value g's result depends on at the call (activity, the loops' adjoint targets), and its
// reverse of the call (./reverse-call.ts) gives the captures their adjoints. Values of function type (functions
// defined outside, closed) stay captured: they carry no derivative.

import { mkProj, nested, splitLets, wrapLets, type Binding } from "../ir/builder.js";
import { binders, forEachNode, freeVars, mapNode } from "../ir/free.js";
import { freshVar, mkLam, mkTuple, type Custom, type Expr, type Lam, type Var } from "../ir/ir.js";
import { copyFresh } from "../ir/rename.js";
import { tupleOf } from "../types/types.js";

/**
 * `body` (the code reverse mode differentiates, with respect to `inputs`) with the captures of the checkpointed
 * functions in it that are bound in it, or are inputs, made arguments (see above).
 */
export function liftCheckpointCaptures(body: Expr, inputs: readonly Var[]): Expr {
  const defs = new Map<number, Expr>();
  const inside = new Set<number>(inputs.map((v) => v.id));
  forEachNode(body, (n) => {
    if (n.kind === "let") defs.set(n.v.id, n.rhs);
    for (const v of binders(n)) inside.add(v.id);
  });
  /** Per checkpointed function with captures (by the id of g): g' and the captures to pass. */
  const lifted = new Map<number, { g: Var; captures: readonly Var[] }>();
  /** The lets to add after g's. */
  const after = new Map<number, Binding[]>();
  for (const [id, rhs] of defs) {
    if (rhs.kind !== "custom" || rhs.mode !== "checkpoint" || rhs.fn.kind !== "var") continue;
    const f = defs.get(rhs.fn.id);
    if (f?.kind !== "lam") continue;
    const captures = [...freeVars(f).values()].filter((v) => v.type.k !== "fun" && inside.has(v.id));
    if (captures.length === 0) continue;
    const { lets, g } = lifting(f, rhs, captures);
    lifted.set(id, { g, captures });
    after.set(id, lets);
  }
  if (lifted.size === 0) return body;
  /** `rhs` with a call of a lifted g made a call of g' (its tuple of arguments bound first, into `out`). */
  const call = (rhs: Expr, out: Binding[]): Expr => {
    const app = rhs.kind === "app" && rhs.fn.kind === "var" ? lifted.get(rhs.fn.id) : undefined;
    if (app === undefined || rhs.kind !== "app") return node(rhs);
    const arg = freshVar("args", tupleOf([rhs.arg.type, ...app.captures.map((c) => c.type)]));
    out.push({ v: arg, rhs: mkTuple([rhs.arg, ...app.captures]) });
    return { ...rhs, fn: app.g, arg };
  };
  const scope = (e: Expr): Expr => {
    const { bindings, tail } = splitLets(e);
    const out: Binding[] = [];
    for (const { v, rhs } of bindings) {
      out.push({ v, rhs: call(rhs, out) });
      out.push(...(after.get(v.id) ?? []));
    }
    const last = call(tail, out);
    return wrapLets(out, last);
  };
  const node = (e: Expr): Expr => (e.kind === "let" ? scope(e) : mapNode(e, (a) => a, scope));
  return scope(body);
}

/** f' (f's body with its captures read from its argument) and g' = checkpoint f', as lets. */
function lifting(f: Lam, g: Custom, captures: readonly Var[]): { lets: Binding[]; g: Var } {
  const p = freshVar("p", tupleOf([f.param.type, ...captures.map((c) => c.type)]));
  const body = nested((b) => {
    const y = b.proj(0, p, f.param.name);
    const subst = new Map(captures.map((c, k) => [c.id, b.bind(c.name, mkProj(k + 1, p))]));
    subst.set(f.param.id, y);
    return b.emit(copyFresh(f.body, subst));
  });
  const lam = mkLam(p, body);
  const fv = freshVar("f", lam.type);
  const gv = freshVar("g", lam.type);
  return {
    lets: [
      { v: fv, rhs: lam },
      { v: gv, rhs: { kind: "custom", mode: "checkpoint", fn: fv, rules: [], type: lam.type, span: g.span } },
    ],
    g: gv,
  };
}
