// The surface syntax tree produced by the parser. Built-in functions (build, ifold, get, length, fst, snd, sin, ...)
// are ordinary variables here; the type checker resolves them. Operators keep their own node so errors can point at
// them.

import type { Span } from "./source.js";

export type BinaryOp = "+" | "-" | "*" | "/" | "**" | "<" | ">" | "<=" | ">=" | "=" | "<>" | "&&" | "||";
export type UnaryOp = "-" | "not";

/** A type annotation as written: `Double`, `Vector`, `Array<Index>`, `Double * Vector`, `Vector -> Double`. */
export type TypeAnn =
  | { kind: "tname"; name: string; span: Span } // Double Index Card Bool Vector Matrix
  | { kind: "tarray"; elem: TypeAnn; span: Span }
  | { kind: "ttuple"; elems: TypeAnn[]; span: Span }
  | { kind: "tfun"; param: TypeAnn; result: TypeAnn; span: Span };

export interface Param {
  name: string;
  annot?: TypeAnn;
  span: Span;
}

/** `let x = ...` or `let (a, b) = ...` */
export type Pattern = { kind: "pvar"; name: string; span: Span } | { kind: "ptuple"; elems: Pattern[]; span: Span };

export type Expr =
  | { kind: "var"; name: string; span: Span }
  /** `isInt`: written without a fraction or exponent ("3"), so it can serve as Index or Double. */
  | { kind: "num"; value: number; isInt: boolean; span: Span }
  | { kind: "bool"; value: boolean; span: Span }
  | { kind: "lam"; params: Param[]; body: Expr; span: Span }
  /** Curried application of one argument: `f a b` is app(app(f, a), b). */
  | { kind: "app"; fn: Expr; arg: Expr; span: Span }
  | { kind: "let"; pattern: Pattern; annot?: TypeAnn; value: Expr; body: Expr; span: Span }
  | { kind: "if"; cond: Expr; then: Expr; else: Expr; span: Span }
  /** Two or more elements. */
  | { kind: "tuple"; elems: Expr[]; span: Span }
  | { kind: "binop"; op: BinaryOp; left: Expr; right: Expr; span: Span; opSpan: Span }
  | { kind: "unop"; op: UnaryOp; arg: Expr; span: Span }
  /** `a[i]` */
  | { kind: "index"; array: Expr; index: Expr; span: Span }
  /** An operator used as a function value: `(+)`, `(*)`. */
  | { kind: "opfun"; op: BinaryOp; span: Span }
  /** A type ascription `(e : T)`: e must have type T (the IR printer uses it for literals only a type tells apart). */
  | { kind: "typed"; expr: Expr; annot: TypeAnn; span: Span }
  /** `let rec f = fun ... and g = fun ... in body`: functions that may call themselves and each other. */
  | { kind: "letrec"; bindings: RecBinding[]; body: Expr; span: Span };

/** One function of a `let rec` group: its value is always a lambda (`let rec f x = e` is sugar for `fun x -> e`). */
export interface RecBinding {
  name: string;
  nameSpan: Span;
  annot?: TypeAnn;
  value: Expr & { kind: "lam" };
  span: Span;
}

/** A top-level `let name = value` (also `let name x y = body`, desugared by the parser to a lambda). */
export interface Definition {
  name: string;
  nameSpan: Span;
  annot?: TypeAnn;
  value: Expr;
  span: Span;
  /**
   * Recursive definitions: `"rec"` starts a group (`let rec f = ...`), `"and"` continues the group of the definition
   * before it (`and g = ...`). The functions of a group see each other (and themselves); their value is a lambda.
   */
  rec?: "rec" | "and";
}

export interface Program {
  defs: Definition[];
}

/** The expressions directly inside a surface expression. */
export function surfaceChildren(e: Expr): readonly Expr[] {
  switch (e.kind) {
    case "var":
    case "num":
    case "bool":
    case "opfun":
      return [];
    case "typed":
      return [e.expr];
    case "tuple":
      return e.elems;
    case "binop":
      return [e.left, e.right];
    case "unop":
      return [e.arg];
    case "app":
      return [e.fn, e.arg];
    case "index":
      return [e.array, e.index];
    case "lam":
      return [e.body];
    case "if":
      return [e.cond, e.then, e.else];
    case "let":
      return [e.value, e.body];
    case "letrec":
      return [...e.bindings.map((b) => b.value), e.body];
  }
}
