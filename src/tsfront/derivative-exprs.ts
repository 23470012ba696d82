// The language's derivative builtins written from translated values: a lambda over values of given types, `vjp f x ct`
// (reverse mode: the value and the adjoint of x), and `jvp f` on dual numbers (forward mode: the value and the
// tangent), the duals zipped from a point and a tangent and taken apart again by the type's dual translation
// (src/ad/dual-types.ts: a Double is a (primal, tangent) pair, arrays and tuples map structurally, an Index or a Bool
// is itself). Free variables of the lambdas are constants to the derivative, as in the language: a derivative taken
// inside a function being differentiated does not confuse their perturbations.

import type { Expr } from "../syntax/ast.js";
import type { Span } from "../syntax/source.js";
import type { Fn } from "./context.js";
import { packAs } from "./expressions.js";
import { app, bool, dbl, ifte, binop, index, lam, num, param, tuple, v } from "./smooth-ast.js";
import type { Node } from "./syntax.js";
import { showTsType, T_DOUBLE, tArray, type TsType } from "./ts-types.js";
import { atom, Lets, pack, typeOfVal, type AtomVal, type Val } from "./values.js";

/** The type a value has in a derivative: numbers are Doubles (JavaScript's numbers are; an integer is one too). */
export function differentiable(fn: Fn, t: TsType, node: Node): TsType {
  switch (t.k) {
    case "int":
      return T_DOUBLE;
    case "array":
      return t.elem.k === "int" ? t : tArray(differentiable(fn, t.elem, node));
    case "record":
      return { ...t, fields: t.fields.map((f) => differentiable(fn, f, node)) };
    case "tuple":
      return { ...t, elems: t.elems.map((f) => differentiable(fn, f, node)) };
    case "fn":
      return fn.fail(node, `${showTsType(t)} is given where a derivative needs numbers or arrays of them`, {}, "type");
    default:
      return t;
  }
}

/** The value at its type in a derivative (integers made Doubles). */
export function asDifferentiable(fn: Fn, x: Val, lets: Lets, node: Node): Val {
  const t = differentiable(fn, typeOfVal(x), node);
  return lets.bind(packAs(x, t, fn.span(node)), t, "x", fn.span(node));
}

/** Several values as one (the tuple of them), or the one value itself. */
export const joined = (xs: readonly Val[]): Val => (xs.length === 1 ? xs[0]! : { kind: "tuple", elems: xs });

/** The parts of a value made by `joined` from `count` values. */
export const parts = (x: Val, count: number): readonly Val[] =>
  count === 1 ? [x] : (x as Extract<Val, { kind: "tuple" }>).elems;

/**
 * `fun p -> body`: a lambda of one parameter holding values of these types (the tuple of them when there are several),
 * whose body the callback translates from the values.
 */
export function lambdaOver(
  fn: Fn,
  types: readonly TsType[],
  span: Span,
  body: (params: readonly Val[], lets: Lets) => Val,
): { expr: Expr; result: TsType } {
  const t: TsType = types.length === 1 ? types[0]! : { k: "tuple", elems: types };
  const name = fn.names.fresh("p");
  const lets = new Lets(fn.names);
  const p = lets.bind(v(name, span), t, name, span);
  const r = body(parts(p, types.length), lets);
  return { expr: lam([param(name, span, t)], lets.wrap(pack(r, span)), span), result: typeOfVal(r) };
}

/** (f x, the adjoint of x for the cotangent ct) by the language's `vjp`. */
export function vjpOf(
  f: { expr: Expr; result: TsType },
  x: Val,
  ct: Val,
  lets: Lets,
  span: Span,
): { value: Val; adjoint: Val } {
  const type: TsType = { k: "tuple", elems: [f.result, typeOfVal(x)] };
  const out = lets.bind(app("vjp", [f.expr, pack(x, span), pack(ct, span)], span), type, "vjp", span);
  const [value, adjoint] = (out as Extract<Val, { kind: "tuple" }>).elems;
  return { value: value!, adjoint: adjoint! };
}

/** (f x, the derivative of f at x in the direction dx) by the language's `jvp` on dual numbers. */
export function jvpOf(
  fn: Fn,
  f: { expr: Expr; result: TsType },
  x: Val,
  dx: Val,
  lets: Lets,
  node: Node,
): { value: Val; tangent: Val } {
  const span = fn.span(node);
  const duals = lets.bind(
    app("jvp", [f.expr, zip(fn, x, dx, lets, node)], span),
    dualType(fn, f.result, node),
    "jvp",
    span,
  );
  return unzip(fn, duals, f.result, lets, node);
}

/** D(t), the dual numbers of a value of type t. */
function dualType(fn: Fn, t: TsType, node: Node): TsType {
  switch (t.k) {
    case "double":
      return { k: "tuple", elems: [T_DOUBLE, T_DOUBLE] };
    case "array":
      return tArray(dualType(fn, t.elem, node));
    case "record":
      return { ...t, fields: t.fields.map((f) => dualType(fn, f, node)) };
    case "tuple":
      return { ...t, elems: t.elems.map((f) => dualType(fn, f, node)) };
    case "fn":
      return fn.fail(node, `a derivative of a function returning ${showTsType(t)} is not supported`, {}, "type");
    default:
      return t;
  }
}

/** build n (fun i -> body(i)), the body's values bound inside. */
function buildOf(fn: Fn, n: Expr, span: Span, body: (i: Expr, lets: Lets) => Expr): Expr {
  const i = fn.names.fresh("i");
  const inner = new Lets(fn.names);
  const e = body(v(i, span), inner);
  return app("build", [n, lam([param(i, span)], inner.wrap(e), span)], span);
}

const elementType = (x: AtomVal): TsType => (x.type as { elem: TsType }).elem;

/** The dual numbers of x with tangent dx (values of the same type). */
function zip(fn: Fn, x: Val, dx: Val, lets: Lets, node: Node): Expr {
  const span = fn.span(node);
  if (x.kind === "record" || x.kind === "tuple") {
    const xs = x.kind === "record" ? x.fields : x.elems;
    const ds = dx.kind === "record" ? dx.fields : (dx as Extract<Val, { kind: "tuple" }>).elems;
    return tuple(
      xs.map((p, k) => zip(fn, p, ds[k]!, lets, node)),
      span,
    );
  }
  if (x.kind === "fn") return fn.fail(node, `${x.ref.label} has no derivative`, {}, "type");
  const d = dx as AtomVal;
  if (x.type.k === "double") return tuple([x.expr, d.expr], span);
  if (x.type.k !== "array") return x.expr;
  const elem = elementType(x);
  return buildOf(fn, app("length", [x.expr], span), span, (i, inner) => {
    const xi = inner.bind(index(x.expr, i, span), elem, "x", span);
    const di = inner.bind(index(d.expr, i, span), elem, "dx", span);
    return zip(fn, xi, di, inner, node);
  });
}

/** The primal and tangent values of dual numbers `d` of a value of type t. */
function unzip(fn: Fn, d: Val, t: TsType, lets: Lets, node: Node): { value: Val; tangent: Val } {
  const span = fn.span(node);
  switch (t.k) {
    case "double": {
      const [p, dp] = (d as Extract<Val, { kind: "tuple" }>).elems;
      return { value: p!, tangent: dp! };
    }
    case "record":
    case "tuple": {
      const ds = d.kind === "record" ? d.fields : (d as Extract<Val, { kind: "tuple" }>).elems;
      const ts = t.k === "record" ? t.fields : t.elems;
      const split = ds.map((x, k) => unzip(fn, x, ts[k]!, lets, node));
      const rebuild = (xs: Val[]): Val =>
        t.k === "record" ? { kind: "record", keys: t.keys, fields: xs } : { kind: "tuple", elems: xs };
      return { value: rebuild(split.map((s) => s.value)), tangent: rebuild(split.map((s) => s.tangent)) };
    }
    case "array": {
      const arr = d as AtomVal;
      const elem = t.elem;
      const side = (which: "value" | "tangent") =>
        lets.bind(
          buildOf(fn, app("length", [arr.expr], span), span, (i, inner) => {
            const di = inner.bind(index(arr.expr, i, span), elementType(arr), "d", span);
            return pack(unzip(fn, di, elem, inner, node)[which], span);
          }),
          t,
          which === "value" ? "y" : "dy",
          span,
        );
      return { value: side("value"), tangent: side("tangent") };
    }
    case "int":
      // An Index carries no tangent (JavaScript's derivative of an integer-valued result is 0).
      return { value: d, tangent: atom(num(0, span), t) };
    case "bool":
      return { value: d, tangent: atom(bool(false, span), t) };
    default:
      return fn.fail(node, `a derivative of a function returning ${showTsType(t)} is not supported`, {}, "type");
  }
}

/** The unit vector j of length n (a one-hot tangent or cotangent). */
export function oneHot(fn: Fn, n: Expr, j: Expr, span: Span): Expr {
  return buildOf(fn, n, span, (k) => ifte(binop("=", k, j, span), dbl(1, span), dbl(0, span), span));
}

export { buildOf };
