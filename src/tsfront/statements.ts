// Statements, translated in continuation-passing style: a statement list becomes one expression in which each
// declaration or assignment (./assignments.ts) is a `let` (a new Smooth variable per assignment), an `if` whose
// branches only assign becomes `let (x, y) = if c then (x', y) else (x, y') in rest` (./bodies.ts joins them), an `if`
// with a `return`, `break` or `continue` in it has the rest of the list in each branch that falls through, and loops
// (./loops.ts) carry the variables they assign as their state.

import type * as A from "acorn";
import { surfaceChildren, type Expr } from "../syntax/ast.js";
import { assignedNames, expressionStatement } from "./assignments.js";
import { joinStates, bindState, stateOf } from "./bodies.js";
import { Holes, type Ctx, type Env, type Fn, type Ownership } from "./context.js";
import { boolean, expr, packAs, SUBSET_HINT } from "./expressions.js";
import { forLoop } from "./for-loops.js";
import { doWhileLoop, forOfLoop, whileLoop } from "./loops.js";
import { app, binop, ifte, index, lam, num, param } from "./smooth-ast.js";
import {
  bare,
  isFunctionLike,
  isFunctionNode,
  isLoop,
  keyName,
  type Expression,
  type Node,
  type Pattern,
  type Statement,
} from "./syntax.js";
import { isNumber, joinType, showTsType, T_UNSET, type TsType } from "./ts-types.js";
import { atom, Lets, typeOfVal, type Val } from "./values.js";
import { walkTree } from "./walk.js";
import { closureOf, mentionedNames } from "./function-values.js";

/**
 * Translates statements list[i..] into an expression; control leaves through `ctx`. The statements are translated in
 * a loop, each with a placeholder (a hole) for the rest when it continues to it once, plugged in afterwards: in
 * continuation-passing style proper, a function of 10⁴ statements would nest 10⁴ translations on the stack. A
 * statement that continues on several paths (an `if` whose branches both fall through after a `return` in one of
 * them) has the rest translated again for each further path, as continuation-passing style does; one that never
 * continues (a `return`) ends the list, what follows it unreachable and not translated.
 */
export function stmts(fn: Fn, list: readonly Statement[], i: number, env: Env, ctx: Ctx): Expr {
  const pieces: { piece: Expr; hole: Expr }[] = [];
  let out: Expr | undefined;
  for (; i < list.length; i++) {
    const hole: Expr = { kind: "var", name: "", span: fn.span(list[i]!) };
    let after: Env | undefined;
    const k = i;
    const piece = statement(fn, list[k]!, env, {
      ...ctx,
      next: (e) => {
        if (after !== undefined) return stmts(fn, list, k + 1, e, ctx);
        after = e;
        return hole;
      },
    });
    if (after === undefined) {
      out = piece;
      break;
    }
    pieces.push({ piece, hole });
    env = after;
  }
  out ??= ctx.next(env);
  for (let k = pieces.length - 1; k >= 0; k--) out = plug(pieces[k]!.piece, pieces[k]!.hole, out);
  return out;
}

/**
 * `piece` with `rest` in place of its hole. The hole is usually the body of its last let (looked for first); else it
 * is in a branch, found from an explicit stack (and must be there once).
 */
function plug(piece: Expr, hole: Expr, rest: Expr): Expr {
  if (piece === hole) return rest;
  for (let node: Expr = piece; node.kind === "let" || node.kind === "letrec"; node = node.body) {
    if (node.body === hole) {
      node.body = rest;
      return piece;
    }
  }
  let found = 0;
  const work: Expr[] = [piece];
  while (work.length > 0) {
    const node = work.pop()! as unknown as Record<string, unknown>;
    for (const [key, value] of Object.entries(node)) {
      if (value === hole) {
        node[key] = rest;
        found++;
      } else if (Array.isArray(value)) {
        value.forEach((x, j) => {
          if (x === hole) {
            value[j] = rest;
            found++;
          }
        });
      }
    }
    work.push(...surfaceChildren(node as unknown as Expr).filter((x) => x !== rest));
  }
  if (found !== 1) throw new Error(`tsfront: the rest of a statement list belongs in ${found} places, not 1`);
  return piece;
}

/**
 * Translates blocks that assign nothing the rest sees, only for the errors they hold: a branch or a loop whose only
 * effect is one the subset refuses (`throw`, `console.log`) must be that error, not left out.
 */
export function checkOnly(fn: Fn, blocks: readonly (readonly Statement[])[], env: Env, ctx: Ctx): void {
  const nothing: Expr = { kind: "bool", value: true, span: fn.span({ type: "Program", start: 0, end: 0 }) };
  const ignore: Ctx = {
    next: () => nothing,
    ret: () => nothing,
    ...(ctx.brk ? { brk: () => nothing } : {}),
    ...(ctx.cont ? { cont: () => nothing } : {}),
  };
  for (const list of blocks) blockOf(fn, list, env, ignore);
}

/** A statement as a block of its own: what it declares is not seen after it. */
export function block(fn: Fn, s: Statement, env: Env, ctx: Ctx): Expr {
  return blockOf(fn, s.type === "BlockStatement" ? s.body : [s], env, ctx);
}

/** Statements as a block: what they declare is not seen after them. */
export function blockOf(fn: Fn, list: readonly Statement[], env: Env, ctx: Ctx): Expr {
  const inner: Ctx = {
    ...ctx,
    next: (e) => ctx.next(e.exitTo(env)),
    ...(ctx.brk ? { brk: (e: Env, n: Node) => ctx.brk!(e.exitTo(env), n) } : {}),
    ...(ctx.cont ? { cont: (e: Env, n: Node) => ctx.cont!(e.exitTo(env), n) } : {}),
  };
  return stmts(fn, list, 0, env, inner);
}

function statement(fn: Fn, s: Statement, env: Env, ctx: Ctx): Expr {
  switch (s.type) {
    case "BlockStatement":
      return block(fn, s, env, ctx);
    case "EmptyStatement":
      return ctx.next(env);
    case "VariableDeclaration":
      return declarations(fn, s, env, ctx);
    case "ExpressionStatement":
      return expressionStatement(fn, s.expression, env, ctx);
    case "IfStatement":
      return ifStatement(fn, s, env, ctx);
    case "ReturnStatement": {
      if (!s.argument) return fn.fail(s, "a function of the subset returns a value");
      const lets = new Lets(fn.names);
      const v = expr(fn, s.argument, env, lets);
      return lets.wrap(ctx.ret(v, env, s));
    }
    case "ForStatement":
      return forLoop(fn, s, env, ctx);
    case "ForOfStatement":
      return forOfLoop(fn, s, env, ctx);
    case "WhileStatement":
      return whileLoop(fn, s, env, ctx);
    case "DoWhileStatement":
      return doWhileLoop(fn, s, env, ctx);
    case "BreakStatement":
    case "ContinueStatement": {
      const brk = s.type === "BreakStatement";
      if (s.label) return fn.fail(s, "labelled break and continue are not supported");
      const go = brk ? ctx.brk : ctx.cont;
      if (!go) return fn.fail(s, `\`${brk ? "break" : "continue"}\` outside a loop`);
      return go(env, s);
    }
    case "FunctionDeclaration": {
      // A function declared inside: a function value (inlined where it is called, ./function-values.ts).
      const f = closureOf(fn, s, env);
      return ctx.next(markShared(fn, s as unknown as Expression, env).declare(s.id.name, f, false, "owned", s));
    }
    case "ForInStatement":
      return fn.fail(s, "for-in loops are not supported", { hint: "use for (let i = 0; i < n; i++)" });
    case "ThrowStatement":
    case "TryStatement":
      return fn.fail(s, "exceptions are not supported");
    case "SwitchStatement":
      return switchStatement(fn, s, env, ctx);
    default:
      return fn.fail(s, "this statement is not in the TypeScript subset Smooth reads", { hint: SUBSET_HINT });
  }
}

/** `const` and `let` declarations (with destructuring of objects and tuples). */
function declarations(fn: Fn, list: A.VariableDeclaration, env: Env, ctx: Ctx): Expr {
  // `var` (what a build for older targets writes) is read as `let`: visible in its block and after the declaration.
  const mutable = list.kind !== "const";
  const lets = new Lets(fn.names);
  let e = env;
  for (const d of list.declarations) {
    if (!d.init) {
      // `let y: number;`: a value comes with its first assignment (on every path before it is read).
      if (!mutable || d.id.type !== "Identifier") return fn.fail(d, "a const or a destructuring needs a value");
      e = e.declare(d.id.name, atom({ kind: "var", name: "", span: fn.span(d) }, T_UNSET), true, "owned", d);
      continue;
    }
    const init = bare(d.init);
    const val = expr(fn, d.init, e, lets);
    e = markShared(fn, d.init, e);
    e = bindPattern(fn, d.id, val, e, lets, mutable, ownershipOf(init, e), d);
  }
  return lets.wrap(ctx.next(e));
}

/** An array or object this function makes is its own (writable element by element). */
function ownershipOf(init: Expression, env: Env): Ownership {
  if (init.type === "NewExpression" || init.type === "ArrayExpression" || init.type === "ObjectExpression")
    return "owned";
  if (init.type === "CallExpression") {
    const c = init.callee.type === "Super" ? init.callee : bare(init.callee);
    if (c.type === "MemberExpression" && ["map", "slice", "from"].includes(keyName(c.property, c.computed) ?? ""))
      return "owned";
    // What a function returns may be an array or object it was given (`id(a)`), which a write would change.
    const given = init.arguments.some((a) => {
      const x = a.type === "SpreadElement" ? a.argument : bare(a);
      const b = x.type === "Identifier" ? env.get(x.name) : undefined;
      return b?.kind === "value" && !isScalar(typeOfVal(b.val));
    });
    const filled = c.type === "MemberExpression" && keyName(c.property, c.computed) === "fill";
    return given || filled ? "shared" : "owned";
  }
  if (init.type === "Identifier") {
    const b = env.get(init.name);
    return b?.kind === "value" && b.ownership === "foreign" ? "foreign" : "shared";
  }
  return "owned";
}

/**
 * An owned array or object stored elsewhere becomes shared: in another variable, an object or an array, given to a
 * function (which may return it), captured by a function written here (which reads it when called), or chosen by
 * `?:`.
 */
export function markShared(fn: Fn, value: Expression, env: Env): Env {
  const e = bare(value);
  const mark = (name: string, out: Env): Env => {
    const b = out.get(name);
    if (b?.kind === "value" && b.ownership === "owned" && !isScalar(typeOfVal(b.val)))
      return out.update(name, b.val, "shared");
    return out;
  };
  if (e.type === "Identifier") return mark(e.name, env);
  let out = env;
  if (e.type === "ObjectExpression")
    for (const p of e.properties) out = markShared(fn, p.type === "Property" ? p.value : p.argument, out);
  if (e.type === "ArrayExpression")
    for (const x of e.elements) if (x) out = markShared(fn, x.type === "SpreadElement" ? x.argument : x, out);
  if (isFunctionNode(e)) for (const name of mentionedNames(e)) out = mark(name, out);
  if (e.type === "CallExpression" || e.type === "NewExpression") {
    for (const a of e.arguments) out = markShared(fn, a.type === "SpreadElement" ? a.argument : a, out);
    const c = e.callee.type === "Super" ? undefined : bare(e.callee);
    if (c?.type === "MemberExpression" && c.object.type !== "Super" && keyName(c.property, c.computed) === "fill")
      out = markShared(fn, c.object, out);
  }
  if (e.type === "ConditionalExpression") out = markShared(fn, e.alternate, markShared(fn, e.consequent, out));
  if (e.type === "LogicalExpression") out = markShared(fn, e.right, markShared(fn, e.left, out));
  return out;
}

const isScalar = (t: TsType) => t.k === "double" || t.k === "int" || t.k === "bool";

/** Binds a declaration's name (or its object or array pattern) to a value. */
export function bindPattern(
  fn: Fn,
  name: Pattern,
  val: Val,
  env: Env,
  lets: Lets,
  mutable: boolean,
  ownership: Ownership,
  decl: object,
): Env {
  const span = fn.span(name);
  if (name.type === "Identifier") {
    // A computed atom gets the user's name (the program reads like the source); parts keep theirs.
    const named =
      val.kind === "atom" && val.expr.kind !== "num" && val.expr.kind !== "bool"
        ? lets.bind(val.expr, val.type, name.name, span)
        : val;
    return env.declare(name.name, named, mutable, ownership, decl);
  }
  if (name.type === "ObjectPattern") {
    if (val.kind !== "record")
      return fn.fail(
        name,
        `destructuring {…} needs an object, but the value is ${showTsType(typeOfVal(val))}`,
        {},
        "type",
      );
    let e = env;
    const taken = new Set<string>();
    for (const el of name.properties) {
      if (el.type === "RestElement") {
        // `{ a, ...rest }`: an object of the other properties.
        const keys = val.keys.filter((k) => !taken.has(k));
        if (keys.length === 0) return fn.fail(el, "the rest of this object has no properties", {}, "type");
        const rest: Val = { kind: "record", keys, fields: keys.map((k) => val.fields[val.keys.indexOf(k)]!) };
        e = bindPattern(fn, el.argument, rest, e, lets, mutable, ownership, el);
        continue;
      }
      const key = keyName(el.key, el.computed);
      const k = key === undefined ? -1 : val.keys.indexOf(key);
      if (key !== undefined) taken.add(key);
      const target = el.value.type === "AssignmentPattern" ? el.value.left : el.value;
      let part: Val;
      if (k >= 0) part = val.fields[k]!;
      // A property the object does not have takes its default value (`{ scale = 1 } = options`).
      else if (el.value.type === "AssignmentPattern") part = expr(fn, el.value.right, e, lets);
      else return fn.fail(el, `the object has no property \`${key ?? fn.text(el)}\``, {}, "type");
      e = bindPattern(fn, target, part, e, lets, mutable, ownership, el);
    }
    return e;
  }
  if (name.type !== "ArrayPattern") return fn.fail(name, "this kind of declaration is not supported");
  // [a, b] = tuple (or the first elements of an array).
  let e = env;
  name.elements.forEach((el, k) => {
    if (el === null) return;
    if (el.type === "RestElement") {
      e = bindPattern(fn, el.argument, restOf(fn, val, k, el, lets), e, lets, mutable, ownership, el);
      return;
    }
    const target = el.type === "AssignmentPattern" ? el.left : el;
    const fallback = el.type === "AssignmentPattern" ? el.right : undefined;
    e = bindPattern(fn, target, elementOf(fn, val, k, el, fallback, e, lets), e, lets, mutable, ownership, el);
  });
  return e;
}

/** Element k of a tuple or an array (`[a, b] = xs`); past the end, the default value if there is one. */
export function elementOf(
  fn: Fn,
  val: Val,
  k: number,
  el: Node,
  fallback: Expression | undefined,
  env: Env,
  lets: Lets,
): Val {
  const span = fn.span(el);
  if (val.kind === "tuple") {
    if (k < val.elems.length) return val.elems[k]!;
    if (fallback) return expr(fn, fallback, env, lets);
    return fn.fail(el, `the tuple has ${val.elems.length} elements`, {}, "type");
  }
  if (val.kind !== "atom" || val.type.k !== "array")
    return fn.fail(
      el,
      `destructuring [...] needs an array or a tuple, but the value is ${showTsType(typeOfVal(val))}`,
      {},
      "type",
    );
  const at = index(val.expr, num(k, span), span);
  if (!fallback) return lets.bind(at, val.type.elem, "x", span);
  // JavaScript's default applies past the end: `k < length xs ? xs[k] : default`, at the joined type.
  const inner = new Lets(fn.names);
  const other = expr(fn, fallback, env, inner);
  const type = joinType(val.type.elem, typeOfVal(other));
  if (!type)
    return fn.fail(
      el,
      `the default value is ${showTsType(typeOfVal(other))}, the array's elements ${showTsType(val.type.elem)}`,
      {},
      "type",
    );
  const inRange = binop("<", num(k, span), app("length", [val.expr], span), span);
  const chosen = ifte(
    inRange,
    packAs(atom(at, val.type.elem), type, span),
    inner.wrap(packAs(other, type, span)),
    span,
  );
  return lets.bind(chosen, type, "x", span);
}

/** The elements of a tuple or an array from position k on (`[a, ...rest] = xs`). */
export function restOf(fn: Fn, val: Val, k: number, el: Node, lets: Lets): Val {
  const span = fn.span(el);
  if (val.kind === "tuple") return { kind: "tuple", elems: val.elems.slice(k) };
  if (val.kind !== "atom" || val.type.k !== "array")
    return fn.fail(el, `\`...\` needs an array or a tuple, but the value is ${showTsType(typeOfVal(val))}`, {}, "type");
  const i = fn.names.fresh("i");
  const count = app("max", [num(0, span), binop("-", app("length", [val.expr], span), num(k, span), span)], span);
  const read = index(val.expr, binop("+", { kind: "var", name: i, span }, num(k, span), span), span);
  return lets.bind(app("build", [count, lam([param(i, span)], read, span)], span), val.type, "rest", span);
}

/**
 * Does the statement contain a `return`, or a `break`/`continue` leaving it (not one of a loop inside it, nor a
 * `break` of a switch inside it)?
 */
export function jumps(s: Node | null | undefined): boolean {
  let found = false;
  // What the `break` and `continue` met belong to: "none" (they leave s), "switch" (a break), "loop" (both).
  type Inside = "none" | "switch" | "loop";
  if (s)
    walkTree<Inside>(s, "none", (n, inside) => {
      if (found || isFunctionLike(n)) return undefined;
      if (
        n.type === "ReturnStatement" ||
        (n.type === "BreakStatement" && inside === "none") ||
        (n.type === "ContinueStatement" && inside !== "loop")
      ) {
        found = true;
        return undefined;
      }
      return isLoop(n) ? "loop" : n.type === "SwitchStatement" && inside === "none" ? "switch" : inside;
    });
  return found;
}

/**
 * `switch (d) { case a: ...; case b: ...; default: ... }`: the cases' tests in order (d === a, JavaScript's strict
 * equality), each case running its statements and those of the cases after it until a `break`; no case matching,
 * the default's (wherever it is written) and those after it. As an `if` chain: joining the variables the cases assign
 * when control leaves only by `break` or the end, else with the rest of the list in each case that goes on to it.
 */
function switchStatement(fn: Fn, s: A.SwitchStatement, env: Env, ctx: Ctx): Expr {
  const span = fn.span(s);
  const lets = new Lets(fn.names);
  const d = expr(fn, s.discriminant, env, lets);
  if (d.kind !== "atom" || !(isNumber(d.type) || d.type.k === "bool"))
    return fn.fail(s.discriminant, `switch compares numbers or booleans, not ${showTsType(typeOfVal(d))}`, {}, "type");
  const from = (k: number): Statement[] => s.cases.slice(k).flatMap((c) => c.consequent);
  const fallback = s.cases.findIndex((c) => c.test === null || c.test === undefined);
  /** The chain of tests from case k on, each case's body made by `body`. */
  const chain = (body: (k: number) => Expr, none: () => Expr): Expr => {
    let out = fallback >= 0 ? body(fallback) : none();
    for (let k = s.cases.length - 1; k >= 0; k--) {
      const test = s.cases[k]!.test;
      if (!test) continue;
      const l = new Lets(fn.names);
      const t = expr(fn, test, env, l);
      const ok = t.kind === "atom" && (isNumber(t.type) ? isNumber(d.type) : t.type.k === d.type.k);
      if (!ok)
        return fn.fail(
          test,
          `this case is ${showTsType(typeOfVal(t))}, the switch's value ${showTsType(d.type)}`,
          {},
          "type",
        );
      out = l.wrap(ifte(binop("=", d.expr, (t as { expr: Expr }).expr, fn.span(test)), body(k), out, span));
    }
    return out;
  };
  if (s.cases.some((c) => c.consequent.some(jumpsBeyondSwitch))) {
    // A case may return or continue a loop: the rest of the list goes into each case that falls out of the switch.
    const out: Ctx = { ...ctx, brk: (e) => ctx.next(e) };
    return lets.wrap(
      chain(
        (k) => blockOf(fn, from(k), env, out),
        () => ctx.next(env),
      ),
    );
  }
  const names = assignedNames(fn, [s], env);
  if (names.length === 0) {
    checkOnly(
      fn,
      s.cases.map((c) => c.consequent),
      env,
      ctx,
    );
    return lets.wrap(ctx.next(env));
  }
  const holes = new Holes();
  const join: Ctx = {
    ...ctx,
    next: (e) => holes.add(stateOf(e, names), e, s),
    brk: (e, n) => holes.add(stateOf(e, names), e, n),
  };
  const value = chain(
    (k) => blockOf(fn, from(k), env, join),
    () => join.next(env),
  );
  const joined = joinStates(fn, holes, names, s);
  const after = bindState(fn, names, joined, env, lets, span, value);
  return lets.wrap(ctx.next(after.env));
}

/** Does a case's statement return, or continue a loop outside the switch (a `break` of the switch is not)? */
function jumpsBeyondSwitch(x: Statement): boolean {
  let found = false;
  walkTree<boolean>(x, false, (n, inLoop) => {
    if (found || isFunctionLike(n)) return undefined;
    if (n.type === "ReturnStatement" || (n.type === "ContinueStatement" && !inLoop)) found = true;
    if (n.type === "BreakStatement" && (n as A.BreakStatement).label) found = true;
    return found ? undefined : inLoop || isLoop(n);
  });
  return found;
}

function ifStatement(fn: Fn, s: A.IfStatement, env: Env, ctx: Ctx): Expr {
  const span = fn.span(s);
  const lets = new Lets(fn.names);
  const cond = boolean(fn, s.test, env, lets, "the condition of `if`");
  if (jumps(s.consequent) || jumps(s.alternate)) {
    // A branch may leave: the rest of the list goes into each branch that falls through.
    const a = block(fn, s.consequent, env, ctx);
    const b = s.alternate ? block(fn, s.alternate, env, ctx) : ctx.next(env);
    return lets.wrap(ifte(cond, a, b, span));
  }
  const names = assignedNames(fn, [s.consequent, s.alternate], env);
  if (names.length === 0) {
    checkOnly(fn, [[s.consequent], s.alternate ? [s.alternate] : []], env, ctx);
    return lets.wrap(ctx.next(env));
  }
  const holes = new Holes();
  const join: Ctx = { ...ctx, next: (e) => holes.add(stateOf(e, names), e, s) };
  const a = block(fn, s.consequent, env, join);
  const b = s.alternate ? block(fn, s.alternate, env, join) : join.next(env);
  const joined = joinStates(fn, holes, names, s);
  const after = bindState(fn, names, joined, env, lets, span, ifte(cond, a, b, span));
  return lets.wrap(ctx.next(after.env));
}
