// Types during inference: concrete constructors plus mutable type variables (union-find through `ref`).
//
// A type variable carries a numeric flag:
//   "any"  — no constraint;
//   "num"  — must become Double or Index (it came from arithmetic);
//   "lit"  — the type of an integer literal such as `1`: a number that adapts to its context and, when nothing
//            decides, becomes Double (so `if i = j then 1 else 0` builds a Vector).
// Index and Card are one integer type; `card` only remembers which name to show.

import { fail } from "../syntax/diagnostics.js";
import type { Span } from "../syntax/source.js";
import { arrayOf, BOOL, DOUBLE, funOf, INT, TAPE, tupleOf, typeEq, type Type } from "./types.js";

export type NumFlag = "any" | "num" | "lit";

export interface TVar {
  readonly k: "tvar";
  readonly id: number;
  ref: MType | null;
  flag: NumFlag;
  /** The type of a lambda parameter (or unified with one): a literal meeting it does not decide it. */
  param: boolean;
}

export type MType =
  | { readonly k: "double" }
  | { readonly k: "int"; readonly card: boolean }
  | { readonly k: "bool" }
  | { readonly k: "array"; readonly elem: MType }
  | { readonly k: "tuple"; readonly elems: readonly MType[] }
  | { readonly k: "fun"; readonly param: MType; readonly result: MType }
  | { readonly k: "tape" }
  | TVar;

export const M_DOUBLE: MType = { k: "double" };
export const M_INDEX: MType = { k: "int", card: false };
export const M_CARD: MType = { k: "int", card: true };
export const M_BOOL: MType = { k: "bool" };
export const M_TAPE: MType = { k: "tape" };
export const mArray = (elem: MType): MType => ({ k: "array", elem });
export const mTuple = (elems: readonly MType[]): MType => ({ k: "tuple", elems });
export const mFun = (param: MType, result: MType): MType => ({ k: "fun", param, result });
export const mFuns = (params: readonly MType[], result: MType): MType =>
  params.reduceRight<MType>((acc, p) => mFun(p, acc), result);

let nextTVar = 1;
export function freshTVar(flag: NumFlag = "any", param = false): TVar {
  return { k: "tvar", id: nextTVar++, ref: null, flag, param };
}

export function prune(t: MType): MType {
  while (t.k === "tvar" && t.ref !== null) t = t.ref;
  return t;
}

export const isNumeric = (t: MType): boolean => t.k === "double" || t.k === "int";

function occurs(v: TVar, t: MType): boolean {
  t = prune(t);
  switch (t.k) {
    case "tvar":
      return t === v;
    case "array":
      return occurs(v, t.elem);
    case "tuple":
      return t.elems.some((e) => occurs(v, e));
    case "fun":
      return occurs(v, t.param) || occurs(v, t.result);
    default:
      return false;
  }
}

/** Why two types failed to unify; the caller turns it into a located message. */
export class UnifyError extends Error {
  constructor(readonly reason: string) {
    super(reason);
  }
}

function bindVar(v: TVar, t: MType): void {
  if (t.k === "tvar") {
    // The surviving variable inherits the stronger numeric constraint: "num" beats "lit" beats "any". A literal that
    // meets a function parameter's type makes it numeric but not defaultable, so `fun x -> x + 1` stays polymorphic;
    // a literal flowing through a polymorphic builtin (`build n (fun j -> 1)`) stays a literal and defaults to Double.
    t.param ||= v.param;
    if (v.flag === "num" || t.flag === "num") t.flag = "num";
    else if (v.flag === "lit" || t.flag === "lit") t.flag = t.param ? "num" : "lit";
    v.ref = t;
    return;
  }
  if (v.flag !== "any" && !isNumeric(t)) throw new UnifyError(`a number is needed here, not ${showMType(t)}`);
  if (occurs(v, t)) throw new UnifyError("this would make an infinite type");
  v.ref = t;
}

/** Unify or throw UnifyError. */
export function unifyRaw(a: MType, b: MType): void {
  a = prune(a);
  b = prune(b);
  if (a === b) return;
  if (a.k === "tvar") return bindVar(a, b);
  if (b.k === "tvar") return bindVar(b, a);
  if (a.k !== b.k) throw new UnifyError("");
  switch (a.k) {
    case "double":
    case "int":
    case "bool":
    case "tape":
      return;
    case "array":
      return unifyRaw(a.elem, (b as typeof a).elem);
    case "tuple": {
      const bt = b as typeof a;
      if (a.elems.length !== bt.elems.length) throw new UnifyError("");
      a.elems.forEach((e, i) => unifyRaw(e, bt.elems[i]!));
      return;
    }
    case "fun": {
      const bf = b as typeof a;
      unifyRaw(a.param, bf.param);
      unifyRaw(a.result, bf.result);
      return;
    }
  }
}

/** Unify `found` with `expected`, or report a type error at `span`. */
export function expectType(found: MType, expected: MType, span: Span, what: string): void {
  try {
    unifyRaw(found, expected);
  } catch (e) {
    if (!(e instanceof UnifyError)) throw e;
    const names = new TypeNamer();
    fail("type", e.reason ? `${what}: ${e.reason}` : what, span, {
      expected: names.show(expected),
      found: names.show(found),
    });
  }
}

/** Shows types with readable variable names ('a, 'b, ...), consistent across the calls of one namer. */
export class TypeNamer {
  private readonly names = new Map<TVar, string>();

  nameOf(v: TVar): string {
    let n = this.names.get(v);
    if (n === undefined) {
      const i = this.names.size;
      n = "'" + String.fromCharCode(97 + (i % 26)) + (i >= 26 ? String(Math.floor(i / 26)) : "");
      this.names.set(v, n);
    }
    return n;
  }

  show(t: MType, prec = 0): string {
    t = prune(t);
    switch (t.k) {
      case "tvar":
        return this.nameOf(t);
      case "double":
        return "Double";
      case "int":
        return t.card ? "Card" : "Index";
      case "bool":
        return "Bool";
      case "tape":
        return "Tape";
      case "array": {
        const e = prune(t.elem);
        if (e.k === "double") return "Vector";
        if (e.k === "array" && prune(e.elem).k === "double") return "Matrix";
        return `Array<${this.show(e, 0)}>`;
      }
      case "tuple": {
        const s = t.elems.map((e) => this.show(e, 2)).join(" * ");
        return prec >= 2 ? `(${s})` : s;
      }
      case "fun": {
        const s = `${this.show(t.param, 1)} -> ${this.show(t.result, 0)}`;
        return prec >= 1 ? `(${s})` : s;
      }
    }
  }

  /** Type with its numeric constraints spelled out: "Num 'a => Array<'a> -> 'a". */
  showScheme(t: MType): string {
    const body = this.show(t);
    const numeric = freeTVars(t).filter((v) => v.flag !== "any");
    if (numeric.length === 0) return body;
    return `${numeric.map((v) => `Num ${this.nameOf(v)}`).join(", ")} => ${body}`;
  }
}

export function showMType(t: MType): string {
  return new TypeNamer().show(t);
}

export function freeTVars(t: MType, out: TVar[] = []): TVar[] {
  t = prune(t);
  switch (t.k) {
    case "tvar":
      if (!out.includes(t)) out.push(t);
      break;
    case "array":
      freeTVars(t.elem, out);
      break;
    case "tuple":
      t.elems.forEach((e) => freeTVars(e, out));
      break;
    case "fun":
      freeTVars(t.param, out);
      freeTVars(t.result, out);
      break;
  }
  return out;
}

/** A polymorphic type: `generics` are the variables instantiated afresh at every use. */
export interface Scheme {
  readonly generics: readonly TVar[];
  readonly type: MType;
}

export const monoScheme = (type: MType): Scheme => ({ generics: [], type });

export function instantiate(s: Scheme): MType {
  if (s.generics.length === 0) return s.type;
  const map = new Map<TVar, MType>(s.generics.map((g) => [g, freshTVar(g.flag === "any" ? "any" : "num")]));
  return substitute(s.type, map);
}

export function substitute(t: MType, map: ReadonlyMap<TVar, MType>): MType {
  t = prune(t);
  switch (t.k) {
    case "tvar":
      return map.get(t) ?? t;
    case "array":
      return mArray(substitute(t.elem, map));
    case "tuple":
      return mTuple(t.elems.map((e) => substitute(e, map)));
    case "fun":
      return mFun(substitute(t.param, map), substitute(t.result, map));
    default:
      return t;
  }
}

/**
 * The concrete type of `t` once the generic variables are given by `subst`. A variable left unconstrained by the
 * whole program (its value never reaches anything that decides its type) becomes Double.
 */
export function concretize(t: MType, subst: ReadonlyMap<TVar, Type>): Type {
  t = prune(t);
  switch (t.k) {
    case "tvar":
      return subst.get(t) ?? DOUBLE;
    case "double":
      return DOUBLE;
    case "int":
      return INT;
    case "bool":
      return BOOL;
    case "tape":
      return TAPE;
    case "array":
      return arrayOf(concretize(t.elem, subst));
    case "tuple":
      return tupleOf(t.elems.map((e) => concretize(e, subst)));
    case "fun":
      return funOf(concretize(t.param, subst), concretize(t.result, subst));
  }
}

/** Match a scheme's (generic) type against a concrete type, extending `subst`; false when they do not fit. */
export function matchConcrete(t: MType, c: Type, subst: Map<TVar, Type>): boolean {
  t = prune(t);
  switch (t.k) {
    case "tvar": {
      const have = subst.get(t);
      if (have) return typeEq(have, c);
      if (t.flag !== "any" && c.k !== "double" && c.k !== "int") return false;
      subst.set(t, c);
      return true;
    }
    case "array":
      return c.k === "array" && matchConcrete(t.elem, c.elem, subst);
    case "tuple":
      return (
        c.k === "tuple" &&
        c.elems.length === t.elems.length &&
        t.elems.every((e, i) => matchConcrete(e, c.elems[i]!, subst))
      );
    case "fun":
      return c.k === "fun" && matchConcrete(t.param, c.param, subst) && matchConcrete(t.result, c.result, subst);
    default:
      return t.k === c.k;
  }
}

/** A concrete type as an inference type (used when specialising an entry point to its arguments' types). */
export function fromConcrete(t: Type): MType {
  switch (t.k) {
    case "double":
      return M_DOUBLE;
    case "int":
      return M_INDEX;
    case "bool":
      return M_BOOL;
    case "tape":
      return M_TAPE;
    case "array":
      return mArray(fromConcrete(t.elem));
    case "tuple":
      return mTuple(t.elems.map(fromConcrete));
    case "fun":
      return mFun(fromConcrete(t.param), fromConcrete(t.result));
  }
}
