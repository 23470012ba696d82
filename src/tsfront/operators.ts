// Operators and literals: unary and binary arithmetic as JavaScript computes it (Index arithmetic where both
// operands are integers, Double division and powers, JavaScript's remainder), comparisons, lazy `&&`/`||`, object
// literals (records) and array literals (an array of numbers, or a tuple of mixed values).

import type * as TS from "typescript";
import type { BinaryOp, Expr } from "../syntax/ast.js";
import type { Span } from "../syntax/source.js";
import type { Env, Fn } from "./context.js";
import { bare, bindExpr, boolean, expr, isAssignment, number, packAs } from "./expressions.js";
import { app, binop, ifte, neg, not, num } from "./smooth-ast.js";
import { isNumber, joinType, showTsType, T_BOOL, T_DOUBLE, T_INT, tArray, type TsType } from "./ts-types.js";
import { atom, Lets, toDouble, typeOfVal, type Val } from "./values.js";

export function prefix(fn: Fn, e: TS.PrefixUnaryExpression, env: Env, lets: Lets): Val {
  const ts = fn.ts;
  const span = fn.span(e);
  switch (e.operator) {
    case ts.SyntaxKind.MinusToken: {
      const x = number(fn, e.operand, env, lets, "the operand of `-`");
      return bindExpr(fn, lets, neg(x.expr, span), x.type, "neg", span);
    }
    case ts.SyntaxKind.PlusToken: {
      const x = number(fn, e.operand, env, lets, "the operand of `+`");
      return atom(x.expr, x.type);
    }
    case ts.SyntaxKind.ExclamationToken: {
      const x = boolean(fn, e.operand, env, lets, "the operand of `!`");
      return bindExpr(fn, lets, not(x, span), T_BOOL, "not", span);
    }
    default:
      return fn.fail(e, `the operator \`${ts.tokenToString(e.operator)}\` is not supported here`, {
        hint: "`++` and `--` are statements of their own (or a for loop's update)",
      });
  }
}

const ARITH: Partial<Record<number, BinaryOp>> = {};
const COMPARE: Partial<Record<number, BinaryOp>> = {};

function tables(ts: Fn["ts"]): void {
  if (ARITH[ts.SyntaxKind.PlusToken]) return;
  const K = ts.SyntaxKind;
  Object.assign(ARITH, {
    [K.PlusToken]: "+",
    [K.MinusToken]: "-",
    [K.AsteriskToken]: "*",
    [K.SlashToken]: "/",
    [K.AsteriskAsteriskToken]: "**",
  });
  Object.assign(COMPARE, {
    [K.LessThanToken]: "<",
    [K.GreaterThanToken]: ">",
    [K.LessThanEqualsToken]: "<=",
    [K.GreaterThanEqualsToken]: ">=",
    [K.EqualsEqualsEqualsToken]: "=",
    [K.EqualsEqualsToken]: "=",
    [K.ExclamationEqualsEqualsToken]: "<>",
    [K.ExclamationEqualsToken]: "<>",
  });
}

export function binary(fn: Fn, e: TS.BinaryExpression, env: Env, lets: Lets): Val {
  const ts = fn.ts;
  tables(ts);
  const op = e.operatorToken.kind;
  const span = fn.span(e);
  if (op === ts.SyntaxKind.AmpersandAmpersandToken || op === ts.SyntaxKind.BarBarToken) {
    // Lazy: the right operand is translated inside the branch that runs it.
    const and = op === ts.SyntaxKind.AmpersandAmpersandToken;
    const left = boolean(fn, e.left, env, lets, `the left operand of \`${and ? "&&" : "||"}\``);
    const inner = new Lets(fn.names);
    const right = boolean(fn, e.right, env, inner, `the right operand of \`${and ? "&&" : "||"}\``);
    return bindExpr(fn, lets, binop(and ? "&&" : "||", left, inner.wrap(right), span), T_BOOL, "c", span);
  }
  if (isAssignment(ts, e))
    return fn.fail(e, "an assignment inside an expression is not supported", {
      hint: "write it as a statement of its own",
    });
  const cmp = COMPARE[op];
  if (cmp) {
    const a = expr(fn, e.left, env, lets);
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
  if (op === ts.SyntaxKind.PercentToken) {
    const a = number(fn, e.left, env, lets, "the left operand of `%`");
    const b = number(fn, e.right, env, lets, "the right operand of `%`");
    return remainder(fn, lets, a, b, span);
  }
  if (ARITH[op]) {
    // A left-nested chain (`a + b + ... + z`, 10⁴ terms) in a loop: its innermost left operand first.
    const chain = [e];
    for (let left = bare(ts, e.left); ts.isBinaryExpression(left) && ARITH[left.operatorToken.kind];) {
      chain.push(left);
      left = bare(ts, left.left);
    }
    const innermost = chain[chain.length - 1]!;
    let a = number(fn, innermost.left, env, lets, `the left operand of \`${ARITH[innermost.operatorToken.kind]!}\``);
    for (let k = chain.length - 1; ; k--) {
      const node = chain[k]!;
      const arith = ARITH[node.operatorToken.kind]!;
      const b = number(fn, node.right, env, lets, `the right operand of \`${arith}\``);
      const value = arithmetic(fn, lets, arith, a, b, fn.span(node));
      if (k === 0) return value;
      a = value as { expr: Expr; type: TsType };
    }
  }
  return fn.fail(
    e.operatorToken,
    `the operator \`${ts.tokenToString(op) ?? fn.text(e.operatorToken)}\` is not supported`,
    {
      hint: "bitwise operators have no derivative: for an integer half, write Math.floor(x / 2)",
    },
  );
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
function remainder(
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

export function objectLiteral(fn: Fn, e: TS.ObjectLiteralExpression, env: Env, lets: Lets): Val {
  const ts = fn.ts;
  const keys: string[] = [];
  const fields: Val[] = [];
  for (const p of e.properties) {
    let key: string | undefined;
    let value: Val;
    if (ts.isPropertyAssignment(p) && (ts.isIdentifier(p.name) || ts.isStringLiteral(p.name))) {
      key = p.name.text;
      value = expr(fn, p.initializer, env, lets);
    } else if (ts.isShorthandPropertyAssignment(p)) {
      key = p.name.text;
      value = expr(fn, p.name, env, lets);
    } else return fn.fail(p, "this kind of object property is not supported", { hint: "write `key: value` or `key`" });
    if (keys.includes(key)) fn.fail(p, `the key \`${key}\` is given twice`);
    keys.push(key);
    fields.push(value);
  }
  if (keys.length === 0) return fn.fail(e, "an empty object has no value in Smooth");
  return { kind: "record", keys, fields };
}

/** `[a, b, c]`: an array when its elements are all numbers (or all arrays of one kind), else a tuple. */
export function arrayLiteral(fn: Fn, e: TS.ArrayLiteralExpression, env: Env, lets: Lets): Val {
  const span = fn.span(e);
  if (e.elements.some((x) => fn.ts.isSpreadElement(x)))
    return fn.fail(e, "spread (`...`) in an array is not supported");
  const elems = e.elements.map((x) => expr(fn, x, env, lets));
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
