// For loops. A counting loop — `for (let i = a; i < b; i++)` (also <=, >, >=, a constant step up or down, i + c in the
// condition, several variables declared) whose counter and bound the body does not change — is an ifold over the
// number of iterations, computed once (as JavaScript would count them, also against a Double bound); any other for
// loop is its initialiser and a while loop whose iteration runs the body and then the update (./loops.ts).

import type * as A from "acorn";
import type { Expr } from "../syntax/ast.js";
import type { Span } from "../syntax/source.js";
import { assignedNames, methodCall, rootName } from "./assignments.js";
import type { Ctx, Env, Fn } from "./context.js";
import { boolean, expr, number } from "./expressions.js";
import { runLoop } from "./loops.js";
import { app, binop, bool, dbl, ifte, neg, num } from "./smooth-ast.js";
import { block } from "./statements.js";
import { bare, isFunctionLike, keyName, numberLiteral, type Expression, type Node } from "./syntax.js";
import { arithmeticRange, INT32, rangeOf, recordRange, withinInt32, type Range } from "./int-ranges.js";
import { T_DOUBLE, T_INT, type TsType } from "./ts-types.js";
import { walkTree } from "./walk.js";
import { Lets, type AtomVal } from "./values.js";

/** `for (let i = a; i < b; i++)` and the like: the counter, its start, its step and the number of iterations. */
interface Counting {
  readonly name: string;
  readonly start: Expression;
  readonly bound: Expression;
  /** The condition compares `i + shift` with the bound. */
  readonly shift: number;
  readonly op: "<" | "<=" | ">" | ">=";
  readonly step: number;
  readonly decl: A.VariableDeclarator;
}

const integer = (e: Expression): number | undefined => {
  const n = numberLiteral(bare(e));
  return n !== undefined && Number.isInteger(n) ? n : undefined;
};

function counting(fn: Fn, s: A.ForStatement, env: Env): Counting | undefined {
  const init = s.init;
  if (init?.type !== "VariableDeclaration") return undefined;
  const decl = init.declarations[0]!;
  if (decl.id.type !== "Identifier" || !decl.init) return undefined;
  const name = decl.id.name;
  const c = s.test && bare(s.test);
  if (c?.type !== "BinaryExpression") return undefined;
  const ops: Partial<Record<string, Counting["op"]>> = { "<": "<", "<=": "<=", ">": ">", ">=": ">=" };
  const flip: Record<Counting["op"], Counting["op"]> = { "<": ">", "<=": ">=", ">": "<", ">=": "<=" };
  let op = ops[c.operator];
  let bound: Expression;
  let shift: number;
  const isI = (e: Node) => e.type !== "PrivateIdentifier" && isName(bare(e as Expression), name);
  /** `i`, or `i + c` / `i - c` with c a constant integer (the bound then moves by -c / +c). */
  const counter = (e: Node): number | undefined => {
    if (isI(e)) return 0;
    if (e.type === "PrivateIdentifier") return undefined;
    const b = bare(e as Expression);
    if (b.type === "BinaryExpression" && isI(b.left)) {
      const r = integer(b.right);
      if (r === undefined) return undefined;
      if (b.operator === "+") return r;
      if (b.operator === "-") return -r;
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
    bound = c.left as Expression;
    shift = right;
    op = flip[op];
  } else return undefined;
  const step = stepOf(s.update, name);
  if (step === undefined) return undefined;
  if (step > 0 !== (op === "<" || op === "<=")) return undefined;
  // The counter must not be assigned in the body, nor anything the bound reads — but the length of an array whose
  // elements the body writes does not change.
  const assigned = new Set(
    assignedNames(fn, [s.body], env.set(name, { kind: "function", node: undefined as never, decl: {}, level: 0 })),
  );
  if (assigned.has(name)) return undefined;
  const resized = resizedNames(s.body);
  const reads = namesRead(bound);
  const readsAssigned = [...reads.names].some((n) => assigned.has(n)) || [...reads.lengths].some((n) => resized.has(n));
  if (readsAssigned) return undefined;
  return { name, start: decl.init, bound, shift, op, step, decl };
}

/** The variables an expression reads: as values, and only for their length (`xs.length`). */
function namesRead(e: Node): { names: Set<string>; lengths: Set<string> } {
  const names = new Set<string>();
  const lengths = new Set<string>();
  walkTree(e, true, (n) => {
    if (n.type === "Identifier") names.add((n as A.Identifier).name);
    if (n.type !== "MemberExpression") return true;
    const m = n as A.MemberExpression;
    const owner = m.object.type === "Super" ? undefined : bare(m.object);
    if (!m.computed && keyName(m.property, false) === "length" && owner?.type === "Identifier") {
      lengths.add(owner.name);
      return undefined;
    }
    // A property's name is not a variable: only the object (and a computed key) are read.
    const inner = namesRead(m.object);
    inner.names.forEach((x) => names.add(x));
    inner.lengths.forEach((x) => lengths.add(x));
    if (m.computed) namesRead(m.property).names.forEach((x) => names.add(x));
    return undefined;
  });
  return { names, lengths };
}

const isName = (e: Node, name: string) => e.type === "Identifier" && (e as A.Identifier).name === name;

/** The variables a statement may give another length: assigned as a whole, or pushed onto. */
function resizedNames(body: Node): Set<string> {
  const out = new Set<string>();
  walkTree(body, true, (n) => {
    if (n.type === "AssignmentExpression") {
      const left = (n as A.AssignmentExpression).left;
      if (left.type === "Identifier") out.add(left.name);
      else if (left.type !== "MemberExpression")
        walkTree(left, true, (x) => (x.type === "Identifier" ? void out.add((x as A.Identifier).name) : true));
    }
    const m = methodCall(n);
    if (m?.name === "push") {
      const r = rootName(m.receiver);
      if (r) out.add(r.name);
    }
    return isFunctionLike(n) && n.type !== "ArrowFunctionExpression" ? undefined : true;
  });
  return out;
}

/** The constant step of `i++`, `i--`, `i += 2`, `i -= 2`, `i = i + 2`. */
function stepOf(e: Expression | null | undefined, name: string): number | undefined {
  if (!e) return undefined;
  const u = bare(e);
  if (u.type === "UpdateExpression" && isName(bare(u.argument), name)) return u.operator === "++" ? 1 : -1;
  if (u.type === "AssignmentExpression" && isName(u.left, name)) {
    if (u.operator === "+=") return positive(integer(u.right));
    if (u.operator === "-=") {
      const c = positive(integer(u.right));
      return c === undefined ? undefined : -c;
    }
    if (u.operator === "=") {
      const r = bare(u.right);
      if (r.type === "BinaryExpression" && isName(bare(r.left as Expression), name)) {
        const c = positive(integer(r.right));
        if (c === undefined) return undefined;
        if (r.operator === "+") return c;
        if (r.operator === "-") return -c;
      }
    }
  }
  return undefined;
}

const positive = (c: number | undefined) => (c !== undefined && c > 0 ? c : undefined);

export function forLoop(fn: Fn, s: A.ForStatement, env0: Env, ctx0: Ctx): Expr {
  const span = fn.span(s);
  // `for (let i = 0, n = xs.length; ...)`: the variables after the first are declared first, seen only by the loop.
  const init = s.init;
  const extra = init?.type === "VariableDeclaration" ? init.declarations.slice(1) : [];
  const prelude = new Lets(fn.names);
  let env = env0;
  for (const d of extra) {
    if (d.id.type !== "Identifier" || !d.init) return fn.fail(d, "a for loop's variable needs an initial value");
    const v = expr(fn, d.init, env, prelude);
    if (v.kind !== "atom") return fn.fail(d, "a for loop's variable is a number");
    const mutable = (init as A.VariableDeclaration).kind !== "const";
    env = env.declare(d.id.name, prelude.bind(v.expr, v.type, d.id.name, span), mutable, "foreign", d);
  }
  const ctx: Ctx = extra.length === 0 ? ctx0 : { ...ctx0, next: (after) => ctx0.next(after.exitTo(env0)) };
  return prelude.wrap(counted(fn, s, env, ctx, span) ?? whileShaped(fn, s, env, ctx));
}

/** A counting for loop as an ifold, or undefined when it is not one. */
function counted(fn: Fn, s: A.ForStatement, env: Env, ctx: Ctx, span: Span): Expr | undefined {
  const c = counting(fn, s, env);
  if (c) {
    const lets = new Lets(fn.names);
    const start = number(fn, c.start, env, lets, "the start of the loop");
    if (start.type.k === "int") {
      const a = (lets.bind(start.expr, T_INT, c.name, span) as { expr: Expr }).expr;
      const b = loopBound(fn, c, env, lets);
      const bound = bare(c.bound);
      const isLength =
        bound.type === "MemberExpression" && !bound.computed && keyName(bound.property, false) === "length";
      let count = (lets.bind(iterations(c, a, b, span, isLength), T_INT, "n", span) as { expr: Expr }).expr;
      // (Counting from 0 or 1 by ±1 the counter cannot pass 32 bits: the count is an Index.)
      const r = rangeOf(a);
      const far = Math.abs(c.step) * (2 ** 31 - 2);
      if (b.type.k !== "int" && !withinInt32(c.step > 0 ? { lo: r.lo, hi: r.hi + far } : { lo: r.lo - far, hi: r.hi }))
        count = checkedCount(c, a, count, lets, span);
      return lets.wrap(
        runLoop(fn, env, ctx, {
          node: s,
          body: s.body,
          count,
          iteration: (inner, k, iterCtx, l) => {
            const i = binop(
              c.step > 0 ? "+" : "-",
              a,
              c.step === 1 || c.step === -1 ? k! : binop("*", num(Math.abs(c.step), span), k!, span),
              span,
            );
            const iv = l.bind(i, T_INT, c.name, span);
            recordRange((iv as { expr: Expr }).expr, counterRange(c, a, b));
            return block(fn, s.body, inner.declare(c.name, iv, false, "foreign", c.decl), iterCtx);
          },
        }),
      );
    }
  }
  return undefined;
}

/**
 * The values a counted loop's counter takes: from the start to the bound (one short of it when the bound is strict);
 * any 32-bit integer when the bound is a Double.
 */
function counterRange(c: Counting, a: Expr, b: { expr: Expr; type: TsType }): Range {
  if (b.type.k !== "int") return INT32;
  const [ra, rb] = [rangeOf(a), rangeOf(b.expr)];
  const strict = c.op === "<" || c.op === ">" ? 1 : 0;
  // i + shift < b: i < b - shift, which loopBound computed.
  return c.step > 0
    ? { lo: ra.lo, hi: Math.max(ra.lo, rb.hi - strict) }
    : { lo: Math.min(ra.hi, rb.lo + strict), hi: ra.hi };
}

/**
 * Against a Double bound, a counter that would pass 32 bits (JavaScript's goes on, in doubles) is a located index error
 * before the loop runs (its last value is not an Index), not a counter that wraps around. The check gives the count,
 * so that it is kept (the optimiser removes unused lets).
 */
function checkedCount(c: Counting, a: Expr, count: Expr, lets: Lets, span: Span): Expr {
  const double = (x: Expr) => app("double", [x], span);
  const steps = double(app("max", [num(0, span), binop("-", count, num(1, span), span)], span));
  const moved = binop("*", dbl(Math.abs(c.step), span), steps, span);
  const last = (lets.bind(binop(c.step > 0 ? "+" : "-", double(a), moved, span), T_DOUBLE, "last", span) as AtomVal)
    .expr;
  const inRange = binop(
    "&&",
    binop(">=", last, neg(dbl(2 ** 31, span), span), span),
    binop("<=", last, dbl(2 ** 31 - 1, span), span),
    span,
  );
  return (lets.bind(app("toIndex", [ifte(inRange, double(count), last, span)], span), T_INT, "n", span) as AtomVal)
    .expr;
}

/** A for loop that is not a counting one: `init; while (cond) { body; update }`, `continue` running the update. */
function whileShaped(fn: Fn, s: A.ForStatement, env: Env, ctx: Ctx): Expr {
  const span = fn.span(s);
  const { init: initList, test: cond, body, update } = s;
  // The loop's own variables (let i = ...) are declared first, as part of an enclosing scope.
  const lets = new Lets(fn.names);
  let e = env;
  if (initList && initList.type !== "VariableDeclaration")
    return fn.fail(initList, "a for loop's initialiser must declare its variables (let i = 0)");
  if (initList) {
    const mutable = initList.kind !== "const";
    // (The variables after the first were declared by forLoop.)
    for (const d of initList.declarations.slice(0, 1)) {
      if (d.id.type !== "Identifier" || !d.init) return fn.fail(d, "a for loop's variable needs an initial value");
      const v = expr(fn, d.init, e, lets);
      if (v.kind !== "atom") return fn.fail(d, "a for loop's variable is a number");
      e = e.declare(d.id.name, lets.bind(v.expr, v.type, d.id.name, span), mutable, "foreign", d);
    }
  }
  const withUpdate = (inner: Env, next: (e: Env) => Expr): Expr => {
    if (!update) return next(inner);
    // The update as a statement of its own, in the iteration's environment.
    const u: A.ExpressionStatement = {
      type: "ExpressionStatement",
      expression: update,
      start: update.start,
      end: update.end,
    };
    return block(fn, u, inner, { next, ret: () => fn.fail(update, "unreachable") });
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
  const bound = (lets.bind(shifted, b.type, "bound", span) as { expr: Expr }).expr;
  if (b.type.k === "int") {
    const r = arithmeticRange("-", rangeOf(b.expr), { lo: c.shift, hi: c.shift });
    if (withinInt32(r)) recordRange(bound, r);
  }
  return { expr: bound, type: b.type };
}

/** How many times `for (i = a; i op b; i += step)` runs: max 0 (ceil((b - a) / step)) and the like, as an Index. */
function iterations(c: Counting, a: Expr, b: { expr: Expr; type: TsType }, span: Span, boundIsLength: boolean): Expr {
  const up = c.step > 0;
  const step = Math.abs(c.step);
  const strict = c.op === "<" || c.op === ">";
  const one = num(1, span);
  // for (let i = 0; i < xs.length; i++): the count is the length itself (the optimiser then knows i < length xs).
  if (boundIsLength && up && step === 1 && strict && c.shift === 0 && a.kind === "num" && a.value === 0) return b.expr;
  // (b - a in Index arithmetic would wrap around where it is beyond 32 bits: such a distance is a Double's.)
  const distance = up
    ? arithmeticRange("-", rangeOf(b.expr), rangeOf(a))
    : arithmeticRange("-", rangeOf(a), rangeOf(b.expr));
  if (b.type.k === "int" && withinInt32({ lo: distance.lo, hi: distance.hi + (strict ? step - 1 : step) })) {
    // Integers: the distance, one more when the bound is included, divided by the step rounding up.
    let d = up ? binop("-", b.expr, a, span) : binop("-", a, b.expr, span);
    if (!strict) d = binop("+", d, one, span);
    if (step > 1) d = binop("/", binop("+", d, num(step - 1, span), span), num(step, span), span);
    return app("max", [num(0, span), d], span);
  }
  // A Double bound: the iterations are the integers i = a + k step with i < b (or <=): ceil or floor + 1 of the
  // distance.
  const bound = b.type.k === "int" ? app("double", [b.expr], span) : b.expr;
  const quotient = binop(
    "/",
    up ? binop("-", bound, app("double", [a], span), span) : binop("-", app("double", [a], span), bound, span),
    num(step, span),
    span,
  );
  const floor = (x: Expr) => app("floor", [x], span);
  const n = strict ? neg(floor(neg(quotient, span)), span) : binop("+", floor(quotient), one, span);
  return app("toIndex", [app("max", [num(0, span), n], span)], span);
}
