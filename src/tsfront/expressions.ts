// Expressions of the subset: numbers, booleans, arithmetic and comparisons, `?:`, `&&`/`||`/`!`, element and
// property reads, object and array literals, and calls (./calls.ts). Each computed value is let-bound (Lets) in
// evaluation order; the parts of `?:`, `&&` and `||` that may not run are translated inside their branch.

import type * as A from "acorn";
import type { Expr } from "../syntax/ast.js";
import type { Span } from "../syntax/source.js";
import { call } from "./calls.js";
import { arrayLiteral, binary, logical, objectLiteral, unary } from "./operators.js";
import { memberOf, PLUGIN_HINT } from "./closure.js";
import { integerNames, pathOf } from "./hints.js";
import type { Resolved } from "./source.js";
import { closureOf, current, globalFunction, mathFunction } from "./function-values.js";
import { isMathFunction } from "./math.js";
import { customValue, knownFunction } from "./transforms.js";
import { callMethod } from "./classes.js";
import type { Env, Fn } from "./context.js";
import { app, binop, bool, emptyArray, ifte, index, lam, letIn, num, param, pvar, tuple, v } from "./smooth-ast.js";
import { bare, keyName, numberLiteral, stringLiteral, type Expression, type Node } from "./syntax.js";
import {
  hasNothing,
  isNumber,
  joinType,
  sameType,
  showTsType,
  T_BOOL,
  T_DOUBLE,
  T_INT,
  tArray,
  type TsType,
} from "./ts-types.js";
import {
  atom,
  fromLeaves,
  leaves,
  leafTypes,
  Lets,
  pack,
  toDouble,
  typeOfVal,
  type AtomVal,
  type Val,
} from "./values.js";
import { LENGTH, recordRange } from "./int-ranges.js";

export { bare };

/**
 * The value of `owner.name` where owner is a free name holding an object (a module namespace, data: `cfg.n`), or such
 * a property of one (`cfg.model.W`), if it is one.
 */
export function memberOfFree(fn: Fn, owner: Expression | A.Super, name: string, env: Env): Resolved | undefined {
  if (owner.type === "Super") return undefined;
  const o = bare(owner);
  let r: Resolved | undefined;
  if (o.type === "Identifier") r = env.get(o.name) ? undefined : fn.src.scope.lookup(o.name);
  else if (o.type === "MemberExpression" && !o.computed) {
    const inner = keyName(o.property, false);
    r = inner === undefined ? undefined : memberOfFree(fn, o.object, inner, env);
  }
  return r === undefined ? undefined : memberOf(r, name);
}

/** The data a closure holds, read at each call: a parameter of the program (../library/ts-target.ts passes it). */
function captured(fn: Fn, node: Expression, r: Extract<Resolved, { k: "data" }>, lets: Lets): Val {
  const span = fn.span(node);
  const path = pathOf(node) ?? fn.text(node);
  if (!r.route)
    return fn.fail(
      node,
      `\`${path}\` is data from outside the function, which is read only when it is given to the library`,
    );
  const integer = integerNames(fn.src.node).has(path);
  const c = fn.program.capture(r.route, r.value, integer, `\`${path}\`, which the function reads from outside`, span);
  return lets.bind({ kind: "var", name: c.name, span }, c.type, c.route.name, span);
}

/** The value of an expression. */
export function expr(fn: Fn, node: Expression, env: Env, lets: Lets): Val {
  const e = bare(node);
  const span = fn.span(e);
  switch (e.type) {
    case "Literal": {
      if (typeof e.value === "number") {
        const x = e.value;
        return atom(num(x, span), Number.isInteger(x) && Math.abs(x) < 2 ** 31 ? T_INT : T_DOUBLE);
      }
      if (typeof e.value === "boolean") return atom(bool(e.value, span), T_BOOL);
      if (typeof e.value === "string")
        return fn.fail(e, "strings are not supported: Smooth computes with numbers, booleans and arrays");
      return fn.fail(e, `\`${fn.text(e)}\` has no value in Smooth`);
    }
    case "Identifier":
      return identifier(fn, e, env, lets);
    case "ThisExpression": {
      const self = env.value("this");
      if (self) return self;
      return fn.fail(e, "`this` is not in the TypeScript subset Smooth reads outside a class's methods", {
        hint: SUBSET_HINT,
      });
    }
    case "UnaryExpression":
      return unary(fn, e, env, lets);
    case "BinaryExpression":
      return binary(fn, e, env, lets);
    case "LogicalExpression":
      return logical(fn, e, env, lets);
    case "ConditionalExpression":
      return conditional(fn, e.test, e.consequent, e.alternate, env, lets, e);
    case "MemberExpression":
      return e.computed ? element(fn, e, env, lets) : property(fn, e, env, lets);
    case "CallExpression":
    case "NewExpression":
      return call(fn, e, env, lets);
    case "ObjectExpression":
      return objectLiteral(fn, e, env, lets);
    case "ArrayExpression":
      return arrayLiteral(fn, e, env, lets);
    case "UpdateExpression":
    case "AssignmentExpression":
      return fn.fail(e, "an assignment inside an expression is not supported", {
        hint: "write it as a statement of its own",
      });
    case "ArrowFunctionExpression":
    case "FunctionExpression":
      return closureOf(fn, e, env);
    case "TemplateLiteral":
    case "TaggedTemplateExpression":
      return fn.fail(e, "strings are not supported: Smooth computes with numbers, booleans and arrays");
    default:
      return fn.fail(e, `\`${fn.text(e)}\` is not in the TypeScript subset Smooth reads`, { hint: SUBSET_HINT });
  }
}

/**
 * `console.log(...)` in a function Smooth compiles: an error at the call. The compiled program (and the derivative
 * code made from it, which may run parts of the function several times or not at all) has no place that runs the
 * call once per call of the function as JavaScript would, so printing there would mislead.
 */
export function consoleCall(fn: Fn, call: Node, env: Env): never {
  if (env.get("console")) return fn.fail(call, "`console` is a variable of this function, not an object with methods");
  return fn.fail(call, "console.log inside a function Smooth compiles is not supported", {
    hint:
      "the function runs as compiled code, not line by line: remove the call, or call the function itself " +
      "(without grad) to print its values as JavaScript",
  });
}

export const SUBSET_HINT =
  "the subset: const/let, arithmetic and comparisons, Math.*, if/?:/&&/||, switch, for and while loops, a[i], " +
  "a.length, new Float64Array(n) written element by element, push, map/reduce/forEach, objects and arrays of " +
  "numbers, small classes (README: Differentiating plain TypeScript)";

/** Binds a computed expression (an atom is kept as it is). */
export function bindExpr(fn: Fn, lets: Lets, value: Expr, type: TsType, base: string, span: Span): Val {
  return lets.bind(value, type, base, span);
}

const GLOBALS: Record<string, number> = { Infinity: Infinity, NaN: NaN };

/** A function of the module or closure used as a value (a transform of the library's: ./transforms.ts). */
export function functionValue(fn: Fn, r: Extract<Resolved, { k: "function" }>, node: Node): Val {
  const known = knownFunction(r.value);
  if (known?.k === "custom") return customValue(known);
  if (known?.k === "transform")
    return fn.fail(node, `${known.name} is used as a value here`, { hint: `call it: ${known.name}(f)` });
  return globalFunction(r.source(), node, fn);
}

function identifier(fn: Fn, e: A.Identifier, env: Env, lets: Lets): Val {
  const name = e.name;
  const span = fn.span(e);
  const b = env.get(name);
  if (b?.kind === "value") {
    if (b.val.kind === "atom" && b.val.type.k === "unset")
      return fn.fail(e, `\`${name}\` is read before it is assigned a value`, {}, "type");
    return b.val.kind === "atom" ? b.val : current(b.val, env, e, fn);
  }
  if (b?.kind === "function")
    return fn.fail(e, `the function \`${name}\` is used as a value`, { hint: "call it, or give it to map or reduce" });
  if (name in GLOBALS) return atom(num(GLOBALS[name]!, span), T_DOUBLE);
  if (name === "undefined") return fn.fail(e, "`undefined` has no value in Smooth");
  const r = fn.src.scope.lookup(name);
  if (r?.k === "number") return atom(num(r.value, span), Number.isInteger(r.value) ? T_INT : T_DOUBLE);
  if (r?.k === "boolean") return atom(bool(r.value, span), T_BOOL);
  if (r?.k === "numbers") return constantArray(fn, e, r.value, lets);
  if (r?.k === "data") return captured(fn, e, r, lets);
  if (r?.k === "function") return functionValue(fn, r, e);
  if (r?.k === "other")
    return fn.fail(e, `\`${name}\` is ${r.what}, which Smooth cannot read`, {
      hint: "Smooth computes with numbers, booleans, arrays and objects of these",
    });
  if (r?.k === "class")
    return fn.fail(e, `\`${name}\` is a class: make its objects with \`new ${name}(...)\` and call their methods`);
  const limitation = fn.src.scope.limitation;
  if (limitation) return fn.fail(e, `\`${name}\` is not defined here: ${limitation}`, { hint: PLUGIN_HINT });
  return fn.fail(e, `\`${name}\` is not defined here`, {
    hint: "a variable from outside the function must be data (numbers, arrays, objects of these) or a function",
  });
}

/** Constants of a module's text up to this many numbers are part of the program. */
const MAX_CONSTANT_ARRAY = 4096;

/** A list of numbers from outside the function, written into the program (a Vector). */
function constantArray(fn: Fn, e: A.Identifier, values: readonly number[], lets: Lets): Val {
  const span = fn.span(e);
  if (values.length > MAX_CONSTANT_ARRAY || values.length === 0)
    fn.fail(
      e,
      `\`${e.name}\` holds ${values.length} numbers: only constants of 1 to ${MAX_CONSTANT_ARRAY} numbers are read`,
      {
        hint: "pass it as an argument instead",
      },
    );
  // build n (fun i -> if i = 0 then x0 else if i = 1 then x1 ...).
  const i = fn.names.fresh(`${e.name}_i`);
  let body: Expr = num(values[values.length - 1]!, span);
  for (let k = values.length - 2; k >= 0; k--)
    body = ifte(binop("=", { kind: "var", name: i, span }, num(k, span), span), num(values[k]!, span), body, span);
  return lets.bind(
    app("build", [num(values.length, span), { kind: "lam", params: [{ name: i, span }], body, span }], span),
    tArray(T_DOUBLE),
    e.name,
    span,
  );
}

/** An expression that must be a number. */
export function number(fn: Fn, node: Expression, env: Env, lets: Lets, what: string): { expr: Expr; type: TsType } {
  const x = expr(fn, node, env, lets);
  if (x.kind !== "atom" || !isNumber(x.type))
    fn.fail(node, `${what} must be a number, but it is ${showTsType(typeOfVal(x))}`, {}, "type");
  return { expr: x.expr, type: x.type };
}

/** An expression that must be a boolean. */
export function boolean(fn: Fn, node: Expression, env: Env, lets: Lets, what: string): Expr {
  const x = expr(fn, node, env, lets);
  if (x.kind !== "atom" || x.type.k !== "bool")
    fn.fail(
      node,
      `${what} must be a boolean (a comparison, &&, ||, !), but it is ${showTsType(typeOfVal(x))}`,
      {
        hint: "Smooth does not read numbers or arrays as conditions: compare them (x !== 0)",
      },
      "type",
    );
  return x.expr;
}

/** An Index for an index or a count: an integer-valued number as it is, any other number read by toIndex. */
export function indexOf(fn: Fn, node: Expression, env: Env, lets: Lets, what: string): Expr {
  const x = number(fn, node, env, lets, what);
  if (x.type.k === "int") return x.expr;
  const span = fn.span(node);
  return (lets.bind(app("toIndex", [x.expr], span), T_INT, "i", span) as { expr: Expr }).expr;
}

/** `c ? a : b` (also used for `if` expressions of callbacks): each branch in its own scope; types joined. */
export function conditional(
  fn: Fn,
  c: Expression,
  whenTrue: Expression,
  whenFalse: Expression,
  env: Env,
  lets: Lets,
  node: Node,
): Val {
  const span = fn.span(node);
  const cond = boolean(fn, c, env, lets, "the condition of `?:`");
  const thenLets = new Lets(fn.names);
  const elseLets = new Lets(fn.names);
  const a = expr(fn, whenTrue, env, thenLets);
  const b = expr(fn, whenFalse, env, elseLets);
  const type = joinType(typeOfVal(a), typeOfVal(b));
  if (!type)
    return fn.fail(
      node,
      `the branches of \`?:\` give ${showTsType(typeOfVal(a))} and ${showTsType(typeOfVal(b))}`,
      {},
      "type",
    );
  const branch = (x: Val, l: Lets) => l.wrap(packAs(x, type, span));
  return lets.bind(ifte(cond, branch(a, thenLets), branch(b, elseLets), span), type, "c", span);
}

/** The value as an expression of type `t` (an Index part of a Double: converted). */
export function packAs(x: Val, t: TsType, span: Span): Expr {
  const ts = typeOfVal(x);
  if (x.kind === "atom") {
    // An empty array taken at a type with elements (joined with an array that has some): made at that type.
    if (t.k === "array" && ts.k === "array" && hasNothing(ts) && !hasNothing(t)) return emptyArray(t.elem, span);
    if (t.k === "array" && ts.k === "array" && !sameType(t, ts)) return widenArray(x.expr, ts, t, span);
    return t.k === "double" && ts.k === "int" ? toDouble(x.expr, span) : x.expr;
  }
  const parts = leaves(x);
  const types = leafTypes(t);
  return pack(
    fromLeaves(
      t,
      parts.map((p, i) =>
        atom(types[i]!.k === "double" && p.type.k === "int" ? toDouble(p.expr, span) : p.expr, types[i]!),
      ),
    ),
    span,
  );
}

/**
 * An array of integers (or of arrays of them) converted to Doubles element by element, for a join with an array of
 * Doubles (./ts-types.ts `joinType`). The binders' names have a prime then a letter, which no user or `Names` makes.
 */
export function widenArray(e: Expr, from: TsType, to: TsType, span: Span, depth = 0): Expr {
  if (to.k === "double" && from.k === "int") return toDouble(e, span);
  if (to.k !== "array" || from.k !== "array" || sameType(from, to)) return e;
  const xs = `xs'w${depth}`;
  const i = `i'w${depth}`;
  const element = widenArray(index(v(xs, span), v(i, span), span), from.elem, to.elem, span, depth + 1);
  const made = app("build", [app("length", [v(xs, span)], span), lam([param(i, span)], element, span)], span);
  return letIn(pvar(xs, span), e, made, span);
}

function element(fn: Fn, e: A.MemberExpression, env: Env, lets: Lets): Val {
  const span = fn.span(e);
  if (e.object.type === "Super") return fn.fail(e, "`super` is not supported");
  const a = expr(fn, e.object, env, lets);
  const key = e.property as Expression;
  const name = stringLiteral(bare(key));
  if (a.kind === "record" && name !== undefined) {
    // p["w"]: the property w.
    const k = a.keys.indexOf(name);
    if (k < 0) return fn.fail(key, `the object has no property \`${name}\``, {}, "type");
    return a.fields[k]!;
  }
  if (a.kind === "tuple") {
    const k = literalIndex(key);
    if (k === undefined || k < 0 || k >= a.elems.length)
      return fn.fail(
        key,
        `a tuple of ${a.elems.length} (a JavaScript array of mixed values) is read at a position known only when the program runs`,
      );
    return a.elems[k]!;
  }
  if (a.kind !== "atom" || a.type.k !== "array")
    return fn.fail(e.object, `\`${fn.text(e.object)}\` is ${showTsType(typeOfVal(a))}, not an array`, {}, "type");
  if (a.type.elem.k === "nothing")
    return fn.fail(e, `\`${fn.text(e.object)}\` has no elements here: it is an empty array`, {}, "index");
  const i = indexOf(fn, key, env, lets, "an index");
  return lets.bind(index(a.expr, i, span), a.type.elem, "x", span);
}

export const literalIndex = (e: Expression): number | undefined => numberLiteral(bare(e));

const MATH_CONSTANTS: Record<string, number> = {
  PI: Math.PI,
  E: Math.E,
  LN2: Math.LN2,
  LN10: Math.LN10,
  LOG2E: Math.LOG2E,
  LOG10E: Math.LOG10E,
  SQRT2: Math.SQRT2,
  SQRT1_2: Math.SQRT1_2,
};
const NUMBER_CONSTANTS: Record<string, number> = {
  EPSILON: Number.EPSILON,
  MAX_VALUE: Number.MAX_VALUE,
  MIN_VALUE: Number.MIN_VALUE,
  POSITIVE_INFINITY: Infinity,
  NEGATIVE_INFINITY: -Infinity,
  MAX_SAFE_INTEGER: Number.MAX_SAFE_INTEGER,
};

function property(fn: Fn, e: A.MemberExpression, env: Env, lets: Lets): Val {
  const span = fn.span(e);
  const name = keyName(e.property, false);
  if (name === undefined || e.object.type === "Super")
    return fn.fail(e, `\`${fn.text(e)}\` is not in the TypeScript subset Smooth reads`, { hint: SUBSET_HINT });
  const owner = bare(e.object);
  if (owner.type === "Identifier" && !env.get(owner.name)) {
    const table = owner.name === "Math" ? MATH_CONSTANTS : owner.name === "Number" ? NUMBER_CONSTANTS : undefined;
    const x = table?.[name];
    if (x !== undefined) return atom(num(x, span), T_DOUBLE);
    if (owner.name === "Math" && isMathFunction(name)) return mathFunction(name, e, fn);
    if (table) return fn.fail(e, `\`${owner.name}.${name}\` is not supported`);
    if (fn.src.scope.lookup(owner.name)?.k === "class")
      return fn.fail(e, `\`${owner.name}.${name}\`: a class's static fields are not supported`, {
        hint: "read a constant of the module or closure instead (const K = ...), or call a static method",
      });
  }
  const member = memberOfFree(fn, e.object, name, env);
  if (member?.k === "function") return functionValue(fn, member, e);
  if (member?.k === "number") return atom(num(member.value, span), Number.isInteger(member.value) ? T_INT : T_DOUBLE);
  if (member?.k === "boolean") return atom(bool(member.value, span), T_BOOL);
  if (member?.k === "numbers" && e.property.type === "Identifier")
    return constantArray(fn, e.property, member.value, lets);
  if (member?.k === "data") return captured(fn, e, member, lets);
  const a = expr(fn, e.object, env, lets);
  if (a.kind === "record") {
    const k = a.keys.indexOf(name);
    const getter = k < 0 ? a.cls?.getters.get(name) : undefined;
    if (getter) return callMethod(fn, a.cls!, a, name, getter, [], lets, e);
    if (k < 0 && a.cls?.methods.has(name))
      return fn.fail(e, `the method \`${a.cls.name}.${name}\` is used as a value`, {
        hint: `call it (\`${fn.text(e)}(...)\`), or wrap it: (x) => ${fn.text(e)}(x)`,
      });
    if (k < 0)
      return fn.fail(
        e.property,
        `the object has no property \`${name}\``,
        { expected: a.keys.map((x) => `\`${x}\``).join(", ") },
        "type",
      );
    return a.fields[k]!;
  }
  if (name === "length") {
    if (a.kind === "tuple") return atom(num(a.elems.length, span), T_INT);
    if (a.kind === "atom" && a.type.k === "array") {
      const n = lets.bind(app("length", [a.expr], span), T_INT, "n", span) as AtomVal;
      recordRange(n.expr, LENGTH);
      return n;
    }
  }
  return fn.fail(e.property, `\`.${name}\` of ${showTsType(typeOfVal(a))} is not supported`, {}, "type");
}

/** The tuple of a list of values (for a call's or a loop's several results). */
export const tupleOf = (vals: readonly Val[], span: Span): Expr =>
  tuple(
    vals.map((v) => pack(v, span)),
    span,
  );
