// Typed node constructors and an A-normal-form builder. Passes and tests build IR through these so that every node's
// type is computed in one place (from src/prims for primitives) and lets come out flat.
//
//   const b = new AnfBuilder();
//   const t = b.prim("mul", [x, y], "t");
//   return b.finish(b.prim("add", [t, one]));

import type { Span } from "../syntax/source.js";
import { arrayOf, BOOL, DOUBLE, INT, showType, typeEq, type Type } from "../types/types.js";
import type { PrimName } from "../prims/names.js";
import { PRIMS } from "../prims/table.js";
import {
  freshVar,
  isAtom,
  lit,
  mkLam,
  mkLet,
  mkTuple,
  typeOf,
  type App,
  type Atom,
  type Build,
  type Expr,
  type If,
  type Ifold,
  type Lit,
  type Prim,
  type Proj,
  type Var,
  type While,
} from "./ir.js";

export const litDouble = (x: number): Lit => lit(x, DOUBLE);
export const litIndex = (n: number): Lit => lit(n, INT);
export const litBool = (b: boolean): Lit => lit(b, BOOL);

// The constructors below throw plain Errors on ill-typed input: building ill-typed IR is a compiler bug, not a user
// error (users' type errors are reported by the type checker before any IR exists).

export function mkPrim(op: PrimName, args: readonly Atom[], span?: Span): Prim {
  const rule = PRIMS[op];
  if (args.length !== rule.arity) throw new Error(`mkPrim ${op}: expected ${rule.arity} arguments, got ${args.length}`);
  const t = rule.type(
    args.map((a) => a.type),
    args.map((a) => (a.kind === "lit" ? a.value : undefined)),
  );
  if (!("k" in t))
    throw new Error(
      `mkPrim ${op}: argument types ${args.map((a) => showType(a.type)).join(", ")}; expected ${t.expected}`,
    );
  return span === undefined ? { kind: "prim", op, args, type: t } : { kind: "prim", op, args, type: t, span };
}

/** `tapePop t`, popping a value of type `popped` (src/prims/tape.ts: only the node knows what it pops). */
export function mkTapePop(tape: Atom, popped: Type): Prim {
  if (tape.type.k !== "tape") throw new Error(`mkTapePop: a ${showType(tape.type)} is not a tape`);
  return { kind: "prim", op: "tapePop", args: [tape], type: { k: "tuple", elems: [popped, tape.type] } };
}

export function mkProj(index: number, arg: Atom): Proj {
  const t = arg.type;
  if (t.k !== "tuple" || index < 0 || index >= t.elems.length) {
    throw new Error(`mkProj ${index}: argument of type ${showType(t)}`);
  }
  return { kind: "proj", index, arg, type: t.elems[index]! };
}

export function mkApp(fn: Atom, arg: Atom): App {
  const t = fn.type;
  if (t.k !== "fun" || !typeEq(t.param, arg.type)) {
    throw new Error(`mkApp: cannot apply ${showType(t)} to ${showType(arg.type)}`);
  }
  return { kind: "app", fn, arg, type: t.result };
}

export function mkIf(cond: Atom, then: Expr, els: Expr): If {
  const t = typeOf(then);
  if (cond.type.k !== "bool") throw new Error(`mkIf: condition of type ${showType(cond.type)}`);
  if (!typeEq(t, typeOf(els))) throw new Error(`mkIf: branches of types ${showType(t)} and ${showType(typeOf(els))}`);
  return { kind: "if", cond, then, else: els, type: t };
}

export function mkBuild(size: Atom, index: Var, body: Expr, span?: Span): Build {
  if (size.type.k !== "int" || index.type.k !== "int") throw new Error("mkBuild: size and index must be Index");
  const node: Build = { kind: "build", size, index, body, type: arrayOf(typeOf(body)) };
  return span === undefined ? node : { ...node, span };
}

export function mkIfold(init: Atom, count: Atom, acc: Var, index: Var, body: Expr, span?: Span): Ifold {
  if (count.type.k !== "int" || index.type.k !== "int") throw new Error("mkIfold: count and index must be Index");
  if (!typeEq(init.type, acc.type) || !typeEq(acc.type, typeOf(body))) {
    throw new Error(`mkIfold: init ${showType(init.type)}, acc ${showType(acc.type)}, body ${showType(typeOf(body))}`);
  }
  const node: Ifold = { kind: "ifold", init, count, acc, index, body, type: acc.type };
  return span === undefined ? node : { ...node, span };
}

export function mkWhile(init: Atom, acc: Var, cond: Expr, body: Expr, span?: Span): While {
  if (!typeEq(init.type, acc.type) || !typeEq(acc.type, typeOf(body)) || typeOf(cond).k !== "bool") {
    throw new Error(
      `mkWhile: init ${showType(init.type)}, acc ${showType(acc.type)}, cond ${showType(typeOf(cond))}, body ${showType(typeOf(body))}`,
    );
  }
  const node: While = { kind: "while", init, acc, cond, body, type: acc.type };
  return span === undefined ? node : { ...node, span };
}

export interface Binding {
  readonly v: Var;
  readonly rhs: Expr;
}

/** `let b1 in let b2 in ... tail`, built without recursion (chains can be long). */
export function wrapLets(bindings: readonly Binding[], tail: Expr): Expr {
  let e = tail;
  for (let i = bindings.length - 1; i >= 0; i--) e = mkLet(bindings[i]!.v, bindings[i]!.rhs, e);
  return e;
}

/** Splits a let chain into its bindings and its (non-let) tail. */
export function splitLets(e: Expr): { bindings: Binding[]; tail: Expr } {
  const bindings: Binding[] = [];
  while (e.kind === "let") {
    bindings.push({ v: e.v, rhs: e.rhs });
    e = e.body;
  }
  return { bindings, tail: e };
}

/**
 * A loop body as its lets and its step: like splitLets, but a tail that only names the last let's value
 * (`let r = e in r`) gives e as the step, without that let.
 */
export function splitStep(e: Expr): { bindings: Binding[]; step: Expr } {
  const { bindings, tail } = splitLets(e);
  const last = bindings[bindings.length - 1];
  if (tail.kind === "var" && last !== undefined && last.v.id === tail.id)
    return { bindings: bindings.slice(0, -1), step: last.rhs };
  return { bindings, step: tail };
}

/**
 * Accumulates a flat chain of lets. `bind` names a right-hand side and returns an atom for it; `finish` closes the
 * chain around a result. Right-hand sides that are themselves let chains are flattened on the way in.
 */
export class AnfBuilder {
  private readonly bindings: Binding[] = [];
  private finished = false;

  /** Binds `rhs` to a fresh variable named `name` (an atom is returned as is: there is nothing to name). */
  bind(name: string, rhs: Expr): Atom {
    const tail = this.emit(rhs);
    if (isAtom(tail)) return tail;
    const v = freshVar(name, typeOf(tail));
    this.bindings.push({ v, rhs: tail });
    return v;
  }

  /** Emits `let v = rhs` with the given binder (flattening `rhs` if it is a let chain). */
  bindVar(v: Var, rhs: Expr): void {
    this.bindings.push({ v, rhs: this.emit(rhs) });
  }

  /**
   * When `a` is the variable of the last binding emitted, rebinds that right-hand side to `v` instead and returns true.
   * Passes use it for `let v = a`, keeping the name the user gave (`let m = vectorMax v`) rather than the callee's
   * temporary; the caller must then replace later uses of `a` by `v`.
   */
  rebindLast(a: Atom, v: Var): boolean {
    this.check();
    const last = this.bindings[this.bindings.length - 1];
    if (a.kind !== "var" || last === undefined || last.v.id !== a.id || !typeEq(last.v.type, v.type)) return false;
    this.bindings[this.bindings.length - 1] = { v, rhs: last.rhs };
    return true;
  }

  /** Emits the leading lets of `e` and returns its tail, which is never a let. */
  emit(e: Expr): Expr {
    this.check();
    while (e.kind === "let") {
      this.bindings.push({ v: e.v, rhs: e.rhs });
      e = e.body;
    }
    return e;
  }

  /** The chain of lets emitted so far around `result`. The builder cannot be used afterwards. */
  finish(result: Expr): Expr {
    this.check();
    this.finished = true;
    return wrapLets(this.bindings, result);
  }

  get size(): number {
    return this.bindings.length;
  }

  /** The bindings emitted since the builder had `start` of them (as `size` reported then). */
  bindingsFrom(start: number): readonly Binding[] {
    return this.bindings.slice(start);
  }

  prim(op: PrimName, args: readonly Atom[], name: string = op, span?: Span): Atom {
    return this.bind(name, mkPrim(op, args, span));
  }

  tuple(elems: readonly Atom[], name = "t"): Atom {
    return this.bind(name, mkTuple(elems));
  }

  proj(index: number, arg: Atom, name = "p"): Atom {
    return this.bind(name, mkProj(index, arg));
  }

  app(fn: Atom, arg: Atom, name = "r"): Atom {
    return this.bind(name, mkApp(fn, arg));
  }

  /** `let name = fun paramName -> body in ...`; `body` builds into its own chain. */
  lam(paramName: string, paramType: Type, body: (param: Var, b: AnfBuilder) => Expr, name = "f"): Atom {
    const param = freshVar(paramName, paramType);
    return this.bind(
      name,
      mkLam(
        param,
        nested((b) => body(param, b)),
      ),
    );
  }

  if(cond: Atom, then: (b: AnfBuilder) => Expr, els: (b: AnfBuilder) => Expr, name = "c"): Atom {
    return this.bind(name, mkIf(cond, nested(then), nested(els)));
  }

  build(size: Atom, body: (index: Var, b: AnfBuilder) => Expr, name = "xs", indexName = "i", span?: Span): Atom {
    const index = freshVar(indexName, INT);
    return this.bind(
      name,
      mkBuild(
        size,
        index,
        nested((b) => body(index, b)),
        span,
      ),
    );
  }

  ifold(
    init: Atom,
    count: Atom,
    body: (acc: Var, index: Var, b: AnfBuilder) => Expr,
    name = "s",
    accName = "acc",
    indexName = "i",
    span?: Span,
  ): Atom {
    const acc = freshVar(accName, init.type);
    const index = freshVar(indexName, INT);
    return this.bind(
      name,
      mkIfold(
        init,
        count,
        acc,
        index,
        nested((b) => body(acc, index, b)),
        span,
      ),
    );
  }

  while(
    init: Atom,
    cond: (acc: Var, b: AnfBuilder) => Expr,
    body: (acc: Var, b: AnfBuilder) => Expr,
    name = "s",
    accName = "acc",
    span?: Span,
  ): Atom {
    const acc = freshVar(accName, init.type);
    return this.bind(
      name,
      mkWhile(
        init,
        acc,
        nested((b) => cond(acc, b)),
        nested((b) => body(acc, b)),
        span,
      ),
    );
  }

  private check(): void {
    if (this.finished) throw new Error("AnfBuilder used after finish");
  }
}

/** Builds a nested scope (a lambda, loop or branch body) with its own let chain. */
export function nested(body: (b: AnfBuilder) => Expr): Expr {
  const b = new AnfBuilder();
  return b.finish(body(b));
}
