// Copying expressions: substitution of atoms for variables, and copies with fresh binders.
//
// Substitution never captures: binder ids are unique in a function, and an atom substituted for a variable is in scope
// wherever that variable is (the callers substitute a variable by an atom bound outside its scope). A copy that may
// end up in the same function as the original (inlining a lambda body, fusing a build body into each of its uses)
// must use `copyFresh`, which gives every binder inside a new id and so keeps binders unique.

import { mapNode } from "./free.js";
import { renameVar, type Atom, type Expr, type IrFunction, type Let, type Var } from "./ir.js";
import { compileWork } from "./work.js";

/**
 * `e` with each free variable whose id is in `subst` replaced by its atom. Binders are kept, and so is every subtree
 * in which nothing is replaced (the same objects: the IR is immutable, and copying them was a visible part of
 * compile time).
 */
export function substitute(e: Expr, subst: ReadonlyMap<number, Atom>): Expr {
  if (subst.size === 0) return e;
  return new Substituter(subst).expr(e);
}

class Substituter {
  constructor(private readonly map: ReadonlyMap<number, Atom>) {}

  private readonly atom = (a: Atom): Atom => (a.kind === "lit" ? a : (this.map.get(a.id) ?? a));
  private readonly scope = (e: Expr): Expr => this.expr(e);

  expr(e: Expr): Expr {
    compileWork.nodes++;
    if (e.kind !== "let") return mapNode(e, this.atom, this.scope);
    // Iterative over the chain; the unchanged end of the chain is kept as it is.
    const lets: Let[] = [];
    const rhss: Expr[] = [];
    let cur: Expr = e;
    for (; cur.kind === "let"; cur = cur.body) {
      lets.push(cur);
      rhss.push(this.expr(cur.rhs));
    }
    let out = this.expr(cur);
    let same = out === cur;
    for (let i = lets.length - 1; i >= 0; i--) {
      const l = lets[i]!;
      same &&= rhss[i] === l.rhs;
      out = same ? l : { kind: "let", v: l.v, rhs: rhss[i]!, body: out };
    }
    return out;
  }
}

/** A copy of `e` in which every binder is fresh, and free variables in `subst` are replaced by their atoms. */
export function copyFresh(e: Expr, subst: ReadonlyMap<number, Atom> = new Map()): Expr {
  return new Copier(subst, true).expr(e);
}

/** A copy of a function with fresh parameters and binders (for reusing a function body in another one). */
export function copyFunction(fn: IrFunction, name = fn.name): IrFunction {
  const c = new Copier(new Map(), true);
  const params = fn.params.map((p) => c.binder(p));
  return { ...fn, name, params, body: c.expr(fn.body) };
}

class Copier {
  private readonly map: Map<number, Atom>;

  constructor(
    subst: ReadonlyMap<number, Atom>,
    private readonly fresh: boolean,
  ) {
    this.map = new Map(subst);
  }

  binder(v: Var): Var {
    if (!this.fresh) return v;
    const w = renameVar(v);
    this.map.set(v.id, w);
    return w;
  }

  atom<A extends Atom>(a: A): A | Atom {
    if (a.kind === "lit") return a;
    return this.map.get(a.id) ?? a;
  }

  private atoms(as: readonly Atom[]): Atom[] {
    return as.map((a) => this.atom(a));
  }

  expr(e: Expr): Expr {
    compileWork.nodes++;
    switch (e.kind) {
      case "var":
      case "lit":
        return this.atom(e);
      case "let": {
        // Iterative over the chain: rhs first (it cannot see its own binder), then the binder for the rest.
        const bindings: { v: Var; rhs: Expr }[] = [];
        let cur: Expr = e;
        while (cur.kind === "let") {
          const rhs = this.expr(cur.rhs);
          bindings.push({ v: this.binder(cur.v), rhs });
          cur = cur.body;
        }
        let out = this.expr(cur);
        for (let i = bindings.length - 1; i >= 0; i--)
          out = { kind: "let", v: bindings[i]!.v, rhs: bindings[i]!.rhs, body: out };
        return out;
      }
      case "prim":
      case "call":
        return { ...e, args: this.atoms(e.args) };
      case "tuple":
        return { ...e, elems: this.atoms(e.elems) };
      case "proj":
        return { ...e, arg: this.atom(e.arg) };
      case "app":
        return { ...e, fn: this.atom(e.fn), arg: this.atom(e.arg) };
      case "jvp":
        return { ...e, fn: this.atom(e.fn) };
      case "lam": {
        const param = this.binder(e.param);
        return { ...e, param, body: this.expr(e.body) };
      }
      case "if":
        return { ...e, cond: this.atom(e.cond), then: this.expr(e.then), else: this.expr(e.else) };
      case "build": {
        const size = this.atom(e.size);
        const index = this.binder(e.index);
        return { ...e, size, index, body: this.expr(e.body) };
      }
      case "ifold": {
        const init = this.atom(e.init);
        const count = this.atom(e.count);
        const acc = this.binder(e.acc);
        const index = this.binder(e.index);
        return { ...e, init, count, acc, index, body: this.expr(e.body) };
      }
      case "while": {
        const init = this.atom(e.init);
        const acc = this.binder(e.acc);
        return { ...e, init, acc, cond: this.expr(e.cond), body: this.expr(e.body) };
      }
      case "custom":
        return { ...e, fn: this.atom(e.fn), rules: this.atoms(e.rules) };
    }
  }
}
