// The inliner: removes every lambda and application, because the code generator only accepts first-order IR.
//
// Smooth has no recursion, so full inlining terminates. The pass walks the function in order, remembering what each
// let-bound variable is bound to, and:
//  - beta-reduces `f a` when f is bound to a lambda: the lambda's body is copied with fresh binders (so copies never
//    share binders) with its parameter replaced by `a`, and the copy is inlined in turn (in the same loop);
//  - pushes an application into a conditional of functions: `(if c then f else g) a` -> `if c then f a else g a`
//    (paper 000, Fig. 7f), and likewise a projection from a conditional of tuples of functions;
//  - resolves functions stored in tuples: `fst (f, g)` -> f (paper 000, Fig. 7d);
//  - substitutes variables bound to atoms (`let g = f in ...`), which beta-reduction produces in numbers.
// Functions cannot be build elements or ifold state (the type checker rejects them), so no function value can hide in
// a loop. Afterwards, function-typed lets are dead and are removed. If the function's parameters and result are
// first-order, no lambda or application may remain: one that does is a compiler bug and is reported as such.

import { AnfBuilder, mkApp, mkIf, mkProj } from "../ir/builder.js";
import { exprSize, freeVars, mapNode, someNode } from "../ir/free.js";
import { fail } from "../syntax/diagnostics.js";
import { calledFrom, inPrelude, type Span } from "../syntax/source.js";
import {
  freshVar,
  isAtom,
  mkLet,
  typeOf,
  type Atom,
  type Custom,
  type Expr,
  type If,
  type IrFunction,
  type Lam,
  type Var,
} from "../ir/ir.js";
import { printIr } from "../ir/print.js";
import { copyFresh, substitute } from "../ir/rename.js";
import { containsFun } from "../types/types.js";
import { removeDeadLets } from "./dce.js";
import type { Pass } from "./pass.js";

/** The most IR nodes inlining may copy in one function (issue 15: a size guard rather than running out of memory). */
export const MAX_INLINED_NODES = 20_000_000;

export const inlinePass: Pass = {
  name: "inline",
  run: (fn) => inlineFunction(fn),
};

/** Inlining that keeps the functions with custom rules: for a primal that reverse mode differentiates next. */
export const inlineKeepingCustomPass: Pass = {
  name: "inline-keep-custom",
  run: (fn) => inlineFunction(fn, { resolveCustom: false }),
};

export interface InlineOptions {
  /**
   * Replace each function with custom derivative rules by its function (default: when no `jvp` node is left, so no
   * derivative can meet it any more). Reverse mode's first-order primal keeps them (src/ad/custom.ts).
   */
  readonly resolveCustom?: boolean;
  /** The most IR nodes beta-reduction may copy (default MAX_INLINED_NODES). */
  readonly maxCopied?: number;
}

export function inlineFunction(fn: IrFunction, opts: InlineOptions = {}): IrFunction {
  const resolve = opts.resolveCustom ?? !someNode(fn.body, (e) => e.kind === "jvp");
  const lazyLambdas = !someNode(fn.body, (e) => e.kind === "jvp");
  const inliner = new Inliner(resolve, opts.maxCopied ?? MAX_INLINED_NODES, lazyLambdas);
  const inlined = inliner.scope(fn.body);
  const { expr: body } = removeDeadLets(inlined, (v) => containsFun(v.type), inliner.clean);
  const out: IrFunction = { ...fn, body };
  // A `jvp f` still to be expanded (by the forward-AD pass) keeps its lambda alive; the inlining after that pass
  // checks.
  const pendingJvp = someNode(body, (e) => e.kind === "jvp");
  if (resolve && !fn.params.some((p) => containsFun(p.type)) && !containsFun(typeOf(body)) && !pendingJvp)
    assertFirstOrder(out);
  return out;
}

function assertFirstOrder(fn: IrFunction): void {
  let found: Expr | undefined;
  someNode(fn.body, (e) => {
    if (e.kind === "lam" || e.kind === "app") found = e;
    return found !== undefined;
  });
  if (found !== undefined) {
    throw new Error(
      `inline: a ${found.kind === "lam" ? "lambda" : "function application"} remains in ${fn.name}: ${printIr(found)}`,
    );
  }
}

class Inliner {
  constructor(
    private readonly resolveCustom: boolean,
    private readonly maxCopied: number,
    /** Inline a lambda's body where it is applied rather than where it is defined (see `into`). */
    private readonly lazyLambdas: boolean,
  ) {}

  /** Let-bound variable -> its inlined right-hand side (never a let). */
  private readonly defs = new Map<number, Expr>();
  /** Variables bound to atoms, replaced by those atoms. */
  private readonly subst = new Map<number, Atom>();
  /** The lambdas whose bodies are cleaned of dead function-typed lets, with their bodies' free variables (`tail`). */
  readonly clean = new Map<Expr, readonly number[]>();

  scope(e: Expr): Expr {
    const b = new AnfBuilder();
    return b.finish(this.into(e, b));
  }

  private atom(a: Atom): Atom {
    // Transitive: a variable rebound to a later name maps to that name's replacement in turn.
    while (a.kind === "var") {
      const to = this.subst.get(a.id);
      if (to === undefined) break;
      a = to;
    }
    return a;
  }

  /**
   * Inlines `e`, emitting its lets into `b`; returns the tail (never a let). A let whose right-hand side applies a
   * known lambda continues with the lambda's copied body and comes back to the let's body afterwards (`pending`),
   * in this loop rather than by recursion: a chain of 10⁴ functions, each calling the one before, nests that deep.
   */
  private into(e: Expr, b: AnfBuilder): Expr {
    const pending: { v: Var; rest: Expr }[] = [];
    for (;;) {
      while (e.kind === "let") {
        const body =
          e.rhs.kind === "app" ? this.beta(this.atom(e.rhs.fn), this.atom(e.rhs.arg), e.rhs.span) : undefined;
        if (body !== undefined) {
          pending.push({ v: e.v, rest: e.body });
          e = body;
          continue;
        }
        this.bindResult(e.v, this.into(e.rhs, b), b);
        e = e.body;
      }
      const body = e.kind === "app" ? this.beta(this.atom(e.fn), this.atom(e.arg), e.span) : undefined;
      if (body !== undefined) {
        e = body;
        continue;
      }
      const tail = this.tail(e, b);
      const next = pending.pop();
      if (next === undefined) return tail;
      this.bindResult(next.v, tail, b);
      e = next.rest;
    }
  }

  /** Binds `v` to the inlined right-hand side `rhs`. */
  private bindResult(v: Var, rhs: Expr, b: AnfBuilder): void {
    if (isAtom(rhs)) {
      // Copy propagation: needed for function-typed variables, and it keeps the inlined code readable.
      if (b.rebindLast(rhs, v)) {
        this.subst.set((rhs as Var).id, v);
        this.defs.set(v.id, this.defs.get((rhs as Var).id)!);
      } else {
        this.subst.set(v.id, rhs);
      }
    } else {
      b.bindVar(v, rhs);
      this.defs.set(v.id, rhs);
    }
  }

  /** The inlined form of `e`, which is not a let. */
  private tail(e: Exclude<Expr, { kind: "let" }>, b: AnfBuilder): Expr {
    switch (e.kind) {
      case "proj": {
        const node = { ...e, arg: this.atom(e.arg) };
        return containsFun(node.type) ? this.project(node.index, node.arg) : node;
      }
      case "app":
        return this.apply(this.atom(e.fn), this.atom(e.arg), b, e.span);
      case "custom": {
        if (this.resolveCustom) return this.atom(e.fn);
        const node = mapNode(
          e,
          (a) => this.atom(a),
          (body) => this.scope(body),
        ) as Custom;
        // Reverse mode reads a checkpointed function's body where it recomputes it (src/ad/reverse-call.ts): that
        // body must be first-order even where lambdas are otherwise inlined only where applied.
        const def = node.fn.kind === "var" ? this.defs.get(node.fn.id) : undefined;
        if (node.mode !== "checkpoint" || !this.lazyLambdas || def?.kind !== "lam") return node;
        const copy = copyFresh(def) as Lam;
        return { ...node, fn: b.bind("f", { ...copy, body: this.scope(copy.body) }) };
      }
      case "lam": {
        // (issue 15) A lambda's body is inlined where the lambda is applied, in the copy each application makes, not
        // where it is defined: inlined at its definition, each function of a chain (d_i x = d_{i-1} x + 1) would
        // hold a copy of all those below it, quadratic in the chain's length. Its atoms are substituted now. While
        // derivatives remain to be expanded (and in a body with custom rules) the body is inlined here: the expansion
        // needs the functions they take known, and the user's calls recorded on the prelude code inside.
        if (this.lazyLambdas && !someNode(e.body, (n) => n.kind === "custom"))
          return { ...e, body: this.substituted(e.body) };
        // A lambda's inlined body drops its dead function-typed lets at once: they are the lambdas it has applied,
        // already beta-reduced. Kept until the end, each copy of this lambda would copy them too, and a chain of
        // higher-order helpers (g_i k x = g_{i-1} k x + 1) would double in size per level.
        // Cleaned once: the lambdas around it count its uses from `clean` instead of cleaning it again.
        const cleaned = removeDeadLets(this.scope(e.body), (v) => containsFun(v.type), this.clean);
        const lam = { ...e, body: cleaned.expr };
        this.clean.set(lam, cleaned.free());
        return lam;
      }
      default:
        return mapNode(
          e,
          (a) => this.atom(a),
          (body) => this.scope(body),
        );
    }
  }

  /** `e` with the variables replaced so far replaced (lets, loops and lambdas inside it kept as they are). */
  private substituted(e: Expr): Expr {
    if (this.subst.size === 0) return e;
    const replaced = new Map<number, Atom>();
    for (const v of freeVars(e).values()) if (this.subst.has(v.id)) replaced.set(v.id, this.atom(v));
    return substitute(e, replaced);
  }

  /** The body of `fn a` to inline in its place (a fresh copy), when fn is a known lambda. */
  private beta(fn: Atom, arg: Atom, span: Span | undefined): Expr | undefined {
    const def = fn.kind === "var" ? this.defs.get(fn.id) : undefined;
    if (def?.kind !== "lam") return undefined;
    this.guardSize(def.body);
    const copy = copyFresh(def.body, new Map([[def.param.id, arg]]));
    // The user's call a prelude function was inlined at (its spans remember it) also calls what it calls.
    const caller = span === undefined ? undefined : inPrelude(span) ? span.caller : span;
    return caller === undefined ? copy : withCaller(copy, caller);
  }

  private apply(fn: Atom, arg: Atom, b: AnfBuilder, span?: Span): Expr {
    const def = fn.kind === "var" ? this.defs.get(fn.id) : undefined;
    const body = this.beta(fn, arg, span);
    if (body !== undefined) return this.into(body, b);
    if (def?.kind === "if") return this.pushInto(def, (f) => mkApp(f, arg));
    // Not known here: the parameter of a lambda being inlined at its definition. Its copies resolve it.
    return mkApp(fn, arg);
  }

  /**
   * Nodes copied by beta-reduction so far: a program whose inlining would exceed the limit is refused, not run away.
   */
  private copied = 0;

  private guardSize(body: Expr): void {
    this.copied += exprSize(body);
    if (this.copied > this.maxCopied)
      fail(
        "unsupported",
        `the program is too large once its functions are inlined (over ${this.maxCopied} nodes)`,
        undefined,
        {
          hint: "every call of a function is compiled as a copy of its body: call large functions fewer times, or from a loop",
        },
      );
  }

  /** A function-typed component of a tuple. */
  private project(index: number, tuple: Atom): Expr {
    const def = tuple.kind === "var" ? this.defs.get(tuple.id) : undefined;
    if (def?.kind === "tuple") return this.atom(def.elems[index]!);
    if (def?.kind === "if") return this.pushInto(def, (t) => mkProj(index, t));
    return mkProj(index, tuple);
  }

  /** `wrap (if c then e1 else e2)` -> `if c then wrap e1 else wrap e2`, each branch a fresh copy, inlined. */
  private pushInto(cond: If, wrap: (v: Var) => Expr): Expr {
    const branch = (e: Expr) => {
      const v = freshVar("f", typeOf(e));
      return this.scope(mkLet(v, copyFresh(e), wrap(v)));
    };
    return mkIf(cond.cond, branch(cond.then), branch(cond.else));
  }
}

/**
 * `e` with the user's call `caller` recorded on the spans it has from the prelude (Span.caller): an error the inlined
 * prelude code raises is then reported where the user called it, as the interpreter reports it.
 */
function withCaller(e: Expr, caller: Span): Expr {
  const scope = (x: Expr): Expr => {
    if (x.kind === "let") {
      const lets: { v: Var; rhs: Expr }[] = [];
      let tail: Expr = x;
      for (; tail.kind === "let"; tail = tail.body) lets.push({ v: tail.v, rhs: node(tail.rhs) });
      return lets.reduceRight<Expr>((body, l) => mkLet(l.v, l.rhs, body), node(tail));
    }
    return node(x);
  };
  const node = (x: Expr): Expr => {
    switch (x.kind) {
      case "prim":
      case "app":
        return x.span === undefined ? x : { ...x, span: calledFrom(x.span, caller) };
      case "build":
      case "ifold": {
        const body = scope(x.body);
        return { ...x, body, ...(x.span === undefined ? {} : { span: calledFrom(x.span, caller) }) };
      }
      case "while": {
        const [cond, body] = [scope(x.cond), scope(x.body)];
        return { ...x, cond, body, ...(x.span === undefined ? {} : { span: calledFrom(x.span, caller) }) };
      }
      case "lam":
        return { ...x, body: scope(x.body) };
      case "if":
        return { ...x, then: scope(x.then), else: scope(x.else) };
      default:
        return x;
    }
  };
  return scope(e);
}
