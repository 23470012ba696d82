// Operators and literals: unary and binary arithmetic as JavaScript computes it (Index arithmetic where both
// operands are integers, Double division and powers, JavaScript's remainder), comparisons, lazy `&&`/`||`, object
// literals (records) and array literals (an array of numbers, or a tuple of mixed values).

import type * as A from "acorn";
import type { BinaryOp, Expr } from "../syntax/ast.js";
import type { Span } from "../syntax/source.js";
import type { Env, Fn } from "./context.js";
import { bindExpr, boolean, expr, number, packAs } from "./expressions.js";
import { app, binop, ifte, neg, not, num } from "./smooth-ast.js";
import { bare, keyName, type Expression } from "./syntax.js";
import { isNumber, joinType, showTsType, T_BOOL, T_DOUBLE, T_INT, tArray, type TsType } from "./ts-types.js";
import { atom, Lets, toDouble, typeOfVal, type Val } from "./values.js";

export function unary(fn: Fn, e: A.UnaryExpression, env: Env, lets: Lets): Val {
  const span = fn.span(e);
  switch (e.operator) {
    case "-": {
      const x = number(fn, e.argument, env, lets, "the operand of `-`");
      return bindExpr(fn, lets, neg(x.expr, span), x.type, "neg", span);
    }
    case "+": {
      const x = number(fn, e.argument, env, lets, "the operand of `+`");
      return atom(x.expr, x.type);
    }
    case "!": {
      const x = boolean(fn, e.argument, env, lets, "the operand of `!`");
      return bindExpr(fn, lets, not(x, span), T_BOOL, "not", span);
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

/** `a op b` as JavaScript computes it: in Index arithmetic when both are integers (except `/` and `**`). */
export function arithmetic(
  fn: Fn,
  lets: Lets,
  op: BinaryOp,
  a: { expr: Expr; type: TsType },
  b: { expr: Expr; type: TsType },
  span: Span,
): Val {
  const ints = a.type.k === "int" && b.type.k === "int";
  if (ints && (op === "+" || op === "-" || op === "*"))
    return bindExpr(fn, lets, binop(op, a.expr, b.expr, span), T_INT, "t", span);
  // Division and powers are of Doubles, as in JavaScript (Smooth's Index division truncates).
  const x = a.type.k === "int" ? toDouble(a.expr, span) : a.expr;
  const y = b.type.k === "int" && op !== "**" ? toDouble(b.expr, span) : b.expr;
  return bindExpr(fn, lets, binop(op, x, y, span), T_DOUBLE, "t", span);
}

/** JavaScript's `%`: the remainder with the sign of the dividend (truncated division). */
export function remainder(
  fn: Fn,
  lets: Lets,
  a: { expr: Expr; type: TsType },
  b: { expr: Expr; type: TsType },
  span: Span,
): Val {
  if (a.type.k === "int" && b.type.k === "int") {
    // Index division truncates toward zero, as JavaScript's remainder needs.
    const q = binop("/", a.expr, b.expr, span);
    return bindExpr(fn, lets, binop("-", a.expr, binop("*", b.expr, q, span), span), T_INT, "r", span);
  }
  const q = (lets.bind(binop("/", a.expr, b.expr, span), T_DOUBLE, "q", span) as { expr: Expr }).expr;
  const trunc = ifte(
    binop("<", q, num(0, span), span),
    neg(app("floor", [neg(q, span)], span), span),
    app("floor", [q], span),
    span,
  );
  return bindExpr(fn, lets, binop("-", a.expr, binop("*", b.expr, trunc, span), span), T_DOUBLE, "r", span);
}

export function objectLiteral(fn: Fn, e: A.ObjectExpression, env: Env, lets: Lets): Val {
  const keys: string[] = [];
  const fields: Val[] = [];
  for (const p of e.properties) {
    const key = p.type === "Property" && p.kind === "init" && !p.method ? keyName(p.key, p.computed) : undefined;
    if (p.type !== "Property" || key === undefined)
      return fn.fail(p, "this kind of object property is not supported", { hint: "write `key: value` or `key`" });
    const value = expr(fn, p.value, env, lets);
    if (keys.includes(key)) fn.fail(p, `the key \`${key}\` is given twice`);
    keys.push(key);
    fields.push(value);
  }
  if (keys.length === 0) return fn.fail(e, "an empty object has no value in Smooth");
  return { kind: "record", keys, fields };
}

/** `[a, b, c]`: an array when its elements are all numbers (or all arrays of one kind), else a tuple. */
export function arrayLiteral(fn: Fn, e: A.ArrayExpression, env: Env, lets: Lets): Val {
  const span = fn.span(e);
  const elems = e.elements.map((x) => {
    if (x === null) return fn.fail(e, "an array with a hole (`[a, , b]`) is not supported");
    if (x.type === "SpreadElement") return fn.fail(x, "spread (`...`) in an array is not supported");
    return expr(fn, x, env, lets);
  });
  if (elems.length === 0) return fn.fail(e, "an empty array has no element type", { hint: "use new Float64Array(n)" });
  let type: TsType | undefined = typeOfVal(elems[0]!);
  for (const x of elems.slice(1)) type = type && joinType(type, typeOfVal(x));
  const isArray = type !== undefined && (isNumber(type) || type.k === "array" || type.k === "bool");
  if (!isArray) return { kind: "tuple", elems };
  // As an array (numbers are Doubles, as a Float64Array holds them): x0 then setAt for each other element.
  const t: TsType = type!.k === "int" ? T_DOUBLE : type!;
  const first = packAs(elems[0]!, t, span);
  let acc = lets.bind(app("replicate", [num(elems.length, span), first], span), tArray(t), "xs", span) as {
    expr: Expr;
  };
  elems.slice(1).forEach((x, k) => {
    acc = lets.bind(app("setAt", [acc.expr, num(k + 1, span), packAs(x, t, span)], span), tArray(t), "xs", span) as {
      expr: Expr;
    };
  });
  return atom(acc.expr, tArray(t));
}
