// Lowering: the type-checked surface program, specialised to concrete argument types, becomes core IR in A-normal form.
//
// Specialisation (as in Myia, paper 002 §4.2): a polymorphic top-level definition is lowered once per concrete type
// it is used at, and each specialisation is let-bound at the top of the entry function (definitions are closed, so
// this order is always possible). The inliner later removes the lambdas. Recursive functions (`let rec`) become
// first-order functions of the program instead, called by `call` nodes (./lower-rec.ts).
// Index-to-Double promotions decided by the type checker become explicit `toDouble` primitives here: the lowering sees
// concrete types, so wherever an Index meets a Double it converts.

import { surfaceChildren, type Expr as SExpr, type Pattern } from "../syntax/ast.js";
import { fail } from "../syntax/diagnostics.js";
import type { Span } from "../syntax/source.js";
import { PRIMS, primResultType } from "../prims/table.js";
import type { PrimName } from "../prims/names.js";
import { BINOP_PRIMS, BUILTINS } from "../types/builtins.js";
import type { CheckedDef, CheckedProgram } from "../types/infer.js";
import { concretize, matchConcrete, prune, TypeNamer, type MType, type TVar } from "../types/mtype.js";
import { BOOL, containsFun, DOUBLE, INT, showType, type Type } from "../types/types.js";
import { AnfBuilder } from "./builder.js";
import { Scope, type Env, type Lower, type Scopes } from "./lower-binders.js";
import { freshVar, lit, mkLam, mkTuple, type Atom, type Expr, type IrFunction } from "./ir.js";
import { builtinValue, deriv, isDeriv, saturated, type BuiltinHost } from "./lower-builtins.js";
import { RecLowering } from "./lower-rec.js";
import { runNested } from "../syntax/trampoline.js";

/** Parameter types of a definition's type, peeled `count` times; undefined if it has fewer parameters. */
function peelParams(t: MType, count: number): { params: MType[]; result: MType } | undefined {
  const params: MType[] = [];
  let cur = prune(t);
  for (let i = 0; i < count; i++) {
    if (cur.k !== "fun") return undefined;
    params.push(cur.param);
    cur = prune(cur.result);
  }
  return { params, result: cur };
}

/**
 * The IR function for calling definition `name` with arguments of the given concrete types.
 * Errors (unknown definition, wrong number or types of arguments) name the definition and the parameter.
 */
export function lowerEntry(program: CheckedProgram, name: string, argTypes: readonly Type[]): IrFunction {
  const def = program.lookup(name);
  if (!def) fail("name", `there is no definition named \`${name}\``);
  const peeled = peelParams(def.scheme.type, argTypes.length);
  if (!peeled) {
    const arity = peelParams(def.scheme.type, 64)?.params.length ?? countParams(def.scheme.type);
    fail(
      "argument",
      `\`${name}\` takes ${arity} argument${arity === 1 ? "" : "s"}, but ${argTypes.length} were given`,
      def.def.nameSpan,
    );
  }
  const subst = new Map<TVar, Type>();
  const namer = new TypeNamer();
  peeled.params.forEach((p, i) => {
    if (!matchConcrete(p, argTypes[i]!, subst))
      fail(
        "argument",
        `argument ${i}${def.paramNames[i] ? ` (\`${def.paramNames[i]}\`)` : ""} of \`${name}\` has the wrong type`,
        def.def.nameSpan,
        {
          expected: namer.show(p),
          found: showType(argTypes[i]!),
        },
      );
  });
  const lowering = new Lowering(program);
  lowering.monomorphicDependencies(def);
  const fnAtom = runNested(lowering.specialise(def, concretize(def.scheme.type, subst), def.def.nameSpan));
  const params = argTypes.map((t, i) => freshVar(def.paramNames[i] ?? `arg${i + 1}`, t));
  let acc: Atom = fnAtom;
  for (const p of params) {
    const ft = acc.type;
    if (ft.k !== "fun") throw new Error("lowerEntry: applying a non-function");
    acc = lowering.preamble.bind(name, { kind: "app", fn: acc, arg: p, type: ft.result });
  }
  if (containsFun(acc.type))
    fail(
      "unsupported",
      `\`${name}\` applied to ${argTypes.length} argument(s) returns a function, which cannot be run or compiled`,
      def.def.nameSpan,
      {
        found: showType(acc.type),
      },
    );
  const body = lowering.preamble.finish(acc);
  const functions = lowering.rec.functions;
  return functions.length > 0 ? { name, params, body, functions } : { name, params, body };
}

function countParams(t: MType): number {
  let n = 0;
  for (let cur = prune(t); cur.k === "fun"; cur = prune(cur.result)) n++;
  return n;
}

class Lowering implements BuiltinHost {
  /** Where the top-level definitions the code being lowered uses are bound (the entry's, or a function's own). */
  preamble = new AnfBuilder();
  private specs = new Map<CheckedDef, Map<string, Atom>>();
  subst: ReadonlyMap<TVar, Type> = new Map();
  readonly rec: RecLowering = new RecLowering(this);

  constructor(readonly program: CheckedProgram) {}

  /** Lowers a function's body with its own preamble: the top-level definitions it uses are bound inside it. */
  inFunction(body: (blk: AnfBuilder) => Atom): Expr {
    const [preamble, specs] = [this.preamble, this.specs];
    this.preamble = new AnfBuilder();
    this.specs = new Map();
    try {
      const blk = new AnfBuilder();
      const result = body(blk);
      return this.preamble.finish(blk.finish(result));
    } finally {
      this.preamble = preamble;
      this.specs = specs;
    }
  }

  /**
   * Lowers the monomorphic definitions `def` uses, directly or not, in the order they are defined: lowering on first
   * use would otherwise nest one level per definition in a chain (10⁴ definitions, each calling the one before).
   */
  monomorphicDependencies(def: CheckedDef): void {
    const seen = new Set<CheckedDef>([def]);
    const work: SExpr[] = [def.def.value];
    while (work.length > 0) {
      const e = work.pop()!;
      if (e.kind === "var") {
        const g = this.program.globalRefs.get(e);
        if (g !== undefined && !seen.has(g)) {
          seen.add(g);
          work.push(g.def.value);
        }
      }
      work.push(...surfaceChildren(e));
    }
    for (const g of this.program.defs) {
      if (g === def || !seen.has(g) || g.recGroup !== undefined || g.scheme.generics.length > 0) continue;
      runNested(this.specialise(g, concretize(g.scheme.type, new Map()), g.def.nameSpan));
    }
  }

  /** The atom bound to definition `def` specialised at concrete type `type` (lowered on first use). */
  *specialise(def: CheckedDef, type: Type, useSpan: Span): Lower {
    let byType = this.specs.get(def);
    if (!byType) this.specs.set(def, (byType = new Map<string, Atom>()));
    const key = JSON.stringify(type);
    const have = byType.get(key);
    if (have) return have;
    if (def.recGroup !== undefined) {
      const fn = this.rec.value(this.rec.global(def, type, useSpan), this.preamble, def.name);
      byType.set(key, fn);
      return fn;
    }
    const subst = new Map<TVar, Type>();
    if (!matchConcrete(def.scheme.type, type, subst))
      throw new Error(`specialise: ${def.name} used at ${showType(type)} (${useSpan.start})`);
    const saved = this.subst;
    this.subst = subst;
    const atom = yield this.lower(def.def.value, new Map(), this.preamble, def.name);
    this.subst = saved;
    byType.set(key, atom);
    return atom;
  }

  typeOfNode(node: object): Type {
    const t = this.program.nodeTypes.get(node);
    if (!t) throw new Error("lowering: node without an inferred type");
    return concretize(t, this.subst);
  }

  /** Lowers `e` into `blk`, returning the atom holding its value (for ./lower-rec.ts: nested on the JS stack). */
  expr(e: SExpr, env: Env, blk: AnfBuilder, name = "t"): Atom {
    return runNested(this.lower(e, env, blk, name));
  }

  /** Lowers `e` into `blk`, giving the atom holding its value. `name` names the binding for printing. */
  *lower(e: SExpr, env: Env, blk: AnfBuilder, name = "t"): Lower {
    switch (e.kind) {
      case "var": {
        const local = env.get(e.name);
        const target = this.rec.targetOf(local);
        if (target) return this.rec.value(target, blk, e.name);
        if (local) return local;
        const global = this.program.globalRefs.get(e);
        if (global) return yield* this.specialise(global, this.typeOfNode(e), e.span);
        return yield* builtinValue(this, e, blk);
      }
      case "num": {
        const isIndex = this.typeOfNode(e).k === "int";
        // Index arithmetic is 32-bit: a larger literal cannot be one (compiled code and the interpreter would differ).
        if (isIndex && !(Number.isInteger(e.value) && Math.abs(e.value) <= 2 ** 31 - 1))
          fail("type", `the integer literal ${e.value} does not fit in an Index (32-bit)`, e.span, {
            expected: `an integer from -${2 ** 31 - 1} to ${2 ** 31 - 1}`,
            found: String(e.value),
            hint: `a Double is meant? write \`${e.value}.\``,
          });
        return lit(e.value, isIndex ? INT : DOUBLE);
      }
      case "bool":
        return lit(e.value, BOOL);
      case "lam": {
        const params = e.params.map((p) => ({ name: p.name, type: this.typeOfNode(p) }));
        return blk.bind(name, yield* this.lambda(params, e.body, env));
      }
      case "app":
        return yield* this.app(e, env, blk, name);
      case "letrec":
      case "let":
        return yield* this.lets(e, env, blk, name);
      case "if": {
        const type = this.typeOfNode(e);
        const cond = yield this.lower(e.cond, env, blk, "c");
        const then = yield* this.subBlock(e.then, env, type);
        const otherwise = yield* this.subBlock(e.else, env, type);
        return blk.bind(name, { kind: "if", cond, then, else: otherwise, type });
      }
      case "tuple": {
        const elems: Atom[] = [];
        for (const x of e.elems) elems.push(yield this.lower(x, env, blk));
        return blk.bind(name, mkTuple(elems));
      }
      case "binop": {
        if (e.op === "&&" || e.op === "||") {
          const left = yield this.lower(e.left, env, blk, "c");
          const right = yield* this.subBlock(e.right, env, BOOL);
          return blk.bind(name, {
            kind: "if",
            cond: left,
            then: e.op === "&&" ? right : lit(true, BOOL),
            else: e.op === "&&" ? lit(false, BOOL) : right,
            type: BOOL,
          });
        }
        // A left-nested chain (`x + x + ... + x`, 10⁴ terms) in a loop: its innermost left operand first.
        const chain: (SExpr & { kind: "binop" })[] = [];
        let left: SExpr = e;
        for (; left.kind === "binop" && left.op !== "&&" && left.op !== "||"; left = left.left) chain.push(left);
        let a = yield this.lower(left, env, blk);
        for (let k = chain.length - 1; k >= 0; k--) {
          const node = chain[k]!;
          const b = yield this.lower(node.right, env, blk);
          const op = BINOP_PRIMS[node.op as keyof typeof BINOP_PRIMS];
          a = this.numericPrim(op, a, b, this.typeOfNode(node), blk, k === 0 ? name : "t", node.opSpan);
        }
        return a;
      }
      case "unop": {
        const a = yield this.lower(e.arg, env, blk);
        return blk.bind(name, this.prim(e.op === "-" ? "neg" : "not", [a], e.span));
      }
      case "index": {
        const a = yield this.lower(e.array, env, blk);
        const i = yield this.lower(e.index, env, blk);
        return blk.bind(name, this.prim("get", [a, i], e.span));
      }
      case "typed":
        return this.coerce(yield this.lower(e.expr, env, blk, name), this.typeOfNode(e), blk);
      case "opfun": {
        const t = this.typeOfNode(e);
        if (t.k !== "fun" || t.result.k !== "fun") throw new Error("operator value without a function type");
        const x = freshVar("x", t.param);
        const y = freshVar("y", t.result.param);
        const body = new AnfBuilder();
        const r =
          e.op === "&&" || e.op === "||"
            ? body.bind("r", {
                kind: "if",
                cond: x,
                then: e.op === "&&" ? y : lit(true, BOOL),
                else: e.op === "&&" ? lit(false, BOOL) : y,
                type: BOOL,
              })
            : this.numericPrim(BINOP_PRIMS[e.op], x, y, t.result.result, body, "r", e.span);
        return blk.bind(name, mkLam(x, mkLam(y, body.finish(r))));
      }
    }
  }

  /** What the binders of loops (./lower-binders.ts) need of the lowering. */
  readonly scopes: Scopes = {
    subBlock: (e, env, type) => this.subBlock(e, env, type),
    lower: (e, env, blk, name) => this.lower(e, env, blk, name),
  };

  /**
   * A chain of lets and `let rec` groups, in a loop (a function may have 10⁵ lets in a row), into one environment
   * copied once and then extended: lowering is eager, and what keeps an environment for later (a local function a
   * recursive function may use) keeps a copy.
   */
  private *lets(first: SExpr & { kind: "let" | "letrec" }, env: Env, blk: AnfBuilder, name: string): Lower {
    const inner = Scope.extending(env);
    let e: SExpr = first;
    for (; e.kind === "let" || e.kind === "letrec"; e = e.body) {
      if (e.kind === "letrec") {
        for (const [n, marker] of this.rec.local(e, inner)) inner.set(n, marker);
        continue;
      }
      const value = yield this.lower(e.value, inner, blk, patternName(e.pattern));
      // A local function a recursive function may use (./lower-rec.ts lowers it again inside that function).
      if (e.value.kind === "lam" && value.kind === "var")
        this.rec.lambdas.set(value.id, { expr: e.value, env: Scope.extending(inner) });
      this.bindPattern(e.pattern, value, inner, blk);
    }
    return yield this.lower(e, inner, blk, name);
  }

  *subBlock(e: SExpr, env: Env, type: Type, name = "r"): Lower<Expr> {
    const blk = new AnfBuilder();
    const a = this.coerce(yield this.lower(e, env, blk, name), type, blk);
    return blk.finish(a);
  }

  private *lambda(params: readonly { name: string; type: Type }[], body: SExpr, env: Env): Lower<Expr> {
    const inner = Scope.extending(env);
    const vars = params.map((p) => {
      const v = freshVar(p.name, p.type);
      if (p.name !== "_") inner.set(p.name, v);
      return v;
    });
    if (vars.length === 0) throw new Error("lambda without parameters");
    let lam = yield* this.subBlock(body, inner, this.typeOfNode(body));
    for (let i = vars.length - 1; i >= 0; i--) lam = mkLam(vars[i]!, lam);
    return lam;
  }

  private bindPattern(p: Pattern, value: Atom, env: Scope, blk: AnfBuilder): void {
    if (p.kind === "pvar") {
      if (p.name !== "_") env.set(p.name, value);
      return;
    }
    const t = value.type;
    if (t.k !== "tuple") throw new Error("tuple pattern on a non-tuple");
    p.elems.forEach((q, i) => {
      const part = blk.bind(patternName(q), { kind: "proj", index: i, arg: value, type: t.elems[i]! });
      this.bindPattern(q, part, env, blk);
    });
  }

  /** Index → Double where a Double is wanted; identity otherwise. */
  coerce(a: Atom, want: Type, blk: AnfBuilder): Atom {
    if (a.type.k === "int" && want.k === "double") {
      if (a.kind === "lit") return lit(a.value, DOUBLE);
      return blk.bind("d", this.prim("toDouble", [a]));
    }
    return a;
  }

  prim(op: PrimName, args: Atom[], span?: Span, nodeType?: Type): Expr {
    // A tape pop's type is what its context (a type ascription) says it pops.
    if (PRIMS[op].resultFromNode !== undefined && nodeType !== undefined)
      return { kind: "prim", op, args, type: nodeType };
    const type = primResultType(
      op,
      args.map((a) => a.type),
      span,
      args.map((a) => (a.kind === "lit" ? a.value : undefined)),
    );
    return span ? { kind: "prim", op, args, type, span } : { kind: "prim", op, args, type };
  }

  /**
   * A binary numeric primitive, promoting an Index operand that meets a Double, and the result if it must be Double.
   */
  numericPrim(op: PrimName, a: Atom, b: Atom, resultType: Type, blk: AnfBuilder, name: string, span: Span): Atom {
    const common = a.type.k === "double" || b.type.k === "double" ? DOUBLE : a.type;
    const x = this.coerce(a, common, blk);
    const y = this.coerce(b, common, blk);
    const r = blk.bind(name, this.prim(op, [x, y], op === "div" ? span : undefined));
    return this.coerce(r, resultType, blk);
  }

  private *app(e: SExpr & { kind: "app" }, env: Env, blk: AnfBuilder, name: string): Lower {
    if (isDeriv(this, e, env)) return yield* deriv(this, e, env, blk, name);
    const spine: (SExpr & { kind: "app" })[] = [];
    let head: SExpr = e;
    while (head.kind === "app") {
      spine.unshift(head);
      head = head.fn;
    }
    let acc: Atom;
    let next = 0;
    const target = head.kind === "var" ? this.recTarget(head, env) : undefined;
    if (target) {
      // A recursive function applied: a call when all its arguments are given.
      next = Math.min(spine.length, target.params.length);
      const call = spine[next - 1]!;
      const args = spine.slice(0, next).map((s) => s.arg);
      acc = yield* this.rec.apply(target, args, env, blk, name, call.span);
      return yield* this.applyRest(acc, spine, next, env, blk, name);
    }
    const builtin =
      head.kind === "var" && !env.has(head.name) && !this.program.globalRefs.has(head)
        ? BUILTINS.get(head.name)
        : undefined;
    if (builtin && spine.length >= builtin.arity) {
      const call = spine[builtin.arity - 1]!;
      const args = spine.slice(0, builtin.arity).map((s) => ({ expr: s.arg }));
      const [builtinType, type] = [this.typeOfNode(head), this.typeOfNode(call)];
      acc = yield* saturated(this, builtin, builtinType, type, args, env, blk, name, call.span);
      next = builtin.arity;
    } else {
      acc = yield this.lower(head, env, blk, "f");
    }
    return yield* this.applyRest(acc, spine, next, env, blk, name);
  }

  /** The recursive function a name stands for: a local one, or a top-level `let rec` (so a call keeps its place). */
  private recTarget(head: SExpr & { kind: "var" }, env: Env) {
    if (env.has(head.name)) return this.rec.targetOf(env.get(head.name));
    const global = this.program.globalRefs.get(head);
    return global?.recGroup === undefined ? undefined : this.rec.global(global, this.typeOfNode(head), head.span);
  }

  /** `acc` applied to the arguments of `spine` from `next` on. */
  private *applyRest(
    acc: Atom,
    spine: readonly (SExpr & { kind: "app" })[],
    next: number,
    env: Env,
    blk: AnfBuilder,
    name: string,
  ): Lower {
    for (; next < spine.length; next++) {
      const ft = acc.type;
      if (ft.k !== "fun") throw new Error("lowering: applying a non-function");
      const arg = this.coerce(yield this.lower(spine[next]!.arg, env, blk), ft.param, blk);
      const span = spine[spine.length - 1]!.span; // the whole call, for each of its curried applications
      acc = blk.bind(name, { kind: "app", fn: acc, arg, type: ft.result, span });
    }
    return acc;
  }
}

function patternName(p: Pattern): string {
  return p.kind === "pvar" && p.name !== "_" ? p.name : "t";
}
