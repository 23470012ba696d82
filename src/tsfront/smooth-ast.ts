// Building Smooth's surface syntax tree (src/syntax/ast.ts) from the translator: every node carries the span of the
// TypeScript it comes from, so the type checker's messages point into the user's TypeScript.

import type { BinaryOp, Expr, Param, Pattern, TypeAnn } from "../syntax/ast.js";
import type { Span } from "../syntax/source.js";
import type { TsType } from "./ts-types.js";

export const v = (name: string, span: Span): Expr => ({ kind: "var", name, span });

export const num = (value: number, span: Span): Expr => {
  if (Number.isInteger(value) && Object.is(value, -0) === false && Math.abs(value) < 2 ** 31)
    return { kind: "num", value, isInt: true, span };
  if (Number.isFinite(value))
    return value < 0 ? neg(num(-value, span), span) : { kind: "num", value, isInt: false, span };
  // Infinity and NaN are quotients: the language has no literal for them.
  const q = (a: number): Expr =>
    binop("/", { kind: "num", value: a, isInt: false, span }, { kind: "num", value: 0, isInt: false, span }, span);
  return Number.isNaN(value) ? q(0) : value > 0 ? q(1) : neg(q(1), span);
};

export const dbl = (value: number, span: Span): Expr =>
  Number.isFinite(value) && !Object.is(value, -0) && value >= 0
    ? { kind: "num", value, isInt: false, span }
    : num(value, span);

export const bool = (value: boolean, span: Span): Expr => ({ kind: "bool", value, span });

export const app = (fn: Expr | string, args: readonly Expr[], span: Span): Expr =>
  args.reduce<Expr>((f, arg) => ({ kind: "app", fn: f, arg, span }), typeof fn === "string" ? v(fn, span) : fn);

export const binop = (op: BinaryOp, left: Expr, right: Expr, span: Span): Expr => ({
  kind: "binop",
  op,
  left,
  right,
  span,
  opSpan: span,
});

export const neg = (arg: Expr, span: Span): Expr => ({ kind: "unop", op: "-", arg, span });
export const not = (arg: Expr, span: Span): Expr => ({ kind: "unop", op: "not", arg, span });

export const ifte = (cond: Expr, then: Expr, els: Expr, span: Span): Expr => ({
  kind: "if",
  cond,
  then,
  else: els,
  span,
});

/** A tuple (an object or a JS array used as a tuple; one of one element is an object of one key). */
export const tuple = (elems: readonly Expr[], span: Span): Expr => ({ kind: "tuple", elems: [...elems], span });

export const index = (array: Expr, i: Expr, span: Span): Expr => ({ kind: "index", array, index: i, span });

export const pvar = (name: string, span: Span): Pattern => ({ kind: "pvar", name, span });

export const ptuple = (names: readonly string[], span: Span): Pattern => ({
  kind: "ptuple",
  elems: names.map((n) => pvar(n, span)),
  span,
});

export const letIn = (pattern: Pattern, value: Expr, body: Expr, span: Span, annot?: TypeAnn): Expr => ({
  kind: "let",
  pattern,
  value,
  body,
  span,
  ...(annot ? { annot } : {}),
});

export const lam = (params: readonly Param[], body: Expr, span: Span): Expr => ({
  kind: "lam",
  params: [...params],
  body,
  span,
});

export const param = (name: string, span: Span, type?: TsType): Param => ({
  name,
  span,
  ...(type ? { annot: annotation(type, span) } : {}),
});

/** The Smooth type annotation of a translator type. */
export function annotation(t: TsType, span: Span): TypeAnn {
  switch (t.k) {
    case "double":
      return { kind: "tname", name: "Double", span };
    case "int":
      return { kind: "tname", name: "Index", span };
    case "bool":
      return { kind: "tname", name: "Bool", span };
    case "array":
      return { kind: "tarray", elem: annotation(t.elem, span), span };
    case "record":
      return { kind: "ttuple", elems: t.fields.map((f) => annotation(f, span)), span };
    case "tuple":
      return { kind: "ttuple", elems: t.elems.map((f) => annotation(f, span)), span };
    case "unset":
      throw new Error("annotation: an unassigned variable has no type");
  }
}
