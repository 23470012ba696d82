// The forward-mode transformation D[·] of paper 000 Fig. 6, on the A-normal-form IR: every value becomes its dual
// (src/ad/dual-types.ts), a Double the pair (primal, tangent), and every construct maps to itself on duals:
// let, tuple, proj, lambda, application, if (on the unchanged Bool), build and ifold (over the unchanged Index),
// get and length (on the dual array). Primitives use their rule from the table (src/ad/derivatives.ts).
//
// Free variables of the transformed term that `env` does not map are constants to this differentiation: their dual
// has tangent zero (`constDual`), and a free function f becomes the new node `jvp f`, expanded later by the pass
// (src/ad/expand.ts). This is what keeps nested derivatives apart (paper 000 §3.3): an inner derivative perturbs only
// its own input, and when an outer D transforms the inner one's expansion, `(x, 0.)` is ordinary code whose x gets
// the outer tangent.
//
// Every dual Double bound here is split at once into its primal and tangent (projections, or the atoms it was built
// from), so that rules see literal zero tangents and skip their terms, and no component is projected twice. A dual
// bound outside (a parameter of D[f] for a program function, given in `env`) is split where it is first met, maybe in
// a branch or a loop body: what a scope splits is forgotten when it ends, since its projections are bound only there.

import { AnfBuilder, mkApp, mkBuild, mkIf, mkIfold, mkPrim, mkWhile, nested } from "../ir/builder.js";
import { freeVars } from "../ir/free.js";
import {
  freshVar,
  lit,
  mkLam,
  mkTuple,
  type Atom,
  type Expr,
  type Custom,
  type Jvp,
  type Lam,
  type Prim,
  type Var,
} from "../ir/ir.js";
import { removeDeadLets } from "../opt/dce.js";
import { PRIMS, primMayFail } from "../prims/table.js";
import { DOUBLE, INT, type Type } from "../types/types.js";
import { scaleTerm, sumTerms, type Mark, type Partial } from "./derivatives.js";
import { dualType, hasTangent } from "./dual-types.js";
import { capturedByCustomRule } from "./custom.js";
import { rewriteSelectionFolds } from "./selection-folds.js";

/**
 * D[e]: an expression computing the dual of `e`, where `env` maps variables (by id) to atoms holding their duals;
 * other free variables of `e` are constants. A lambda gives `let <duals of its free variables> in fun x' -> D[body]`.
 */
export function forwardTransform(
  e: Expr,
  env: ReadonlyMap<number, Atom> = new Map(),
  functions?: ForwardFunctions,
): Expr {
  e = rewriteSelectionFolds(e);
  const t = new Forward(env, functions);
  const b = new AnfBuilder();
  for (const v of freeVars(e).values())
    if (!t.has(v)) {
      t.bindDual(v, t.constDual(v, b), b);
      t.constants.add(v.id);
    }
  const out = b.finish(e.kind === "lam" ? t.lambda(e) : t.expr(e, b, "r"));
  // The parts of duals that go unused (a tangent never read, a pair only read by parts) are dropped at once.
  return removeDeadLets(out, (_v, rhs) => cannotFail(rhs)).expr;
}

/** True for a right-hand side whose evaluation cannot raise an error (an index or shape error, a division by zero). */
export function cannotFail(rhs: Expr): boolean {
  switch (rhs.kind) {
    case "var":
    case "lit":
    case "tuple":
    case "proj":
    case "lam":
    case "jvp":
      return true;
    case "call": // may fail, or not terminate
      return false;
    case "prim":
      // The primitives that can fail: indexing, its bounds check, the updates, and Index division (PrimRule.fails).
      return !primMayFail(rhs.op, rhs.type);
    default:
      return false;
  }
}

/** The dual of a value that does not depend on the differentiation's input: tangent zero everywhere. */
export function constDual(a: Atom, b: AnfBuilder): Atom {
  return new Forward(new Map()).constDual(a, b);
}

/** The program's functions (./functions.ts): D of a call of f is a call of D[f]. */
export interface ForwardFunctions {
  forward(name: string): string;
}

const ZERO = lit(0, DOUBLE);
const isZero = (a: Atom) => a.kind === "lit" && a.value === 0;

/** The name of the dual of a variable named `name`: primed when it carries tangents. */
const dualName = (name: string, t: Type) => (hasTangent(t) ? `${name}'` : name);

class Forward {
  private readonly env: Map<number, Atom>;
  /** Components of dual tuples built or split here; for a dual Double, [primal, tangent]. Keyed by the tuple's id. */
  private readonly parts = new Map<number, readonly Atom[]>();
  /** Each change of `parts`, with the value it replaced: undone when the scope that made it ends (`scope`). */
  private readonly partsLog: (readonly [number, readonly Atom[] | undefined])[] = [];
  /** Free variables of the transformed term: constants to this derivative (their duals have tangent zero). */
  readonly constants = new Set<number>();

  constructor(
    env: ReadonlyMap<number, Atom>,
    private readonly functions?: ForwardFunctions,
  ) {
    this.env = new Map(env);
  }

  has(v: Var): boolean {
    return this.env.has(v.id);
  }

  /** Records `d` as the dual of `v`; a dual Double is split into primal and tangent right here, in its scope. */
  bindDual(v: Var, d: Atom, b: AnfBuilder): void {
    this.env.set(v.id, d);
    if (v.type.k === "double" && d.kind === "var" && !this.parts.has(d.id)) {
      this.setParts(d.id, [b.proj(0, d, v.name), b.proj(1, d, `d${v.name}`)]);
    }
  }

  private setParts(id: number, atoms: readonly Atom[]): void {
    this.partsLog.push([id, this.parts.get(id)]);
    this.parts.set(id, atoms);
  }

  /** A nested scope (a branch, a loop body, a lambda): the parts it records are forgotten when it ends. */
  private scope(body: (b: AnfBuilder) => Expr): Expr {
    const mark = this.partsLog.length;
    try {
      return nested(body);
    } finally {
      while (this.partsLog.length > mark) {
        const [id, before] = this.partsLog.pop()!;
        if (before === undefined) this.parts.delete(id);
        else this.parts.set(id, before);
      }
    }
  }

  constDual(a: Atom, b: AnfBuilder, name = a.kind === "var" ? a.name : "c"): Atom {
    const t = a.type;
    if (!hasTangent(t)) return a;
    switch (t.k) {
      case "double":
        return this.pair(a, ZERO, b, name);
      case "array": {
        const n = b.prim("length", [a], "n");
        return b.build(n, (i, bb) => this.constDual(bb.prim("get", [a, i], name), bb, name), dualName(name, t));
      }
      case "tuple":
        return this.tuple(
          t.elems.map((_, k) => this.constDual(b.proj(k, a, name), b, name)),
          b,
          name,
        );
      case "fun": {
        const node: Jvp = { kind: "jvp", fn: a, type: dualType(t) };
        return b.bind(dualName(name, t), node);
      }
      default:
        throw new Error(`constDual: unexpected type ${t.k}`);
    }
  }

  /** The dual of an operand. */
  private atom(a: Atom, b: AnfBuilder): Atom {
    if (a.kind === "lit") return this.constDual(a, b);
    const d = this.env.get(a.id);
    if (d === undefined) throw new Error(`forward: no dual for ${a.name}#${a.id}`);
    return d;
  }

  /** [primal, tangent] of a dual Double. */
  private split(d: Atom, b: AnfBuilder): readonly [Atom, Atom] {
    const known = d.kind === "var" ? this.parts.get(d.id) : undefined;
    if (known) return [known[0]!, known[1]!];
    return [b.proj(0, d), b.proj(1, d, "dt")];
  }

  private pair(primal: Atom, tangent: Atom, b: AnfBuilder, name: string): Atom {
    return this.tuple([primal, tangent], b, name, `${name}'`);
  }

  private tuple(elems: readonly Atom[], b: AnfBuilder, name: string, bindAs = `${name}'`): Atom {
    const t = b.bind(bindAs, mkTuple(elems));
    if (t.kind === "var") this.setParts(t.id, elems);
    return t;
  }

  /** D[e], emitted into `b`; `name` names the result (the user's name of the let being transformed). */
  expr(e: Expr, b: AnfBuilder, name: string): Atom {
    switch (e.kind) {
      case "var":
      case "lit":
        return this.atom(e, b);
      case "let": {
        let cur: Expr = e;
        while (cur.kind === "let") {
          this.bindDual(cur.v, this.expr(cur.rhs, b, cur.v.name), b);
          cur = cur.body;
        }
        return this.expr(cur, b, name);
      }
      case "prim":
        return this.prim(e, b, name);
      case "tuple":
        return this.tuple(
          e.elems.map((a) => this.atom(a, b)),
          b,
          name,
          dualName(name, e.type),
        );
      case "proj": {
        const d = this.atom(e.arg, b);
        const known = d.kind === "var" ? this.parts.get(d.id) : undefined;
        return known ? known[e.index]! : b.proj(e.index, d, dualName(name, e.type));
      }
      case "app":
        return b.bind(dualName(name, e.type), mkApp(this.atom(e.fn, b), this.atom(e.arg, b)));
      case "lam":
        return b.bind(dualName(name, e.type), this.lambda(e));
      case "if": {
        const branch = (x: Expr) => this.scope((bb) => this.expr(x, bb, name));
        return b.bind(dualName(name, e.type), mkIf(this.atom(e.cond, b), branch(e.then), branch(e.else)));
      }
      case "build": {
        const size = this.atom(e.size, b);
        const index = freshVar(e.index.name, INT);
        this.env.set(e.index.id, index);
        const body = this.scope((bb) => this.expr(e.body, bb, "r"));
        return b.bind(dualName(name, e.type), mkBuild(size, index, body, e.span));
      }
      case "ifold": {
        const init = this.atom(e.init, b);
        const count = this.atom(e.count, b);
        const acc = freshVar(dualName(e.acc.name, e.acc.type), dualType(e.acc.type));
        const index = freshVar(e.index.name, INT);
        this.env.set(e.index.id, index);
        const body = this.scope((bb) => {
          this.bindDual(e.acc, acc, bb);
          return this.expr(e.body, bb, "r");
        });
        return b.bind(dualName(name, e.type), mkIfold(init, count, acc, index, body, e.span));
      }
      case "call": {
        // D[f a] = D[f] D[a]: the derivative of a recursive function calls itself.
        if (this.functions === undefined) throw new Error(`forward: a call of ${e.fn} without the program's functions`);
        const node = {
          kind: "call" as const,
          fn: this.functions.forward(e.fn),
          args: e.args.map((a) => this.atom(a, b)),
          type: dualType(e.type),
          ...(e.span ? { span: e.span } : {}),
        };
        return b.bind(dualName(name, e.type), node);
      }
      case "while": {
        // A while over dual states; the condition is D of the original, whose Bool is computed from primal parts.
        const init = this.atom(e.init, b);
        const acc = freshVar(dualName(e.acc.name, e.acc.type), dualType(e.acc.type));
        const scope = (x: Expr) =>
          this.scope((bb) => {
            this.bindDual(e.acc, acc, bb);
            return this.expr(x, bb, "r");
          });
        const cond = scope(e.cond);
        const body = scope(e.body);
        return b.bind(dualName(name, e.type), mkWhile(init, acc, cond, body, e.span));
      }
      case "custom":
        return this.custom(e, b, name);
      case "jvp":
        // The pass expands innermost derivatives first, so the term being transformed never contains one.
        throw new Error("forward: a jvp node inside the term being differentiated (expand the inner one first)");
    }
  }

  /**
   * D of a function with custom rules, made inside the term being differentiated: the rules say how the function
   * itself is differentiated, not how its pieces depend on this derivative's input, so they must be constants here
   * (the node is rebuilt as it is, and its dual is `jvp` of it, expanded by the rules: ./custom.ts).
   */
  private custom(e: Custom, b: AnfBuilder, name: string): Atom {
    const parts = [e.fn, ...e.rules];
    const captured = parts.find((a) => a.kind === "var" && !this.constants.has(a.id));
    if (captured !== undefined) capturedByCustomRule(e, captured);
    return this.constDual(b.bind(name, e), b, name);
  }

  /** fun x' -> D[body]. */
  lambda(e: Lam): Lam {
    const param = freshVar(dualName(e.param.name, e.param.type), dualType(e.param.type));
    return mkLam(
      param,
      this.scope((bb) => {
        this.bindDual(e.param, param, bb);
        return this.expr(e.body, bb, "r");
      }),
    );
  }

  private prim(e: Prim, b: AnfBuilder, name: string): Atom {
    const rule = PRIMS[e.op].derivative;
    // D[tapePop t] pops what D[tapePush t x] pushed: the dual of the primal's value.
    if (PRIMS[e.op].resultFromNode !== undefined) {
      const args = e.args.map((a) => this.atom(a, b));
      return b.bind(dualName(name, e.type), { kind: "prim", op: e.op, args, type: dualType(e.type) });
    }
    if (rule.kind === "structural")
      return b.bind(
        dualName(name, e.type),
        mkPrim(
          e.op,
          e.args.map((a) => this.atom(a, b)),
          e.span,
        ),
      );
    // Operands: a literal is its own primal with tangent 0; an Index or Bool is its own dual.
    const parts = e.args.map((a): readonly [Atom, Atom] =>
      a.kind === "lit" ? [a, ZERO] : a.type.k === "double" ? this.split(this.atom(a, b), b) : [this.atom(a, b), ZERO],
    );
    const primals = parts.map(([p]) => p);
    // A tangent operation of an inner derivative keeps its symbolic-zero semantics as a primal of this one.
    const y =
      e.tangent === undefined
        ? b.prim(e.op, primals, name, e.span)
        : b.bind(name, { ...mkPrim(e.op, primals, e.span), tangent: e.tangent });
    if (e.type.k !== "double") return y; // an Index or Bool result: no tangent
    const tangents = parts.map(([, t]) => t);
    const tname = `d${name}`;
    switch (rule.kind) {
      case "zero-tangent":
        return this.pair(y, ZERO, b, name);
      case "select": {
        const [ta, tb] = tangents as [Atom, Atom];
        if (isZero(ta) && isZero(tb)) return this.pair(y, ZERO, b, name);
        const t = b.if(
          rule.firstChosen(primals, b),
          () => ta,
          () => tb,
          tname,
        );
        return this.pair(y, t, b, name);
      }
      case "partials": {
        // The partial of a marked product by its other operand is its tangent operand: the term is a product of two
        // tangents, a symbolic zero when either is (the product is 0 when its tangent is, so is its derivative).
        const bilinear = (i: number) => e.op === "mul" && e.tangent !== undefined && e.tangent !== i;
        const terms = rule.partials.flatMap((p, i) =>
          isZero(tangents[i]!) || p.constant
            ? []
            : [this.term(p, primals, y, tangents[i]!, b, tname, bilinear(i) ? "both" : true)],
        );
        return this.pair(y, sumTerms(terms, b, tname, true), b, name);
      }
      case "no-tangent":
        throw new Error(`forward: ${e.op} has a Double result but no tangent rule`);
    }
  }

  /** ∂f/∂aᵢ · ȧᵢ; a guarded partial is formed only when ȧᵢ is not zero. */
  private term(
    p: Partial,
    primals: readonly Atom[],
    y: Atom,
    t: Atom,
    b: AnfBuilder,
    name: string,
    mark: Mark,
  ): { term: Atom; negate: boolean } {
    if (!p.guarded) return scaleTerm(p.scale(primals, y, b), t, b, name, mark);
    const term = b.if(
      b.prim("eq", [t, ZERO], "still"),
      () => ZERO,
      (bb) => {
        const s = scaleTerm(p.scale(primals, y, bb), t, bb, name, mark);
        return s.negate ? bb.prim("neg", [s.term], name) : s.term;
      },
      name,
    );
    return { term, negate: false };
  }
}
