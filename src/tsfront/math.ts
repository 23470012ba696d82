// `Math`'s functions: those with a Smooth primitive (sin ... tanh, atan, asin, acos, atan2), those written with them
// (rounding, sign, log1p, expm1, log2, log10, sinh, cosh, cbrt, asinh, acosh, atanh, hypot), max and min (also of an
// array's elements, `Math.max(...xs)`), and imul on integers. Each is JavaScript's function, so its derivative is the
// derivative of what it computes.

import type * as A from "acorn";
import type { Expr } from "../syntax/ast.js";
import type { Span } from "../syntax/source.js";
import { Env, type Fn } from "./context.js";
import { expr, number } from "./expressions.js";
import { arithmetic } from "./operators.js";
import { app, binop, dbl, ifte, index, lam, neg, num, param } from "./smooth-ast.js";
import type { Expression, Node } from "./syntax.js";
import { isNumber, T_DOUBLE, T_INT, type TsType } from "./ts-types.js";
import { atom, Lets, toDouble, type AtomVal, type Val } from "./values.js";
import { INT32, rangeOf } from "./int-ranges.js";

type Argument = Expression | A.SpreadElement;

/** Math's functions of one number that are Smooth primitives of the same name. */
const PRIMITIVE = new Set(["sin", "cos", "tan", "exp", "log", "sqrt", "tanh", "atan", "asin", "acos"]);
/** Math's functions of one number written with the primitives (./math.ts `written`). */
const WRITTEN = new Set(["log1p", "expm1", "log2", "log10", "sinh", "cosh", "cbrt", "asinh", "acosh", "atanh"]);
const ROUNDING = new Set(["abs", "floor", "ceil", "round", "trunc"]);

const SUPPORTED =
  "supported: sin cos tan exp log sqrt tanh atan asin acos atan2 abs floor ceil round trunc sign pow max min hypot " +
  "imul log1p expm1 log2 log10 sinh cosh cbrt asinh acosh atanh, and Math.PI, Math.E and the other constants";

/** `Math.name(args)`. */
export function math(fn: Fn, e: A.CallExpression, name: string, all: readonly Argument[], env: Env, lets: Lets): Val {
  const span = fn.span(e);
  const spread = all.length === 1 && all[0]!.type === "SpreadElement" ? all[0].argument : undefined;
  if (spread && name !== "max" && name !== "min") return fn.fail(all[0]!, `Math.${name}(...xs) is not supported`);
  const args = all.map((a) =>
    a.type === "SpreadElement" && !spread ? fn.fail(a, "spread arguments (`...`) are not supported here") : a,
  ) as Expression[];
  const arity = (n: number) => {
    if (args.length !== n)
      fn.fail(
        e,
        `Math.${name} takes ${n} argument${n === 1 ? "" : "s"}, but ${args.length} ${args.length === 1 ? "is" : "are"} given`,
      );
  };
  const what = (k: number) => `argument ${k} of Math.${name}`;
  const double = (k: number) => mathArg(fn, args[k]!, env, lets, what(k));
  const result = (value: Expr) => lets.bind(value, T_DOUBLE, name, span);
  if (PRIMITIVE.has(name)) {
    arity(1);
    return result(app(name, [double(0)], span));
  }
  if (WRITTEN.has(name)) {
    arity(1);
    return result(written(name, bound(double(0), lets, span), span));
  }
  if (ROUNDING.has(name)) {
    arity(1);
    return rounding(name, number(fn, args[0]!, env, lets, what(0)), lets, span);
  }
  switch (name) {
    case "atan2":
      arity(2);
      return result(app("atan2", [double(0), double(1)], span));
    case "sign": {
      arity(1);
      const x = bound(double(0), lets, span);
      const negative = ifte(binop("<", x, dbl(0, span), span), dbl(-1, span), x, span);
      return result(ifte(binop(">", x, dbl(0, span), span), dbl(1, span), negative, span));
    }
    case "pow":
      arity(2);
      return arithmetic(
        fn,
        lets,
        "**",
        number(fn, args[0]!, env, lets, what(0)),
        number(fn, args[1]!, env, lets, what(1)),
        span,
      );
    case "hypot": {
      if (args.length === 0) return atom(dbl(0, span), T_DOUBLE);
      const squares = args.map((_, k) => {
        const x = bound(double(k), lets, span);
        return binop("*", x, x, span);
      });
      return result(app("sqrt", [squares.reduce((s, q) => binop("+", s, q, span))], span));
    }
    case "imul": {
      arity(2);
      const [a, b] = [0, 1].map((k) => number(fn, args[k]!, env, lets, what(k)));
      if (a!.type.k !== "int" || b!.type.k !== "int")
        return fn.fail(e, "Math.imul of numbers that are not integers is not supported", {}, "type");
      // Index multiplication wraps around in 32 bits, as Math.imul does.
      return lets.bind(binop("*", a!.expr, b!.expr, span), T_INT, "imul", span);
    }
    case "max":
    case "min":
      return extremum(fn, e, name, args, spread, env, lets);
    case "random":
      return fn.fail(e, "Math.random() is not a function of the arguments: it cannot be differentiated", {
        hint: "pass random numbers in as an argument",
      });
    default:
      return fn.fail(e, `Math.${name} is not supported`, { hint: SUPPORTED });
  }
}

/** Is Math.name one of Math's functions (supported or not: a value of it says which)? */
export const isMathFunction = (name: string): boolean =>
  typeof (Math as unknown as Record<string, unknown>)[name] === "function";

/** How many arguments Math.name takes, when it is a function of one or two numbers (undefined otherwise). */
export function mathArity(name: string): number | undefined {
  if (PRIMITIVE.has(name) || WRITTEN.has(name) || ROUNDING.has(name) || name === "sign") return 1;
  return name === "atan2" || name === "pow" || name === "imul" ? 2 : undefined;
}

/** Math.name applied to values (a Math function given as a value, then called). */
export function mathOfValues(fn: Fn, call: Node, name: string, vals: readonly (Val | undefined)[], lets: Lets): Val {
  // Each value stands as a variable of its own, spanning the call, so Math's translation reads it as an argument.
  let env = Env.empty();
  const args = vals.map((v, k): Expression => {
    const id = `%${k}`;
    if (v) env = env.declare(id, v, false, "foreign", call);
    const stand: A.Identifier = { type: "Identifier", name: id, start: call.start, end: call.end };
    return stand;
  });
  return math(fn, call as unknown as A.CallExpression, name, args, env, lets);
}

/** A number argument of Math.f as a Double (Math's functions compute in Doubles). */
function mathArg(fn: Fn, a: Expression, env: Env, lets: Lets, what: string): Expr {
  const x = number(fn, a, env, lets, what);
  return x.type.k === "int" ? app("double", [x.expr], fn.span(a)) : x.expr;
}

/** The expression as a variable (it is used more than once). */
const bound = (x: Expr, lets: Lets, span: Span): Expr => (lets.bind(x, T_DOUBLE, "x", span) as AtomVal).expr;

/** A function of Math written with the primitives, of the variable x. */
function written(name: string, x: Expr, span: Span): Expr {
  const one = dbl(1, span);
  const exp = (y: Expr) => app("exp", [y], span);
  const log = (y: Expr) => app("log", [y], span);
  const sqrt = (y: Expr) => app("sqrt", [y], span);
  const negative = (y: Expr, a: Expr, b: Expr) => ifte(binop("<", y, dbl(0, span), span), a, b, span);
  switch (name) {
    case "log1p":
      return log(binop("+", one, x, span));
    case "expm1":
      return binop("-", exp(x), one, span);
    case "log2":
      return binop("/", log(x), dbl(Math.LN2, span), span);
    case "log10":
      return binop("/", log(x), dbl(Math.LN10, span), span);
    case "sinh":
      return binop("/", binop("-", exp(x), exp(neg(x, span)), span), dbl(2, span), span);
    case "cosh":
      return binop("/", binop("+", exp(x), exp(neg(x, span)), span), dbl(2, span), span);
    case "asinh": {
      // log(|x| + sqrt(x² + 1)) with x's sign (so that a large negative x does not cancel).
      const magnitude = (y: Expr) => log(binop("+", y, sqrt(binop("+", binop("*", x, x, span), one, span)), span));
      return negative(x, neg(magnitude(neg(x, span)), span), magnitude(x));
    }
    case "acosh":
      return log(binop("+", x, sqrt(binop("-", binop("*", x, x, span), one, span)), span));
    case "atanh":
      return binop(
        "*",
        dbl(0.5, span),
        log(binop("/", binop("+", one, x, span), binop("-", one, x, span), span)),
        span,
      );
    default: {
      // cbrt: the real cube root, of negative numbers too.
      const third = dbl(1 / 3, span);
      return negative(x, neg(binop("**", neg(x, span), third, span), span), binop("**", x, third, span));
    }
  }
}

/** abs, floor, ceil, round and trunc: of an integer, the integer (abs of it an Index); of a Double, as JavaScript. */
function rounding(name: string, x: { expr: Expr; type: TsType }, lets: Lets, span: Span): Val {
  // (abs of -2^31 is beyond an Index: a Double, as JavaScript computes it, unless the integer is known to be above it.)
  if (x.type.k === "int" && (name !== "abs" || rangeOf(x.expr).lo > INT32.lo))
    return name === "abs" ? lets.bind(app("abs", [x.expr], span), T_INT, "abs", span) : atom(x.expr, T_INT);
  if (x.type.k === "int") return lets.bind(app("abs", [toDouble(x.expr, span)], span), T_DOUBLE, "abs", span);
  const v = bound(x.expr, lets, span);
  const floor = (y: Expr) => app("floor", [y], span);
  const ceil = (y: Expr) => neg(floor(neg(y, span)), span);
  const value =
    name === "abs"
      ? app("abs", [v], span)
      : name === "floor"
        ? floor(v)
        : name === "ceil"
          ? ceil(v)
          : name === "round"
            ? // JavaScript rounds halves up (Math.round(-2.5) = -2).
              floor(binop("+", v, dbl(0.5, span), span))
            : ifte(binop("<", v, dbl(0, span), span), ceil(v), floor(v), span);
  return lets.bind(value, T_DOUBLE, name, span);
}

/** Math.max and Math.min: of the arguments (Indexes when all are), or of an array's elements (`...xs`). */
function extremum(
  fn: Fn,
  e: A.CallExpression,
  name: "max" | "min",
  args: readonly Expression[],
  spread: Expression | undefined,
  env: Env,
  lets: Lets,
): Val {
  const span = fn.span(e);
  if (spread) {
    const xs = expr(fn, spread, env, lets);
    if (xs.kind !== "atom" || xs.type.k !== "array" || !isNumber(xs.type.elem))
      return fn.fail(spread, `Math.${name}(...xs) needs an array of numbers`, {}, "type");
    return reduceArray(fn, xs, name, span, lets);
  }
  if (args.length === 0) return fn.fail(e, `Math.${name}() of nothing is not supported`);
  const vals = args.map((a, k) => number(fn, a, env, lets, `argument ${k} of Math.${name}`));
  const t = vals.every((x) => x.type.k === "int") ? T_INT : T_DOUBLE;
  const conv = (x: { expr: Expr; type: TsType }) =>
    t.k === "double" && x.type.k === "int" ? app("double", [x.expr], span) : x.expr;
  return lets.bind(
    vals.map(conv).reduce((acc, x) => app(name, [acc, x], span)),
    t,
    name,
    span,
  );
}

/** The largest (or smallest) element of an array of numbers. */
function reduceArray(fn: Fn, xs: AtomVal, op: "max" | "min", span: Span, lets: Lets): Val {
  const elem = (xs.type as { elem: TsType }).elem;
  const acc = fn.names.fresh("m");
  const i = fn.names.fresh("i");
  const next = index(xs.expr, binop("+", { kind: "var", name: i, span }, num(1, span), span), span);
  const body = app(op, [{ kind: "var", name: acc, span }, next], span);
  const loop = app(
    "ifold",
    [
      lam([param(acc, span), param(i, span)], body, span),
      index(xs.expr, num(0, span), span),
      binop("-", app("length", [xs.expr], span), num(1, span), span),
    ],
    span,
  );
  return lets.bind(loop, elem, op, span);
}
