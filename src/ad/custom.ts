// Functions with their own derivative rules (the `custom` node, src/ir/ir.ts; JAX's custom_jvp and custom_vjp).
//
// A custom function g = customJvp f jvp, or customVjp f fwd bwd, is the function f to everything but differentiation.
// The forward-ad pass (./expand.ts) expands `jvp g` and `vjp g` with the rules instead of transforming f:
//  - jvp g, g = customJvp f jvp:  fun xd -> dual of (jvp (primal xd) (tangent xd))
//  - vjp g, g = customVjp f fwd bwd:  fun x ct -> let (y, r) = fwd x in (y, bwd r ct)
// and the two crossed cases by transposition (a rule is linear in its tangent or cotangent, and reverse mode
// transposes a linear function: the adjoint of its input for a cotangent c is Lᵀ c):
//  - vjp g, g = customJvp f jvp:  fun x ct -> the vjp of (fun dx -> jvp x dx) at dx = 0 for the cotangent (0, ct):
//    the value is the rule's, the adjoint is the transposed tangent map applied to ct;
//  - jvp g, g = customVjp f fwd bwd:  fun xd -> let (y, r) = fwd (primal xd) in dual of (y, Lᵀ (tangent xd)) with
//    L = bwd r, i.e. the vjp of (fun ct -> bwd r ct) at ct = 0 for the cotangent (tangent xd).
// Derivatives of higher order differentiate the rules themselves (a Hessian through customJvp is forward mode over
// the transposed rule; through customVjp, forward mode over bwd), as in JAX.
//
// Inside the reverse sweep (./reverse.ts) an application `g x` whose argument is active is kept as a call; its
// reverse adds `snd (vjp g x ȳ)` to x's adjoint (customVjp: the sweep calls fwd itself and keeps the residuals).
// The rules only describe how g's result depends on its argument: a custom function inside a function being
// differentiated must not capture values bound there (`floatClosedFunctions` moves out those that capture none).

import { AnfBuilder, nested, splitLets, wrapLets, type Binding } from "../ir/builder.js";
import { binders, forEachNode, freeVars, mapNode, someNode } from "../ir/free.js";
import { freshVar, mkLam, mkTuple, vjpType, type Atom, type Custom, type Expr, type Jvp, type Lam } from "../ir/ir.js";
import { fail } from "../syntax/diagnostics.js";
import { showType, type Type } from "../types/types.js";
import { zeroOf } from "./adjoints.js";
import { dualType, hasTangent } from "./dual-types.js";

/** The error for a custom function whose function or rules use a value of the function being differentiated. */
export function capturedByCustomRule(e: Custom, captured: Atom): never {
  const name = captured.kind === "var" ? `\`${captured.name}\`` : "a value";
  return fail(
    "unsupported",
    `${e.mode === "checkpoint" ? "a checkpointed function" : `a function with a custom derivative rule (custom${e.mode === "jvp" ? "Jvp" : "Vjp"})`} uses ${name}, which is defined inside the function being differentiated`,
    e.span,
    {
      found: `${name} : ${showType(captured.type)}`,
      hint: "its rules describe only how its result depends on its argument: define it outside the differentiated function, or pass the value in its argument",
    },
  );
}

/** `jvp g` (forward) or `vjp g` (reverse) for a custom function g: a lambda (see the top of this file). */
export function expandCustom(g: Custom, node: Jvp, b: AnfBuilder): Atom {
  const f = g.fn.type;
  if (f.k !== "fun") throw new Error("custom: not a function");
  // checkpoint f: f's own derivatives; in reverse mode taken where the sweep needs them (./reverse-call.ts), so that
  // f runs again there instead of storing what its reverse reads.
  if (g.mode === "checkpoint")
    return b.bind("d", { kind: "jvp", fn: g.fn, type: node.type, ...(node.reverse ? { reverse: true as const } : {}) });
  const [a, out] = [f.param, f.result];
  if (!node.reverse) {
    // fun xd -> D(b), from the primal and tangent of xd.
    return b.lam("xd", dualType(a), (xd, bb) => {
      const x = primalPart(bb, xd, a);
      const dx = tangentPart(bb, xd, a);
      if (g.mode === "jvp") {
        const r = bb.app(bb.app(g.rules[0]!, x, "rule"), dx, "ydy");
        return zipDual(bb, bb.proj(0, r, "y"), bb.proj(1, r, "dy"), out);
      }
      const [fwd, bwd] = g.rules as [Atom, Atom];
      const yr = bb.app(fwd, x, "yr");
      const y = bb.proj(0, yr, "y");
      const res = bb.proj(1, yr, "res");
      // L = bwd res, linear in the cotangent; L transposed, applied to dx, is the tangent of y.
      const lin = bb.lam("ct", out, (ct, lb) => lb.app(lb.app(bwd, res, "bwd"), ct, "dx"), "lin");
      const back = vjpOf(bb, lin);
      const dy = bb.proj(1, bb.app(bb.app(back, zeroOf(out, y, bb), "t"), dx, "tdy"), "dy");
      return zipDual(bb, y, dy, out);
    });
  }
  return b.lam("x", a, (x) => {
    const ct = freshVar("ct", out);
    const body = nested((cb) => {
      if (g.mode === "vjp") {
        const [fwd, bwd] = g.rules as [Atom, Atom];
        const yr = cb.app(fwd, x, "yr");
        const dx = cb.app(cb.app(bwd, cb.proj(1, yr, "res"), "bwd"), ct, "dx");
        return mkTuple([cb.proj(0, yr, "y"), dx]);
      }
      // The rule at (x, dx), linear in dx; its vjp at dx = 0 for the cotangent (0, ct) gives the value and Lᵀ ct.
      const lin = cb.lam("dx", a, (dx, lb) => lb.app(lb.app(g.rules[0]!, x, "rule"), dx, "ydy"), "lin");
      const back = vjpOf(cb, lin);
      const seed = cb.tuple([zeroOf(out, ct, cb), ct], "cts");
      const res = cb.app(cb.app(back, zeroOf(a, x, cb), "t"), seed, "res");
      return mkTuple([cb.proj(0, cb.proj(0, res, "ydy"), "y"), cb.proj(1, res, "dx")]);
    });
    return mkLam(ct, body);
  });
}

/** `vjp f` for a function atom f. */
function vjpOf(b: AnfBuilder, f: Atom): Atom {
  const node: Jvp = { kind: "jvp", reverse: true, fn: f, type: vjpType(f.type) };
  return b.bind("back", node);
}

/** The primal value inside a dual value of primal type t. */
export function primalPart(b: AnfBuilder, d: Atom, t: Type): Atom {
  if (!hasTangent(t)) return d;
  switch (t.k) {
    case "double":
      return b.proj(0, d, "x");
    case "array":
      return b.build(b.prim("length", [d], "n"), (i, bb) => primalPart(bb, bb.prim("get", [d, i], "d"), t.elem), "x");
    case "tuple":
      return b.tuple(
        t.elems.map((e, k) => primalPart(b, b.proj(k, d, "d"), e)),
        "x",
      );
    default:
      return d;
  }
}

/** The tangent inside a dual value of primal type t, as a value of type t (zeros at its Index and Bool parts). */
export function tangentPart(b: AnfBuilder, d: Atom, t: Type): Atom {
  if (!hasTangent(t)) return zeroOf(t, d, b);
  switch (t.k) {
    case "double":
      return b.proj(1, d, "dx");
    case "array":
      return b.build(b.prim("length", [d], "n"), (i, bb) => tangentPart(bb, bb.prim("get", [d, i], "d"), t.elem), "dx");
    case "tuple":
      return b.tuple(
        t.elems.map((e, k) => tangentPart(b, b.proj(k, d, "d"), e)),
        "dx",
      );
    default:
      return zeroOf(t, d, b);
  }
}

/** The dual value of primal type t with primal p and tangent dt (of type t; its Index and Bool parts are ignored). */
export function zipDual(b: AnfBuilder, p: Atom, dt: Atom, t: Type): Atom {
  if (!hasTangent(t)) return p;
  switch (t.k) {
    case "double":
      return b.tuple([p, dt], "yd");
    case "array":
      return b.build(
        b.prim("length", [p], "n"),
        (i, bb) => zipDual(bb, bb.prim("get", [p, i], "y"), bb.prim("get", [dt, i], "dy"), t.elem),
        "yd",
      );
    case "tuple":
      return b.tuple(
        t.elems.map((e, k) => zipDual(b, b.proj(k, p, "y"), b.proj(k, dt, "dy"), e)),
        "yd",
      );
    default:
      return p;
  }
}

/**
 * A lambda about to be differentiated, with the functions it defines that capture nothing defined in it (lambdas and
 * custom functions, at any depth) moved in front of it into `b`: a custom function there becomes a constant of the
 * derivative, which its rules then differentiate. `lam` must be a fresh copy (its lets are bound again outside).
 */
export function floatClosedFunctions(lam: Lam, b: AnfBuilder): Lam {
  if (!someNode(lam.body, (n) => n.kind === "custom")) return lam;
  const inside = new Set<number>([lam.param.id]);
  forEachNode(lam.body, (n) => binders(n).forEach((v) => inside.add(v.id)));
  const floated: Binding[] = [];
  const scope = (e: Expr): Expr => {
    const { bindings, tail } = splitLets(e);
    const kept: Binding[] = [];
    for (const { v, rhs } of bindings) {
      const closed =
        (rhs.kind === "lam" || rhs.kind === "custom") && [...freeVars(rhs).keys()].every((id) => !inside.has(id));
      if (closed) {
        floated.push({ v, rhs });
        inside.delete(v.id);
      } else kept.push({ v, rhs: node(rhs) });
    }
    return wrapLets(kept, node(tail));
  };
  const node = (e: Expr): Expr => (e.kind === "let" ? scope(e) : mapNode(e, (a) => a, scope));
  const body = scope(lam.body);
  for (const x of floated) b.bindVar(x.v, x.rhs);
  // What stays is a custom function that uses a value of the lambda (through the lambdas it is made of): an error
  // naming that value.
  const defs = new Map<number, Expr>();
  forEachNode(body, (n) => {
    if (n.kind === "let") defs.set(n.v.id, n.rhs);
  });
  forEachNode(body, (n) => {
    // A checkpointed function may capture: it is reversed in place (./reverse-call.ts), and is itself to forward mode.
    if (n.kind !== "custom" || n.mode === "checkpoint") return;
    const seen = new Set<number>();
    const pending = [...freeVars(n).values()];
    while (pending.length > 0) {
      const v = pending.pop()!;
      if (seen.has(v.id) || !inside.has(v.id)) continue;
      seen.add(v.id);
      const d = defs.get(v.id);
      if (d?.kind === "lam" || d?.kind === "custom") pending.push(...freeVars(d).values());
      else capturedByCustomRule(n, v);
    }
  });
  return { ...lam, body };
}

/** The lambda with each `checkpoint f` in it replaced by f (forward mode differentiates f itself). */
export function withoutCheckpoints(lam: Lam): Lam {
  if (!someNode(lam.body, (n) => n.kind === "custom" && n.mode === "checkpoint")) return lam;
  const node = (e: Expr): Expr => {
    if (e.kind === "let") {
      const { bindings, tail } = splitLets(e);
      return wrapLets(
        bindings.map(({ v, rhs }) => ({ v, rhs: node(rhs) })),
        node(tail),
      );
    }
    if (e.kind === "custom" && e.mode === "checkpoint") return e.fn;
    return mapNode(e, (a) => a, node);
  };
  return { ...lam, body: node(lam.body) };
}

/** For the reverse sweep: the customVjp rules of g, when g is (known to be) a customVjp function. */
export function vjpRules(g: Expr | undefined): { fwd: Atom; bwd: Atom } | undefined {
  if (g?.kind !== "custom" || g.mode !== "vjp") return undefined;
  return { fwd: g.rules[0]!, bwd: g.rules[1]! };
}
