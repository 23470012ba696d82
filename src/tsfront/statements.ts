// Statements, translated in continuation-passing style: a statement list becomes one expression in which each
// declaration or assignment is a `let` (a new Smooth variable per assignment), an `if` whose branches only assign
// becomes `let (x, y) = if c then (x', y) else (x, y') in rest`, an `if` with a `return`, `break` or `continue` in it
// has the rest of the list in each branch that falls through, and loops (./loops.ts) carry the variables they assign as
// their state. Function bodies, callbacks of map/reduce and inlined local functions go through `translateBody`.

import type * as TS from "typescript";
import type { Expr } from "../syntax/ast.js";
import type { Span } from "../syntax/source.js";
import { Env, fill, Holes, type Ctx, type Fn, type Ownership, type ValueBinding } from "./context.js";
import { arithmetic, bare, boolean, expr, indexOf, isAssignment, packAs, SUBSET_HINT } from "./expressions.js";
import { forEachLoop, forLoop, forOfLoop, whileLoop, doWhileLoop } from "./loops.js";
import { app, ifte, index, ptuple } from "./smooth-ast.js";
import { joinType, sameType, showTsType, T_INT, T_UNSET, type TsType } from "./ts-types.js";
import { atom, fromLeaves, leaves, leafTypes, Lets, typeOfVal, type Val } from "./values.js";

/** Translates statements list[i..] into an expression; control leaves through `ctx`. */
export function stmts(fn: Fn, list: readonly TS.Statement[], i: number, env: Env, ctx: Ctx): Expr {
  if (i === list.length) return ctx.next(env);
  const s = list[i]!;
  const rest = (e: Env) => stmts(fn, list, i + 1, e, ctx);
  return statement(fn, s, env, { ...ctx, next: rest });
}

/** A statement as a block of its own: what it declares is not seen after it. */
export function block(fn: Fn, s: TS.Statement, env: Env, ctx: Ctx): Expr {
  const list = fn.ts.isBlock(s) ? s.statements : [s];
  const inner: Ctx = {
    ...ctx,
    next: (e) => ctx.next(e.exitTo(env)),
    ...(ctx.brk ? { brk: (e: Env, n: TS.Node) => ctx.brk!(e.exitTo(env), n) } : {}),
    ...(ctx.cont ? { cont: (e: Env, n: TS.Node) => ctx.cont!(e.exitTo(env), n) } : {}),
  };
  return stmts(fn, list, 0, env, inner);
}

function statement(fn: Fn, s: TS.Statement, env: Env, ctx: Ctx): Expr {
  const ts = fn.ts;
  if (ts.isBlock(s)) return block(fn, s, env, ctx);
  if (ts.isEmptyStatement(s)) return ctx.next(env);
  if (ts.isVariableStatement(s)) return declarations(fn, s.declarationList, env, ctx);
  if (ts.isExpressionStatement(s)) return expressionStatement(fn, s.expression, env, ctx);
  if (ts.isIfStatement(s)) return ifStatement(fn, s, env, ctx);
  if (ts.isReturnStatement(s)) {
    if (!s.expression) return fn.fail(s, "a function of the subset returns a value");
    const lets = new Lets(fn.names);
    const v = expr(fn, s.expression, env, lets);
    return lets.wrap(ctx.ret(v, env, s));
  }
  if (ts.isForStatement(s)) return forLoop(fn, s, env, ctx);
  if (ts.isForOfStatement(s)) return forOfLoop(fn, s, env, ctx);
  if (ts.isWhileStatement(s)) return whileLoop(fn, s, env, ctx);
  if (ts.isDoStatement(s)) return doWhileLoop(fn, s, env, ctx);
  if (ts.isBreakStatement(s) || ts.isContinueStatement(s)) {
    if (s.label) return fn.fail(s, "labelled break and continue are not supported");
    const go = ts.isBreakStatement(s) ? ctx.brk : ctx.cont;
    if (!go) return fn.fail(s, `\`${ts.isBreakStatement(s) ? "break" : "continue"}\` outside a loop`);
    return go(env, s);
  }
  if (ts.isFunctionDeclaration(s) && s.name) {
    // A function declared inside: inlined where it is called (it sees the variables as they are then).
    return ctx.next(env.set(s.name.text, { kind: "function", node: s, decl: s, level: env.level }));
  }
  if (ts.isForInStatement(s))
    return fn.fail(s, "for-in loops are not supported", { hint: "use for (let i = 0; i < n; i++)" });
  if (ts.isThrowStatement(s) || ts.isTryStatement(s)) return fn.fail(s, "exceptions are not supported");
  if (ts.isSwitchStatement(s)) return fn.fail(s, "switch is not supported", { hint: "use if / else if" });
  return fn.fail(s, "this statement is not in the TypeScript subset Smooth reads", { hint: SUBSET_HINT });
}

/** `const` and `let` declarations (with destructuring of objects and tuples). */
function declarations(fn: Fn, list: TS.VariableDeclarationList, env: Env, ctx: Ctx): Expr {
  const ts = fn.ts;
  // `var` (what a build for older targets writes) is read as `let`: visible in its block and after the declaration.
  const mutable = (list.flags & ts.NodeFlags.Const) === 0;
  const lets = new Lets(fn.names);
  let e = env;
  for (const d of list.declarations) {
    if (!d.initializer) {
      // `let y: number;`: a value comes with its first assignment (on every path before it is read).
      if (!mutable || !ts.isIdentifier(d.name)) return fn.fail(d, "a const or a destructuring needs a value");
      e = e.declare(d.name.text, atom({ kind: "var", name: "", span: fn.span(d) }, T_UNSET), true, "owned", d);
      continue;
    }
    const init = bare(ts, d.initializer);
    if (ts.isIdentifier(d.name) && (ts.isArrowFunction(init) || ts.isFunctionExpression(init))) {
      e = e.set(d.name.text, { kind: "function", node: init, decl: d, level: e.level });
      continue;
    }
    const val = expr(fn, d.initializer, e, lets);
    e = markShared(fn, d.initializer, e);
    e = bindPattern(fn, d.name, val, e, lets, mutable, ownershipOf(fn, init, e), d);
  }
  return lets.wrap(ctx.next(e));
}

/** An array or object this function makes is its own (writable element by element). */
function ownershipOf(fn: Fn, init: TS.Expression, env: Env): Ownership {
  const ts = fn.ts;
  if (ts.isNewExpression(init) || ts.isArrayLiteralExpression(init) || ts.isObjectLiteralExpression(init))
    return "owned";
  if (ts.isCallExpression(init)) {
    const c = bare(ts, init.expression);
    if (ts.isPropertyAccessExpression(c) && ["map", "slice", "fill", "from"].includes(c.name.text)) return "owned";
  }
  if (ts.isIdentifier(init)) {
    const b = env.get(init.text);
    return b?.kind === "value" && b.ownership === "foreign" ? "foreign" : "shared";
  }
  return "owned";
}

/** An owned array or object stored elsewhere (another variable, an object, an array) becomes shared. */
export function markShared(fn: Fn, value: TS.Expression, env: Env): Env {
  const ts = fn.ts;
  const e = bare(ts, value);
  if (ts.isIdentifier(e)) {
    const b = env.get(e.text);
    if (b?.kind === "value" && b.ownership === "owned" && !isScalar(typeOfVal(b.val)))
      return env.update(e.text, b.val, "shared");
    return env;
  }
  let out = env;
  if (ts.isObjectLiteralExpression(e))
    for (const p of e.properties) {
      if (ts.isPropertyAssignment(p)) out = markShared(fn, p.initializer, out);
      else if (ts.isShorthandPropertyAssignment(p)) out = markShared(fn, p.name, out);
    }
  if (ts.isArrayLiteralExpression(e)) for (const x of e.elements) out = markShared(fn, x, out);
  return out;
}

const isScalar = (t: TsType) => t.k === "double" || t.k === "int" || t.k === "bool";

/** Binds a declaration's name (or its object or array pattern) to a value. */
export function bindPattern(
  fn: Fn,
  name: TS.BindingName,
  val: Val,
  env: Env,
  lets: Lets,
  mutable: boolean,
  ownership: Ownership,
  decl: object,
): Env {
  const ts = fn.ts;
  const span = fn.span(name);
  if (ts.isIdentifier(name)) {
    // A computed atom gets the user's name (the program reads like the source); parts keep theirs.
    const named =
      val.kind === "atom" && val.expr.kind !== "num" && val.expr.kind !== "bool"
        ? lets.bind(val.expr, val.type, name.text, span)
        : val;
    return env.declare(name.text, named, mutable, ownership, decl);
  }
  if (ts.isObjectBindingPattern(name)) {
    if (val.kind !== "record")
      return fn.fail(
        name,
        `destructuring {…} needs an object, but the value is ${showTsType(typeOfVal(val))}`,
        {},
        "type",
      );
    let e = env;
    for (const el of name.elements) {
      if (el.dotDotDotToken || el.initializer)
        return fn.fail(el, "rest and default values in destructuring are not supported");
      const key = el.propertyName
        ? ts.isIdentifier(el.propertyName)
          ? el.propertyName.text
          : undefined
        : ts.isIdentifier(el.name)
          ? el.name.text
          : undefined;
      const k = key === undefined ? -1 : val.keys.indexOf(key);
      if (k < 0) return fn.fail(el, `the object has no property \`${key ?? fn.text(el)}\``, {}, "type");
      e = bindPattern(fn, el.name, val.fields[k]!, e, lets, mutable, ownership, el);
    }
    return e;
  }
  // [a, b] = tuple (or the first elements of an array).
  let e = env;
  name.elements.forEach((el, k) => {
    if (ts.isOmittedExpression(el)) return;
    if (el.dotDotDotToken || el.initializer) fn.fail(el, "rest and default values in destructuring are not supported");
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
    e = bindPattern(fn, el.name, part, e, lets, mutable, ownership, el);
  });
  return e;
}

/** Statements that are expressions: assignments, `++`/`--`, `a.fill(x)` and `xs.forEach(...)`. */
function expressionStatement(fn: Fn, e0: TS.Expression, env: Env, ctx: Ctx): Expr {
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

/** Does the statement contain a `return`, or a `break`/`continue` leaving it (not of a loop inside it)? */
export function jumps(ts: Fn["ts"], s: TS.Node | undefined, inLoop = false): boolean {
  if (!s) return false;
  if (ts.isReturnStatement(s)) return true;
  if ((ts.isBreakStatement(s) || ts.isContinueStatement(s)) && !inLoop) return true;
  if (ts.isFunctionLike(s)) return false;
  const loop = ts.isForStatement(s) || ts.isForOfStatement(s) || ts.isWhileStatement(s) || ts.isDoStatement(s);
  let found = false;
  ts.forEachChild(s, (c) => {
    if (!found && jumps(ts, c, inLoop || loop)) found = true;
  });
  return found;
}

/**
 * The variables of `env` a statement assigns (directly, through an element or property, or by `a.fill`), in the order
 * of the environment. Assignments inside nested functions other than forEach callbacks are not counted (those
 * functions cannot assign outer variables).
 */
export function assignedNames(fn: Fn, nodes: readonly (TS.Node | undefined)[], env: Env): string[] {
  const ts = fn.ts;
  const found = new Set<string>();
  const visit = (n: TS.Node): void => {
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
    if (ts.isFunctionLike(n) && !isForEachCallback(ts, n)) return;
    ts.forEachChild(n, visit);
  };
  for (const n of nodes) if (n) visit(n);
  return env.names().filter((name) => found.has(name) && env.get(name)?.kind === "value");
}

function isForEachCallback(ts: Fn["ts"], n: TS.Node): boolean {
  const p = n.parent;
  return (
    !!p && ts.isCallExpression(p) && ts.isPropertyAccessExpression(p.expression) && p.expression.name.text === "forEach"
  );
}

function ifStatement(fn: Fn, s: TS.IfStatement, env: Env, ctx: Ctx): Expr {
  const ts = fn.ts;
  const span = fn.span(s);
  const lets = new Lets(fn.names);
  const cond = boolean(fn, s.expression, env, lets, "the condition of `if`");
  if (jumps(ts, s.thenStatement) || jumps(ts, s.elseStatement)) {
    // A branch may leave: the rest of the list goes into each branch that falls through.
    const a = block(fn, s.thenStatement, env, ctx);
    const b = s.elseStatement ? block(fn, s.elseStatement, env, ctx) : ctx.next(env);
    return lets.wrap(ifte(cond, a, b, span));
  }
  const names = assignedNames(fn, [s.thenStatement, s.elseStatement], env);
  if (names.length === 0) return lets.wrap(ctx.next(env));
  const holes = new Holes();
  const join: Ctx = { ...ctx, next: (e) => holes.add(stateOf(e, names), e, s) };
  const a = block(fn, s.thenStatement, env, join);
  const b = s.elseStatement ? block(fn, s.elseStatement, env, join) : join.next(env);
  const joined = joinStates(fn, holes, names, s);
  const after = bindState(fn, names, joined, env, lets, span, ifte(cond, a, b, span));
  return lets.wrap(ctx.next(after.env));
}

/** The values of some variables, as one record (the state a branch or loop iteration ends with). */
export function stateOf(env: Env, names: readonly string[]): Val {
  return { kind: "record", keys: names, fields: names.map((n) => env.value(n)!) };
}

/** The common type of the states at several exits; fills each exit's hole with its state at that type. */
export function joinStates(fn: Fn, holes: Holes, names: readonly string[], node: TS.Node, start?: TsType): TsType {
  let type: TsType | undefined = start;
  for (const h of holes.items) {
    const t = typeOfVal(h.val);
    const j: TsType | undefined = type === undefined ? t : joinType(type, t);
    if (!j) {
      // Name the variable whose values disagree.
      const fields = (type as { fields: readonly TsType[] }).fields;
      const k = (t as { fields: readonly TsType[] }).fields.findIndex((f, i) => !joinType(fields[i]!, f));
      const kinds = [fields[k], (t as { fields: readonly TsType[] }).fields[k]];
      if (kinds.some((x) => x?.k === "unset"))
        return fn.fail(
          h.node,
          `\`${names[Math.max(0, k)] ?? "a variable"}\` is not assigned a value on every path into ${fn.text(node)}`,
          {
            hint: "give it a value where it is declared, or assign it in every branch (and before a loop that updates it)",
          },
          "type",
        );
      return fn.fail(
        h.node,
        `\`${names[Math.max(0, k)] ?? "a variable"}\` has different kinds of values on different paths into ${fn.text(node)}`,
        {
          found: `${showTsType(fields[k] ?? t)} and ${showTsType((t as { fields: readonly TsType[] }).fields[k] ?? t)}`,
        },
        "type",
      );
    }
    type = j;
  }
  for (const h of holes.items) fill(h.hole, flatTuple(h.val, type!, fn.span(h.node)));
  return type!;
}

/** The leaves of a value at type t, as one flat tuple (or the leaf itself). */
export function flatTuple(val: Val, t: TsType, span: Span): Expr {
  const types = leafTypes(t);
  const parts = leaves(val).map((l, i) => packAs(l, types[i]!, span));
  return parts.length === 1 ? parts[0]! : { kind: "tuple", elems: parts, span };
}

/**
 * `let (leaves...) = value` (a state of type `type`, a record whose first fields are the variables `names`), and the
 * environment with those variables bound to its fields; `fields` are all the record's fields.
 */
export function bindState(
  fn: Fn,
  names: readonly string[],
  type: TsType,
  env: Env,
  lets: Lets,
  span: Span,
  value: Expr,
): { env: Env; fields: readonly Val[] } {
  const types = leafTypes(type);
  const leafNames = types.map(() => fn.names.fresh("s"));
  lets.bindPattern(
    leafNames.length === 1 ? { kind: "pvar", name: leafNames[0]!, span } : ptuple(leafNames, span),
    value,
    span,
  );
  const state = fromLeaves(
    type,
    leafNames.map((n, i) => atom({ kind: "var", name: n, span }, types[i]!)),
  ) as {
    fields: readonly Val[];
  };
  let e = env;
  names.forEach((n, i) => (e = e.update(n, state.fields[i]!)));
  return { env: e, fields: state.fields };
}

/**
 * A function body (a block with returns, or an expression) as one expression of its result, whose type is the join
 * of the values returned. `env` holds the parameters.
 */
export function translateBody(fn: Fn, body: TS.ConciseBody, env: Env, node: TS.Node): { expr: Expr; type: TsType } {
  const ts = fn.ts;
  if (!ts.isBlock(body)) {
    const lets = new Lets(fn.names);
    const v = expr(fn, body, env, lets);
    return { expr: lets.wrap(packAs(v, typeOfVal(v), fn.span(body))), type: typeOfVal(v) };
  }
  const holes = new Holes();
  const e = stmts(fn, body.statements, 0, env, {
    next: () => fn.fail(body.getLastToken() ?? body, "the function can end without returning a value"),
    ret: (val, env2, n) => holes.add(val, env2, n),
  });
  if (holes.items.length === 0) return fn.fail(node, "the function never returns a value");
  let type: TsType | undefined;
  for (const h of holes.items) {
    const t = typeOfVal(h.val);
    const j: TsType | undefined = type === undefined ? t : joinType(type, t);
    if (!j)
      return fn.fail(
        h.node,
        `this returns ${showTsType(t)}, but another return gives ${showTsType(type!)}`,
        {},
        "type",
      );
    type = j;
  }
  for (const h of holes.items) fill(h.hole, packAs(h.val, type!, fn.span(h.node)));
  return { expr: e, type: type! };
}

/** Parameters bound to values (identifiers or destructuring patterns). */
export function bindParams(
  fn: Fn,
  params: readonly TS.ParameterDeclaration[],
  vals: readonly (Val | undefined)[],
  env: Env,
  lets: Lets,
): Env {
  let e = env;
  params.forEach((p, k) => {
    if (p.dotDotDotToken) fn.fail(p, "rest parameters are not supported");
    if (p.initializer) fn.fail(p, "default values of parameters are not supported");
    const v = vals[k];
    if (!v) {
      if (fn.ts.isIdentifier(p.name) && /^_/.test(p.name.text)) return; // an unused parameter (`_`)
      fn.fail(p, "this parameter has no value here");
    }
    e = bindPattern(fn, p.name, v, e, lets, true, "foreign", p);
  });
  return e;
}

/** A callback's value (of map, reduce, Array.from, forEach), its parameters bound to `args`. */
export function callbackValue(
  fn: Fn,
  callback: TS.Expression,
  args: readonly (Val | undefined)[],
  env: Env,
  lets: Lets,
): Val {
  const ts = fn.ts;
  const cb = bare(ts, callback);
  let node: TS.ArrowFunction | TS.FunctionExpression | TS.FunctionDeclaration;
  if (ts.isArrowFunction(cb) || ts.isFunctionExpression(cb)) node = cb;
  else if (ts.isIdentifier(cb) && env.get(cb.text)?.kind === "function")
    node = (env.get(cb.text) as { node: typeof node }).node;
  else return fn.fail(callback, "the callback must be a function written here (x => ...) or declared in this function");
  const inner = env.enterCallback();
  const bound = bindParams(fn, node.parameters, args, inner, lets);
  const { expr: body, type } = translateBody(fn, node.body!, bound, node);
  return lets.bind(body, type, "r", fn.span(node));
}

const INLINING = new WeakSet<object>();

/** A local function called: its body with its parameters bound to the arguments, in the caller's environment. */
export function inlineFunction(
  fn: Fn,
  node: TS.ArrowFunction | TS.FunctionExpression | TS.FunctionDeclaration,
  args: readonly TS.Expression[],
  env: Env,
  lets: Lets,
  call: TS.Node,
): Val {
  if (INLINING.has(node)) return fn.fail(call, "a local function that calls itself is not supported (recursion)");
  const vals = args.map((a) => expr(fn, a, env, lets));
  if (vals.length < node.parameters.length)
    fn.fail(call, `the function takes ${node.parameters.length} arguments, but ${vals.length} are given`);
  INLINING.add(node);
  try {
    const inner = env.enterCallback();
    const bound = bindParams(fn, node.parameters, vals, inner, lets);
    const { expr: body, type } = translateBody(fn, node.body!, bound, node);
    return lets.bind(body, type, "r", fn.span(call));
  } finally {
    INLINING.delete(node);
  }
}

export type { ValueBinding };
export { Env };
