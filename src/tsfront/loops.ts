// Loops. A loop's state is the variables it assigns that were declared before it (with `done` and the returned value
// when a `break` or a `return` leaves it early). A counting loop (./for-loops.ts, and `for (const x of xs)`,
// `xs.forEach`) is an `ifold` over the number of iterations; any other loop is the language's `while`. The state's
// types are found by translating the body again until they do not change (an Index counter that becomes a Double).

import type * as A from "acorn";
import type { Expr } from "../syntax/ast.js";
import type { Span } from "../syntax/source.js";
import { Holes, type Ctx, type Env, type Fn } from "./context.js";
import { boolean, expr } from "./expressions.js";
import { app, binop, bool, ifte, index, lam, not, num, param, pvar } from "./smooth-ast.js";
import { assignedNames } from "./assignments.js";
import { bindParams, bindState, flatTuple, joinStates, stateOf } from "./bodies.js";
import { bindPattern, block } from "./statements.js";
import { bare, isFunctionLike, isLoop, type Expression, type Node } from "./syntax.js";
import { ELEMENT_INDEX, recordRange } from "./int-ranges.js";
import { sameType, showTsType, T_BOOL, T_INT, type TsType } from "./ts-types.js";
import { atom, fromLeaves, leafTypes, Lets, typeOfVal, type Val } from "./values.js";
import { walkTree } from "./walk.js";

const DONE = "'done";
const RETURNED = "'returned";

/** How one iteration runs: the environment with the state bound, the iteration's index (ifold), its exits. */
type Iteration = (env: Env, k: Expr | undefined, ctx: Ctx, lets: Lets) => Expr;

export interface LoopShape {
  readonly node: Node;
  readonly body: Node;
  /** An ifold of this many iterations, or a while with this condition. */
  readonly count?: Expr;
  readonly cond?: (env: Env, lets: Lets) => Expr;
  readonly iteration: Iteration;
  /** Also assigned by the loop (a while-form for loop's update). */
  readonly extra?: readonly (Node | null | undefined)[];
}

/** Does the loop's body leave it with `break` (one of its own) or `return`? */
function exits(body: Node): { brk: boolean; ret: boolean } {
  let brk = false;
  let ret = false;
  walkTree(body, false, (n, nested) => {
    if (n.type === "ReturnStatement") ret = true;
    if (n.type === "BreakStatement" && !nested) brk = true;
    if (isFunctionLike(n)) return undefined;
    return nested || isLoop(n) || n.type === "SwitchStatement";
  });
  return { brk, ret };
}

export function runLoop(fn: Fn, env: Env, ctx: Ctx, shape: LoopShape): Expr {
  const span = fn.span(shape.node);
  const names = assignedNames(fn, [shape.body, ...(shape.extra ?? [])], env);
  const { brk, ret } = exits(shape.body);
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
    // Nothing assigned: the loop computes nothing the rest can see (its body is read for its errors only).
    const ignored = new Lets(fn.names);
    shape.cond?.(env, ignored);
    checkIteration(fn, shape, env);
    return ctx.next(env);
  }
  let type = typeOfVal(initVal);
  for (let round = 0; ; round++) {
    const holes = new Holes();
    const st = fn.names.fresh("st");
    const k = shape.count ? fn.names.fresh("k") : undefined;
    const lets = new Lets(fn.names);
    const state = bindStateParam(fn, st, type, names, env, lets, span);
    const inner = state.env;
    const { done, returned } = state;
    const exit = (e: Env, isDone: Expr, value: Val | undefined, node: Node): Expr => {
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

/** An iteration translated only for the errors it holds (see checkOnly). */
function checkIteration(fn: Fn, shape: LoopShape, env: Env): void {
  const span = fn.span(shape.node);
  const nothing: Expr = { kind: "bool", value: true, span };
  const ignore: Ctx = { next: () => nothing, ret: () => nothing, brk: () => nothing, cont: () => nothing };
  const k: Expr | undefined = shape.count ? { kind: "var", name: fn.names.fresh("k"), span } : undefined;
  shape.iteration(env, k, ignore, new Lets(fn.names));
}

/** A loop's state parameter taken apart: the variables bound to its parts, and the flags when it has them. */
function bindStateParam(
  fn: Fn,
  st: string,
  type: TsType,
  names: readonly string[],
  env: Env,
  lets: Lets,
  span: Span,
): { env: Env; done: Val | undefined; returned: Val | undefined } {
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
  return { env: e, done: state.fields[names.length], returned: state.fields[names.length + 1] };
}

/** `for (const x of xs)`: a counting loop over the elements. */
export function forOfLoop(fn: Fn, s: A.ForOfStatement, env: Env, ctx: Ctx): Expr {
  const span = fn.span(s);
  const init = s.left;
  if (s.await) return fn.fail(s, "for await is not supported");
  if (init.type !== "VariableDeclaration" || init.declarations.length !== 1)
    return fn.fail(init, "a for-of loop declares its element (for (const x of xs))");
  const lets = new Lets(fn.names);
  const xs = expr(fn, s.right, env, lets);
  if (xs.kind === "tuple") return lets.wrap(unrolled(fn, s, init, xs.elems, env, ctx));
  if (xs.kind !== "atom" || xs.type.k !== "array")
    return fn.fail(s.right, `for-of goes over an array, but this is ${showTsType(typeOfVal(xs))}`, {}, "type");
  const count = (lets.bind(app("length", [xs.expr], span), T_INT, "n", span) as { expr: Expr }).expr;
  const decl = init.declarations[0]!;
  return lets.wrap(
    runLoop(fn, env, ctx, {
      node: s,
      body: s.body,
      count,
      iteration: (inner, k, iterCtx, l) => {
        const x = l.bind(index(xs.expr, k!, span), (xs.type as { elem: TsType }).elem, "x", span);
        const bound = bindPattern(fn, decl.id, x, inner, l, init.kind !== "const", "foreign", decl);
        return block(fn, s.body, bound, iterCtx);
      },
    }),
  );
}

/**
 * `for (const x of xs)` over a tuple (a JavaScript array of values of different kinds: layers with different
 * activation functions): the body once per element, in order.
 */
function unrolled(
  fn: Fn,
  s: A.ForOfStatement,
  init: A.VariableDeclaration,
  elems: readonly Val[],
  env: Env,
  ctx: Ctx,
): Expr {
  const decl = init.declarations[0]!;
  const jump = (_e: Env, node: Node): Expr =>
    fn.fail(node, "break and continue in a for-of loop over values of different kinds are not supported", {
      hint: "the loop is unrolled, one copy of its body per element: use if around the rest of the body",
    });
  const step = (k: number, e: Env): Expr => {
    if (k === elems.length) return ctx.next(e);
    const l = new Lets(fn.names);
    const bound = bindPattern(fn, decl.id, elems[k]!, e, l, init.kind !== "const", "foreign", decl);
    const next = (after: Env) => step(k + 1, after.exitTo(env));
    return l.wrap(block(fn, s.body, bound, { ...ctx, next, brk: jump, cont: jump }));
  };
  return step(0, env);
}

/** `xs.forEach((x, i) => { ... })`: a counting loop whose body is the callback's. */
export function forEachLoop(fn: Fn, e: A.CallExpression, receiver: Expression, env: Env, ctx: Ctx): Expr {
  const span = fn.span(e);
  const arg = e.arguments[0];
  const cb = arg && arg.type !== "SpreadElement" ? bare(arg) : undefined;
  if (!cb || !(cb.type === "ArrowFunctionExpression" || cb.type === "FunctionExpression"))
    return fn.fail(e, "forEach takes a function written here (x => { ... })");
  const lets = new Lets(fn.names);
  const xs = expr(fn, receiver, env, lets);
  if (xs.kind !== "atom" || xs.type.k !== "array")
    return fn.fail(receiver, `forEach goes over an array, but this is ${showTsType(typeOfVal(xs))}`, {}, "type");
  const count = (lets.bind(app("length", [xs.expr], span), T_INT, "n", span) as { expr: Expr }).expr;
  const body = cb.body;
  if (body.type !== "BlockStatement") return fn.fail(body, "forEach's callback is a block ({ ... }) of statements");
  return lets.wrap(
    runLoop(fn, env, ctx, {
      node: e,
      body,
      count,
      iteration: (inner, k, iterCtx, l) => {
        const x = l.bind(index(xs.expr, k!, span), (xs.type as { elem: TsType }).elem, "x", span);
        recordRange(k!, ELEMENT_INDEX);
        const bound = bindParams(fn, cb.params, [x, atom(k!, T_INT)], inner, l);
        // A `return` in the callback ends this iteration (as `continue`).
        const forEachCtx: Ctx = { ...iterCtx, ret: (_v, after) => iterCtx.next(after), brk: undefined };
        return block(fn, body, bound, forEachCtx);
      },
    }),
  );
}

export function whileLoop(fn: Fn, s: A.WhileStatement, env: Env, ctx: Ctx): Expr {
  return runLoop(fn, env, ctx, {
    node: s,
    body: s.body,
    cond: (inner, l) => boolean(fn, s.test, inner, l, "the condition of `while`"),
    iteration: (inner, _k, iterCtx) => block(fn, s.body, inner, iterCtx),
  });
}

/** `do body while (c)`: the body once, then `while (c) body`. */
export function doWhileLoop(fn: Fn, s: A.DoWhileStatement, env: Env, ctx: Ctx): Expr {
  if (containsJump(s.body))
    return fn.fail(s, "break, continue and return inside do-while are not supported", { hint: "use a while loop" });
  return block(fn, s.body, env, {
    ...ctx,
    next: (after) =>
      runLoop(fn, after, ctx, {
        node: s,
        body: s.body,
        cond: (inner, l) => boolean(fn, s.test, inner, l, "the condition of `do ... while`"),
        iteration: (inner, _k, iterCtx) => block(fn, s.body, inner, iterCtx),
      }),
  });
}

function containsJump(node: Node): boolean {
  let found = false;
  walkTree(node, true, (n) => {
    if (found || isFunctionLike(n)) return undefined;
    if (n.type === "ReturnStatement" || n.type === "BreakStatement" || n.type === "ContinueStatement") found = true;
    return found ? undefined : true;
  });
  return found;
}
