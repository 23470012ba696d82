// Lowering of recursive functions (`let rec`, top level or local): each function of a group becomes a first-order
// function of the program (`IrFunction.functions`), called with all its arguments by a `call` node.
//
//  - Specialisation. A top-level group is lowered once per concrete type it is used at (like any polymorphic
//    definition, ./lower.ts), all its functions together; a local group once where it occurs (local lets are
//    monomorphic). Each function gets a name unique in the program.
//  - Lambda lifting. The local variables a local group uses from around it become extra parameters of every function
//    of the group, passed at every call (an enclosing recursive function the group calls passes its own). Top-level
//    definitions a function uses are lowered into the function's own body (its own preamble), like an entry point's.
//  - Inside the group and in the body of a local `let rec`, a function's name stands for a *marker* variable: applied
//    to all its arguments it is a call; used otherwise (partially applied, passed as a value) it is the lambda
//    `fun x1 ... xn -> f x1 ... xn`, which the inliner removes where it is applied.
//  - Local functions a group uses from around it (let-bound lambdas) are lowered again inside each function that
//    uses them, what they use from around them captured in turn.
// Functions are first order: a parameter or result that is (or contains) a function, and a function-typed value used
// from around the group that is not a let-bound lambda (a parameter of an enclosing function), are located errors.

import { surfaceChildren, type Pattern, type RecBinding, type Expr as SExpr } from "../syntax/ast.js";
import { fail } from "../syntax/diagnostics.js";
import type { Span } from "../syntax/source.js";
import type { CheckedDef } from "../types/infer.js";
import { concretize, matchConcrete, type TVar } from "../types/mtype.js";
import { containsFun, funOf, showType, type Type } from "../types/types.js";
import type { AnfBuilder } from "./builder.js";
import { freshVar, mkLam, type Atom, type Expr, type IrFunction, type Var } from "./ir.js";
import type { Env, Lower } from "./lower-binders.js";

/**
 * What a marker variable stands for: a function of the program and the captured values a call passes after the
 * arguments.
 */
export interface RecTarget {
  readonly fn: string;
  readonly params: readonly Type[];
  readonly result: Type;
  readonly captured: readonly Atom[];
}

/** What the lowering of recursive functions needs from the lowering (./lower.ts). */
export interface LoweringHost {
  subst: ReadonlyMap<TVar, Type>;
  typeOfNode(node: object): Type;
  /** Lowers `e` into `blk` at once (the JavaScript stack nests one level for each function lowered inside another). */
  expr(e: SExpr, env: Env, blk: AnfBuilder, name?: string): Atom;
  /** Lowers `e` into `blk` as a nested step of the lowering in progress. */
  lower(e: SExpr, env: Env, blk: AnfBuilder, name?: string): Lower;
  coerce(a: Atom, want: Type, blk: AnfBuilder): Atom;
  /** Lowers a function body in a context of its own (its own preamble for the top-level definitions it uses). */
  inFunction(body: (blk: AnfBuilder) => Atom): Expr;
}

/** A surface lambda's parameters, through nested lambdas (`fun x -> fun y -> e` has two), and its body. */
function lambdaChain(value: SExpr & { kind: "lam" }): {
  params: { name: string; span: Span; node: object }[];
  body: SExpr;
} {
  const params: { name: string; span: Span; node: object }[] = [];
  let e: SExpr = value;
  while (e.kind === "lam") {
    for (const p of e.params) params.push({ name: p.name, span: p.span, node: p });
    e = e.body;
  }
  return { params, body: e };
}

/** A local function's definition (a let-bound surface lambda), which a recursive function using it lowers again. */
export interface LambdaSource {
  readonly expr: SExpr;
  readonly env: Env;
  /** What it uses from around it (filled when a group captures it). */
  uses?: ReadonlyMap<string, Atom>;
}

export class RecLowering {
  /** The program's functions, in the order they were lowered. */
  readonly functions: IrFunction[] = [];
  /** Let-bound local lambdas, by the variable they are bound to (./lower.ts records them). */
  readonly lambdas = new Map<number, LambdaSource>();
  private readonly taken = new Set<string>();
  /** Marker variables, by id. */
  private readonly markers = new Map<number, RecTarget>();
  /** Top-level groups already lowered: the first definition of the group -> type key -> function names. */
  private readonly globalGroups = new Map<CheckedDef, Map<string, string[]>>();

  constructor(private readonly host: LoweringHost) {}

  targetOf(a: Atom | undefined): RecTarget | undefined {
    return a?.kind === "var" ? this.markers.get(a.id) : undefined;
  }

  private freshName(base: string): string {
    let name = base;
    for (let k = 2; this.taken.has(name); k++) name = `${base}_${k}`;
    this.taken.add(name);
    return name;
  }

  private marker(name: string, target: RecTarget): Var {
    const v = freshVar(
      name,
      target.params.reduceRight<Type>((acc, p) => funOf(p, acc), target.result),
    );
    this.markers.set(v.id, target);
    return v;
  }

  /**
   * The function definition `def` of a top-level `let rec` group, used at concrete type `type`: the target its name
   * stands for (the group is lowered at that type on first use).
   */
  global(def: CheckedDef, type: Type, useSpan: Span): RecTarget {
    const group = def.recGroup!;
    const subst = new Map<TVar, Type>();
    if (!matchConcrete(def.scheme.type, type, subst))
      throw new Error(`specialise: ${def.name} used at ${showType(type)} (${useSpan.start})`);
    const types = group.map((g) => concretize(g.scheme.type, subst));
    const key = JSON.stringify(types);
    let byType = this.globalGroups.get(group[0]!);
    if (!byType) this.globalGroups.set(group[0]!, (byType = new Map<string, string[]>()));
    let names = byType.get(key);
    const targets = (fns: readonly string[]) =>
      group.map((g, j) => this.signature(fns[j]!, g.def.value as SExpr & { kind: "lam" }, g.def.nameSpan, []));
    if (names === undefined) {
      names = group.map((g) => this.freshName(g.name));
      byType.set(key, names);
      const saved = this.host.subst;
      this.host.subst = subst;
      const all = targets(names);
      group.forEach((g, i) => {
        const env = () => new Map<string, Atom>(group.map((h, j) => [h.name, this.marker(h.name, all[j]!)]));
        this.lowerFunction(names![i]!, g.def.value as SExpr & { kind: "lam" }, env, [], g.def.nameSpan);
      });
      this.host.subst = saved;
      return all[group.indexOf(def)]!;
    }
    const saved = this.host.subst;
    this.host.subst = subst;
    const target = targets(names)[group.indexOf(def)]!;
    this.host.subst = saved;
    return target;
  }

  /** The parameter and result types of a function (checked first order), as a target with the given captures. */
  private signature(fn: string, value: SExpr & { kind: "lam" }, nameSpan: Span, captured: readonly Atom[]): RecTarget {
    const { params, body } = lambdaChain(value);
    const types = params.map((p) => {
      const t = this.host.typeOfNode(p.node);
      if (containsFun(t))
        fail("unsupported", "a recursive function cannot take a function as an argument", p.span, {
          found: `\`${p.name}\` : ${showType(t)}`,
          hint: "call the function it would be given by name inside the recursive function, or use ifold",
        });
      return t;
    });
    const result = this.host.typeOfNode(body);
    if (containsFun(result))
      fail("unsupported", "a recursive function cannot return a function", nameSpan, {
        found: `a result of type ${showType(result)} after ${params.length} argument(s)`,
      });
    return { fn, params: types, result, captured };
  }

  /**
   * Lowers one function of a group: its parameters, then the captured values, in the scope `scope` makes (names ->
   * atoms; it may bind what it needs first, in the function's body).
   */
  private lowerFunction(
    name: string,
    value: SExpr & { kind: "lam" },
    scope: (blk: AnfBuilder) => Map<string, Atom>,
    captures: readonly Var[],
    span: Span,
  ): void {
    const { params, body } = lambdaChain(value);
    const vars = params.map((p) => freshVar(p.name === "_" ? "x" : p.name, this.host.typeOfNode(p.node)));
    const result = this.host.typeOfNode(body);
    const lowered = this.host.inFunction((blk) => {
      const env = scope(blk);
      params.forEach((p, i) => {
        if (p.name !== "_") env.set(p.name, vars[i]!);
      });
      return this.host.coerce(this.host.expr(body, env, blk, "r"), result, blk);
    });
    this.functions.push({ name, params: [...vars, ...captures], body: lowered, span });
  }

  /**
   * A local `let rec` group in `env`: its functions are lowered (lifted). Returns what the names stand for in the
   * group's body (the lowering lowers the body: a let chain goes on in its loop).
   */
  local(e: SExpr & { kind: "letrec" }, env: Env): [string, Atom][] {
    const own = new Set(e.bindings.map((bd) => bd.name));
    const free = new Map<string, Span>();
    for (const bd of e.bindings) freeNames(bd.value, new Set(own), free);
    // What the group uses from around it: local variables (captured: extra parameters), enclosing recursive functions
    // (called with their own captured values) and local functions (lowered again inside each function, what they use
    // captured in turn).
    const captured = new Map<number, Var>();
    const copied = new Map<number, LambdaSource>();
    const resolve = (names: ReadonlyMap<string, Span>, scope: Env): Map<string, Atom> => {
      const out = new Map<string, Atom>();
      for (const [n, at] of names) {
        const a = scope.get(n);
        if (a === undefined) continue; // a top-level definition or a builtin
        out.set(n, a);
        const target = this.targetOf(a);
        if (target !== undefined) {
          for (const c of target.captured) if (c.kind === "var") captured.set(c.id, c);
        } else if (a.kind === "var" && containsFun(a.type)) {
          const source = this.lambdas.get(a.id);
          if (source === undefined)
            fail("unsupported", "a recursive function cannot use a function it is not given by name", at, {
              found: `\`${n}\` : ${showType(a.type)}, a parameter or a computed function`,
              hint: "define the function it calls at the top level, or with `let` before the `let rec`",
            });
          if (copied.has(a.id)) continue;
          copied.set(a.id, source);
          const inner = new Map<string, Span>();
          freeNames(source.expr, new Set(), inner);
          source.uses = resolve(inner, source.env);
        } else if (a.kind === "var") captured.set(a.id, a);
      }
      return out;
    };
    const outer = resolve(free, env);
    const captures = [...captured.values()];
    const names = e.bindings.map((bd) => this.freshName(bd.name));
    const sig = (bd: RecBinding, j: number, with_: readonly Atom[]) =>
      this.signature(names[j]!, bd.value, bd.nameSpan, with_);
    e.bindings.forEach((bd, i) => {
      const params = captures.map((c) => freshVar(c.name, c.type));
      const inside = new Map(captures.map((c, k) => [c.id, params[k]!] as const));
      const scopeFor = (blk: AnfBuilder): Map<string, Atom> => {
        const lowered = new Map<number, Atom>();
        const map = (n: string, a: Atom): Atom => {
          if (a.kind === "lit") return a;
          const target = this.targetOf(a);
          if (target) return this.marker(n, { ...target, captured: target.captured.map((c) => map(n, c)) });
          const source = copied.get(a.id);
          if (source === undefined) return inside.get(a.id) ?? a;
          let f = lowered.get(a.id);
          if (f === undefined) {
            const fenv = new Map<string, Atom>();
            for (const [m, b] of source.uses ?? []) fenv.set(m, map(m, b));
            lowered.set(a.id, (f = this.host.expr(source.expr, fenv, blk, n)));
          }
          return f;
        };
        const fenv = new Map<string, Atom>();
        for (const [n, a] of outer) fenv.set(n, map(n, a));
        e.bindings.forEach((other, j) => fenv.set(other.name, this.marker(other.name, sig(other, j, params))));
        return fenv;
      };
      this.lowerFunction(names[i]!, bd.value, scopeFor, params, bd.nameSpan);
    });
    return e.bindings.map((bd, j) => [bd.name, this.marker(bd.name, sig(bd, j, captures))]);
  }

  /**
   * `f a1 ... ak` for a marker f: a call when all of f's arguments are given (`args` are lowered here, coerced to
   * the parameter types), otherwise the lambda `fun x1 ... xn -> f x1 ... xn` applied to those given.
   */
  *apply(target: RecTarget, args: readonly SExpr[], env: Env, blk: AnfBuilder, name: string, span: Span): Lower {
    if (args.length < target.params.length) {
      let acc = this.value(target, blk, name);
      for (const arg of args) {
        const ft = acc.type as Type & { k: "fun" };
        const a = this.host.coerce(yield this.host.lower(arg, env, blk), ft.param, blk);
        acc = blk.bind(name, { kind: "app", fn: acc, arg: a, type: ft.result });
      }
      return acc;
    }
    const atoms: Atom[] = [];
    for (const [i, arg] of args.entries())
      atoms.push(this.host.coerce(yield this.host.lower(arg, env, blk), target.params[i]!, blk));
    return blk.bind(name, {
      kind: "call",
      fn: target.fn,
      args: [...atoms, ...target.captured],
      type: target.result,
      span,
    });
  }

  /** The function as a value: `fun x1 ... xn -> f x1 ... xn`. */
  value(target: RecTarget, blk: AnfBuilder, name: string): Atom {
    const params = target.params.map((t, i) => freshVar(`x${i + 1}`, t));
    let lam: Expr = {
      kind: "call",
      fn: target.fn,
      args: [...params, ...target.captured],
      type: target.result,
    };
    for (let i = params.length - 1; i >= 0; i--) lam = mkLam(params[i]!, lam);
    return blk.bind(name, lam);
  }
}

/**
 * The names `e` uses that `bound` does not bind, with where each is first used (in the order of first use: captured
 * values become parameters in that order). Walked from an explicit stack, left to right, with a count per name bound
 * around the part being walked, so neither nesting nor a chain of lets recurses or copies a scope.
 */
function freeNames(e: SExpr, bound: ReadonlySet<string>, out: Map<string, Span>): void {
  const inScope = new Map<string, number>();
  const bind = (names: Iterable<string>, by: 1 | -1) => {
    for (const n of names) inScope.set(n, (inScope.get(n) ?? 0) + by);
  };
  bind(bound, 1);
  // A name list is a scope: entered (`+`) before the expressions pushed under it, left (`-`) after them.
  const work: (SExpr | { scope: readonly string[]; by: 1 | -1 })[] = [e];
  const scoped = (names: readonly string[], inside: readonly SExpr[]) => {
    work.push({ scope: names, by: -1 });
    for (let k = inside.length - 1; k >= 0; k--) work.push(inside[k]!);
    work.push({ scope: names, by: 1 });
  };
  while (work.length > 0) {
    const x = work.pop()!;
    if ("scope" in x) {
      bind(x.scope, x.by);
      continue;
    }
    switch (x.kind) {
      case "var":
        if (!inScope.get(x.name) && !out.has(x.name)) out.set(x.name, x.span);
        break;
      case "num":
      case "bool":
      case "opfun":
        break;
      case "lam":
        scoped(
          x.params.map((p) => p.name),
          [x.body],
        );
        break;
      case "let": {
        const names = new Set<string>();
        patternNames(x.pattern, names);
        scoped([...names], [x.body]);
        work.push(x.value);
        break;
      }
      case "letrec":
        scoped(
          x.bindings.map((bd) => bd.name),
          [...x.bindings.map((bd) => bd.value), x.body],
        );
        break;
      default: {
        const children = surfaceChildren(x);
        for (let k = children.length - 1; k >= 0; k--) work.push(children[k]!);
      }
    }
  }
}

function patternNames(p: Pattern, out: Set<string>): void {
  if (p.kind === "pvar") out.add(p.name);
  else for (const q of p.elems) patternNames(q, out);
}
