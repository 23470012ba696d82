// Types of the derivative API (paper 000 §3.1): `jvp f` has type D(a) -> D(b) for f : a -> b, where D is the
// dual-number
// type translation (src/ad/dual-types.ts: Double -> Double * Double, Index and Bool unchanged, structural otherwise).
// D of a type variable cannot be written down, so each use records a constraint `out = D(in)` that is solved as soon
// as `in` is known (after every application, and at the end of the definition). `deriv e x` needs the type of x to be
// Double, Vector or Matrix; its result is D(T), Array<D(T)> or Array<Array<D(T)>>.

import { fail } from "../syntax/diagnostics.js";
import type { Span } from "../syntax/source.js";
import {
  freshTVar,
  M_DOUBLE,
  mArray,
  mFun,
  mTuple,
  prune,
  TypeNamer,
  unifyRaw,
  UnifyError,
  type MType,
} from "./mtype.js";

type Pending =
  | { readonly kind: "dual"; readonly input: MType; readonly output: MType; readonly span: Span }
  | { readonly kind: "deriv"; readonly wrt: MType; readonly body: MType; readonly output: MType; readonly span: Span };

export class DualConstraints {
  private pending: Pending[] = [];

  /** A fresh type standing for D(input). */
  dualOf(input: MType, span: Span): MType {
    const output = freshTVar();
    this.pending.push({ kind: "dual", input, output, span });
    this.solve(false);
    return output;
  }

  /** The type of `deriv e x` with e : body and x : wrt. */
  derivOf(wrt: MType, body: MType, span: Span): MType {
    const output = freshTVar();
    this.pending.push({ kind: "deriv", wrt, body, output, span });
    this.solve(false);
    return output;
  }

  /**
   * Solves what can be solved; true if anything was. With `final`, a numeric type variable still unknown is taken to
   * be Double (the only differentiable number), and anything left unsolved is an error asking for an annotation.
   */
  solve(final: boolean): boolean {
    let progress = false;
    for (let changed = true; changed;) {
      changed = false;
      const still: Pending[] = [];
      for (const c of this.pending) {
        if (this.step(c, final, still)) changed = progress = true;
        else still.push(c);
      }
      this.pending = still;
    }
    if (final && this.pending.length > 0) {
      const c = this.pending[0]!;
      const names = new TypeNamer();
      fail("type", "cannot tell the type of what is being differentiated; add a type annotation", c.span, {
        expected: "Double, Vector, Matrix or another type built from them",
        found: names.show(c.kind === "dual" ? c.input : c.wrt),
      });
    }
    return progress;
  }

  /** Solves one constraint (pushing any sub-constraints onto `out`); false if it must wait. */
  private step(c: Pending, final: boolean, out: Pending[]): boolean {
    if (c.kind === "deriv") {
      const depth = derivDepth(c.wrt, final);
      if (depth === "wait") return false;
      const d = freshTVar();
      out.push({ kind: "dual", input: c.body, output: d, span: c.span });
      if (depth === "bad")
        fail("type", "`deriv e x` differentiates with respect to a Double, a Vector or a Matrix", c.span, {
          expected: "x : Double, Vector or Matrix",
          found: new TypeNamer().show(c.wrt),
        });
      unify(c.output, depth === 0 ? d : depth === 1 ? mArray(d) : mArray(mArray(d)), c.span);
      return true;
    }
    const t = settle(c.input, final);
    switch (t.k) {
      case "tvar":
        return false;
      case "double":
        unify(c.output, mTuple([M_DOUBLE, M_DOUBLE]), c.span);
        return true;
      case "int":
      case "bool":
      case "tape":
        unify(c.output, t, c.span);
        return true;
      case "array": {
        const e = freshTVar();
        unify(c.output, mArray(e), c.span);
        out.push({ kind: "dual", input: t.elem, output: e, span: c.span });
        return true;
      }
      case "tuple": {
        const es = t.elems.map(() => freshTVar());
        unify(c.output, mTuple(es), c.span);
        t.elems.forEach((x, i) => out.push({ kind: "dual", input: x, output: es[i]!, span: c.span }));
        return true;
      }
      case "fun": {
        const p = freshTVar();
        const r = freshTVar();
        unify(c.output, mFun(p, r), c.span);
        out.push({ kind: "dual", input: t.param, output: p, span: c.span });
        out.push({ kind: "dual", input: t.result, output: r, span: c.span });
        return true;
      }
    }
  }
}

/** The pruned type; at the final pass a still-unknown numeric variable becomes Double. */
function settle(t: MType, final: boolean): MType {
  const p = prune(t);
  if (final && p.k === "tvar" && p.flag !== "any") {
    p.ref = M_DOUBLE;
    return M_DOUBLE;
  }
  return p;
}

/** 0 for Double, 1 for Vector, 2 for Matrix; "wait" while the type is not known well enough. */
function derivDepth(t: MType, final: boolean, depth = 0): 0 | 1 | 2 | "wait" | "bad" {
  const p = settle(t, final);
  if (p.k === "tvar") return "wait";
  if (p.k === "double") return depth as 0 | 1 | 2;
  if (p.k === "array" && depth < 2) return derivDepth(p.elem, final, depth + 1);
  return "bad";
}

function unify(a: MType, b: MType, span: Span): void {
  try {
    unifyRaw(a, b);
  } catch (e) {
    if (!(e instanceof UnifyError)) throw e;
    const names = new TypeNamer();
    fail("type", "the derivative does not have the type it is used at", span, {
      expected: names.show(b),
      found: names.show(a),
    });
  }
}
