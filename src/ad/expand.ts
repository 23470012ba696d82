// The forward-ad pass: makes every `jvp f` node disappear into ordinary IR, so the back ends never see one.
//
// `jvp f` can be expanded once f is known to be a lambda: it becomes the duals of the lambda's free variables
// (constants to this derivative) followed by `fun x' -> D[body]` (src/ad/forward.ts). Each round therefore
//  1. inlines (src/opt/inline.ts), so that f is let-bound to its lambda, or to an `if` choosing between functions;
//  2. expands the INNERMOST derivatives: those whose lambda contains no jvp. An inner derivative is expanded before
//     an outer one transforms it, so D never meets a jvp node (nested AD becomes D of ordinary code, paper 000 §3.3).
//     `jvp (if c then g else h)` becomes `if c then jvp g else jvp h`, resolved in later rounds.
// Expansion can create new jvp nodes (a function free in a differentiated lambda becomes `jvp g`), always of smaller
// nesting, so the rounds end. A round that can expand nothing means some `jvp` is applied to a function that is not
// known where it is differentiated (the parameter of a higher-order function that is itself differentiated).

import { AnfBuilder, mkIf, nested } from "../ir/builder.js";
import { someNode } from "../ir/free.js";
import {
  freshVar,
  mkLam,
  mkTuple,
  typeOf,
  type Expr,
  type IrFunction,
  type Jvp,
  type Lam,
  type Var,
} from "../ir/ir.js";
import { printIr } from "../ir/print.js";
import { copyFresh } from "../ir/rename.js";
import { removeDeadLets } from "../opt/dce.js";
import { inlineFunction } from "../opt/inline.js";
import type { Pass } from "../opt/pass.js";
import { fail } from "../syntax/diagnostics.js";
import { showType } from "../types/types.js";
import { cannotFail, forwardTransform } from "./forward.js";
import { ProgramFunctions } from "./functions.js";
import { reverseSweep } from "./reverse.js";
import { reachesTapes } from "./reverse-calls.js";
import { dualType } from "./dual-types.js";
import { doubleRank, innerProduct, overPositions, tangentOf, tangentType } from "./seed.js";
import { expandCustom, floatClosedFunctions, withoutCheckpoints } from "./custom.js";

export const forwardAdPass: Pass = {
  name: "forward-ad",
  run: expandJvps,
  // Derivatives of the program's functions are new functions (./functions.ts).
  wholeProgram: true,
};

const containsJvp = (e: Expr) => someNode(e, (n) => n.kind === "jvp");

/** Bound on rounds, far above any real nesting depth: reaching it is a bug in this pass. */
const MAX_ROUNDS = 1000;

/**
 * A program without jvp nodes: its entry and each of its functions (src/ir/ir.ts `functions`), whose derivatives are
 * added to the program as they are needed (./functions.ts).
 */
export function expandJvps(fn: IrFunction): IrFunction {
  if (fn.functions === undefined || fn.functions.length === 0) return expandFunction(fn, undefined);
  const { functions, ...entry } = fn;
  const table = new ProgramFunctions(functions, expandFunction, new Set([fn.name]));
  const out = expandFunction(entry, table);
  for (const f of functions) table.get(f.name);
  return { ...out, functions: table.all() };
}

/**
 * `fn` without jvp nodes. A function without any is returned unchanged (not even inlined). Otherwise the dead lets
 * the expansion leaves (dual pairs and projections of which only a part is used, the differentiated lambdas) are
 * removed, where removing them cannot hide an error.
 */
function expandFunction(fn: IrFunction, table: ProgramFunctions | undefined): IrFunction {
  if (!containsJvp(fn.body)) return fn;
  for (let round = 0; containsJvp(fn.body); round++) {
    if (round === MAX_ROUNDS) throw new Error(`forward-ad: jvp nodes remain after ${MAX_ROUNDS} rounds in ${fn.name}`);
    fn = inlineFunction(fn, { resolveCustom: false });
    if (!containsJvp(fn.body)) break;
    const expander = new Expander(table);
    const body = expander.scope(fn.body);
    if (expander.expanded === 0) unknownFunction(expander.stuck[0]!);
    fn = { ...fn, body };
  }
  return { ...fn, body: removeDeadLets(fn.body, (_v, rhs) => cannotFail(rhs)).expr };
}

/**
 * `vjp f` for a known lambda f = fun x -> body: `fun x -> fun ct -> (body, the adjoint of x)`, the reverse sweep of
 * the (first-order) body with x the only active variable: f's free variables are constants, as in forward mode.
 */
function reverseLambda(f: Lam, customs: (v: Var) => Expr | undefined, table: ProgramFunctions | undefined): Lam {
  const seedable = doubleRank(f.param.type) !== undefined && tangentType(typeOf(f.body)) !== undefined;
  if (seedable && reachesTapes(f.body, table)) return vjpByForward(f);
  const ct = freshVar("ct", typeOf(f.body));
  const body = nested((b) => {
    const { value, adjoint } = reverseSweep(f.body, [f.param], ct, b, customs, table);
    return mkTuple([value, adjoint(f.param)]);
  });
  return mkLam(f.param, mkLam(ct, body));
}

/**
 * `vjp f` of a lambda whose code keeps tapes (it takes a reverse-mode derivative of a recursive function), which
 * reverse mode does not reverse again: `fun x -> fun ct -> (f x, Jᵀ ct)`, where Jᵀ ct is, over x's scalar positions p,
 * the inner product of ct with the tangent of f at x along the one-hot direction p (forward mode, a `jvp` node the next
 * round expands). One forward sweep per scalar of x; an x of another type is left to reverseSweep's error.
 */
function vjpByForward(f: Lam): Lam {
  const x = freshVar(f.param.name, f.param.type);
  const resultType = typeOf(f.body);
  const ct = freshVar("ct", resultType);
  const body = nested((b) => {
    const g = b.bind("f", f);
    const value = b.app(g, x, "y");
    const dg = b.bind("df", { kind: "jvp", fn: g, type: dualType(g.type) });
    const adjoint = overPositions(
      b,
      x,
      (bb, seed) => innerProduct(bb, ct, tangentOf(bb, bb.app(dg, seed, "dy"), resultType)!, resultType),
      "the argument",
    );
    return mkTuple([value, adjoint]);
  });
  return mkLam(x, mkLam(ct, body));
}

function unknownFunction(node: Jvp): never {
  return fail("unsupported", "cannot differentiate a function that is only known when the program runs", undefined, {
    found: `${printIr(node)} with ${node.fn.kind === "var" ? node.fn.name : "it"} : ${showType(node.fn.type)}`,
    hint: "a function given as an argument to a function that is itself differentiated cannot be differentiated inside it",
  });
}

class Expander {
  /** The right-hand side each let-bound variable had at the start of the round (ids are unique). */
  private readonly defs = new Map<number, Expr>();
  expanded = 0;
  readonly stuck: Jvp[] = [];

  constructor(private readonly table: ProgramFunctions | undefined) {}

  scope(e: Expr): Expr {
    const b = new AnfBuilder();
    return b.finish(this.into(e, b));
  }

  private into(e: Expr, b: AnfBuilder): Expr {
    while (e.kind === "let") {
      this.defs.set(e.v.id, e.rhs);
      b.bindVar(e.v, this.node(e.rhs, b));
      e = e.body;
    }
    return this.node(e, b);
  }

  private node(e: Expr, b: AnfBuilder): Expr {
    switch (e.kind) {
      case "jvp":
        return this.jvp(e, b);
      case "lam":
        return { ...e, body: this.scope(e.body) };
      case "if":
        return { ...e, then: this.scope(e.then), else: this.scope(e.else) };
      case "build":
      case "ifold":
        return { ...e, body: this.scope(e.body) };
      case "while":
        return { ...e, cond: this.scope(e.cond), body: this.scope(e.body) };
      default:
        return e;
    }
  }

  private jvp(e: Jvp, b: AnfBuilder): Expr {
    const def = e.fn.kind === "var" ? this.defs.get(e.fn.id) : undefined;
    if (def?.kind === "lam" && !containsJvp(def.body)) {
      this.expanded++;
      // Custom functions (and the lambdas they use) that capture nothing of the lambda go in front of it, out of a
      // fresh copy. Reverse mode always works on a copy (it binds the lambda's variables again); D does not.
      const copied = e.reverse || someNode(def.body, (n) => n.kind === "custom");
      const fresh = copied ? (copyFresh(def) as Lam) : def;
      const lam = copied ? floatClosedFunctions(e.reverse ? fresh : withoutCheckpoints(fresh), b) : def;
      return b.emit(
        e.reverse
          ? reverseLambda(lam, (v) => this.defs.get(v.id), this.table)
          : forwardTransform(lam, new Map(), this.table),
      );
    }
    if (def?.kind === "custom") {
      this.expanded++;
      return expandCustom(def, e, b);
    }
    if (def?.kind === "if") {
      this.expanded++;
      const branch = (x: Expr) =>
        nested((bb): Expr => {
          const g = bb.bind("f", copyFresh(x));
          return { kind: "jvp", fn: g, type: e.type, ...(e.reverse ? { reverse: true as const } : {}) };
        });
      return mkIf(def.cond, branch(def.then), branch(def.else));
    }
    this.stuck.push(e);
    return e;
  }
}
