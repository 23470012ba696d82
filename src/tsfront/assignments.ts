// Statements that assign: `x = e`, compound assignments, `++`/`--`, writes into an element or a property of an array
// or object the function owns (a new value of the whole, by setAt), `a.fill(x)`; and which variables a statement
// assigns (what a branch joins and a loop carries).

import type * as A from "acorn";
import type { Expr } from "../syntax/ast.js";
import type { Binding, Ctx, Env, Fn, Ownership, ValueBinding } from "./context.js";
import { withField } from "./classes.js";
import { consoleCall, expr, indexOf, packAs, widenArray } from "./expressions.js";
import { arithmetic, bitwise, remainder, toInt32 } from "./operators.js";
import { forEachLoop } from "./loops.js";
import { app, binop, ifte, index, lam, num, param } from "./smooth-ast.js";
import { elementOf, markShared, restOf } from "./statements.js";
import { bare, isFunctionLike, keyName, type Expression, type Node, type Pattern } from "./syntax.js";
import { joinType, sameType, showTsType, T_DOUBLE, T_INT, T_UNSET, tArray, type TsType } from "./ts-types.js";
import { atom, Lets, typeOfVal, type AtomVal, type Val } from "./values.js";
import { walkTree } from "./walk.js";

/** The method a call calls on a receiver (`xs.forEach(...)`: forEach and xs), if it is one. */
export function methodCall(e: Node): { name: string; receiver: Expression; call: A.CallExpression } | undefined {
  if (e.type !== "CallExpression") return undefined;
  const c = e as A.CallExpression;
  const callee = c.callee.type === "Super" ? undefined : bare(c.callee);
  if (callee?.type !== "MemberExpression" || callee.object.type === "Super") return undefined;
  const name = keyName(callee.property, callee.computed);
  return name === undefined ? undefined : { name, receiver: callee.object, call: c };
}

/**
 * Statements that are expressions: assignments (also of patterns, `[a, b] = [b, a]`), `++`/`--`, `a.fill(x)`,
 * `xs.push(x)` and `xs.forEach(...)`.
 */
export function expressionStatement(fn: Fn, e0: Expression, env: Env, ctx: Ctx): Expr {
  const e = bare(e0);
  const lets = new Lets(fn.names);
  const span = fn.span(e);
  if (e.type === "AssignmentExpression") {
    let newEnv: Env;
    if (e.operator === "=" && (e.left.type === "ArrayPattern" || e.left.type === "ObjectPattern")) {
      // `[a, b] = [b, a]`: the whole value first, then its parts assigned.
      const value = expr(fn, e.right, env, lets);
      newEnv = assignPattern(fn, e.left, value, markShared(fn, e.right, env), lets);
    } else if (e.operator === "=") {
      const value = expr(fn, e.right, env, lets);
      newEnv = assign(fn, e.left, () => value, markShared(fn, e.right, env), lets, bare(e.right));
    } else {
      const arith = COMPOUND[e.operator];
      if (!arith) return fn.fail(e, `\`${e.operator}\` is not supported`);
      const right = expr(fn, e.right, env, lets);
      newEnv = assign(fn, e.left, (old) => combine(fn, lets, arith, old, right, e), env, lets);
    }
    return lets.wrap(ctx.next(newEnv));
  }
  if (e.type === "UpdateExpression") {
    const one = atom({ kind: "num", value: 1, isInt: true, span }, T_INT);
    const op = e.operator === "++" ? "+" : "-";
    const newEnv = assign(fn, e.argument, (old) => combine(fn, lets, op, old, one, e), env, lets);
    return lets.wrap(ctx.next(newEnv));
  }
  const m = methodCall(e);
  if (m?.name === "forEach") return forEachLoop(fn, m.call, m.receiver, env, ctx);
  if (m?.name === "fill") {
    // a.fill(x): a is now x everywhere (as a value: `a = a.fill(x)`).
    const value = expr(fn, e, env, lets);
    return lets.wrap(ctx.next(assign(fn, m.receiver, () => value, env, lets, undefined, "mutate")));
  }
  if (m?.name === "push") {
    // xs.push(a, b): xs is now a longer array (as a value: `xs = [...xs, a, b]`).
    const values = m.call.arguments.map((a) =>
      a.type === "SpreadElement" ? fn.fail(a, "push(...xs) is not supported: push its elements in a loop") : a,
    );
    const vals = values.map((a) => expr(fn, a, env, lets));
    const newEnv = assign(fn, m.receiver, (old) => appended(fn, old, vals, e, lets), env, lets, undefined, "mutate");
    return lets.wrap(ctx.next(newEnv));
  }
  if (m && bare(m.receiver).type === "Identifier" && (bare(m.receiver) as A.Identifier).name === "console")
    return consoleCall(fn, e, env);
  // A call for its effect (a method writing `this`): translated first, so the write is the error reported.
  if (e.type === "CallExpression") expr(fn, e, env, new Lets(fn.names));
  return fn.fail(e, "this expression statement has no effect Smooth can keep", {
    hint: "statements are declarations, assignments, ++/--, a.fill(x), xs.forEach(...), if, loops and return",
  });
}

const COMPOUND: Partial<Record<string, Compound>> = {
  "+=": "+",
  "-=": "-",
  "*=": "*",
  "/=": "/",
  "**=": "**",
  "%=": "%",
  "&=": "&",
  "|=": "|",
  "^=": "^",
  "<<=": "<<",
  ">>=": ">>",
  ">>>=": ">>>",
};
type Compound = "+" | "-" | "*" | "/" | "**" | "%" | "&" | "|" | "^" | "<<" | ">>" | ">>>";

/** `old op right` for a compound assignment, as the operator computes it (./operators.ts). */
function combine(fn: Fn, lets: Lets, op: Compound, old: Val, right: Val, node: Node): Val {
  const span = fn.span(node);
  if (old.kind !== "atom" || right.kind !== "atom" || !isNum(old.type) || !isNum(right.type))
    return fn.fail(node, `\`${fn.text(node)}\` needs numbers`, {}, "type");
  const [a, b] = [
    { expr: old.expr, type: old.type },
    { expr: right.expr, type: right.type },
  ];
  if (op === "%") return remainder(fn, lets, a, b, span);
  if (op === "+" || op === "-" || op === "*" || op === "/" || op === "**") return arithmetic(fn, lets, op, a, b, span);
  return bitwise(fn, lets, op, a, b, span);
}

const isNum = (t: TsType) => t.k === "double" || t.k === "int";

/**
 * Assigns to a target — a variable, an element `a[i]` (or `a[i][j]`, ...) of an array this function owns, or a
 * property `p.x` of an object it owns — the value `f(old value)`; returns the environment after it.
 */
function assign(
  fn: Fn,
  target: Pattern | Expression,
  f: (old: Val) => Val,
  env: Env,
  lets: Lets,
  rhs?: Expression,
  mode: "assign" | "mutate" = "assign",
): Env {
  const t = target.type === "MemberExpression" || target.type === "Identifier" ? bare(target) : target;
  const span = fn.span(t);
  const root = rootName(t);
  if (!root) return fn.fail(t, `\`${fn.text(t)}\` cannot be assigned to`);
  const b = env.get(root.name);
  if (root.name === "this") return assignThis(fn, t, b, f, env, lets);
  if (!b || b.kind !== "value")
    return fn.fail(root, `\`${root.name}\` is not a variable of this function`, {
      hint: "a function of the subset computes a result; it cannot change variables outside it",
    });
  if (b.level < env.level)
    return fn.fail(
      t,
      `a callback of map or reduce, or a function written inside this one, cannot change \`${root.name}\`, a variable outside it`,
      { hint: "use a for loop (or forEach) to accumulate, or return the new value" },
    );
  if (t === root && mode === "assign") {
    if (!b.mutable) return fn.fail(t, `\`${root.name}\` is a const`, {}, "type");
    const value = f(b.val);
    checkSameKind(fn, b, value, t);
    const named =
      value.kind === "atom" && value.expr.kind !== "num" && value.expr.kind !== "bool"
        ? lets.bind(value.expr, value.type, root.name, span)
        : value;
    const ownership = rhs ? ownershipOfAssigned(rhs, env) : b.ownership;
    return env.update(root.name, named, ownership);
  }
  if (b.ownership !== "owned")
    return fn.fail(
      t,
      `\`${root.name}\` ${b.ownership === "foreign" ? "is not an array or object this function made" : "was stored elsewhere before this write"}: writing into it is not supported`,
      {
        hint:
          b.ownership === "foreign"
            ? "Smooth's arrays are values: copy it first (const y = x.slice()) and write into the copy"
            : "in JavaScript the other holder would see the write; write before storing it, or store a copy (a.slice())",
      },
    );
  if (t === root) {
    // A method changing the array itself (push, fill): allowed on a const, as in JavaScript.
    const value = f(b.val);
    checkSameKind(fn, b, value, t);
    return env.update(root.name, value);
  }
  return env.update(root.name, write(fn, t as Expression, b.val, f, env, lets));
}

/** `[a, b] = value`, `({ x, y } = value)`: each target of the pattern assigned its part. */
function assignPattern(fn: Fn, pattern: Pattern, value: Val, env: Env, lets: Lets): Env {
  if (pattern.type === "ArrayPattern") {
    let e = env;
    pattern.elements.forEach((el, k) => {
      if (el === null) return;
      if (el.type === "RestElement") e = assignPattern(fn, el.argument, restOf(fn, value, k, el, lets), e, lets);
      else {
        const target = el.type === "AssignmentPattern" ? el.left : el;
        const fallback = el.type === "AssignmentPattern" ? el.right : undefined;
        e = assignPattern(fn, target, elementOf(fn, value, k, el, fallback, e, lets), e, lets);
      }
    });
    return e;
  }
  if (pattern.type === "ObjectPattern") {
    if (value.kind !== "record")
      return fn.fail(pattern, `destructuring {…} needs an object, but the value is ${showTsType(typeOfVal(value))}`);
    let e = env;
    for (const p of pattern.properties) {
      if (p.type === "RestElement") return fn.fail(p, "`...rest` in an assignment is not supported");
      const key = keyName(p.key, p.computed);
      const k = key === undefined ? -1 : value.keys.indexOf(key);
      const target = p.value.type === "AssignmentPattern" ? p.value.left : p.value;
      let part: Val;
      if (k >= 0) part = value.fields[k]!;
      else if (p.value.type === "AssignmentPattern") part = expr(fn, p.value.right, e, lets);
      else return fn.fail(p, `the object has no property \`${key ?? fn.text(p)}\``, {}, "type");
      e = assignPattern(fn, target, part, e, lets);
    }
    return e;
  }
  if (pattern.type === "AssignmentPattern" || pattern.type === "RestElement")
    return fn.fail(pattern, "this assignment target is not supported");
  return assign(fn, pattern, () => value, env, lets);
}

/** The array `old` with `values` added at its end: `build (n + 1) (fun i -> if i < n then old[i] else v)`. */
function appended(fn: Fn, old: Val, values: readonly Val[], node: Node, lets: Lets): Val {
  const span = fn.span(node);
  if (old.kind !== "atom" || old.type.k !== "array")
    return fn.fail(node, `push needs an array, but this is ${showTsType(typeOfVal(old))}`, {}, "type");
  let acc: AtomVal = old;
  for (const v of values) {
    const before = (acc.type as { elem: TsType }).elem;
    const t = typeOfVal(v);
    // Numbers pushed onto [] are Doubles, as in an array literal.
    const elem = before.k === "nothing" ? (t.k === "int" ? T_DOUBLE : t) : joinType(before, t);
    if (!elem || (before.k !== "nothing" && !sameType(elem, before)))
      return fn.fail(node, `an array of ${showTsType(before)} is pushed ${showTsType(t)}`, {}, "type");
    const i = fn.names.fresh("i");
    const iv: Expr = { kind: "var", name: i, span };
    let made: Expr;
    if (before.k === "nothing")
      made = app("build", [num(1, span), lam([param(i, span)], packAs(v, elem, span), span)], span);
    else {
      const n = (lets.bind(app("length", [acc.expr], span), T_INT, "n", span) as AtomVal).expr;
      const element = ifte(binop("<", iv, n, span), index(acc.expr, iv, span), packAs(v, elem, span), span);
      made = app("build", [binop("+", n, num(1, span), span), lam([param(i, span)], element, span)], span);
    }
    acc = lets.bind(made, tArray(elem), "xs", span) as AtomVal;
  }
  return acc;
}

function ownershipOfAssigned(rhs: Expression, env: Env): Ownership {
  if (rhs.type === "Identifier") {
    const b = env.get(rhs.name);
    return b?.kind === "value" && b.ownership === "foreign" ? "foreign" : "shared";
  }
  return "owned";
}

/** A variable keeps its kind: a number stays a number, an array an array of the same elements. */
function checkSameKind(fn: Fn, b: ValueBinding, value: Val, node: Node): void {
  const before = typeOfVal(b.val);
  if (before.k === "unset") return;
  const after = typeOfVal(value);
  const joined = joinType(before, after);
  if (!joined)
    fn.fail(node, `\`${fn.text(node)}\` held ${showTsType(before)} and is assigned ${showTsType(after)}`, {}, "type");
}

/** The root variable of an assignment target (`a` of `a[i][j]`, `p` of `p.x`). */
export function rootName(t: Node): A.Identifier | undefined {
  let e = t;
  while (e.type === "MemberExpression" || e.type === "TSNonNullExpression" || e.type === "TSAsExpression") {
    const m = e as A.MemberExpression | (Node & { expression: Node });
    e = "object" in m ? m.object : m.expression;
  }
  if (e.type === "ThisExpression") return { type: "Identifier", name: "this", start: e.start, end: e.end };
  return e.type === "Identifier" ? (e as A.Identifier) : undefined;
}

/**
 * An assignment into `this`: in a constructor, `this.x = e` adds or sets a field of the object being built (and
 * `this.v[i] = e` writes into a field it made); in a method, a located error (objects are values here).
 */
function assignThis(fn: Fn, t: Node, b: Binding | undefined, f: (old: Val) => Val, env: Env, lets: Lets): Env {
  if (b?.kind !== "value")
    return fn.fail(t, "`this` is not in the TypeScript subset Smooth reads outside a class's methods", {});
  const cls = b.val.kind === "record" ? b.val.cls?.name : undefined;
  if (!b.mutable)
    return fn.fail(t, `a method cannot change \`${fn.text(t)}\`: objects of a class are values here`, {
      hint: `return a new object instead (return new ${cls ?? "C"}(...) with the new values)`,
    });
  const m = t as A.MemberExpression;
  if (m.type === "MemberExpression" && m.object.type === "ThisExpression" && !m.computed) {
    const key = keyName(m.property, false)!;
    const self = b.val as Extract<Val, { kind: "record" }>;
    const k = self.keys.indexOf(key);
    // A new field: its value (an assignment's right-hand side; `+=` reads the unset field and fails there).
    if (k < 0)
      return env.update("this", withField(self, key, f(atom({ kind: "var", name: "", span: fn.span(t) }, T_UNSET))));
  }
  return env.update("this", write(fn, t as Expression, b.val, f, env, lets));
}

/** The value of `container` with the part at `target` replaced by f(old part). */
function write(fn: Fn, target: Expression, container: Val, f: (old: Val) => Val, env: Env, lets: Lets): Val {
  const t = bare(target);
  if (t.type !== "MemberExpression" || t.object.type === "Super") return f(container);
  const span = fn.span(t);
  const parentTarget = t.object;
  // Replace in the parent: read the parent's current value, replace the part, write the parent back.
  return write(
    fn,
    parentTarget,
    container,
    (parent) => {
      const key = keyName(t.property, t.computed);
      if (!t.computed || (parent.kind === "record" && key !== undefined)) {
        if (parent.kind !== "record") return fn.fail(t, `\`${fn.text(t.object)}\` is not an object`, {}, "type");
        const k = key === undefined ? -1 : parent.keys.indexOf(key);
        if (k < 0)
          return fn.fail(t.property, `the object has no property \`${key ?? fn.text(t.property)}\``, {}, "type");
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
      if (parent.kind !== "atom" || parent.type.k !== "array")
        return fn.fail(t.object, `\`${fn.text(t.object)}\` is not an array`, {}, "type");
      const elem = parent.type.elem;
      const i = (
        lets.bind(indexOf(fn, t.property as Expression, env, lets, "an index"), T_INT, "i", span) as { expr: Expr }
      ).expr;
      const old = lets.bind(index(parent.expr, i, span), elem, "x", span);
      const written = f(old);
      // An Int32Array holds the ToInt32 of a number written into it (`a[i] = 2.5` writes 2), as in JavaScript.
      const value =
        parent.type.int32 && written.kind === "atom" && written.type.k === "double"
          ? atom(toInt32(lets, written.expr, span), T_INT)
          : written;
      const joined = joinType(elem, typeOfVal(value));
      // A Double written into an array of integers JavaScript made (`xs.map(() => 0)`): the array becomes Doubles.
      const wide = joined && !sameType(joined, elem) ? joinType(parent.type, tArray(joined)) : undefined;
      if (wide?.k === "array") {
        const widened = widenArray(parent.expr, parent.type, wide, span);
        return lets.bind(app("setAt", [widened, i, packAs(value, wide.elem, span)], span), wide, "xs", span);
      }
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

/** The variables a pattern or assignment target writes: `x`, the roots of `a[i]` and `p.x`, and those of `[a, b]`. */
function targetNames(t: Node, out: Set<string>): void {
  walkTree(t, true, (n) => {
    if (n.type === "Identifier") out.add((n as A.Identifier).name);
    if (n.type === "MemberExpression") {
      const r = rootName(n);
      if (r) out.add(r.name);
      return undefined;
    }
    // A default value (`[a = 1] = xs`) is read, not written.
    if (n.type === "AssignmentPattern") {
      targetNames((n as A.AssignmentPattern).left, out);
      return undefined;
    }
    // Keys of an object pattern are not variables: only the values are written.
    if (n.type === "Property") {
      targetNames((n as A.AssignmentProperty).value, out);
      return undefined;
    }
    return true;
  });
}

/** Methods that change the array they are called on. */
const MUTATORS = new Set(["fill", "push"]);

/**
 * The variables of `env` a statement assigns (directly, through an element or property, or by `a.fill`), in the order
 * of the environment. Assignments inside nested functions other than forEach callbacks are not counted (those
 * functions cannot assign outer variables).
 */
export function assignedNames(fn: Fn, nodes: readonly (Node | null | undefined)[], env: Env): string[] {
  const found = new Set<string>();
  const callbacks = new Set<Node>();
  const visit = (n: Node): true | undefined => {
    if (n.type === "AssignmentExpression") targetNames((n as A.AssignmentExpression).left, found);
    else if (n.type === "UpdateExpression") targetNames((n as A.UpdateExpression).argument, found);
    else {
      const m = methodCall(n);
      if (m && MUTATORS.has(m.name)) {
        const r = rootName(m.receiver);
        if (r) found.add(r.name);
      }
      if (m?.name === "forEach") for (const a of m.call.arguments) callbacks.add(bare(a as Expression));
    }
    return isFunctionLike(n) && !callbacks.has(n) ? undefined : true;
  };
  for (const n of nodes) if (n) walkTree(n, true, visit);
  return env.names().filter((name) => found.has(name) && env.get(name)?.kind === "value");
}
