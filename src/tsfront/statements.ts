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
import { boolean, expr, SUBSET_HINT } from "./expressions.js";
import { forLoop } from "./for-loops.js";
import { doWhileLoop, forOfLoop, whileLoop } from "./loops.js";
import { ifte, index } from "./smooth-ast.js";
import {
  bare,
  isFunctionLike,
  isLoop,
  keyName,
  type Expression,
  type Node,
  type Pattern,
  type Statement,
} from "./syntax.js";
import { showTsType, T_UNSET, type TsType } from "./ts-types.js";
import { atom, Lets, typeOfVal, type Val } from "./values.js";
import { walkTree } from "./walk.js";

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
    case "FunctionDeclaration":
      // A function declared inside: inlined where it is called (it sees the variables as they are then).
      return ctx.next(env.set(s.id.name, { kind: "function", node: s, decl: s, level: env.level }));
    case "ForInStatement":
      return fn.fail(s, "for-in loops are not supported", { hint: "use for (let i = 0; i < n; i++)" });
    case "ThrowStatement":
    case "TryStatement":
      return fn.fail(s, "exceptions are not supported");
    case "SwitchStatement":
      return fn.fail(s, "switch is not supported", { hint: "use if / else if" });
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
    if (d.id.type === "Identifier" && (init.type === "ArrowFunctionExpression" || init.type === "FunctionExpression")) {
      e = e.set(d.id.name, { kind: "function", node: init, decl: d, level: e.level });
      continue;
    }
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
    if (
      c.type === "MemberExpression" &&
      ["map", "slice", "fill", "from"].includes(keyName(c.property, c.computed) ?? "")
    )
      return "owned";
  }
  if (init.type === "Identifier") {
    const b = env.get(init.name);
    return b?.kind === "value" && b.ownership === "foreign" ? "foreign" : "shared";
  }
  return "owned";
}

/** An owned array or object stored elsewhere (another variable, an object, an array) becomes shared. */
export function markShared(fn: Fn, value: Expression, env: Env): Env {
  const e = bare(value);
  if (e.type === "Identifier") {
    const b = env.get(e.name);
    if (b?.kind === "value" && b.ownership === "owned" && !isScalar(typeOfVal(b.val)))
      return env.update(e.name, b.val, "shared");
    return env;
  }
  let out = env;
  if (e.type === "ObjectExpression")
    for (const p of e.properties) out = markShared(fn, p.type === "Property" ? p.value : p.argument, out);
  if (e.type === "ArrayExpression")
    for (const x of e.elements) if (x) out = markShared(fn, x.type === "SpreadElement" ? x.argument : x, out);
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
    for (const el of name.properties) {
      if (el.type === "RestElement" || el.value.type === "AssignmentPattern")
        return fn.fail(el, "rest and default values in destructuring are not supported");
      const key = keyName(el.key, el.computed);
      const k = key === undefined ? -1 : val.keys.indexOf(key);
      if (k < 0) return fn.fail(el, `the object has no property \`${key ?? fn.text(el)}\``, {}, "type");
      e = bindPattern(fn, el.value, val.fields[k]!, e, lets, mutable, ownership, el);
    }
    return e;
  }
  if (name.type !== "ArrayPattern") return fn.fail(name, "this kind of declaration is not supported");
  // [a, b] = tuple (or the first elements of an array).
  let e = env;
  name.elements.forEach((el, k) => {
    if (el === null) return;
    if (el.type === "RestElement" || el.type === "AssignmentPattern")
      fn.fail(el, "rest and default values in destructuring are not supported");
    let part: Val;
    if (val.kind === "tuple") {
      if (k >= val.elems.length) fn.fail(el, `the tuple has ${val.elems.length} elements`, {}, "type");
      part = val.elems[k]!;
    } else if (val.kind === "atom" && val.type.k === "array") {
      part = lets.bind(index(val.expr, { kind: "num", value: k, isInt: true, span }, span), val.type.elem, "x", span);
    } else
      return fn.fail(
        el,
        `destructuring [...] needs an array or a tuple, but the value is ${showTsType(typeOfVal(val))}`,
        {},
        "type",
      );
    e = bindPattern(fn, el, part, e, lets, mutable, ownership, el);
  });
  return e;
}

/** Does the statement contain a `return`, or a `break`/`continue` leaving it (not of a loop inside it)? */
export function jumps(s: Node | null | undefined, inLoop = false): boolean {
  let found = false;
  if (s)
    walkTree(s, inLoop, (n, inside) => {
      if (found || isFunctionLike(n)) return undefined;
      if (
        n.type === "ReturnStatement" ||
        ((n.type === "BreakStatement" || n.type === "ContinueStatement") && !inside)
      ) {
        found = true;
        return undefined;
      }
      return inside || isLoop(n);
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
  if (names.length === 0) return lets.wrap(ctx.next(env));
  const holes = new Holes();
  const join: Ctx = { ...ctx, next: (e) => holes.add(stateOf(e, names), e, s) };
  const a = block(fn, s.consequent, env, join);
  const b = s.alternate ? block(fn, s.alternate, env, join) : join.next(env);
  const joined = joinStates(fn, holes, names, s);
  const after = bindState(fn, names, joined, env, lets, span, ifte(cond, a, b, span));
  return lets.wrap(ctx.next(after.env));
}
