// For loops. A counting loop — `for (let i = a; i < b; i++)` (also <=, >, >=, a constant step up or down, i + c in the
// condition, several variables declared) whose counter and bound the body does not change — is an ifold over the
// number of iterations, computed once (as JavaScript would count them, also against a Double bound); any other for
// loop is its initialiser and a while loop whose iteration runs the body and then the update (./loops.ts).

import type * as TS from "typescript";
import type { Expr } from "../syntax/ast.js";
import type { Span } from "../syntax/source.js";
import { assignedNames } from "./assignments.js";
import type { Ctx, Env, Fn } from "./context.js";
import { bare, boolean, expr, number } from "./expressions.js";
import { runLoop, withParent } from "./loops.js";
import { app, binop, bool, neg, num } from "./smooth-ast.js";
import { block } from "./statements.js";
import { T_INT, type TsType } from "./ts-types.js";
import { walkTree } from "./walk.js";
import { Lets } from "./values.js";

/** `for (let i = a; i < b; i++)` and the like: the counter, its start, its step and the number of iterations. */
interface Counting {
  readonly name: string;
  readonly start: TS.Expression;
  readonly bound: TS.Expression;
  /** The condition compares `i + shift` with the bound. */
  readonly shift: number;
  readonly op: "<" | "<=" | ">" | ">=";
  readonly step: number;
  readonly decl: TS.VariableDeclaration;
}

function counting(fn: Fn, s: TS.ForStatement, env: Env): Counting | undefined {
  const ts = fn.ts;
  const init = s.initializer;
  if (!init || !ts.isVariableDeclarationList(init)) return undefined;
  const decl = init.declarations[0]!;
  if (!ts.isIdentifier(decl.name) || !decl.initializer) return undefined;
  const name = decl.name.text;
  const c = s.condition && bare(ts, s.condition);
  if (!c || !ts.isBinaryExpression(c)) return undefined;
  const K = ts.SyntaxKind;
  const ops: Partial<Record<number, Counting["op"]>> = {
    [K.LessThanToken]: "<",
    [K.LessThanEqualsToken]: "<=",
    [K.GreaterThanToken]: ">",
    [K.GreaterThanEqualsToken]: ">=",
  };
  const flip: Record<Counting["op"], Counting["op"]> = { "<": ">", "<=": ">=", ">": "<", ">=": "<=" };
  let op = ops[c.operatorToken.kind];
  let bound: TS.Expression;
  let shift: number;
  const isI = (e: TS.Expression) => ts.isIdentifier(bare(ts, e)) && (bare(ts, e) as TS.Identifier).text === name;
  /** `i`, or `i + c` / `i - c` with c a constant integer (the bound then moves by -c / +c). */
  const counter = (e: TS.Expression): number | undefined => {
    if (isI(e)) return 0;
    const b = bare(ts, e);
    if (ts.isBinaryExpression(b) && isI(b.left)) {
      const r = bare(ts, b.right);
      if (!ts.isNumericLiteral(r) || !Number.isInteger(Number(r.text))) return undefined;
      if (b.operatorToken.kind === ts.SyntaxKind.PlusToken) return Number(r.text);
      if (b.operatorToken.kind === ts.SyntaxKind.MinusToken) return -Number(r.text);
    }
    return undefined;
  };
  if (!op) return undefined;
  const left = counter(c.left);
  const right = left === undefined ? counter(c.right) : undefined;
  if (left !== undefined) {
    bound = c.right;
    shift = left;
  } else if (right !== undefined) {
    bound = c.left;
    shift = right;
    op = flip[op];
  } else return undefined;
  const step = stepOf(fn, s.incrementor, name);
  if (step === undefined) return undefined;
  if (step > 0 !== (op === "<" || op === "<=")) return undefined;
  // The counter must not be assigned in the body, nor anything the bound reads.
  const assigned = new Set(
    assignedNames(fn, [s.statement], env.set(name, { kind: "function", node: undefined as never, decl: {}, level: 0 })),
  );
  if (assigned.has(name)) return undefined;
  let readsAssigned = false;
  walkTree(ts, bound, true, (n) => {
    if (ts.isIdentifier(n) && assigned.has(n.text)) readsAssigned = true;
    return true;
  });
  if (readsAssigned) return undefined;
  return { name, start: decl.initializer, bound, shift, op, step, decl };
}

/** The constant step of `i++`, `i--`, `i += 2`, `i -= 2`, `i = i + 2`. */
function stepOf(fn: Fn, e: TS.Expression | undefined, name: string): number | undefined {
  const ts = fn.ts;
  if (!e) return undefined;
  const u = bare(ts, e);
  const isI = (x: TS.Expression) => ts.isIdentifier(bare(ts, x)) && (bare(ts, x) as TS.Identifier).text === name;
  const constant = (x: TS.Expression): number | undefined => {
    const b = bare(ts, x);
    return ts.isNumericLiteral(b) && Number.isInteger(Number(b.text)) ? Number(b.text) : undefined;
  };
  if ((ts.isPostfixUnaryExpression(u) || ts.isPrefixUnaryExpression(u)) && isI(u.operand)) {
    if (u.operator === ts.SyntaxKind.PlusPlusToken) return 1;
    if (u.operator === ts.SyntaxKind.MinusMinusToken) return -1;
  }
  if (ts.isBinaryExpression(u) && isI(u.left)) {
    const k = u.operatorToken.kind;
    if (k === ts.SyntaxKind.PlusEqualsToken) return positive(constant(u.right));
    if (k === ts.SyntaxKind.MinusEqualsToken) {
      const c = positive(constant(u.right));
      return c === undefined ? undefined : -c;
    }
    if (k === ts.SyntaxKind.EqualsToken) {
      const r = bare(ts, u.right);
      if (ts.isBinaryExpression(r) && isI(r.left)) {
        const c = positive(constant(r.right));
        if (c === undefined) return undefined;
        if (r.operatorToken.kind === ts.SyntaxKind.PlusToken) return c;
        if (r.operatorToken.kind === ts.SyntaxKind.MinusToken) return -c;
      }
    }
  }
  return undefined;
}

const positive = (c: number | undefined) => (c !== undefined && c > 0 ? c : undefined);

export function forLoop(fn: Fn, s: TS.ForStatement, env0: Env, ctx0: Ctx): Expr {
  const ts = fn.ts;
  const span = fn.span(s);
  // `for (let i = 0, n = xs.length; ...)`: the variables after the first are declared first, seen only by the loop.
  const init = s.initializer;
  const extra = init && ts.isVariableDeclarationList(init) ? init.declarations.slice(1) : [];
  const prelude = new Lets(fn.names);
  let env = env0;
  for (const d of extra) {
    if (!ts.isIdentifier(d.name) || !d.initializer) return fn.fail(d, "a for loop's variable needs an initial value");
    const v = expr(fn, d.initializer, env, prelude);
    if (v.kind !== "atom") return fn.fail(d, "a for loop's variable is a number");
    const mutable = ((init as TS.VariableDeclarationList).flags & ts.NodeFlags.Const) === 0;
    env = env.declare(d.name.text, prelude.bind(v.expr, v.type, d.name.text, span), mutable, "foreign", d);
  }
  const ctx: Ctx = extra.length === 0 ? ctx0 : { ...ctx0, next: (after) => ctx0.next(after.exitTo(env0)) };
  return prelude.wrap(
    counted(fn, s, env, ctx, span) ?? whileShaped(fn, s, env, ctx, init, s.condition, s.statement, s.incrementor),
  );
}

/** A counting for loop as an ifold, or undefined when it is not one. */
function counted(fn: Fn, s: TS.ForStatement, env: Env, ctx: Ctx, span: Span): Expr | undefined {
  const ts = fn.ts;
  const c = counting(fn, s, env);
  if (c) {
    const lets = new Lets(fn.names);
    const start = number(fn, c.start, env, lets, "the start of the loop");
    if (start.type.k === "int") {
      const a = (lets.bind(start.expr, T_INT, c.name, span) as { expr: Expr }).expr;
      const b = loopBound(fn, c, env, lets);
      const bound = bare(ts, c.bound);
      const isLength = ts.isPropertyAccessExpression(bound) && bound.name.text === "length";
      const count = (lets.bind(iterations(c, a, b, span, isLength), T_INT, "n", span) as { expr: Expr }).expr;
      return lets.wrap(
        runLoop(fn, env, ctx, {
          node: s,
          body: s.statement,
          count,
          iteration: (inner, k, iterCtx, l) => {
            const i = binop(
              c.step > 0 ? "+" : "-",
              a,
              c.step === 1 || c.step === -1 ? k! : binop("*", num(Math.abs(c.step), span), k!, span),
              span,
            );
            const iv = l.bind(i, T_INT, c.name, span);
            return block(fn, s.statement, inner.declare(c.name, iv, false, "foreign", c.decl), iterCtx);
          },
        }),
      );
    }
  }
  return undefined;
}

/** A for loop that is not a counting one: `init; while (cond) { body; update }`, `continue` running the update. */
function whileShaped(
  fn: Fn,
  s: TS.ForStatement,
  env: Env,
  ctx: Ctx,
  initList: TS.ForInitializer | undefined,
  cond: TS.Expression | undefined,
  body: TS.Statement,
  update: TS.Expression | undefined,
): Expr {
  const ts = fn.ts;
  const span = fn.span(s);
  // The loop's own variables (let i = ...) are declared first, as part of an enclosing scope.
  const lets = new Lets(fn.names);
  let e = env;
  if (initList && !ts.isVariableDeclarationList(initList))
    return fn.fail(initList, "a for loop's initialiser must declare its variables (let i = 0)");
  if (initList) {
    const mutable = (initList.flags & ts.NodeFlags.Const) === 0;
    // (The variables after the first were declared by forLoop.)
    for (const d of initList.declarations.slice(0, 1)) {
      if (!ts.isIdentifier(d.name) || !d.initializer) return fn.fail(d, "a for loop's variable needs an initial value");
      const v = expr(fn, d.initializer, e, lets);
      if (v.kind !== "atom") return fn.fail(d, "a for loop's variable is a number");
      e = e.declare(d.name.text, lets.bind(v.expr, v.type, d.name.text, span), mutable, "foreign", d);
    }
  }
  const withUpdate = (inner: Env, next: (e: Env) => Expr): Expr => {
    if (!update) return next(inner);
    const u = ts.factory.createExpressionStatement(update);
    // The update as a statement of its own, in the iteration's environment.
    return block(fn, withParent(u, s), inner, { next, ret: () => fn.fail(update, "unreachable") });
  };
  const loop = runLoop(
    fn,
    e,
    { ...ctx, next: (after) => ctx.next(after.exitTo(env)) },
    {
      node: s,
      body,
      extra: [update],
      cond: (inner, l) => (cond ? boolean(fn, cond, inner, l, "the loop's condition") : bool(true, span)),
      iteration: (inner, _k, iterCtx) =>
        block(fn, body, inner, {
          ...iterCtx,
          next: (after) => withUpdate(after, iterCtx.next),
          cont: (after) => withUpdate(after, iterCtx.next),
        }),
    },
  );
  return lets.wrap(loop);
}

/** The loop's bound as an Index (an Index counter against a Double bound counts up to its ceiling). */
function loopBound(fn: Fn, c: Counting, env: Env, lets: Lets): { expr: Expr; type: TsType } {
  const b = number(fn, c.bound, env, lets, "the loop's bound");
  const span = fn.span(c.bound);
  // i + shift < b is i < b - shift.
  const shifted = c.shift === 0 ? b.expr : binop("-", b.expr, num(c.shift, span), span);
  return { expr: (lets.bind(shifted, b.type, "bound", span) as { expr: Expr }).expr, type: b.type };
}

/** How many times `for (i = a; i op b; i += step)` runs: max 0 (ceil((b - a) / step)) and the like, as an Index. */
function iterations(c: Counting, a: Expr, b: { expr: Expr; type: TsType }, span: Span, boundIsLength: boolean): Expr {
  const up = c.step > 0;
  const step = Math.abs(c.step);
  const strict = c.op === "<" || c.op === ">";
  const one = num(1, span);
  // for (let i = 0; i < xs.length; i++): the count is the length itself (the optimiser then knows i < length xs).
  if (boundIsLength && up && step === 1 && strict && c.shift === 0 && a.kind === "num" && a.value === 0) return b.expr;
  if (b.type.k === "int") {
    // Integers: the distance, one more when the bound is included, divided by the step rounding up.
    let d = up ? binop("-", b.expr, a, span) : binop("-", a, b.expr, span);
    if (!strict) d = binop("+", d, one, span);
    if (step > 1) d = binop("/", binop("+", d, num(step - 1, span), span), num(step, span), span);
    return app("max", [num(0, span), d], span);
  }
  // A Double bound: the iterations are the integers i = a + k step with i < b (or <=): ceil or floor + 1 of the
  // distance.
  const distance = binop(
    "/",
    up ? binop("-", b.expr, app("double", [a], span), span) : binop("-", app("double", [a], span), b.expr, span),
    num(step, span),
    span,
  );
  const floor = (x: Expr) => app("floor", [x], span);
  const n = strict ? neg(floor(neg(distance, span)), span) : binop("+", floor(distance), one, span);
  return app("toIndex", [app("max", [num(0, span), n], span)], span);
}
