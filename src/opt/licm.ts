// Loop-invariant code motion: a let at the top of a build or ifold body whose right-hand side uses neither the loop's
// binders nor anything bound in the body before it is moved in front of the loop, so it is computed once rather than
// once per iteration. Inner loops are treated first, so an invariant climbs out of a whole nest, one loop at a time.
//
// What may move (the choice the brief asks to be stated): only right-hand sides that cannot fail (./failure.ts: gets
// provably in range, no Index division by a variable, loops with counts known non-negative...), so a hoisted
// computation never raises an error the loop would not have raised. One relaxation: an expression that can fail only
// when the loop runs (it is itself a loop over the same count, like the primal `ifold` over `length v` inside a
// `build (length v)` of a vectorised derivative) moves too, provided nothing before it in the body can fail, so that
// no other error would have come first. Under that same proviso, an invariant that may fail but costs a loop (or is a
// read that such a loop uses, like the `v[0]` an argmax starts from) moves under the loop's guard:
// `let x = if 0 < n then e else <any value>`, computed once, and only if the loop runs.
// Nothing moves out of a branch of a conditional (a loop inside a branch hoists to the start of that branch only), and
// lambdas are left to the inliner. Moving a computation out of a loop that runs no iteration costs time, not meaning.

import {
  AnfBuilder,
  litBool,
  litDouble,
  litIndex,
  mkBuild,
  mkIf,
  nested,
  splitLets,
  wrapLets,
  type Binding,
} from "../ir/builder.js";
import { freeVars, operands, someNode } from "../ir/free.js";
import { freshVar, mkTuple, type Atom, type Expr, type IrFunction } from "../ir/ir.js";
import { INT, type Type } from "../types/types.js";
import { Facts } from "./facts.js";
import { mayFail } from "./failure.js";
import type { Pass } from "./pass.js";

export function hoistInvariants(fn: IrFunction): { fn: IrFunction; hoisted: number } {
  const l = new Licm();
  return { fn: { ...fn, body: l.scope(fn.body) }, hoisted: l.hoisted };
}

export const licmPass: Pass = {
  name: "licm",
  run: (fn) => hoistInvariants(fn).fn,
};

class Licm {
  private readonly defs = new Map<number, Expr>();
  private readonly facts = new Facts((a) => (a.kind === "var" ? this.defs.get(a.id) : undefined));
  hoisted = 0;

  scope(e: Expr): Expr {
    const b = new AnfBuilder();
    return b.finish(this.into(e, b));
  }

  private into(e: Expr, b: AnfBuilder): Expr {
    while (e.kind === "let") {
      const rhs = this.node(e.rhs, b);
      b.bindVar(e.v, rhs);
      this.defs.set(e.v.id, rhs);
      e = e.body;
    }
    return this.node(e, b);
  }

  private inside(e: Expr, learn: () => void): Expr {
    return this.facts.within(learn, () => this.scope(e));
  }

  /** `e` with the invariants of its loops emitted into `b` (the scope around the loop). */
  private node(e: Expr, b: AnfBuilder): Expr {
    switch (e.kind) {
      case "lam":
        return { ...e, body: this.scope(e.body) };
      case "if":
        return {
          ...e,
          then: this.inside(e.then, () => this.facts.assume(e.cond, true)),
          else: this.inside(e.else, () => this.facts.assume(e.cond, false)),
        };
      case "build":
      case "ifold": {
        const count = e.kind === "build" ? e.size : e.count;
        const inLoop = () => this.facts.enterLoop(e.index, count);
        const body = this.inside(e.body, inLoop);
        // Whether a let of the body can fail where it is (in the loop, knowing its index is in range): asked of the
        // lets that stay, until one can.
        const failsInLoop = (rhs: Expr) => this.facts.within(inLoop, () => mayFail(rhs, this.facts));
        const loopBinders = e.kind === "build" ? [e.index.id] : [e.index.id, e.acc.id];
        return { ...e, body: this.hoist(body, new Set(loopBinders), count, failsInLoop, b) };
      }
      case "while": {
        // The condition runs at least once, the body any number of times (maybe never): only what cannot fail
        // moves out of either.
        const bound = new Set([e.acc.id]);
        const cond = this.hoistSafe(this.scope(e.cond), bound, b);
        const body = this.hoistSafe(this.scope(e.body), bound, b);
        return { ...e, cond, body };
      }
      default:
        return e;
    }
  }

  /** The lets of `body` that use nothing bound in the loop (`bound`, with the body's own lets) and cannot fail. */
  private hoistSafe(body: Expr, bound: Set<number>, b: AnfBuilder): Expr {
    const { bindings, tail } = splitLets(body);
    const kept: Binding[] = [];
    for (const { v, rhs } of bindings) {
      if (!usesAny(rhs, bound) && !mayFail(rhs, this.facts)) {
        b.bindVar(v, rhs);
        this.hoisted++;
        continue;
      }
      kept.push({ v, rhs });
      bound.add(v.id);
    }
    return wrapLets(kept, tail);
  }

  /** The body without its invariant lets, which are emitted into `b` (facts: those in front of the loop). */
  private hoist(body: Expr, bound: Set<number>, count: Atom, failsInLoop: (rhs: Expr) => boolean, b: AnfBuilder): Expr {
    const { bindings, tail } = splitLets(body);
    const kept: Binding[] = [];
    let earlierMayFail = false;
    const countKnown = this.facts.isNonNegative(count);
    const feeds = feedingLoops(bindings);
    for (const { v, rhs } of bindings) {
      const invariant = !usesAny(rhs, bound);
      if (invariant) {
        const safe = !mayFail(rhs, this.facts) || (!earlierMayFail && countKnown && !mayFail(rhs, this.facts, [count]));
        if (safe) {
          b.bindVar(v, rhs);
          this.hoisted++;
          continue;
        }
        // A loop (or a read such as the `v[0]` an inner loop starts from) that may fail is still worth moving, under
        // the loop's own guard: computed only if the loop runs.
        // (Not a value with a tape or function in it: there is no default one to take when the loop does not run.)
        if (
          !earlierMayFail &&
          countKnown &&
          hasDefaultValue(v.type) &&
          (hasLoop(rhs) || (rhs.kind === "prim" && rhs.op === "get" && feeds.has(v.id)))
        ) {
          const runs = b.prim("lt", [litIndex(0), count], "runs");
          b.bindVar(
            v,
            mkIf(
              runs,
              rhs,
              nested((d) => defaultValue(v.type, d)),
            ),
          );
          this.hoisted++;
          continue;
        }
      }
      kept.push({ v, rhs });
      bound.add(v.id);
      if (!earlierMayFail && failsInLoop(rhs)) earlierMayFail = true;
    }
    return wrapLets(kept, tail);
  }
}

/**
 * Whether `e` uses a variable of `bound` (binders are unique, so none of them is bound inside `e`: this is whether
 * one is free in it), stopping at the first: a loop body's lets are asked in turn, and most use the loop's variables.
 */
const usesAny = (e: Expr, bound: ReadonlySet<number>) =>
  someNode(e, (n) => operands(n).some((a) => a.kind === "var" && bound.has(a.id)));

const hasLoop = (e: Expr) => someNode(e, (n) => n.kind === "build" || n.kind === "ifold" || n.kind === "while");

/** The lets of a chain whose values a later loop of the chain uses (directly or through other lets). */
function feedingLoops(bindings: readonly Binding[]): Set<number> {
  const feeds = new Set<number>();
  for (let k = bindings.length - 1; k >= 0; k--) {
    const { v, rhs } = bindings[k]!;
    if (!hasLoop(rhs) && !feeds.has(v.id)) continue;
    for (const id of freeVars(rhs).keys()) feeds.add(id);
  }
  return feeds;
}

function hasDefaultValue(t: Type): boolean {
  switch (t.k) {
    case "fun":
    case "tape":
      return false;
    case "tuple":
      return t.elems.every(hasDefaultValue);
    case "array":
      return hasDefaultValue(t.elem);
    default:
      return true;
  }
}

/** Some value of type `t` (the value of a guarded hoist when its loop does not run: never used). */
function defaultValue(t: Type, b: AnfBuilder): Atom {
  switch (t.k) {
    case "double":
      return litDouble(0);
    case "int":
      return litIndex(0);
    case "bool":
      return litBool(false);
    case "tuple":
      return b.bind("d", mkTuple(t.elems.map((e) => defaultValue(e, b))));
    case "array":
      return b.bind(
        "d",
        mkBuild(
          litIndex(0),
          freshVar("i", INT),
          nested((bb) => defaultValue(t.elem, bb)),
        ),
      );
    case "fun":
    case "tape":
      throw new Error(`licm: a ${t.k}-typed let in a loop body`);
  }
}
