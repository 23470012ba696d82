// Calls of the subset: Math's functions (./math.ts), the array
// methods that are loops (map, reduce, fill, slice, Array.from), typed-array constructors, functions of the same module
// or closure (each a Smooth definition per argument types) and functions declared inside the function (inlined).

import type * as A from "acorn";
import type { Expr } from "../syntax/ast.js";
import type { Span } from "../syntax/source.js";
import type { Env, Fn } from "./context.js";
import { consoleCall, expr, functionValue, indexOf, memberOfFree, packAs } from "./expressions.js";
import { applyFunction } from "./function-values.js";
import { callTransform, knownFunction } from "./transforms.js";
import { callMethod, callStatic, construct } from "./classes.js";
import { app, binop, dbl, index, lam, num, param } from "./smooth-ast.js";
import { callbackValue } from "./bodies.js";
import { math } from "./math.js";
import { bare, keyName, type Expression } from "./syntax.js";
import { ELEMENT_INDEX, recordRange } from "./int-ranges.js";
import { joinType, sameType, showTsType, T_DOUBLE, T_INT, tArray, type TsType } from "./ts-types.js";
import { atom, Lets, pack, typeOfVal, type AtomVal, type Val } from "./values.js";
import { toInt32 } from "./operators.js";

type Call = A.CallExpression | A.NewExpression;
type Argument = Expression | A.SpreadElement;

/** The arguments of a call, none of them spread (`f(...xs)`). */
function plainArguments(fn: Fn, args: readonly Argument[]): Expression[] {
  return args.map((a) =>
    a.type === "SpreadElement" ? fn.fail(a, "spread arguments (`...`) are not supported here") : a,
  );
}

export function call(fn: Fn, e: Call, env: Env, lets: Lets): Val {
  if (e.callee.type === "Super") return fn.fail(e, "`super` is not supported");
  const callee = bare(e.callee);
  if (e.type === "NewExpression") return newObject(fn, e, callee, plainArguments(fn, e.arguments), env, lets);
  const values = () => plainArguments(fn, e.arguments).map((a) => expr(fn, a, env, lets));
  if (callee.type === "MemberExpression" && !callee.computed && callee.object.type !== "Super") {
    const owner = bare(callee.object);
    const name = keyName(callee.property, false)!;
    if (owner.type === "Identifier" && !env.get(owner.name)) {
      if (owner.name === "Math") return math(fn, e, name, e.arguments, env, lets);
      if (owner.name === "console") return consoleCall(fn, e, env);
      if (owner.name === "Array" && name === "from")
        return arrayFrom(fn, e, plainArguments(fn, e.arguments), env, lets);
      const member = memberOfFree(fn, owner, name, env);
      const transform = member?.k === "function" ? knownFunction(member.value) : undefined;
      if (transform?.k === "transform") return callTransform(fn, transform.name, e, env, lets);
      if (member?.k === "function") return callValue(fn, functionValue(fn, member, callee), e, values(), env, lets);
    }
    const filled = arrayOfCopies(fn, e, callee.object, name, env, lets);
    if (filled) return filled;
    if (owner.type === "Identifier" && !env.get(owner.name)) {
      const r = fn.src.scope.lookup(owner.name);
      const method = r?.k === "class" ? r.info().statics.get(name) : undefined;
      if (r?.k === "class" && !method)
        return fn.fail(callee.property, `the class \`${owner.name}\` has no static method \`${name}\``, {}, "type");
      if (r?.k === "class") return callStatic(fn, r.info(), name, method!, values(), lets, e);
    }
    const receiver = expr(fn, callee.object, env, lets);
    if (receiver.kind === "record") {
      // A function stored in an object (`layer.act(z)`, `ops.f(x)`), or a method of its class.
      const k = receiver.keys.indexOf(name);
      const method = receiver.cls?.methods.get(name);
      if (k < 0 && method) return callMethod(fn, receiver.cls!, receiver, name, method, values(), lets, e);
      if (k < 0) return fn.fail(callee.property, `the object has no property \`${name}\``, {}, "type");
      return callValue(fn, receiver.fields[k]!, e, values(), env, lets);
    }
    return method(fn, e, receiver, callee.object, name, plainArguments(fn, e.arguments), env, lets);
  }
  if (callee.type === "Identifier" && !env.get(callee.name)) {
    const name = callee.name;
    if (name === "Number" && e.arguments.length === 1) return expr(fn, plainArguments(fn, e.arguments)[0]!, env, lets);
    const r = fn.src.scope.lookup(name);
    if (!r)
      return fn.fail(callee, `the function \`${name}\` is not defined here`, {
        hint: fn.src.scope.limitation
          ? `${fn.src.scope.limitation}: give the library the whole module (typescriptModule) to call its functions`
          : "functions of the same module (or in the function's closure) can be called",
      });
    if (r.k !== "function") return fn.fail(callee, `\`${name}\` is not a function`, {}, "type");
    const transform = knownFunction(r.value);
    if (transform?.k === "transform") return callTransform(fn, transform.name, e, env, lets);
  }
  // Any other callee is a function value: a variable holding one, `grad(f)(x)`, `fs[i](x)`, `make(a)(x)`.
  return callValue(fn, expr(fn, callee, env, lets), e, values(), env, lets);
}

/** A call of a value that must be a function. */
function callValue(fn: Fn, f: Val, e: A.CallExpression, args: readonly Val[], env: Env, lets: Lets): Val {
  if (f.kind !== "fn")
    return fn.fail(e.callee, `\`${fn.text(e.callee)}\` is ${showTsType(typeOfVal(f))}, not a function`, {}, "type");
  return applyFunction(fn, f, args, env, lets, e);
}

function newObject(
  fn: Fn,
  e: A.NewExpression,
  callee: Expression,
  args: readonly Expression[],
  env: Env,
  lets: Lets,
): Val {
  const span = fn.span(e);
  const kind = callee.type === "Identifier" ? callee.name : "";
  const r = callee.type === "Identifier" && !env.get(kind) ? fn.src.scope.lookup(kind) : undefined;
  if (r?.k === "class")
    return construct(
      fn,
      r.info(),
      args.map((a) => expr(fn, a, env, lets)),
      env,
      lets,
      e,
    );
  if (kind === "Float64Array" || kind === "Float32Array" || kind === "Int32Array" || kind === "Array") {
    const elem = kind === "Int32Array" ? T_INT : T_DOUBLE;
    if (args.length !== 1) return fn.fail(e, `\`new ${kind}\` needs one argument: a length or an array to copy`);
    const a = expr(fn, args[0]!, env, lets);
    if (a.kind === "atom" && a.type.k === "array") {
      // An Int32Array of numbers holds their ToInt32 (`new Int32Array([0.5])` is [0]), as JavaScript's does.
      if (kind !== "Int32Array") return a; // a copy: arrays are values in Smooth
      if (a.type.elem.k === "int") return atom(a.expr, { k: "array", elem: T_INT, int32: true });
      if (a.type.elem.k !== "double")
        return fn.fail(e, `\`new Int32Array\` of ${showTsType(a.type)} is not supported: it needs numbers`, {}, "type");
      const n = (lets.bind(app("length", [a.expr], span), T_INT, "n", span) as AtomVal).expr;
      const int32s = build(
        fn,
        n,
        (i) => {
          const inner = new Lets(fn.names);
          return inner.wrap(toInt32(inner, index(a.expr, i, span), span));
        },
        span,
      );
      return lets.bind(int32s, { k: "array", elem: T_INT, int32: true }, "xs", span);
    }
    if (kind === "Array")
      return fn.fail(e, "`new Array(n)` has no elements: write `new Array(n).fill(x)` or new Float64Array(n)");
    const n = indexOf(fn, args[0]!, env, lets, `the length of \`new ${kind}\``);
    const zero = elem.k === "int" ? num(0, span) : dbl(0, span);
    return lets.bind(
      build(fn, n, () => zero, span),
      kind === "Int32Array" ? { k: "array", elem, int32: true } : tArray(elem),
      "xs",
      span,
    );
  }
  return fn.fail(e, `\`new ${fn.text(callee)}\` is not supported`, { hint: "new Float64Array(n) makes a local array" });
}

/** build n (fun i -> body(i)). */
function build(fn: Fn, n: Expr, body: (i: Expr) => Expr, span: Span, name = "i"): Expr {
  const i = fn.names.fresh(name);
  return app("build", [n, lam([param(i, span)], body({ kind: "var", name: i, span }), span)], span);
}

function arrayFrom(fn: Fn, e: A.CallExpression, args: readonly Expression[], env: Env, lets: Lets): Val {
  const span = fn.span(e);
  const first = args[0] && bare(args[0]);
  // Array.from({ length: n }, (_, i) => ...)
  if (first?.type === "ObjectExpression") {
    const length = first.properties[0];
    if (
      first.properties.length !== 1 ||
      length?.type !== "Property" ||
      length.kind !== "init" ||
      length.method ||
      keyName(length.key, length.computed) !== "length"
    )
      return fn.fail(first, "Array.from reads `{ length: n }` or an array");
    const n = indexOf(fn, length.value, env, lets, "the length");
    if (!args[1]) return fn.fail(e, "Array.from({ length: n }) needs a function giving each element");
    return mapIndexes(fn, args[1], n, undefined, env, lets, span);
  }
  if (!first) return fn.fail(e, "Array.from needs an argument");
  const xs = expr(fn, first, env, lets);
  if (xs.kind !== "atom" || xs.type.k !== "array")
    return fn.fail(first, "Array.from copies an array (or makes one from { length: n })");
  if (!args[1]) return xs;
  return mapIndexes(fn, args[1], app("length", [xs.expr], span), xs, env, lets, span);
}

/** build n (fun i -> f(xs[i], i)), for map and Array.from (without xs: f(undefined, i)). */
function mapIndexes(
  fn: Fn,
  callback: Expression,
  n: Expr,
  xs: Extract<Val, { kind: "atom" }> | undefined,
  env: Env,
  lets: Lets,
  span: Span,
): Val {
  const i = fn.names.fresh("i");
  const iv = atom({ kind: "var", name: i, span }, T_INT);
  recordRange(iv.expr, ELEMENT_INDEX);
  const inner = new Lets(fn.names);
  const element = xs
    ? inner.bind(index(xs.expr, iv.expr, span), (xs.type as { elem: TsType }).elem, "x", span)
    : undefined;
  const r = callbackValue(fn, callback, [element, iv], env, inner);
  const t = typeOfVal(r);
  const body = inner.wrap(pack(r, span));
  return lets.bind(app("build", [n, lam([param(i, span)], body, span)], span), tArray(t), "xs", span);
}

/** `new Array(n).fill(x)` and `Array(n).fill(x)`: an array of n copies (undefined for other calls). */
function arrayOfCopies(
  fn: Fn,
  e: A.CallExpression,
  receiver: Expression,
  name: string,
  env: Env,
  lets: Lets,
): Val | undefined {
  const span = fn.span(e);
  const r = bare(receiver);
  if (
    name !== "fill" ||
    !(r.type === "NewExpression" || r.type === "CallExpression") ||
    r.callee.type !== "Identifier" ||
    r.callee.name !== "Array" ||
    env.get("Array")
  )
    return undefined;
  const length = r.arguments[0];
  if (r.arguments.length !== 1 || length?.type === "SpreadElement")
    return fn.fail(r, "`new Array(n)` needs one argument, its length");
  const n = indexOf(fn, length!, env, lets, "the length");
  const args = plainArguments(fn, e.arguments);
  if (args.length !== 1) return fn.fail(e, "`.fill(x)` with a start or an end is not supported");
  const x = expr(fn, args[0]!, env, lets);
  return lets.bind(
    build(fn, n, () => pack(x, span), span),
    tArray(typeOfVal(x)),
    "xs",
    span,
  );
}

function method(
  fn: Fn,
  e: A.CallExpression,
  xs: Val,
  receiver: Expression,
  name: string,
  args: readonly Expression[],
  env: Env,
  lets: Lets,
): Val {
  const span = fn.span(e);
  if (xs.kind !== "atom" || xs.type.k !== "array")
    return fn.fail(receiver, `\`.${name}\` of ${showTsType(typeOfVal(xs))} is not supported`, {}, "type");
  const elem = xs.type.elem;
  const length = () => app("length", [xs.expr], span);
  switch (name) {
    case "map":
      return mapIndexes(fn, args[0]!, length(), xs, env, lets, span);
    case "fill": {
      if (args.length !== 1) return fn.fail(e, "`.fill(x)` with a start or an end is not supported");
      const x = expr(fn, args[0]!, env, lets);
      const t = joinType(elem, typeOfVal(x));
      if (!t || !sameType(t, elem))
        return fn.fail(
          args[0]!,
          `an array of ${showTsType(elem)} cannot be filled with ${showTsType(typeOfVal(x))}`,
          {},
          "type",
        );
      return lets.bind(
        build(fn, length(), () => packAs(x, elem, span), span),
        xs.type,
        "xs",
        span,
      );
    }
    case "slice": {
      if (args.length === 0) return xs;
      const start = indexOf(fn, args[0]!, env, lets, "the start of the slice");
      const end = args[1] ? indexOf(fn, args[1], env, lets, "the end of the slice") : length();
      const s = (lets.bind(start, T_INT, "start", span) as { expr: Expr }).expr;
      const count = app("max", [num(0, span), binop("-", end, s, span)], span);
      return lets.bind(
        build(fn, count, (i) => index(xs.expr, binop("+", s, i, span), span), span),
        xs.type,
        "xs",
        span,
      );
    }
    case "at":
      return lets.bind(index(xs.expr, indexOf(fn, args[0]!, env, lets, "the index"), span), elem, "x", span);
    case "reduce":
      return reduce(fn, e, xs, args, env, lets);
    default:
      return fn.fail(e, `the array method \`.${name}\` is not supported`, {
        hint: "supported: map, reduce, forEach (as a statement), fill, slice, at, length",
      });
  }
}

/** xs.reduce((acc, x, i) => ..., init): an ifold whose state type is the join of init's and the step's. */
function reduce(
  fn: Fn,
  e: A.CallExpression,
  xs: Extract<Val, { kind: "atom" }>,
  args: readonly Expression[],
  env: Env,
  lets: Lets,
): Val {
  const span = fn.span(e);
  const elem = (xs.type as { elem: TsType }).elem;
  const withInit = args.length >= 2;
  const init = withInit
    ? expr(fn, args[1]!, env, lets)
    : lets.bind(index(xs.expr, num(0, span), span), elem, "x0", span);
  const offset = withInit ? 0 : 1;
  let accType = typeOfVal(init);
  for (let round = 0; ; round++) {
    const acc = fn.names.fresh("acc");
    const i = fn.names.fresh("i");
    const inner = new Lets(fn.names);
    const accVal = inner.bind({ kind: "var", name: acc, span }, accType, acc, span);
    const iv = atom(
      offset === 0
        ? { kind: "var", name: i, span }
        : binop("+", { kind: "var", name: i, span }, num(offset, span), span),
      T_INT,
    );
    const k = inner.bind(iv.expr, T_INT, "k", span);
    recordRange((k as { expr: Expr }).expr, ELEMENT_INDEX);
    const x = inner.bind(index(xs.expr, (k as { expr: Expr }).expr, span), elem, "x", span);
    const r = callbackValue(fn, args[0]!, [accVal, x, k], env, inner);
    const joined = joinType(accType, typeOfVal(r));
    if (!joined)
      return fn.fail(
        args[0]!,
        `the reduction gives ${showTsType(typeOfVal(r))} from an accumulator of ${showTsType(accType)}`,
        {},
        "type",
      );
    if (!sameType(joined, accType) && round < 4) {
      accType = joined;
      continue;
    }
    const count =
      offset === 0 ? app("length", [xs.expr], span) : binop("-", app("length", [xs.expr], span), num(1, span), span);
    const loop = app(
      "ifold",
      [
        lam([param(acc, span), param(i, span)], inner.wrap(packAs(r, accType, span)), span),
        packAs(init, accType, span),
        count,
      ],
      span,
    );
    return lets.bind(loop, accType, "acc", span);
  }
}
