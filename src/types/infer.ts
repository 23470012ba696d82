// Type inference (Hindley–Milner with let-polymorphism at the top level, local lets monomorphic) extended with the
// numeric rules the paper's programs need without ceremony:
//  - an integer literal (`0`, `1`) is a number of whatever type its context wants, Double when nothing decides;
//  - an Index meeting a Double in arithmetic, a comparison, an `if` or a function argument expecting a Double is
//    promoted to Double (the lowering inserts `double i`);
//  - when an operand's type is still unknown at the operator, the decision waits until the whole definition has been
//    seen (deferred numeric constraints, resolved by `NumericConstraints.resolve`).
// Every node's inferred type is recorded in `nodeTypes`, for the lowering to the core IR.

import type { Definition, Expr, Param, Pattern, Program } from "../syntax/ast.js";
import { fail } from "../syntax/diagnostics.js";
import type { Span } from "../syntax/source.js";
import { annotationType } from "./annotations.js";
import { BUILTINS } from "./builtins.js";
import {
  expectType,
  freeTVars,
  freshTVar,
  instantiate,
  isNumeric,
  M_BOOL,
  M_DOUBLE,
  M_INDEX,
  mArray,
  mFun,
  mFuns,
  mTuple,
  prune,
  TypeNamer,
  type MType,
  type Scheme,
  type TVar,
} from "./mtype.js";
import { DualConstraints } from "./dual.js";
import { NumericConstraints } from "./numeric.js";
import { runNested, type Nested } from "../syntax/trampoline.js";
import { withinCompilerStack } from "../api/compiler-stack.js";

/**
 * Inferring a type that needs the types of subexpressions: it yields their inference (`yield this.infer(x, scope)`)
 * and is resumed with the type. `runNested` runs them on a stack of its own, so programs nesting 10⁴ deep (else-if
 * chains, parentheses, arguments) are checked within Node's default stack.
 */
type Infer<T = MType> = Nested<T, MType>;

export interface CheckedDef {
  readonly def: Definition;
  readonly name: string;
  readonly scheme: Scheme;
  /** Parameter names when the definition is written as a function (for messages about arguments). */
  readonly paramNames: readonly string[];
  /**
   * For a `let rec` group: every function of the group, this one included, in order. Inside the group the names are
   * monomorphic (each function's type before generalisation is the one recorded for its `def.value`).
   */
  readonly recGroup?: readonly CheckedDef[];
}

export interface CheckedProgram {
  /** Definitions in order; a later one with the same name shadows an earlier one for what follows it. */
  readonly defs: readonly CheckedDef[];
  /** The inferred type of every expression, parameter and pattern variable. */
  readonly nodeTypes: WeakMap<object, MType>;
  /** For each variable occurrence naming a top-level definition: that definition. */
  readonly globalRefs: WeakMap<Expr, CheckedDef>;
  /** The latest definition of each name. */
  lookup(name: string): CheckedDef | undefined;
}

type Binding = { kind: "local"; type: MType } | { kind: "global"; def: CheckedDef };

/** A scope chain: locals over the top-level definitions seen so far. */
class Scope {
  constructor(
    private readonly vars: Pick<ReadonlyMap<string, Binding>, "get" | "keys">,
    private readonly parent?: Scope,
  ) {}
  /**
   * The top-level definitions seen so far, as a view of `latest` (not a copy: checking stays linear in their number).
   */
  static globals(latest: ReadonlyMap<string, CheckedDef>): Scope {
    return new Scope({
      get: (name) => {
        const def = latest.get(name);
        return def === undefined ? undefined : { kind: "global", def };
      },
      keys: () => latest.keys(),
    });
  }
  get(name: string): Binding | undefined {
    // A loop up the parents: scopes nest as deeply as the program's lambdas and loops.
    const own = this.vars.get(name);
    if (own !== undefined) return own;
    for (let s = this.parent; s !== undefined; s = s.parent) {
      const b = s.vars.get(name);
      if (b !== undefined) return b;
    }
    return undefined;
  }
  with(entries: Iterable<[string, Binding]>): Scope {
    return new Scope(new Map(entries), this);
  }
  /** A child scope and its map, for a caller that adds names one after another (a let chain). */
  growing(): { scope: Scope; vars: Map<string, Binding> } {
    const vars = new Map<string, Binding>();
    return { scope: new Scope(vars, this), vars };
  }
  names(): string[] {
    const out = [...this.vars.keys()];
    for (let s = this.parent; s !== undefined; s = s.parent) out.push(...s.vars.keys());
    return out;
  }
}

export function checkProgram(programs: readonly Program[]): CheckedProgram {
  const nodeTypes = new WeakMap<object, MType>();
  const globalRefs = new WeakMap<Expr, CheckedDef>();
  const defs: CheckedDef[] = [];
  const latest = new Map<string, CheckedDef>();
  for (const program of programs) {
    for (let k = 0; k < program.defs.length; k++) {
      // A `let rec` group: the definition that starts it and the `and`s that follow, checked together.
      const group = [program.defs[k]!];
      if (group[0]!.rec === "rec") while (program.defs[k + 1]?.rec === "and") group.push(program.defs[++k]!);
      // Expressions nest on a stack of their own, but types are walked recursively: a stack overflow (a type nested
      // thousands deep, as 10⁴ nested tuples make) is an error at the definition.
      const checker = new DefinitionChecker(nodeTypes, globalRefs, latest);
      const name = `\`${group[0]!.name}\``;
      for (const checked of withinCompilerStack(name, () => checker.check(group), group[0]!.nameSpan)) {
        defs.push(checked);
        latest.set(checked.name, checked);
      }
    }
  }
  return { defs, nodeTypes, globalRefs, lookup: (name) => latest.get(name) };
}

/** The type of a definition as `smooth check` prints it, e.g. "vectorSum : Num 'a => Array<'a> -> 'a". */
export function showDefinitionType(d: CheckedDef): string {
  return `${d.name} : ${new TypeNamer().showScheme(d.scheme.type)}`;
}

function lambdaParamNames(e: Expr): string[] {
  const names: string[] = [];
  for (; e.kind === "lam"; e = e.body) for (const p of e.params) names.push(p.name);
  return names;
}

class DefinitionChecker {
  private readonly numeric = new NumericConstraints();
  private readonly duals = new DualConstraints();
  private readonly literals: TVar[] = [];

  constructor(
    private readonly nodeTypes: WeakMap<object, MType>,
    private readonly globalRefs: WeakMap<Expr, CheckedDef>,
    private readonly globals: ReadonlyMap<string, CheckedDef>,
  ) {}

  /** One definition, or a `let rec` group (whose functions see each other, monomorphically, until generalised). */
  check(group: readonly Definition[]): CheckedDef[] {
    const globals = Scope.globals(this.globals);
    const isRec = group[0]!.rec === "rec";
    const own = group.map(() => freshTVar());
    const top = isRec
      ? globals.with(group.map((d, i): [string, Binding] => [d.name, { kind: "local", type: own[i]! }]))
      : globals;
    const types = group.map((def, i) => {
      const type = runNested(this.infer(def.value, top));
      if (def.annot)
        expectType(type, annotationType(def.annot), def.value.span, `\`${def.name}\` does not have its declared type`);
      if (isRec) expectType(type, own[i]!, def.value.span, `\`${def.name}\` is used with another type than its own`);
      return type;
    });
    // Numeric decisions can settle a differentiated type and vice versa: alternate until both are done.
    do this.numeric.resolve();
    while (this.duals.solve(false));
    this.duals.solve(true);
    this.numeric.resolve();
    // Literals nothing decided become Double (so `fun n -> vectorFill n 0` returns a Vector).
    for (const v of this.literals) {
      const t = prune(v);
      if (t.k === "tvar" && t.flag === "lit") t.ref = M_DOUBLE;
    }
    const checked = group.map((def, i): CheckedDef => {
      const type = types[i]!;
      const scheme: Scheme = { generics: freeTVars(type), type };
      return { def, name: def.name, scheme, paramNames: lambdaParamNames(def.value) };
    });
    if (isRec) for (const c of checked) (c as { recGroup?: readonly CheckedDef[] }).recGroup = checked;
    return checked;
  }

  private record<T extends MType>(node: object, t: T): T {
    this.nodeTypes.set(node, t);
    return t;
  }

  private *infer(e: Expr, scope: Scope): Infer {
    return this.record(e, yield* this.inferNode(e, scope));
  }

  private *inferNode(e: Expr, scope: Scope): Infer {
    switch (e.kind) {
      case "var":
        return this.inferVar(e, scope);
      case "num":
        if (!e.isInt) return M_DOUBLE;
        {
          const v = freshTVar("lit");
          this.literals.push(v);
          return v;
        }
      case "bool":
        return M_BOOL;
      case "lam": {
        const params = e.params.map((p) => this.paramType(p));
        const body = yield this.infer(
          e.body,
          scope.with(e.params.map((p, i) => [p.name, { kind: "local", type: params[i]! }])),
        );
        return mFuns(params, body);
      }
      case "app":
        return yield* this.inferApp(e, scope);
      case "letrec":
      case "let":
        return yield* this.inferLets(e, scope);
      case "if": {
        expectType(yield this.infer(e.cond, scope), M_BOOL, e.cond.span, "the condition of `if` must be a Bool");
        const a = yield this.infer(e.then, scope);
        const b = yield this.infer(e.else, scope);
        const promoted = promotedJoin(a, b);
        if (promoted) return promoted;
        expectType(b, a, e.else.span, "the two branches of `if` have different types");
        return a;
      }
      case "tuple": {
        const elems: MType[] = [];
        for (const x of e.elems) elems.push(yield this.infer(x, scope));
        return mTuple(elems);
      }
      case "binop": {
        // A left-nested chain (`x + x + ... + x`, 10⁴ terms) in a loop: its innermost left operand first.
        const chain: (Expr & { kind: "binop" })[] = [];
        let left: Expr = e;
        for (; left.kind === "binop"; left = left.left) chain.push(left);
        let a = yield this.infer(left, scope);
        for (let k = chain.length - 1; k >= 1; k--) a = this.record(chain[k]!, yield* this.binop(chain[k]!, a, scope));
        return yield* this.binop(e, a, scope);
      }
      case "unop": {
        const t = yield this.infer(e.arg, scope);
        if (e.op === "not") {
          expectType(t, M_BOOL, e.arg.span, "`not` needs a Bool");
          return M_BOOL;
        }
        requireNumeric(t, e.arg.span, "unary minus needs a number");
        return t;
      }
      case "index": {
        const elem = freshTVar();
        expectType(yield this.infer(e.array, scope), mArray(elem), e.array.span, "only an array can be indexed");
        expectType(yield this.infer(e.index, scope), M_INDEX, e.index.span, "an array index must be an Index");
        return elem;
      }
      case "typed": {
        const t = yield this.infer(e.expr, scope);
        expectType(t, annotationType(e.annot), e.expr.span, "this expression does not have the type written after it");
        return t;
      }
      case "opfun": {
        switch (e.op) {
          case "&&":
          case "||":
            return mFuns([M_BOOL, M_BOOL], M_BOOL);
          case "<":
          case ">":
          case "<=":
          case ">=":
          case "=":
          case "<>": {
            const a = freshTVar("num");
            return mFuns([a, a], M_BOOL);
          }
          default: {
            const a = freshTVar("num");
            return mFuns([a, a], a);
          }
        }
      }
    }
  }

  /** Gives an unannotated lambda's parameters the types `expected` (a function type) says they have. */
  private seedLambda(lam: Expr & { kind: "lam" }, expected: MType): void {
    let t = prune(expected);
    for (const p of lam.params) {
      if (t.k !== "fun") return;
      if (!p.annot && !this.nodeTypes.has(p)) this.record(p, t.param);
      t = prune(t.result);
    }
  }

  private paramType(p: Param): MType {
    const seeded = this.nodeTypes.get(p);
    if (seeded) return seeded;
    return this.record(p, p.annot ? annotationType(p.annot) : freshTVar("any", true));
  }

  private bindPattern(p: Pattern, t: MType, out: [string, Binding][]): void {
    this.record(p, t);
    if (p.kind === "pvar") {
      if (p.name !== "_") out.push([p.name, { kind: "local", type: t }]);
      return;
    }
    const elems = p.elems.map(() => freshTVar());
    expectType(t, mTuple(elems), p.span, `this pattern needs a tuple of ${p.elems.length} elements`);
    p.elems.forEach((q, i) => this.bindPattern(q, elems[i]!, out));
  }

  /** The type of `e`, whose left operand has type `a`. */
  private *binop(e: Expr & { kind: "binop" }, a: MType, scope: Scope): Infer {
    const b = yield this.infer(e.right, scope);
    switch (e.op) {
      case "&&":
      case "||":
        expectType(a, M_BOOL, e.left.span, `the operands of \`${e.op}\` must be Bools`);
        expectType(b, M_BOOL, e.right.span, `the operands of \`${e.op}\` must be Bools`);
        return M_BOOL;
      case "=":
      case "<>": {
        if (prune(a).k === "bool" || prune(b).k === "bool") {
          expectType(a, M_BOOL, e.left.span, `\`${e.op}\` compares two numbers or two Bools`);
          expectType(b, M_BOOL, e.right.span, `\`${e.op}\` compares two numbers or two Bools`);
          return M_BOOL;
        }
        const [pa, pb] = [prune(a), prune(b)];
        if (pa.k === "tvar" && pb.k === "tvar" && pa.flag !== "lit" && pb.flag !== "lit") {
          // Neither side known: the two are one type, numbers or Bools (decided later, numbers by default).
          expectType(b, a, e.right.span, `the operands of \`${e.op}\` have different types`);
          return M_BOOL;
        }
        return this.numericOperands(e.op, a, b, e.left.span, e.right.span, e.opSpan, "compare");
      }
      case "<":
      case ">":
      case "<=":
      case ">=":
        return this.numericOperands(e.op, a, b, e.left.span, e.right.span, e.opSpan, "compare");
      default:
        return this.numericOperands(e.op, a, b, e.left.span, e.right.span, e.opSpan, "arith");
    }
  }

  /**
   * A chain of lets and `let rec` groups, in a loop (a function may have 10⁵ lets in a row) and in one scope that
   * grows as the chain goes: each value is checked before its own names are added (inference is eager: no scope is
   * kept for later), and a later name shadows an earlier one.
   */
  private *inferLets(first: Expr & { kind: "let" | "letrec" }, outer: Scope): Infer {
    const { scope, vars } = outer.growing();
    const chain: Expr[] = [];
    let e: Expr = first;
    for (; e.kind === "let" || e.kind === "letrec"; e = e.body) {
      chain.push(e);
      if (e.kind === "let") {
        const t = yield this.infer(e.value, scope);
        if (e.annot) expectType(t, annotationType(e.annot), e.value.span, "this value does not have its declared type");
        const bound: [string, Binding][] = [];
        this.bindPattern(e.pattern, t, bound);
        for (const [name, b] of bound) vars.set(name, b);
        continue;
      }
      // Monomorphic recursion: each function has one type inside the group and in the body (local lets are
      // monomorphic anyway).
      const own = e.bindings.map((bd) => this.record(bd, freshTVar()));
      e.bindings.forEach((bd, i) => vars.set(bd.name, { kind: "local", type: own[i]! }));
      for (const [i, bd] of e.bindings.entries()) {
        const t = yield this.infer(bd.value, scope);
        if (bd.annot)
          expectType(t, annotationType(bd.annot), bd.value.span, `\`${bd.name}\` does not have its declared type`);
        expectType(t, own[i]!, bd.value.span, `\`${bd.name}\` is used with another type than its own`);
      }
    }
    const t = yield this.infer(e, scope);
    // Each let of the chain has its body's type (the first is recorded by `infer`).
    for (const node of chain.slice(1)) this.record(node, t);
    return t;
  }

  private inferVar(e: Expr & { kind: "var" }, scope: Scope): MType {
    const b = scope.get(e.name);
    if (b?.kind === "local") return b.type;
    if (b?.kind === "global") {
      this.globalRefs.set(e, b.def);
      return instantiate(b.def.scheme);
    }
    const builtin = BUILTINS.get(e.name);
    if (builtin) return builtin.type({ dual: (t) => this.duals.dualOf(t, e.span) });
    const suggestion = closestName(e.name, [...scope.names(), ...BUILTINS.keys()]);
    return fail(
      "name",
      `unknown name \`${e.name}\``,
      e.span,
      suggestion ? { hint: `did you mean \`${suggestion}\`?` } : {},
    );
  }

  private *inferApp(e: Expr & { kind: "app" }, scope: Scope): Infer {
    const t = yield* this.inferApplication(e, scope);
    this.duals.solve(false);
    return t;
  }

  private *inferApplication(e: Expr & { kind: "app" }, scope: Scope): Infer {
    if (isDerivForm(e, scope)) {
      // `deriv e x` (paper 000 Algorithm 1): the derivative of e with respect to its free variable x.
      const body = yield this.infer((e.fn as Expr & { kind: "app" }).arg, scope);
      this.record(e.fn, body);
      const wrt = yield this.infer(e.arg, scope);
      return this.duals.derivOf(wrt, body, e.span);
    }
    const f = prune(yield this.infer(e.fn, scope));
    // A lambda argument learns its parameter types from the function first (bidirectional), so in
    // `build n (fun i -> half i)` the index is known to be an Index before `half i` promotes it.
    if (f.k === "fun" && e.arg.kind === "lam") this.seedLambda(e.arg, f.param);
    const arg = yield this.infer(e.arg, scope);
    if (f.k === "fun") {
      if (prune(f.param).k === "double" && prune(arg).k === "int") return f.result; // Index promoted to Double
      expectType(arg, f.param, e.arg.span, `wrong argument type for ${describeCallee(e.fn)}`);
      return f.result;
    }
    if (f.k === "tvar") {
      const result = freshTVar();
      expectType(f, mFun(arg, result), e.fn.span, "this is applied to an argument but is not a function");
      return result;
    }
    const names = new TypeNamer();
    return fail(
      "type",
      `${describeCallee(e.fn)} is not a function, so it cannot be applied to an argument`,
      e.arg.span,
      {
        expected: "no further argument",
        found: `an argument applied to a value of type ${names.show(f)}`,
      },
    );
  }

  /** Types a numeric binary operator; see the file comment for the rules. */
  private numericOperands(
    op: string,
    a: MType,
    b: MType,
    la: Span,
    lb: Span,
    opSpan: Span,
    kind: "arith" | "compare",
  ): MType {
    requireNumeric(a, la, `\`${op}\` needs numbers`);
    requireNumeric(b, lb, `\`${op}\` needs numbers`);
    const pa = prune(a);
    const pb = prune(b);
    const result = kind === "compare" ? M_BOOL : undefined;
    if (pa.k !== "tvar" && pb.k !== "tvar") return result ?? (pa.k === pb.k ? pa : M_DOUBLE);
    if ((pa.k === "tvar" && pa.flag === "lit") || (pb.k === "tvar" && pb.flag === "lit")) {
      expectType(pb, pa, lb, `the operands of \`${op}\` have different types`);
      return result ?? prune(pa);
    }
    const r = result ?? (pa.k === "double" || pb.k === "double" ? M_DOUBLE : freshTVar("num"));
    this.numeric.defer({ kind, a: pa, b: pb, result: r, op, span: opSpan, leftSpan: la, rightSpan: lb });
    return r;
  }
}

/** `deriv e x` with `deriv` the builtin (not shadowed) and x a variable. */
export function isDerivForm(e: Expr & { kind: "app" }, scope?: { get(name: string): unknown }): boolean {
  const inner = e.fn;
  if (inner.kind !== "app" || inner.fn.kind !== "var" || inner.fn.name !== "deriv") return false;
  if (scope?.get("deriv") !== undefined) return false;
  if (e.arg.kind !== "var")
    fail(
      "type",
      "the second argument of `deriv` must be a variable (the one to differentiate with respect to)",
      e.arg.span,
      {
        expected: "a variable name",
      },
    );
  return true;
}

/** Double when one side is Index and the other Double (both known); undefined otherwise. */
function promotedJoin(a: MType, b: MType): MType | undefined {
  const pa = prune(a);
  const pb = prune(b);
  if ((pa.k === "int" && pb.k === "double") || (pa.k === "double" && pb.k === "int")) return M_DOUBLE;
  return undefined;
}

export function requireNumeric(t: MType, span: Span, what: string): void {
  const p = prune(t);
  if (p.k === "tvar") {
    if (p.flag === "any") p.flag = "num";
    return;
  }
  if (!isNumeric(p))
    fail("type", what, span, { expected: "a number (Double or Index)", found: new TypeNamer().show(p) });
}

function describeCallee(fn: Expr): string {
  let head = fn;
  while (head.kind === "app") head = head.fn;
  return head.kind === "var" ? `\`${head.name}\`` : "this function";
}

function closestName(name: string, candidates: Iterable<string>): string | undefined {
  let best: string | undefined;
  let bestDist = Math.max(1, Math.floor(name.length / 3)) + 1;
  for (const c of new Set(candidates)) {
    const d = editDistance(name, c);
    if (d < bestDist) {
      bestDist = d;
      best = c;
    }
  }
  return best;
}

function editDistance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let prev = row[0]!;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const cur = row[j]!;
      row[j] = Math.min(row[j]! + 1, row[j - 1]! + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = cur;
    }
  }
  return row[b.length]!;
}
