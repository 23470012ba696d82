// The binders of the loop builtins (build, ifold, while) when lowering (./lower.ts): a lambda given to a loop binds
// its parameters directly as the loop's index or state; any other function value is applied to them.

import type { Expr as SExpr } from "../syntax/ast.js";
import type { Nested } from "../syntax/trampoline.js";
import { INT, BOOL, type Type } from "../types/types.js";
import { AnfBuilder } from "./builder.js";
import { freshVar, type Atom, type Expr, type Var } from "./ir.js";

/** What surface names in scope stand for: a scope being lowered, or a map made for a function's body. */
export type Env = Scope | ReadonlyMap<string, Atom>;

/**
 * The names of a scope (a let chain, a lambda's parameters, a loop's binders) over those of the environment it
 * extends, which it shares instead of copying: a shared base, and what was added since, folded into a new base once
 * it outnumbers the square root of the base. Copying the whole environment per scope was quadratic (a translated
 * TypeScript function of 10⁴ `if` statements, each branch a scope of its own); this costs O(√n) per scope.
 */
export class Scope {
  private constructor(
    private base: ReadonlyMap<string, Atom>,
    private added: Map<string, Atom>,
  ) {}

  /** A scope over `env` as it is now (names later added to `env` are not seen). */
  static extending(env: Env): Scope {
    if (!(env instanceof Scope)) return new Scope(env, new Map());
    if (env.added.size * env.added.size > env.base.size) {
      // The same names, another representation: what is shared with earlier extensions is left as it was.
      const merged = new Map(env.base);
      for (const [name, atom] of env.added) merged.set(name, atom);
      env.base = merged;
      env.added = new Map();
    }
    return new Scope(env.base, new Map(env.added));
  }

  get(name: string): Atom | undefined {
    return this.added.get(name) ?? this.base.get(name);
  }

  has(name: string): boolean {
    return this.added.has(name) || this.base.has(name);
  }

  /** Binds a name in this scope (by the code that made it, while lowering it). */
  set(name: string, atom: Atom): void {
    this.added.set(name, atom);
  }
}

/** An argument of a builtin: surface syntax still to lower, or an atom. */
export type Arg = { readonly expr: SExpr } | { readonly atom: Atom };

/**
 * Lowering that needs subexpressions lowered: it yields their lowering (`yield l.lower(e, env, blk)`) and is resumed
 * with the atom holding the value; `runNested` runs them on a stack of its own (../syntax/trampoline.ts), so a program
 * nesting 10⁴ deep is lowered within Node's default stack.
 */
export type Lower<T = Atom> = Nested<T, Atom>;

/** What the binders need of the lowering: a nested scope's block, and an expression lowered into a block. */
export interface Scopes {
  subBlock(e: SExpr, env: Env, type: Type): Lower<Expr>;
  lower(e: SExpr, env: Env, blk: AnfBuilder, name?: string): Lower;
}

/** `fun i -> body` given to build: binds the index directly when the argument is a lambda, else applies it. */
export function* binder1(l: Scopes, arg: Arg, resultType: Type, env: Env): Lower<[Var, Expr]> {
  const f = "expr" in arg ? arg.expr : undefined;
  if (f?.kind === "lam" && f.params.length === 1) {
    const p = f.params[0]!;
    const v = freshVar(p.name === "_" ? "i" : p.name, INT);
    const inner = Scope.extending(env);
    if (p.name !== "_") inner.set(p.name, v);
    return [v, yield* l.subBlock(f.body, inner, resultType)];
  }
  const v = freshVar("i", INT);
  const blk = new AnfBuilder();
  const fn = "atom" in arg ? arg.atom : yield l.lower(arg.expr, env, blk, "f");
  const r = blk.bind("r", { kind: "app", fn, arg: v, type: resultType });
  return [v, blk.finish(r)];
}

/** `fun acc i -> body` given to ifold. */
export function* binder2(l: Scopes, arg: Arg, stateType: Type, env: Env): Lower<[Var, Var, Expr]> {
  const f = "expr" in arg ? arg.expr : undefined;
  const params = f?.kind === "lam" ? f.params : [];
  const nested = f?.kind === "lam" && params.length === 1 && f.body.kind === "lam" && f.body.params.length === 1;
  if (f?.kind === "lam" && (params.length === 2 || nested)) {
    const [p, q] = nested ? [params[0]!, (f.body as SExpr & { kind: "lam" }).params[0]!] : [params[0]!, params[1]!];
    const body = nested ? (f.body as SExpr & { kind: "lam" }).body : f.body;
    const acc = freshVar(p.name === "_" ? "acc" : p.name, stateType);
    const index = freshVar(q.name === "_" ? "i" : q.name, INT);
    const inner = Scope.extending(env);
    if (p.name !== "_") inner.set(p.name, acc);
    if (q.name !== "_") inner.set(q.name, index);
    return [acc, index, yield* l.subBlock(body, inner, stateType)];
  }
  const acc = freshVar("acc", stateType);
  const index = freshVar("i", INT);
  const blk = new AnfBuilder();
  const fn = "atom" in arg ? arg.atom : yield l.lower(arg.expr, env, blk, "f");
  if (fn.type.k !== "fun" || fn.type.result.k !== "fun") throw new Error("ifold function without a function type");
  const g = blk.bind("g", { kind: "app", fn, arg: acc, type: fn.type.result });
  const r = blk.bind("r", { kind: "app", fn: g, arg: index, type: fn.type.result.result });
  return [acc, index, blk.finish(r)];
}

/**
 * `fun s -> cond` and `fun s -> next` given to while: one state binder for both (the second lambda's parameter is
 * bound to the same variable); a function value that is not a lambda is applied.
 */
export function* binderWhile(
  l: Scopes,
  condArg: Arg,
  nextArg: Arg,
  stateType: Type,
  env: Env,
): Lower<[Var, Expr, Expr]> {
  const lambdaParam = (a: Arg) => {
    const f = "expr" in a ? a.expr : undefined;
    return f?.kind === "lam" && f.params.length === 1 ? { p: f.params[0]!, body: f.body } : undefined;
  };
  const [c, n] = [lambdaParam(condArg), lambdaParam(nextArg)];
  const acc = freshVar(c && c.p.name !== "_" ? c.p.name : n && n.p.name !== "_" ? n.p.name : "s", stateType);
  function* scope(a: Arg, lam: { p: { name: string }; body: SExpr } | undefined, result: Type): Lower<Expr> {
    if (lam) {
      const inner = Scope.extending(env);
      if (lam.p.name !== "_") inner.set(lam.p.name, acc);
      return yield* l.subBlock(lam.body, inner, result);
    }
    const blk = new AnfBuilder();
    const fn = "atom" in a ? a.atom : yield l.lower(a.expr, env, blk, "f");
    return blk.finish(blk.bind("r", { kind: "app", fn, arg: acc, type: result }));
  }
  return [acc, yield* scope(condArg, c, BOOL), yield* scope(nextArg, n, stateType)];
}
