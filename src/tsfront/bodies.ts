// Where paths meet: the state several exits of a branch or a loop end with, joined at one type (an Index that is a
// Double on another path becomes one); and function bodies, callbacks and inlined local functions as one value.

import type * as A from "acorn";
import type { Expr } from "../syntax/ast.js";
import type { Span } from "../syntax/source.js";
import { fill, Holes, type Env, type Fn } from "./context.js";
import { expr, packAs } from "./expressions.js";
import { ptuple } from "./smooth-ast.js";
import { bindPattern, stmts } from "./statements.js";
import { applyFunction } from "./function-values.js";
import { bare, type Expression, type Node, type Pattern } from "./syntax.js";
import { joinType, showTsType, type TsType } from "./ts-types.js";
import { atom, fromLeaves, leaves, leafTypes, Lets, typeOfVal, type Val } from "./values.js";

/** The values of some variables, as one record (the state a branch or loop iteration ends with). */
export function stateOf(env: Env, names: readonly string[]): Val {
  return { kind: "record", keys: names, fields: names.map((n) => env.value(n)!) };
}

/** The common type of the states at several exits; fills each exit's hole with its state at that type. */
export function joinStates(fn: Fn, holes: Holes, names: readonly string[], node: Node, start?: TsType): TsType {
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
export function translateBody(
  fn: Fn,
  body: A.BlockStatement | Expression,
  env: Env,
  node: Node,
): { expr: Expr; type: TsType } {
  if (body.type !== "BlockStatement") {
    const lets = new Lets(fn.names);
    const v = expr(fn, body, env, lets);
    return { expr: lets.wrap(packAs(v, typeOfVal(v), fn.span(body))), type: typeOfVal(v) };
  }
  const holes = new Holes();
  const closing = { type: "Punctuator", start: body.end - 1, end: body.end };
  const e = stmts(fn, body.body, 0, env, {
    next: () => fn.fail(closing, "the function can end without returning a value"),
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

/**
 * Parameters bound to values (identifiers or destructuring patterns); a parameter without a value takes its default
 * (`scale = 2`), computed from the parameters before it as JavaScript does.
 */
export function bindParams(
  fn: Fn,
  params: readonly Pattern[],
  vals: readonly (Val | undefined)[],
  env: Env,
  lets: Lets,
): Env {
  let e = env;
  params.forEach((p0, k) => {
    const p = parameterPattern(fn, p0);
    if (p.type === "RestElement") fn.fail(p, "rest parameters are not supported");
    let v = vals[k];
    if (!v && p.type === "AssignmentPattern") v = expr(fn, p.right, e, lets);
    const target = p.type === "AssignmentPattern" ? p.left : p;
    if (!v) {
      if (target.type === "Identifier" && /^_/.test(target.name)) return; // an unused parameter (`_`)
      fn.fail(p, "this parameter has no value here");
    }
    e = bindPattern(fn, target, v, e, lets, true, "foreign", p);
  });
  return e;
}

/** A parameter's pattern (a TypeScript constructor's `public x: number` is the parameter `x`). */
export function parameterPattern(fn: Fn, p: Pattern): Pattern {
  const parameter = (p as unknown as { type: string; parameter?: Pattern }).parameter;
  if ((p as { type: string }).type === "TSParameterProperty" && parameter) return parameter;
  return p;
}

/** How many arguments a function needs: its parameters before the first with a default value (or a rest). */
export function requiredParameters(fn: Fn, params: readonly Pattern[]): number {
  const k = params.findIndex((p) => {
    const q = parameterPattern(fn, p);
    return q.type === "AssignmentPattern" || q.type === "RestElement";
  });
  return k < 0 ? params.length : k;
}

/**
 * A callback's value (of map, reduce, Array.from): a function written in place reads the variables around it as they
 * are; any other function value (`xs.map(sq)`, `xs.map(Math.tanh)`, `xs.map(layer.act)`) is called with the values.
 */
export function callbackValue(
  fn: Fn,
  callback: Expression,
  args: readonly (Val | undefined)[],
  env: Env,
  lets: Lets,
): Val {
  const cb = bare(callback);
  if (cb.type !== "ArrowFunctionExpression" && cb.type !== "FunctionExpression") {
    const f = expr(fn, callback, env, lets);
    if (f.kind !== "fn")
      return fn.fail(callback, `the callback is ${showTsType(typeOfVal(f))}, not a function`, {}, "type");
    return applyFunction(fn, f, args, env, lets, callback);
  }
  const inner = env.enterCallback();
  const bound = bindParams(fn, cb.params, args, inner, lets);
  const { expr: body, type } = translateBody(fn, cb.body, bound, cb);
  return lets.bind(body, type, "r", fn.span(cb));
}
