// Lowering of the builtins (../types/builtins.ts) applied to all their arguments: primitives, the loop constructs
// (build, ifold, while) with their lambdas bound directly, projections and pairs, the derivative API (diff, grad,
// jvp, vjp, `deriv`) and custom derivative rules; and a builtin used as a value, eta-expanded. Split from ./lower.ts,
// which calls these with itself as the host.

import type { Expr as SExpr } from "../syntax/ast.js";
import { fail } from "../syntax/diagnostics.js";
import type { Span } from "../syntax/source.js";
import type { PrimName } from "../prims/names.js";
import { BUILTINS, type Builtin } from "../types/builtins.js";
import type { CheckedProgram } from "../types/infer.js";
import { containsFun, showType, type Type } from "../types/types.js";
import { dualType } from "../ad/dual-types.js";
import { overPositions } from "../ad/seed.js";
import { AnfBuilder } from "./builder.js";
import { binder1, binder2, binderWhile, Scope, type Arg, type Env, type Lower, type Scopes } from "./lower-binders.js";
import { freshVar, mkLam, mkTuple, vjpType, type Atom, type Expr } from "./ir.js";

/** What the lowering of builtins needs from the lowering (./lower.ts). */
export interface BuiltinHost {
  readonly program: CheckedProgram;
  readonly scopes: Scopes;
  typeOfNode(node: object): Type;
  /** Lowers `e` into `blk` as a nested step of the lowering in progress. */
  lower(e: SExpr, env: Env, blk: AnfBuilder, name?: string): Lower;
  /** Index → Double where a Double is wanted; identity otherwise. */
  coerce(a: Atom, want: Type, blk: AnfBuilder): Atom;
  prim(op: PrimName, args: Atom[], span?: Span, nodeType?: Type): Expr;
  numericPrim(op: PrimName, a: Atom, b: Atom, resultType: Type, blk: AnfBuilder, name: string, span: Span): Atom;
  /** `e` lowered into a block of its own, its value coerced to `type`. */
  subBlock(e: SExpr, env: Env, type: Type, name?: string): Lower<Expr>;
}

/**
 * A builtin applied to all its arguments: a primitive, a build/ifold construct, a projection or a pair.
 * An argument is either surface syntax (a lambda given to build/ifold then binds directly) or an atom already
 * lowered.
 */
export function* saturated(
  lw: BuiltinHost,
  b: Builtin,
  builtinType: Type,
  type: Type,
  args: readonly Arg[],
  env: Env,
  blk: AnfBuilder,
  name: string,
  span: Span,
): Lower {
  const paramTypes = parameterTypes(builtinType, b.arity);
  const lowerArg = (i: number): Lower => lowerArgument(lw, args[i]!, paramTypes[i]!, env, blk);
  switch (b.lowering.kind) {
    case "prim": {
      const op = b.lowering.op;
      const xs: Atom[] = [];
      for (let i = 0; i < args.length; i++) xs.push(yield* lowerArg(i));
      if (op === "max" || op === "min") return lw.numericPrim(op, xs[0]!, xs[1]!, type, blk, name, span);
      return blk.bind(name, lw.prim(op, xs, span, type));
    }
    case "proj": {
      const t = yield* lowerArg(0);
      if (t.type.k !== "tuple") throw new Error("projection of a non-tuple");
      return blk.bind(name, { kind: "proj", index: b.lowering.index, arg: t, type: t.type.elems[b.lowering.index]! });
    }
    case "pair": {
      const first = yield* lowerArg(0);
      return blk.bind(name, mkTuple([first, yield* lowerArg(1)]));
    }
    case "build": {
      if (type.k !== "array") throw new Error("build without an array type");
      if (containsFun(type.elem))
        fail("type", "the elements of an array cannot be functions", span, { found: showType(type.elem) });
      const size = yield* lowerArg(0);
      const [index, body] = yield* binder1(lw.scopes, args[1]!, type.elem, env);
      return blk.bind(name, { kind: "build", size, index, body, type, span });
    }
    case "jvp": {
      const f = yield* lowerArg(0);
      return blk.bind(name, { kind: "jvp", fn: f, type: dualType(f.type) });
    }
    case "vjp": {
      const f = yield* lowerArg(0);
      return blk.bind(name, { kind: "jvp", reverse: true, fn: f, type: vjpType(f.type) });
    }
    case "diff":
    case "grad":
    case "mgrad": {
      const f = yield* lowerArg(0);
      return seeded(lw, f, yield* lowerArg(1), blk, name, span);
    }
    case "while": {
      if (containsFun(type))
        fail("type", "the state of a while loop cannot be a function", span, { found: showType(type) });
      const init = yield* lowerArg(2);
      const [acc, cond, body] = yield* binderWhile(lw.scopes, args[0]!, args[1]!, type, env);
      return blk.bind(name, { kind: "while", init, acc, cond, body, type, span });
    }
    case "custom": {
      const fn = yield* lowerArg(0);
      const rules: Atom[] = [];
      for (let i = 1; i < args.length; i++) rules.push(yield* lowerArg(i));
      if (fn.type.k !== "fun") throw new Error("custom rule for a non-function");
      const mode = b.lowering.mode;
      if (containsFun(fn.type.param) || containsFun(fn.type.result))
        fail(
          "type",
          `${mode === "checkpoint" ? "a checkpointed function" : "a function with custom derivative rules"} must take one argument and return a value, without functions in either (a tuple for several arguments)`,
          span,
          { found: showType(fn.type) },
        );
      return blk.bind(name, { kind: "custom", mode, fn, rules, type: fn.type, span });
    }
    case "ifold": {
      if (containsFun(type))
        fail("type", "the state of an ifold cannot be a function", span, { found: showType(type) });
      const init = yield* lowerArg(1);
      const count = yield* lowerArg(2);
      const [acc, index, body] = yield* binder2(lw.scopes, args[0]!, type, env);
      return blk.bind(name, { kind: "ifold", init, count, acc, index, body, type, span });
    }
  }
}

/** An argument of a builtin, lowered (unless it is an atom already) and coerced to the parameter's type. */
function* lowerArgument(lw: BuiltinHost, a: Arg, paramType: Type, env: Env, blk: AnfBuilder): Lower {
  return lw.coerce("atom" in a ? a.atom : yield lw.lower(a.expr, env, blk), paramType, blk);
}

/**
 * The derivative API of paper 000 Fig. 5 / Algorithm 1: `jvp f` applied to the point `x` paired with one-hot
 * tangents,
 * vectorised over the positions of x (a build for a Vector, two for a Matrix; none for a Double).
 */
function seeded(lw: BuiltinHost, f: Atom, x: Atom, blk: AnfBuilder, name: string, span: Span): Atom {
  const jf = blk.bind("df", { kind: "jvp", fn: f, type: dualType(f.type) });
  return overPositions(blk, x, (b, seed) => b.app(jf, seed, name), "this argument", span);
}

function parameterTypes(t: Type, n: number): Type[] {
  const out: Type[] = [];
  for (let i = 0; i < n; i++) {
    if (t.k !== "fun") throw new Error("builtin type has too few parameters");
    out.push(t.param);
    t = t.result;
  }
  return out;
}

export function isDeriv(lw: BuiltinHost, e: SExpr & { kind: "app" }, env: Env): boolean {
  const inner = e.fn;
  return (
    inner.kind === "app" &&
    inner.fn.kind === "var" &&
    inner.fn.name === "deriv" &&
    !env.has("deriv") &&
    !lw.program.globalRefs.has(inner.fn)
  );
}

/**
 * `deriv e x` (paper 000 Algorithm 1): `fun x -> e` differentiated at x with one-hot tangents; other free variables
 * are constants.
 */
export function* deriv(lw: BuiltinHost, e: SExpr & { kind: "app" }, env: Env, blk: AnfBuilder, name: string): Lower {
  const body = (e.fn as SExpr & { kind: "app" }).arg;
  const x = yield lw.lower(e.arg, env, blk, "x");
  const param = freshVar(e.arg.kind === "var" ? e.arg.name : "x", x.type);
  const inner = Scope.extending(env);
  inner.set((e.arg as SExpr & { kind: "var" }).name, param);
  const fn = blk.bind("f", mkLam(param, yield* lw.subBlock(body, inner, lw.typeOfNode(e.fn))));
  return seeded(lw, fn, x, blk, name, e.span);
}

/** A builtin used as a value (not fully applied): its eta-expansion `fun x y -> builtin x y`. */
export function* builtinValue(lw: BuiltinHost, e: SExpr & { kind: "var" }, blk: AnfBuilder): Lower {
  const b = BUILTINS.get(e.name);
  if (!b) throw new Error(`lowering: unresolved name ${e.name}`);
  const t = lw.typeOfNode(e);
  const params = parameterTypes(t, b.arity).map((pt, i) => freshVar(`x${i + 1}`, pt));
  let resultType = t;
  for (let i = 0; i < b.arity; i++) resultType = (resultType as Type & { k: "fun" }).result;
  const body = new AnfBuilder();
  const r = yield* saturated(
    lw,
    b,
    t,
    resultType,
    params.map((atom) => ({ atom })),
    new Map(),
    body,
    "r",
    e.span,
  );
  let lam: Expr = body.finish(r);
  for (let i = params.length - 1; i >= 0; i--) lam = mkLam(params[i]!, lam);
  return blk.bind(e.name, lam);
}
