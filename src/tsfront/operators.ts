// Operators and literals: unary and binary arithmetic as JavaScript computes it (Index arithmetic where both
// operands are integers, Double division and powers, JavaScript's remainder), comparisons, lazy `&&`/`||`, object
// literals (records) and array literals (an array of numbers, or a tuple of mixed values).

import type * as A from "acorn";
import type { BinaryOp, Expr } from "../syntax/ast.js";
import type { Span } from "../syntax/source.js";
import type { Env, Fn } from "./context.js";
import { bindExpr, boolean, expr, number, packAs } from "./expressions.js";
import { annotation, app, binop, dbl, emptyArray, ifte, lam, letIn, neg, not, num, param, pvar } from "./smooth-ast.js";
import { bare, keyName, type Expression } from "./syntax.js";
import { isNumber, joinType, showTsType, T_BOOL, T_DOUBLE, T_INT, T_NOTHING, tArray, type TsType } from "./ts-types.js";
import {
  arithmeticRange,
  INT32,
  mayBeZero,
  negatedRange,
  rangeOf,
  recordRange,
  withinInt32,
  type Range,
} from "./int-ranges.js";
import { atom, Lets, toDouble, typeOfVal, type AtomVal, type Val } from "./values.js";

export function unary(fn: Fn, e: A.UnaryExpression, env: Env, lets: Lets): Val {
  const span = fn.span(e);
  switch (e.operator) {
    case "-": {
      const x = number(fn, e.argument, env, lets, "the operand of `-`");
      if (x.type.k !== "int") return bindExpr(fn, lets, neg(x.expr, span), x.type, "neg", span);
      // -(-2^31) is beyond an Index: a Double, as JavaScript computes it, unless the operand is known to be above it.
      const r = negatedRange(rangeOf(x.expr));
      if (!withinInt32(r)) return bindExpr(fn, lets, neg(toDouble(x.expr, span), span), T_DOUBLE, "neg", span);
      return ranged(bindExpr(fn, lets, neg(x.expr, span), T_INT, "neg", span), r);
    }
    case "+": {
      const x = number(fn, e.argument, env, lets, "the operand of `+`");
      return atom(x.expr, x.type);
    }
    case "!": {
      const x = boolean(fn, e.argument, env, lets, "the operand of `!`");
      return bindExpr(fn, lets, not(x, span), T_BOOL, "not", span);
    }
    case "~": {
      // ~x is x ^ -1 on the 32-bit integer.
      const x = number(fn, e.argument, env, lets, "the operand of `~`");
      return bitwise(fn, lets, "^", x, { expr: num(-1, span), type: T_INT }, span);
    }
    default:
      return fn.fail(e, `the operator \`${e.operator}\` is not supported here`);
  }
}

const ARITH: Partial<Record<string, BinaryOp>> = { "+": "+", "-": "-", "*": "*", "/": "/", "**": "**" };
const COMPARE: Partial<Record<string, BinaryOp>> = {
  "<": "<",
  ">": ">",
  "<=": "<=",
  ">=": ">=",
  "===": "=",
  "==": "=",
  "!==": "<>",
  "!=": "<>",
};

/** `a && b`, `a || b`: lazy, the right operand translated inside the branch that runs it. */
export function logical(fn: Fn, e: A.LogicalExpression, env: Env, lets: Lets): Val {
  const span = fn.span(e);
  if (e.operator === "??") return fn.fail(e, "`??` is not supported: the subset's values are never null");
  const and = e.operator === "&&";
  const left = boolean(fn, e.left, env, lets, `the left operand of \`${e.operator}\``);
  const inner = new Lets(fn.names);
  const right = boolean(fn, e.right, env, inner, `the right operand of \`${e.operator}\``);
  return bindExpr(fn, lets, binop(and ? "&&" : "||", left, inner.wrap(right), span), T_BOOL, "c", span);
}

export function binary(fn: Fn, e: A.BinaryExpression, env: Env, lets: Lets): Val {
  const op = e.operator;
  const span = fn.span(e);
  const left = e.left as Expression;
  const cmp = COMPARE[op];
  if (cmp) {
    const a = expr(fn, left, env, lets);
    const b = expr(fn, e.right, env, lets);
    const ta = typeOfVal(a);
    const tb = typeOfVal(b);
    const bothBool = ta.k === "bool" && tb.k === "bool" && (cmp === "=" || cmp === "<>");
    if (!bothBool && !(a.kind === "atom" && b.kind === "atom" && isNumber(ta) && isNumber(tb)))
      fn.fail(
        e,
        `\`${fn.text(e)}\` compares ${showTsType(ta)} with ${showTsType(tb)}`,
        {
          hint: "comparisons are of numbers (or booleans with === and !==)",
        },
        "type",
      );
    return bindExpr(
      fn,
      lets,
      binop(cmp, (a as { expr: Expr }).expr, (b as { expr: Expr }).expr, span),
      T_BOOL,
      "c",
      span,
    );
  }
  if (BITS[op]) {
    const a = number(fn, left, env, lets, `the left operand of \`${op}\``);
    const b = number(fn, e.right, env, lets, `the right operand of \`${op}\``);
    return bitwise(fn, lets, op, a, b, span);
  }
  if (op === "%") {
    const a = number(fn, left, env, lets, "the left operand of `%`");
    const b = number(fn, e.right, env, lets, "the right operand of `%`");
    return remainder(fn, lets, a, b, span);
  }
  if (ARITH[op]) {
    // A left-nested chain (`a + b + ... + z`, 10⁴ terms) in a loop: its innermost left operand first.
    const chain = [e];
    for (let l = bare(left); l.type === "BinaryExpression" && ARITH[l.operator];) {
      chain.push(l);
      l = bare(l.left as Expression);
    }
    const innermost = chain[chain.length - 1]!;
    let a = number(fn, innermost.left as Expression, env, lets, `the left operand of \`${innermost.operator}\``);
    for (let k = chain.length - 1; ; k--) {
      const node = chain[k]!;
      const arith = ARITH[node.operator]!;
      const b = number(fn, node.right, env, lets, `the right operand of \`${node.operator}\``);
      const value = arithmetic(fn, lets, arith, a, b, fn.span(node));
      if (k === 0) return value;
      a = value as { expr: Expr; type: TsType };
    }
  }
  return fn.fail(e, `the operator \`${op}\` is not supported`);
}

/** JavaScript's bit operators, as the primitives on Indexes. */
const BITS: Partial<Record<string, string>> = {
  "&": "bitAnd",
  "|": "bitOr",
  "^": "bitXor",
  "<<": "shiftLeft",
  ">>": "shiftRight",
  ">>>": "shiftRightUnsigned",
};

/**
 * `a op b` for a bit operator, on 32-bit integers as JavaScript computes it: an Index (`>>>` a Double, its result
 * being unsigned). A Double operand is first converted as JavaScript's ToInt32 does (`toInt32`).
 */
export function bitwise(
  fn: Fn,
  lets: Lets,
  op: string,
  a: { expr: Expr; type: TsType },
  b: { expr: Expr; type: TsType },
  span: Span,
): Val {
  const int32 = (x: { expr: Expr; type: TsType }): Expr => (x.type.k === "int" ? x.expr : toInt32(lets, x.expr, span));
  const [x, y] = [int32(a), int32(b)];
  return bindExpr(fn, lets, app(BITS[op]!, [x, y], span), op === ">>>" ? T_DOUBLE : T_INT, "b", span);
}

/**
 * A Double as JavaScript's ToInt32 converts it (bit operators, a write into an Int32Array): its integer part modulo
 * 2^32, as a signed 32-bit Index; NaN and the infinities are 0. Exact: dividing by 2^32 and flooring lose nothing.
 */
export function toInt32(lets: Lets, x: Expr, span: Span): Expr {
  const bind = (e: Expr, base: string) => (lets.bind(e, T_DOUBLE, base, span) as AtomVal).expr;
  const v = bind(x, "x");
  const floor = (y: Expr) => app("floor", [y], span);
  const t = bind(ifte(binop("<", v, dbl(0, span), span), neg(floor(neg(v, span)), span), floor(v), span), "t");
  const two32 = dbl(2 ** 32, span);
  const m = bind(binop("-", t, binop("*", two32, floor(binop("/", t, two32, span)), span), span), "m");
  const signed = ifte(binop(">=", m, dbl(2 ** 31, span), span), binop("-", m, two32, span), m, span);
  const finite = binop("<", app("abs", [t], span), dbl(Infinity, span), span);
  const wrapped = ifte(finite, signed, dbl(0, span), span);
  return (lets.bind(app("toIndex", [wrapped], span), T_INT, "i", span) as AtomVal).expr;
}

/** An Index value known to lie in r (./int-ranges.ts). */
function ranged(v: Val, r: Range): Val {
  if (v.kind === "atom") recordRange(v.expr, r);
  return v;
}

/**
 * `a op b` as JavaScript computes it: in Index arithmetic when both are integers and the result is known to be within
 * 32 bits (./int-ranges.ts), else in Doubles, as JavaScript's numbers are (so `100000 * 100000` is 1e10, not wrapped
 * around); `/` and `**` always in Doubles.
 */
export function arithmetic(
  fn: Fn,
  lets: Lets,
  op: BinaryOp,
  a: { expr: Expr; type: TsType },
  b: { expr: Expr; type: TsType },
  span: Span,
): Val {
  const ints = a.type.k === "int" && b.type.k === "int";
  if (ints && (op === "+" || op === "-" || op === "*")) {
    const r = arithmeticRange(op, rangeOf(a.expr), rangeOf(b.expr));
    if (withinInt32(r)) return ranged(bindExpr(fn, lets, binop(op, a.expr, b.expr, span), T_INT, "t", span), r);
  }
  // Division and powers are of Doubles, as in JavaScript (Smooth's Index division truncates).
  const x = a.type.k === "int" ? toDouble(a.expr, span) : a.expr;
  const y = b.type.k === "int" && op !== "**" ? toDouble(b.expr, span) : b.expr;
  return bindExpr(fn, lets, binop(op, x, y, span), T_DOUBLE, "t", span);
}

/**
 * JavaScript's `%`: the remainder with the sign of the dividend (truncated division). Of integers, in Index arithmetic
 * when the divisor is known not to be 0 (JavaScript's `j % 0` is NaN) and the division cannot overflow (-2^31 / -1);
 * otherwise in Doubles.
 */
export function remainder(
  fn: Fn,
  lets: Lets,
  a: { expr: Expr; type: TsType },
  b: { expr: Expr; type: TsType },
  span: Span,
): Val {
  const [ra, rb] = [rangeOf(a.expr), rangeOf(b.expr)];
  const indexSafe = !mayBeZero(rb) && (ra.lo > INT32.lo || rb.lo > -1 || rb.hi < -1);
  if (a.type.k === "int" && b.type.k === "int" && indexSafe) {
    // Index division truncates toward zero, as JavaScript's remainder needs. The quotient is declared an Index: the
    // language types an integer literal nothing else decides as a Double (`let j = 1 in j % 3 = 1` divided 1. / 3.).
    const qName = fn.names.fresh("q");
    const q = { kind: "var" as const, name: qName, span };
    const r = binop("-", a.expr, binop("*", b.expr, q, span), span);
    const rem = letIn(pvar(qName, span), binop("/", a.expr, b.expr, span), r, span, annotation(T_INT, span));
    // |a % b| < |b|, with a's sign.
    const m = Math.max(Math.abs(rb.lo), Math.abs(rb.hi)) - 1;
    return ranged(bindExpr(fn, lets, rem, T_INT, "r", span), { lo: ra.lo < 0 ? -m : 0, hi: ra.hi > 0 ? m : 0 });
  }
  const [x, y] = [a, b].map((v) => (v.type.k === "int" ? toDouble(v.expr, span) : v.expr)) as [Expr, Expr];
  const q = (lets.bind(binop("/", x, y, span), T_DOUBLE, "q", span) as { expr: Expr }).expr;
  const trunc = ifte(
    binop("<", q, num(0, span), span),
    neg(app("floor", [neg(q, span)], span), span),
    app("floor", [q], span),
    span,
  );
  return bindExpr(fn, lets, binop("-", x, binop("*", y, trunc, span), span), T_DOUBLE, "r", span);
}

/** `{ a: x, b }`, and `{ ...p, w: x }`: p's properties, in p's order, a later one replacing an earlier one's value. */
export function objectLiteral(fn: Fn, e: A.ObjectExpression, env: Env, lets: Lets): Val {
  const keys: string[] = [];
  const fields: Val[] = [];
  const set = (key: string, value: Val) => {
    const k = keys.indexOf(key);
    if (k >= 0) fields[k] = value;
    else {
      keys.push(key);
      fields.push(value);
    }
  };
  for (const p of e.properties) {
    if (p.type === "SpreadElement") {
      const spread = expr(fn, p.argument, env, lets);
      if (spread.kind !== "record")
        return fn.fail(
          p,
          `spread (\`...\`) in an object needs an object, but this is ${showTsType(typeOfVal(spread))}`,
        );
      spread.keys.forEach((k, i) => set(k, spread.fields[i]!));
      continue;
    }
    // (A method `{ f(x) { ... } }` is a function value; one reading `this` fails there.)
    const key = p.kind === "init" ? keyName(p.key, p.computed) : undefined;
    if (key === undefined)
      return fn.fail(p, "this kind of object property is not supported", {
        hint: "write `key: value`, `key`, or a method `f(x) { ... }`",
      });
    if (keys.includes(key) && !e.properties.some((q) => q.type === "SpreadElement"))
      fn.fail(p, `the key \`${key}\` is given twice`);
    set(key, expr(fn, p.value, env, lets));
  }
  if (keys.length === 0) return fn.fail(e, "an empty object has no value in Smooth");
  return { kind: "record", keys, fields };
}

/** A part of an array literal: one element, or the elements of an array spread into it (`...xs`). */
type Piece = { readonly one: Val } | { readonly many: AtomVal };

/**
 * `[a, b, c]`: an array when its elements are all of one kind (numbers, arrays or objects of one shape, one
 * function), else a tuple; `[]` an array with no element type yet (./ts-types.ts, `nothing`); `[...xs, y]` the
 * elements of xs then y.
 */
export function arrayLiteral(fn: Fn, e: A.ArrayExpression, env: Env, lets: Lets): Val {
  const span = fn.span(e);
  if (e.elements.length === 0) return atom(emptyArray(T_NOTHING, span), tArray(T_NOTHING));
  const pieces: Piece[] = [];
  for (const x of e.elements) {
    if (x === null) return fn.fail(e, "an array with a hole (`[a, , b]`) is not supported");
    if (x.type !== "SpreadElement") {
      pieces.push({ one: expr(fn, x, env, lets) });
      continue;
    }
    const spread = expr(fn, x.argument, env, lets);
    if (spread.kind === "tuple") pieces.push(...spread.elems.map((one) => ({ one })));
    else if (spread.kind === "atom" && spread.type.k === "array") pieces.push({ many: spread });
    else return fn.fail(x, `spread (\`...\`) needs an array, but this is ${showTsType(typeOfVal(spread))}`, {}, "type");
  }
  const types = pieces.map((p) => ("one" in p ? typeOfVal(p.one) : (p.many.type as { elem: TsType }).elem));
  let type: TsType | undefined = types.find((t) => t.k !== "nothing") ?? T_NOTHING;
  for (const t of types) type = type && (t.k === "nothing" ? type : joinType(type, t));
  // Objects (and functions) of one kind make an array too: `[{ w, b }, { w: w2, b: b2 }]` is read by index in a loop.
  const isArray = type !== undefined && type.k !== "tuple";
  if (!isArray) {
    if (pieces.every((p) => "one" in p)) return { kind: "tuple", elems: pieces.map((p) => (p as { one: Val }).one) };
    return fn.fail(e, "an array of mixed values (a tuple) cannot take the elements of an array (`...`)", {}, "type");
  }
  // As an array (numbers are Doubles, as a Float64Array holds them).
  const t: TsType = type!.k === "int" ? T_DOUBLE : type!;
  if (pieces.every((p) => "one" in p))
    return listed(
      pieces.map((p) => (p as { one: Val }).one),
      t,
      lets,
      span,
    );
  return concatenated(fn, pieces, t, lets, span);
}

/** An array of the values: the first replicated, then setAt for each other element. */
function listed(elems: readonly Val[], t: TsType, lets: Lets, span: Span): Val {
  const first = packAs(elems[0]!, t, span);
  let acc = lets.bind(app("replicate", [num(elems.length, span), first], span), tArray(t), "xs", span) as AtomVal;
  elems.slice(1).forEach((x, k) => {
    const next = app("setAt", [acc.expr, num(k + 1, span), packAs(x, t, span)], span);
    acc = lets.bind(next, tArray(t), "xs", span) as AtomVal;
  });
  return atom(acc.expr, tArray(t));
}

/** `[...xs, y, ...zs]`: build (the lengths' sum) (fun i -> the piece i falls in, at i minus where it starts). */
function concatenated(fn: Fn, pieces: readonly Piece[], t: TsType, lets: Lets, span: Span): Val {
  const index = (xs: Expr, i: Expr): Expr => ({ kind: "index", array: xs, index: i, span });
  const starts: Expr[] = [num(0, span)];
  for (const p of pieces) {
    const n = "one" in p ? num(1, span) : app("length", [p.many.expr], span);
    const end = binop("+", starts[starts.length - 1]!, n, span);
    starts.push((lets.bind(end, T_INT, "start", span) as AtomVal).expr);
  }
  const i: Expr = { kind: "var", name: fn.names.fresh("i"), span };
  const at = (k: number): Expr => {
    const p = pieces[k]!;
    if ("one" in p) return packAs(p.one, t, span);
    const elem = (p.many.type as { elem: TsType }).elem;
    return packAs(atom(index(p.many.expr, binop("-", i, starts[k]!, span)), elem), t, span);
  };
  let body = at(pieces.length - 1);
  for (let k = pieces.length - 2; k >= 0; k--) body = ifte(binop("<", i, starts[k + 1]!, span), at(k), body, span);
  const total = starts[starts.length - 1]!;
  const build = app("build", [total, lam([param((i as { name: string }).name, span)], body, span)], span);
  return lets.bind(build, tArray(t), "xs", span);
}
