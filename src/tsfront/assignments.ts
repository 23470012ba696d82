// Statements that assign: `x = e`, compound assignments, `++`/`--`, writes into an element or a property of an array
// or object the function owns (a new value of the whole, by setAt), `a.fill(x)`; and which variables a statement
// assigns (what a branch joins and a loop carries).

import type * as TS from "typescript";
import type { Expr } from "../syntax/ast.js";
import type { Ctx, Env, Fn, Ownership, ValueBinding } from "./context.js";
import { bare, expr, indexOf, isAssignment, packAs } from "./expressions.js";
import { arithmetic } from "./operators.js";
import { forEachLoop } from "./loops.js";
import { app, index } from "./smooth-ast.js";
import { markShared } from "./statements.js";
import { joinType, sameType, showTsType, T_INT, type TsType } from "./ts-types.js";
import { atom, Lets, typeOfVal, type Val } from "./values.js";
import { walkTree } from "./walk.js";

/** Statements that are expressions: assignments, `++`/`--`, `a.fill(x)` and `xs.forEach(...)`. */
export function expressionStatement(fn: Fn, e0: TS.Expression, env: Env, ctx: Ctx): Expr {
  const ts = fn.ts;
  const e = bare(ts, e0);
  const lets = new Lets(fn.names);
  const span = fn.span(e);
  if (ts.isBinaryExpression(e) && isAssignment(ts, e)) {
    const op = e.operatorToken.kind;
    let newEnv: Env;
    if (op === ts.SyntaxKind.EqualsToken) {
      const value = expr(fn, e.right, env, lets);
      newEnv = assign(fn, e.left, () => value, markShared(fn, e.right, env), lets, bare(ts, e.right));
    } else {
      const arith = compoundOperator(ts, op);
      if (!arith) return fn.fail(e.operatorToken, `\`${ts.tokenToString(op)}\` is not supported`);
      const right = expr(fn, e.right, env, lets);
      newEnv = assign(fn, e.left, (old) => combine(fn, lets, arith, old, right, e), env, lets);
    }
    return lets.wrap(ctx.next(newEnv));
  }
  if (
    (ts.isPostfixUnaryExpression(e) || ts.isPrefixUnaryExpression(e)) &&
    (e.operator === ts.SyntaxKind.PlusPlusToken || e.operator === ts.SyntaxKind.MinusMinusToken)
  ) {
    const one = atom({ kind: "num", value: 1, isInt: true, span }, T_INT);
    const op = e.operator === ts.SyntaxKind.PlusPlusToken ? "+" : "-";
    const newEnv = assign(fn, e.operand, (old) => combine(fn, lets, op, old, one, e), env, lets);
    return lets.wrap(ctx.next(newEnv));
  }
  if (ts.isCallExpression(e)) {
    const callee = bare(ts, e.expression);
    if (ts.isPropertyAccessExpression(callee) && callee.name.text === "forEach")
      return forEachLoop(fn, e, callee.expression, env, ctx);
    if (ts.isPropertyAccessExpression(callee) && callee.name.text === "fill") {
      // a.fill(x): a is now x everywhere (as a value: `a = a.fill(x)`).
      const value = expr(fn, e, env, lets);
      return lets.wrap(ctx.next(assign(fn, callee.expression, () => value, env, lets)));
    }
    if (
      ts.isPropertyAccessExpression(callee) &&
      ts.isIdentifier(callee.expression) &&
      callee.expression.text === "console"
    )
      return ctx.next(env); // printing has no value in the program: left out
  }
  return fn.fail(e, "this expression statement has no effect Smooth can keep", {
    hint: "statements are declarations, assignments, ++/--, a.fill(x), xs.forEach(...), if, loops and return",
  });
}

function compoundOperator(ts: Fn["ts"], op: TS.SyntaxKind): "+" | "-" | "*" | "/" | "**" | "%" | undefined {
  switch (op) {
    case ts.SyntaxKind.PlusEqualsToken:
      return "+";
    case ts.SyntaxKind.MinusEqualsToken:
      return "-";
    case ts.SyntaxKind.AsteriskEqualsToken:
      return "*";
    case ts.SyntaxKind.SlashEqualsToken:
      return "/";
    case ts.SyntaxKind.AsteriskAsteriskEqualsToken:
      return "**";
    case ts.SyntaxKind.PercentEqualsToken:
      return "%";
    default:
      return undefined;
  }
}

/** `old op right` for a compound assignment. */
function combine(fn: Fn, lets: Lets, op: "+" | "-" | "*" | "/" | "**" | "%", old: Val, right: Val, node: TS.Node): Val {
  const span = fn.span(node);
  if (old.kind !== "atom" || right.kind !== "atom" || !isNum(old.type) || !isNum(right.type))
    return fn.fail(node, `\`${fn.text(node)}\` needs numbers`, {}, "type");
  if (op === "%") {
    // As `%` (expressions.ts) on atoms: through a synthetic binary node is not possible, so write it here.
    const a = old;
    const b = right;
    if (a.type.k === "int" && b.type.k === "int")
      return lets.bind(
        {
          kind: "binop",
          op: "-",
          left: a.expr,
          right: {
            kind: "binop",
            op: "*",
            left: b.expr,
            right: { kind: "binop", op: "/", left: a.expr, right: b.expr, span, opSpan: span },
            span,
            opSpan: span,
          },
          span,
          opSpan: span,
        },
        T_INT,
        "r",
        span,
      );
    return fn.fail(node, "`%=` on numbers that are not integers is not supported", { hint: "write x = x % m" });
  }
  return arithmetic(fn, lets, op, { expr: old.expr, type: old.type }, { expr: right.expr, type: right.type }, span);
}

const isNum = (t: TsType) => t.k === "double" || t.k === "int";

/**
 * Assigns to a target — a variable, an element `a[i]` (or `a[i][j]`, ...) of an array this function owns, or a
 * property `p.x` of an object it owns — the value `f(old value)`; returns the environment after it.
 */
function assign(fn: Fn, target: TS.Expression, f: (old: Val) => Val, env: Env, lets: Lets, rhs?: TS.Expression): Env {
  const ts = fn.ts;
  const t = bare(ts, target);
  const span = fn.span(t);
  const root = rootName(ts, t);
  if (!root) return fn.fail(t, `\`${fn.text(t)}\` cannot be assigned to`);
  const b = env.get(root.text);
  if (!b || b.kind !== "value")
    return fn.fail(root, `\`${root.text}\` is not a variable of this function`, {
      hint: "a function of the subset computes a result; it cannot change variables outside it",
    });
  if (b.level < env.level)
    return fn.fail(t, `a callback of map or reduce cannot change \`${root.text}\`, a variable outside it`, {
      hint: "use a for loop (or forEach) to accumulate",
    });
  if (t === root) {
    if (!b.mutable) return fn.fail(t, `\`${root.text}\` is a const`, {}, "type");
    const value = f(b.val);
    checkSameKind(fn, b, value, t);
    const named =
      value.kind === "atom" && value.expr.kind !== "num" && value.expr.kind !== "bool"
        ? lets.bind(value.expr, value.type, root.text, span)
        : value;
    const ownership = rhs ? ownershipOfAssigned(fn, rhs, env) : b.ownership;
    return env.update(root.text, named, ownership);
  }
  if (b.ownership !== "owned")
    return fn.fail(
      t,
      `\`${root.text}\` ${b.ownership === "foreign" ? "is not an array or object this function made" : "was stored elsewhere before this write"}: writing into it is not supported`,
      {
        hint:
          b.ownership === "foreign"
            ? "Smooth's arrays are values: copy it first (const y = x.slice()) and write into the copy"
            : "in JavaScript the other holder would see the write; write before storing it, or store a copy (a.slice())",
      },
    );
  return env.update(root.text, write(fn, t, b.val, f, env, lets));
}

function ownershipOfAssigned(fn: Fn, rhs: TS.Expression, env: Env): Ownership {
  const ts = fn.ts;
  if (ts.isIdentifier(rhs)) {
    const b = env.get(rhs.text);
    return b?.kind === "value" && b.ownership === "foreign" ? "foreign" : "shared";
  }
  return "owned";
}

/** A variable keeps its kind: a number stays a number, an array an array of the same elements. */
function checkSameKind(fn: Fn, b: ValueBinding, value: Val, node: TS.Node): void {
  const before = typeOfVal(b.val);
  if (before.k === "unset") return;
  const after = typeOfVal(value);
  const joined = joinType(before, after);
  if (!joined)
    fn.fail(node, `\`${fn.text(node)}\` held ${showTsType(before)} and is assigned ${showTsType(after)}`, {}, "type");
}

/** The root variable of an assignment target (`a` of `a[i][j]`, `p` of `p.x`). */
function rootName(ts: Fn["ts"], t: TS.Expression): TS.Identifier | undefined {
  let e = bare(ts, t);
  while (ts.isElementAccessExpression(e) || ts.isPropertyAccessExpression(e)) e = bare(ts, e.expression);
  return ts.isIdentifier(e) ? e : undefined;
}

/** The value of `container` with the part at `target` replaced by f(old part). */
function write(fn: Fn, target: TS.Expression, container: Val, f: (old: Val) => Val, env: Env, lets: Lets): Val {
  const ts = fn.ts;
  const t = bare(ts, target);
  if (ts.isIdentifier(t)) return f(container);
  const span = fn.span(t);
  const parentTarget = (t as TS.ElementAccessExpression | TS.PropertyAccessExpression).expression;
  // Replace in the parent: read the parent's current value, replace the part, write the parent back.
  return write(
    fn,
    parentTarget,
    container,
    (parent) => {
      if (ts.isPropertyAccessExpression(t)) {
        if (parent.kind !== "record") return fn.fail(t, `\`${fn.text(t.expression)}\` is not an object`, {}, "type");
        const k = parent.keys.indexOf(t.name.text);
        if (k < 0) return fn.fail(t.name, `the object has no property \`${t.name.text}\``, {}, "type");
        const value = f(parent.fields[k]!);
        const joined = joinType(typeOfVal(parent.fields[k]!), typeOfVal(value));
        if (!joined)
          return fn.fail(
            t,
            `\`${fn.text(t)}\` held ${showTsType(typeOfVal(parent.fields[k]!))} and is assigned ${showTsType(typeOfVal(value))}`,
            {},
            "type",
          );
        return { ...parent, fields: parent.fields.map((x, i) => (i === k ? value : x)) };
      }
      const e = t as TS.ElementAccessExpression;
      if (parent.kind !== "atom" || parent.type.k !== "array")
        return fn.fail(e.expression, `\`${fn.text(e.expression)}\` is not an array`, {}, "type");
      const elem = parent.type.elem;
      const i = (
        lets.bind(indexOf(fn, e.argumentExpression, env, lets, "an index"), T_INT, "i", span) as { expr: Expr }
      ).expr;
      const old = lets.bind(index(parent.expr, i, span), elem, "x", span);
      const value = f(old);
      const joined = joinType(elem, typeOfVal(value));
      if (!joined || !sameType(joined, elem))
        return fn.fail(
          t,
          `an element of an array of ${showTsType(elem)} is assigned ${showTsType(typeOfVal(value))}`,
          {
            hint: elem.k === "int" ? "an Int32Array holds integers" : undefined,
          },
          "type",
        );
      return lets.bind(app("setAt", [parent.expr, i, packAs(value, elem, span)], span), parent.type, "xs", span);
    },
    env,
    lets,
  );
}

/**
 * The variables of `env` a statement assigns (directly, through an element or property, or by `a.fill`), in the order
 * of the environment. Assignments inside nested functions other than forEach callbacks are not counted (those
 * functions cannot assign outer variables).
 */
export function assignedNames(fn: Fn, nodes: readonly (TS.Node | undefined)[], env: Env): string[] {
  const ts = fn.ts;
  const found = new Set<string>();
  const visit = (n: TS.Node): true | undefined => {
    if (ts.isBinaryExpression(n) && isAssignment(ts, n)) {
      const r = rootName(ts, n.left);
      if (r) found.add(r.text);
    } else if (
      (ts.isPrefixUnaryExpression(n) || ts.isPostfixUnaryExpression(n)) &&
      (n.operator === ts.SyntaxKind.PlusPlusToken || n.operator === ts.SyntaxKind.MinusMinusToken)
    ) {
      const r = rootName(ts, n.operand);
      if (r) found.add(r.text);
    } else if (ts.isCallExpression(n)) {
      const c = bare(ts, n.expression);
      if (ts.isPropertyAccessExpression(c) && c.name.text === "fill") {
        const r = rootName(ts, c.expression);
        if (r) found.add(r.text);
      }
    }
    return ts.isFunctionLike(n) && !isForEachCallback(ts, n) ? undefined : true;
  };
  for (const n of nodes) if (n) walkTree(ts, n, true, visit);
  return env.names().filter((name) => found.has(name) && env.get(name)?.kind === "value");
}

function isForEachCallback(ts: Fn["ts"], n: TS.Node): boolean {
  const p = n.parent;
  return (
    !!p && ts.isCallExpression(p) && ts.isPropertyAccessExpression(p.expression) && p.expression.name.text === "forEach"
  );
}
