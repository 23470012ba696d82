// Loops. A loop's state is the variables it assigns that were declared before it (with `done` and the returned value
// when a `break` or a `return` leaves it early). A counting loop — `for (let i = a; i < b; i++)` (also <=, >, >=,
// +=/-= a constant step, `for (const x of xs)`, `xs.forEach`) whose bound does not change in the loop — is an
// `ifold` over the number of iterations; any other loop is the language's `while`. The state's types are found by
// translating the body again until they do not change (an Index counter that becomes a Double, say).

import type * as TS from "typescript";
import type { Expr } from "../syntax/ast.js";
import type { Span } from "../syntax/source.js";
import { Holes, type Ctx, type Env, type Fn } from "./context.js";
import { bare, boolean, expr, number } from "./expressions.js";
import { app, binop, bool, ifte, index, lam, neg, not, num, param, pvar } from "./smooth-ast.js";
import { assignedNames, bindParams, bindState, block, flatTuple, joinStates, stateOf } from "./statements.js";
import { sameType, showTsType, T_BOOL, T_INT, type TsType } from "./ts-types.js";
import { atom, fromLeaves, leafTypes, Lets, typeOfVal, type Val } from "./values.js";

const DONE = "'done";
const RETURNED = "'returned";

/** How one iteration runs: the environment with the state bound, the iteration's index (ifold), its exits. */
type Iteration = (env: Env, k: Expr | undefined, ctx: Ctx, lets: Lets) => Expr;

interface LoopShape {
  readonly node: TS.Node;
  readonly body: TS.Node;
  /** An ifold of this many iterations, or a while with this condition. */
  readonly count?: Expr;
  readonly cond?: (env: Env, lets: Lets) => Expr;
  readonly iteration: Iteration;
  /** Also assigned by the loop (a while-form for loop's update). */
  readonly extra?: readonly (TS.Node | undefined)[];
}

/** Does the loop's body leave it with `break` (one of its own) or `return`? */
function exits(ts: Fn["ts"], body: TS.Node): { brk: boolean; ret: boolean } {
  let brk = false;
  let ret = false;
  const visit = (n: TS.Node, nested: boolean): void => {
    if (ts.isReturnStatement(n)) ret = true;
    if (ts.isBreakStatement(n) && !nested) brk = true;
    if (ts.isFunctionLike(n)) return;
    const loop = ts.isForStatement(n) || ts.isForOfStatement(n) || ts.isWhileStatement(n) || ts.isDoStatement(n);
    ts.forEachChild(n, (c) => visit(c, nested || loop));
  };
  visit(body, false);
  return { brk, ret };
}

function runLoop(fn: Fn, env: Env, ctx: Ctx, shape: LoopShape): Expr {
  const ts = fn.ts;
  const span = fn.span(shape.node);
  const names = assignedNames(fn, [shape.body, ...(shape.extra ?? [])], env);
  const { brk, ret } = exits(ts, shape.body);
  const flagged = brk || ret;
  const keys = [...names, ...(flagged ? [DONE, RETURNED] : [])];
  const initVal: Val = {
    kind: "record",
    keys,
    fields: [
      ...names.map((n) => env.value(n)!),
      ...(flagged ? [atom(bool(false, span), T_BOOL), atom(num(0, span), T_INT)] : []),
    ],
  };
  if (keys.length === 0) {
    // Nothing assigned: the loop computes nothing the rest can see.
    return ctx.next(env);
  }
  let type = typeOfVal(initVal);
  for (let round = 0; ; round++) {
    const holes = new Holes();
    const st = fn.names.fresh("st");
    const k = shape.count ? fn.names.fresh("k") : undefined;
    const lets = new Lets(fn.names);
    const stateLeaves = leafTypes(type).map((t) => ({ name: fn.names.fresh("s"), t }));
    lets.bindPattern(
      stateLeaves.length === 1
        ? pvar(stateLeaves[0]!.name, span)
        : { kind: "ptuple", elems: stateLeaves.map((l) => pvar(l.name, span)), span },
      { kind: "var", name: st, span },
      span,
    );
    const state = fromLeaves(
      type,
      stateLeaves.map((l) => atom({ kind: "var", name: l.name, span }, l.t)),
    ) as { fields: readonly Val[] };
    let inner = env;
    names.forEach((n, i) => (inner = inner.update(n, state.fields[i]!)));
    const done = flagged ? state.fields[names.length]! : undefined;
    const returned = flagged ? state.fields[names.length + 1]! : undefined;
    const exit = (e: Env, isDone: Expr, value: Val | undefined, node: TS.Node): Expr => {
      const s = stateOf(e.exitTo(inner), names) as { keys: readonly string[]; fields: readonly Val[] };
      const fields = flagged ? [...s.fields, atom(isDone, T_BOOL), value ?? returned!] : s.fields;
      return holes.add({ kind: "record", keys, fields }, e, node);
    };
    const iterCtx: Ctx = {
      next: (e) => exit(e, bool(false, span), undefined, shape.body),
      cont: (e, n) => exit(e, bool(false, span), undefined, n),
      brk: (e, n) => exit(e, bool(true, span), undefined, n),
      ret: (v, e, n) => {
        if (leafTypes(typeOfVal(v)).length !== 1 || !["double", "int", "bool"].includes(typeOfVal(v).k))
          return fn.fail(
            n,
            `a return inside a loop gives ${showTsType(typeOfVal(v))}: only numbers and booleans can be returned from inside a loop`,
            {
              hint: "assign the result to a variable, break, and return it after the loop",
            },
          );
        return exit(e, bool(true, span), v, n);
      },
    };
    let body = shape.iteration(inner, k === undefined ? undefined : { kind: "var", name: k, span }, iterCtx, lets);
    if (flagged && shape.count) body = ifte((done as { expr: Expr }).expr, { kind: "var", name: st, span }, body, span);
    const joined = joinStates(fn, holes, keys, shape.node, type);
    if (!sameType(joined, type) && round < 6) {
      type = joined;
      continue;
    }
    const init = flatTuple(initVal, type, span);
    const step = lets.wrap(body);
    let loop: Expr;
    if (shape.count)
      loop = app("ifold", [lam([param(st, span), param(k!, span)], step, span), init, shape.count], span);
    else {
      if (!fn.program.hasBuiltin("while"))
        return fn.fail(shape.node, "this loop is not a counting loop, and while loops are not supported yet", {
          hint: "the language's `while` is being added; a counting loop is `for (let i = a; i < b; i++)` with a bound that does not change in the loop",
        });
      const condLets = new Lets(fn.names);
      const condState = bindStateParam(fn, st, type, names, env, condLets, span);
      let cond = shape.cond!(condState.env, condLets);
      if (flagged) cond = binop("&&", not((condState.done as { expr: Expr }).expr, span), cond, span);
      loop = app(
        "while",
        [lam([param(st, span)], condLets.wrap(cond), span), lam([param(st, span)], step, span), init],
        span,
      );
    }
    const after = new Lets(fn.names);
    const out = bindState(fn, names, type, env, after, span, loop);
    if (!ret) return after.wrap(ctx.next(out.env));
    const doneAfter = out.fields[names.length]! as { expr: Expr };
    const value = out.fields[names.length + 1]!;
    return after.wrap(ifte(doneAfter.expr, ctx.ret(value, out.env, shape.node), ctx.next(out.env), span));
  }
}

/** The state parameter of a while's condition, taken apart. */
function bindStateParam(
  fn: Fn,
  st: string,
  type: TsType,
  names: readonly string[],
  env: Env,
  lets: Lets,
  span: Span,
): { env: Env; done: Val | undefined } {
  const leaves = leafTypes(type).map((t) => ({ name: fn.names.fresh("s"), t }));
  lets.bindPattern(
    leaves.length === 1
      ? pvar(leaves[0]!.name, span)
      : { kind: "ptuple", elems: leaves.map((l) => pvar(l.name, span)), span },
    { kind: "var", name: st, span },
    span,
  );
  const state = fromLeaves(
    type,
    leaves.map((l) => atom({ kind: "var", name: l.name, span }, l.t)),
  ) as { fields: readonly Val[] };
  let e = env;
  names.forEach((n, i) => (e = e.update(n, state.fields[i]!)));
  return { env: e, done: state.fields[names.length] };
}

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
  const visit = (n: TS.Node): void => {
    if (ts.isIdentifier(n) && assigned.has(n.text)) readsAssigned = true;
    ts.forEachChild(n, visit);
  };
  visit(bound);
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

/** Synthesised nodes get a parent, so that source positions and `getText` work on their children. */
function withParent<T extends TS.Node>(n: T, parent: TS.Node): T {
  (n as { parent: TS.Node }).parent = parent;
  return n;
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
  // A Double bound: the iterations are the integers i = a + k step with i < b (or <=): ceil or floor + 1 of the distance.
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

/** `for (const x of xs)`: a counting loop over the elements. */
export function forOfLoop(fn: Fn, s: TS.ForOfStatement, env: Env, ctx: Ctx): Expr {
  const ts = fn.ts;
  const span = fn.span(s);
  const init = s.initializer;
  if (!ts.isVariableDeclarationList(init) || init.declarations.length !== 1)
    return fn.fail(init, "a for-of loop declares its element (for (const x of xs))");
  const lets = new Lets(fn.names);
  const xs = expr(fn, s.expression, env, lets);
  if (xs.kind !== "atom" || xs.type.k !== "array")
    return fn.fail(s.expression, `for-of goes over an array, but this is ${showTsType(typeOfVal(xs))}`, {}, "type");
  const count = (lets.bind(app("length", [xs.expr], span), T_INT, "n", span) as { expr: Expr }).expr;
  const decl = init.declarations[0]!;
  return lets.wrap(
    runLoop(fn, env, ctx, {
      node: s,
      body: s.statement,
      count,
      iteration: (inner, k, iterCtx, l) => {
        const x = l.bind(index(xs.expr, k!, span), (xs.type as { elem: TsType }).elem, "x", span);
        const bound = bindParams(fn, [paramOf(fn, decl)], [x], inner, l);
        return block(fn, s.statement, bound, iterCtx);
      },
    }),
  );
}

/** A declaration as a parameter (to bind its pattern like one). */
function paramOf(fn: Fn, d: TS.VariableDeclaration): TS.ParameterDeclaration {
  const p = fn.ts.factory.createParameterDeclaration(undefined, undefined, d.name);
  return withParent(p, d);
}

/** `xs.forEach((x, i) => { ... })`: a counting loop whose body is the callback's. */
export function forEachLoop(fn: Fn, e: TS.CallExpression, receiver: TS.Expression, env: Env, ctx: Ctx): Expr {
  const ts = fn.ts;
  const span = fn.span(e);
  const cb = e.arguments[0] && bare(ts, e.arguments[0]);
  if (!cb || !(ts.isArrowFunction(cb) || ts.isFunctionExpression(cb)))
    return fn.fail(e, "forEach takes a function written here (x => { ... })");
  const lets = new Lets(fn.names);
  const xs = expr(fn, receiver, env, lets);
  if (xs.kind !== "atom" || xs.type.k !== "array")
    return fn.fail(receiver, `forEach goes over an array, but this is ${showTsType(typeOfVal(xs))}`, {}, "type");
  const count = (lets.bind(app("length", [xs.expr], span), T_INT, "n", span) as { expr: Expr }).expr;
  const body = cb.body;
  return lets.wrap(
    runLoop(fn, env, ctx, {
      node: e,
      body,
      count,
      iteration: (inner, k, iterCtx, l) => {
        const x = l.bind(index(xs.expr, k!, span), (xs.type as { elem: TsType }).elem, "x", span);
        const bound = bindParams(fn, cb.parameters, [x, atom(k!, T_INT)], inner, l);
        // A `return` in the callback ends this iteration (as `continue`).
        const forEachCtx: Ctx = { ...iterCtx, ret: (_v, after) => iterCtx.next(after), brk: undefined };
        if (!ts.isBlock(body)) return fn.fail(body, "forEach's callback is a block ({ ... }) of statements");
        return block(fn, body, bound, forEachCtx);
      },
    }),
  );
}

export function whileLoop(fn: Fn, s: TS.WhileStatement, env: Env, ctx: Ctx): Expr {
  return runLoop(fn, env, ctx, {
    node: s,
    body: s.statement,
    cond: (inner, l) => boolean(fn, s.expression, inner, l, "the condition of `while`"),
    iteration: (inner, _k, iterCtx) => block(fn, s.statement, inner, iterCtx),
  });
}

/** `do body while (c)`: the body once, then `while (c) body`. */
export function doWhileLoop(fn: Fn, s: TS.DoStatement, env: Env, ctx: Ctx): Expr {
  const ts = fn.ts;
  if (containsJump(ts, s.statement))
    return fn.fail(s, "break, continue and return inside do-while are not supported", { hint: "use a while loop" });
  return block(fn, s.statement, env, {
    ...ctx,
    next: (after) =>
      runLoop(fn, after, ctx, {
        node: s,
        body: s.statement,
        cond: (inner, l) => boolean(fn, s.expression, inner, l, "the condition of `do ... while`"),
        iteration: (inner, _k, iterCtx) => block(fn, s.statement, inner, iterCtx),
      }),
  });
}

function containsJump(ts: Fn["ts"], n: TS.Node): boolean {
  if (ts.isReturnStatement(n) || ts.isBreakStatement(n) || ts.isContinueStatement(n)) return true;
  if (ts.isFunctionLike(n)) return false;
  let found = false;
  ts.forEachChild(n, (c) => {
    if (!found && containsJump(ts, c)) found = true;
  });
  return found;
}
