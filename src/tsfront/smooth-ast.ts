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

/** A value of type t that stands for "no elements": 0, false, empty arrays, and tuples of these. */
function zeroOf(t: TsType, span: Span): Expr {
  switch (t.k) {
    case "int":
      return num(0, span);
    case "bool":
      return bool(false, span);
    case "array":
      return emptyArray(t.elem, span);
    case "record":
      return tuple(
        t.fields.map((f) => zeroOf(f, span)),
        span,
      );
    case "tuple":
      return tuple(
        t.elems.map((f) => zeroOf(f, span)),
        span,
      );
    case "fn":
      return tuple(
        t.parts.map((f) => zeroOf(f, span)),
        span,
      );
    default:
      return dbl(0, span);
  }
}

/** An array with no elements, of elements of type `elem`: `build 0 (fun _ -> 0.)`. */
export function emptyArray(elem: TsType, span: Span): Expr {
  return app("build", [num(0, span), lam([param("_", span)], zeroOf(elem, span), span)], span);
}

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
    case "fn":
      return { kind: "ttuple", elems: t.parts.map((f) => annotation(f, span)), span };
    case "unset":
      throw new Error("annotation: an unassigned variable has no type");
    case "nothing":
      return { kind: "tname", name: "Double", span };
  }
}

/** Each child slot of `e`, replaced by what `f` makes of it. */
function mapChildren(e: Expr, f: (x: Expr) => Expr): void {
  switch (e.kind) {
    case "var":
    case "num":
    case "bool":
    case "opfun":
      return;
    case "typed":
      e.expr = f(e.expr);
      return;
    case "tuple":
      e.elems = e.elems.map(f);
      return;
    case "binop":
      e.left = f(e.left);
      e.right = f(e.right);
      return;
    case "unop":
      e.arg = f(e.arg);
      return;
    case "app":
      e.fn = f(e.fn);
      e.arg = f(e.arg);
      return;
    case "index":
      e.array = f(e.array);
      e.index = f(e.index);
      return;
    case "lam":
      e.body = f(e.body);
      return;
    case "if":
      e.cond = f(e.cond);
      e.then = f(e.then);
      e.else = f(e.else);
      return;
    case "let":
      e.value = f(e.value);
      e.body = f(e.body);
      return;
    case "letrec":
      e.bindings = e.bindings.map((b) => ({ ...b, value: f(b.value) as typeof b.value }));
      e.body = f(e.body);
  }
}

const copyPattern = (p: Pattern): Pattern => (p.kind === "pvar" ? { ...p } : { ...p, elems: p.elems.map(copyPattern) });

/** A node copied with the binders it holds (the checker may keep a type per binder too); children are shared. */
function copy(e: Expr): Expr {
  if (e.kind === "let") return { ...e, pattern: copyPattern(e.pattern) };
  if (e.kind === "lam") return { ...e, params: e.params.map((p) => ({ ...p })) };
  return { ...e };
}

/**
 * The expression as a tree: a node the translation used in several places (a literal or variable standing for a
 * TypeScript variable, read twice) is copied at each further place. The type checker keeps a type per node, so one
 * node shared by two places — the literal `3` of `const k = 3` in `double 3` (an Index) and in `3 > 1` (a Double
 * by default) — would get one of their types at both. Walked from an explicit stack: the tree nests as deep as the
 * program.
 */
export function unshare(root: Expr): Expr {
  const seen = new Set<Expr>();
  const work: Expr[] = [];
  const place = (e: Expr): Expr => {
    // A copy's children are themselves seen, so they are copied when the copy's slots are placed.
    const node = seen.has(e) ? copy(e) : e;
    seen.add(node);
    work.push(node);
    return node;
  };
  const top = place(root);
  while (work.length > 0) mapChildren(work.pop()!, place);
  return top;
}
