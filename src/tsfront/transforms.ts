// The library's transforms called inside a plain function (JAX's idioms: `grad(y => x * y)(3)`, an HVP by
// `jvp(w => grad(loss)(w, X), [w], [v])`, a vjp's pullback, linearize, vmap, customJvp/customVjp), translated to the
// language's derivative builtins (./derivative-exprs.ts) over function values (./function-values.ts): grad(f) is a
// function value that holds f, and calling it is `vjp` of a lambda calling f. The library registers its functions
// here (registerTransform), so the translator knows `grad` when a function's closure or module holds it; the results
// follow the library's conventions (gradients in the arguments' form, a list for a list of argnums, jvp's
// [value, tangent], vjp's [value, pullback] with pullback(ct) a list of adjoints).

import type * as A from "acorn";
import type { Expr } from "../syntax/ast.js";
import type { Env, Fn } from "./context.js";
import { asDifferentiable, buildOf, joined, jvpOf, lambdaOver, oneHot, parts, vjpOf } from "./derivative-exprs.js";
import { expr, packAs } from "./expressions.js";
import { transformRef, type TransformOptions, type TransformRef } from "./function-refs.js";
import { applyFunction } from "./function-values.js";
import { app, dbl, index, num } from "./smooth-ast.js";
import { bare, keyName, numberLiteral, type Expression, type Node } from "./syntax.js";
import { isNumber, showTsType, T_DOUBLE, tArray, type TsType } from "./ts-types.js";
import { atom, Lets, typeOfVal, type AtomVal, type FnVal, type Val } from "./values.js";

/** The transforms a plain function may call, by the name the library gives them. */
export type TransformName =
  "grad" | "valueAndGrad" | "jacobian" | "hessian" | "vmap" | "jvp" | "vjp" | "linearize" | "customJvp" | "customVjp";

/** What the translator knows of a library value: a transform, or a function with custom rules (and its functions). */
export type KnownFunction =
  | { readonly k: "transform"; readonly name: TransformName }
  | { readonly k: "custom"; readonly name: "customJvp" | "customVjp"; readonly fns: readonly FnVal[] };

const KNOWN = new WeakMap<object, KnownFunction>();

/** The library's transform `value` is `name` to the translator. */
export function registerTransform(value: object, name: TransformName): void {
  KNOWN.set(value, { k: "transform", name });
}

/** `value` is a function with custom rules made of these functions (./function-values.ts values). */
export function registerCustom(value: object, name: "customJvp" | "customVjp", fns: readonly FnVal[]): void {
  KNOWN.set(value, { k: "custom", name, fns });
}

export const knownFunction = (value: unknown): KnownFunction | undefined =>
  typeof value === "function" ? KNOWN.get(value) : undefined;

/** A function value made by a transform from the values it holds. */
const made = (op: string, options: TransformOptions, held: readonly Val[]): FnVal => ({
  kind: "fn",
  ref: transformRef(op, options),
  captures: held.map(() => undefined),
  parts: held,
});

/** A library function with custom rules, as a function value. */
export const customValue = (known: Extract<KnownFunction, { k: "custom" }>): FnVal => made(known.name, {}, known.fns);

/** A call of the transform `name` inside a plain function: its arguments are read, the result is a value. */
export function callTransform(fn: Fn, name: TransformName, call: A.CallExpression, env: Env, lets: Lets): Val {
  const args = call.arguments.map((a) =>
    a.type === "SpreadElement" ? fn.fail(a, `spread arguments (\`...\`) of ${name} are not supported`) : a,
  );
  const value = (k: number) => expr(fn, args[k] ?? fn.fail(call, `${name} needs an argument ${k + 1}`), env, lets);
  const f = (): FnVal => {
    const x = value(0);
    return x.kind === "fn"
      ? x
      : fn.fail(args[0] ?? call, `${name} takes a function, not ${showTsType(typeOfVal(x))}`, {}, "type");
  };
  switch (name) {
    case "grad":
    case "valueAndGrad":
    case "jacobian":
    case "hessian":
    case "vmap":
      return made(name, options(fn, name, args[1]), [f()]);
    case "customJvp":
      return made(name, {}, [f(), fnArg(fn, value(1), args[1]!, name)]);
    case "customVjp":
      return made(name, {}, [f(), fnArg(fn, value(1), args[1]!, name), fnArg(fn, value(2), args[2]!, name)]);
    case "jvp": {
      const g = f();
      const primals = listed(fn, args[1], env, lets, call, "jvp's primals");
      const tangents = listed(fn, args[2], env, lets, call, "jvp's tangents");
      if (primals.length !== tangents.length)
        fn.fail(call, `jvp takes one tangent per primal: ${primals.length} primals, ${tangents.length} tangents`);
      const { value: y, tangent } = forward(fn, g, primals, tangents, env, lets, call);
      return { kind: "tuple", elems: [y, tangent] };
    }
    case "vjp":
    case "linearize": {
      const g = f();
      const primals = args.slice(1).map((_, k) => value(k + 1));
      const y = applyFunction(fn, g, primals, env, lets, call);
      const map = made(name === "vjp" ? "pullback" : "linearMap", { arity: primals.length }, [g, ...primals]);
      return { kind: "tuple", elems: [y, map] };
    }
  }
}

const fnArg = (fn: Fn, x: Val, node: Node, name: string): FnVal =>
  x.kind === "fn" ? x : fn.fail(node, `${name} takes functions, not ${showTsType(typeOfVal(x))}`, {}, "type");

/** The values of a list written as an array literal (`[w, b]`), or of a tuple. */
function listed(fn: Fn, node: Expression | undefined, env: Env, lets: Lets, call: Node, what: string): Val[] {
  if (!node) return fn.fail(call, `${what} are missing`);
  const e = bare(node);
  if (e.type === "ArrayExpression")
    return e.elements.map((x) =>
      !x || x.type === "SpreadElement" ? fn.fail(e, `${what} are written as a list [x, y]`) : expr(fn, x, env, lets),
    );
  const x = expr(fn, node, env, lets);
  if (x.kind === "tuple") return [...x.elems];
  return fn.fail(node, `${what} are written as a list [x, y] (one entry per argument)`);
}

/** A transform's options, read from the object literal written at the call (their values must be literals). */
function options(fn: Fn, name: string, node: Expression | undefined): TransformOptions {
  if (!node) return {};
  const e = bare(node);
  if (e.type !== "ObjectExpression") return fn.fail(node, `${name}'s options are written as an object literal here`);
  const out: { -readonly [K in keyof TransformOptions]: TransformOptions[K] } = {};
  for (const p of e.properties) {
    const key = p.type === "Property" ? keyName(p.key, p.computed) : undefined;
    if (p.type !== "Property" || key === undefined)
      return fn.fail(p, `${name}'s options are written as \`key: value\``);
    const v = bare(p.value);
    const literal = (x: Node): number | undefined => {
      const n = numberLiteral(x);
      return n !== undefined && Number.isInteger(n) && n >= 0 ? n : undefined;
    };
    if (key === "argnums") {
      const single = literal(v);
      const list = v.type === "ArrayExpression" ? v.elements.map((x) => (x ? literal(x) : undefined)) : undefined;
      if (single !== undefined) out.argnums = { list: [single], single: true };
      else if (list?.every((x) => x !== undefined) && list.length > 0) out.argnums = { list, single: false };
      else return fn.fail(v, "argnums is a position or a list of positions written as numbers");
    } else if (key === "hasAux") {
      if (v.type !== "Literal" || typeof v.value !== "boolean") return fn.fail(v, "hasAux is true or false");
      out.hasAux = v.value;
    } else if (key === "inAxes") {
      const axis = (x: Node | null): 0 | null =>
        x?.type === "Literal" && (x as A.Literal).value === null
          ? null
          : literal(x ?? v) === 0
            ? 0
            : fn.fail(x ?? v, "inside a plain function, vmap maps the first axis (0) or none (null)");
      out.inAxes = v.type === "ArrayExpression" ? v.elements.map((x) => axis(x)) : [axis(v)];
    } else if (key === "outAxes") {
      if (literal(v) !== 0) return fn.fail(v, "inside a plain function, vmap puts the batch axis first (outAxes 0)");
    } else if (key === "mode") {
      if (v.type !== "Literal" || !["auto", "forward", "reverse"].includes(String(v.value)))
        return fn.fail(v, 'mode is "auto", "forward" or "reverse"');
    } else if (key !== "backend" && key !== "threads")
      return fn.fail(p, `${name} has no option \`${key}\` inside a plain function`);
  }
  return out;
}

/** A call of a function value a transform made. */
export function applyTransform(
  fn: Fn,
  f: FnVal,
  args: readonly (Val | undefined)[],
  env: Env,
  lets: Lets,
  call: Node,
): Val {
  const ref = f.ref as TransformRef;
  const vals = args.map((a, k) => a ?? fn.fail(call, `argument ${k} has no value here`));
  const inner = f.parts[0] as FnVal;
  switch (ref.op) {
    case "grad":
    case "valueAndGrad":
      return gradient(fn, inner, vals, ref.options, ref.op === "valueAndGrad", env, lets, call);
    case "jacobian":
      return jacobian(fn, inner, vals, ref.options, env, lets, call);
    case "hessian":
      return hessian(fn, inner, vals, ref.options, env, lets, call);
    case "vmap":
      return mapped(fn, inner, vals, ref.options, env, lets, call);
    case "pullback": {
      const primals = f.parts.slice(1);
      if (vals.length !== 1) fn.fail(call, "a pullback takes one cotangent");
      const xs = primals.map((x) => asDifferentiable(fn, x, lets, call));
      const lam = lambdaOver(fn, xs.map(typeOfVal), fn.span(call), (ps, l) =>
        applyFunction(fn, inner, ps, env, l, call),
      );
      const ct = lets.bind(packAs(vals[0]!, lam.result, fn.span(call)), lam.result, "ct", fn.span(call));
      const { adjoint } = vjpOf(lam, joined(xs), ct, lets, fn.span(call));
      // One adjoint per primal, as a list.
      return { kind: "tuple", elems: [...parts(adjoint, xs.length)] };
    }
    case "linearMap": {
      const primals = f.parts.slice(1);
      if (vals.length !== primals.length)
        fn.fail(call, `the linear map takes one tangent per primal (${primals.length}), but ${vals.length} are given`);
      return forward(fn, inner, primals, vals, env, lets, call).tangent;
    }
    case "customJvp":
    case "customVjp":
      return custom(fn, ref.op, f.parts as FnVal[], vals, env, lets, call);
    default:
      return fn.fail(call, `${ref.label} cannot be called here`);
  }
}

/** (f(...primals), J·tangents) by forward mode. */
function forward(
  fn: Fn,
  f: FnVal,
  primals: readonly Val[],
  tangents: readonly Val[],
  env: Env,
  lets: Lets,
  call: Node,
): { value: Val; tangent: Val } {
  const span = fn.span(call);
  const xs = primals.map((x) => asDifferentiable(fn, x, lets, call));
  const dxs = tangents.map((t, k) => {
    const type = typeOfVal(xs[k]!);
    return lets.bind(packAs(t, type, span), type, "dx", span);
  });
  const lam = lambdaOver(fn, xs.map(typeOfVal), span, (ps, l) => applyFunction(fn, f, ps, env, l, call));
  return jvpOf(fn, lam, joined(xs), joined(dxs), lets, call);
}

/**
 * The first `count` elements of a list a function returned: a tuple's, or an array's (`[value, tangent]` of two
 * numbers is an array); undefined when it is neither.
 */
function elementsOf(fn: Fn, x: Val, count: number, lets: Lets, call: Node): Val[] | undefined {
  const span = fn.span(call);
  if (x.kind === "tuple") return x.elems.length === count ? [...x.elems] : undefined;
  if (x.kind !== "atom" || x.type.k !== "array") return undefined;
  const elem = x.type.elem;
  return Array.from({ length: count }, (_, k) => lets.bind(index(x.expr, num(k, span), span), elem, "x", span));
}

/** The number a function differentiated by grad returns (its first part with hasAux), as a Double. */
function scalarResult(fn: Fn, r: Val, hasAux: boolean, lets: Lets, call: Node, what: string): Val {
  const span = fn.span(call);
  let value = r;
  if (hasAux) {
    const pair = elementsOf(fn, r, 2, lets, call);
    if (!pair) return fn.fail(call, `${what} with hasAux needs the function to return [value, aux]`, {}, "type");
    value = pair[0]!;
  }
  if (value.kind !== "atom" || !isNumber(value.type))
    return fn.fail(
      call,
      `${what} needs the function to return a number, but it returns ${showTsType(typeOfVal(value))}`,
      {},
      "type",
    );
  return atom(packAs(value, T_DOUBLE, span), T_DOUBLE);
}

/** grad(f, options)(...args), valueAndGrad's too: reverse mode with respect to the arguments argnums names. */
function gradient(
  fn: Fn,
  f: FnVal,
  args: readonly Val[],
  o: TransformOptions,
  withValue: boolean,
  env: Env,
  lets: Lets,
  call: Node,
): Val {
  const span = fn.span(call);
  const what = withValue ? "valueAndGrad" : "grad";
  const argnums = o.argnums ?? { list: [0], single: true };
  for (const k of argnums.list)
    if (k >= args.length) fn.fail(call, `${what} differentiates argument ${k}, but ${args.length} are given`);
  const xs = argnums.list.map((k) => asDifferentiable(fn, args[k]!, lets, call));
  const lam = lambdaOver(fn, xs.map(typeOfVal), span, (ps, l) => {
    const all = args.map((a, k) => (argnums.list.includes(k) ? ps[argnums.list.indexOf(k)]! : a));
    return scalarResult(fn, applyFunction(fn, f, all, env, l, call), o.hasAux === true, l, call, what);
  });
  const { value, adjoint } = vjpOf(lam, joined(xs), atom(dbl(1, span), T_DOUBLE), lets, span);
  const grads: Val = argnums.single ? adjoint : { kind: "tuple", elems: [...parts(adjoint, xs.length)] };
  if (!o.hasAux) return withValue ? { kind: "tuple", elems: [value, grads] } : grads;
  // The aux part: the function's own result, computed again outside the derivative.
  const aux = elementsOf(fn, applyFunction(fn, f, args, env, lets, call), 2, lets, call)![1]!;
  return withValue
    ? { kind: "tuple", elems: [{ kind: "tuple", elems: [value, aux] }, grads] }
    : { kind: "tuple", elems: [grads, aux] };
}

/** The one argument a Jacobian or Hessian is taken with respect to: a number or an array of numbers. */
function wrtOf(fn: Fn, args: readonly Val[], o: TransformOptions, call: Node, what: string): number {
  const argnums = o.argnums ?? { list: [0], single: true };
  if (!argnums.single || argnums.list.length !== 1)
    return fn.fail(call, `${what} inside a plain function takes one argument position (argnums: k)`);
  const k = argnums.list[0]!;
  const t = args[k] && typeOfVal(args[k]);
  if (!t || !(isNumber(t) || (t.k === "array" && isNumber(t.elem))))
    fn.fail(call, `${what} inside a plain function is taken with respect to a number or an array of numbers`, {
      found: t ? showTsType(t) : "no argument",
    });
  return k;
}

/** jacobian(f)(...args): one column per input number by forward mode, rows per output number. */
function jacobian(fn: Fn, f: FnVal, args: readonly Val[], o: TransformOptions, env: Env, lets: Lets, call: Node): Val {
  const span = fn.span(call);
  const k = wrtOf(fn, args, o, call, "jacobian");
  const x = asDifferentiable(fn, args[k]!, lets, call);
  const lam = lambdaOver(fn, [typeOfVal(x)], span, (ps, l) =>
    applyFunction(
      fn,
      f,
      args.map((a, j) => (j === k ? ps[0]! : a)),
      env,
      l,
      call,
    ),
  );
  const rt = lam.result;
  if (!(isNumber(rt) || (rt.k === "array" && isNumber(rt.elem))))
    return fn.fail(
      call,
      `jacobian inside a plain function needs a function returning a number or an array of numbers`,
      {
        found: showTsType(rt),
      },
    );
  if (x.kind === "atom" && x.type.k === "double")
    return jvpOf(fn, lam, x, atom(dbl(1, span), T_DOUBLE), lets, call).tangent;
  // Columns: J e_j for each unit vector e_j; then rows of the output (a scalar output: the gradient row).
  const xa = x as AtomVal;
  const n = app("length", [xa.expr], span);
  const columns = lets.bind(
    buildOf(fn, n, span, (j, inner) => {
      const e = inner.bind(oneHot(fn, n, j, span), xa.type, "e", span);
      const { tangent } = jvpOf(fn, lam, xa, e, inner, call);
      return packAs(tangent, rt.k === "array" ? tArray(T_DOUBLE) : T_DOUBLE, span);
    }),
    tArray(rt.k === "array" ? tArray(T_DOUBLE) : T_DOUBLE),
    "columns",
    span,
  ) as AtomVal;
  if (rt.k !== "array") return columns;
  const y = applyFunction(fn, f, args, env, lets, call) as AtomVal;
  const m = app("length", [y.expr], span);
  return lets.bind(
    buildOf(fn, m, span, (i) =>
      buildOf(fn, app("length", [columns.expr], span), span, (j) => index(index(columns.expr, j, span), i, span)),
    ),
    tArray(tArray(T_DOUBLE)),
    "jacobian",
    span,
  );
}

/** hessian(f)(...args): forward mode over the gradient, one column (= row: the Hessian is symmetric) per number. */
function hessian(fn: Fn, f: FnVal, args: readonly Val[], o: TransformOptions, env: Env, lets: Lets, call: Node): Val {
  const span = fn.span(call);
  const k = wrtOf(fn, args, o, call, "hessian");
  const x = asDifferentiable(fn, args[k]!, lets, call);
  const t = typeOfVal(x);
  const gradientAt = lambdaOver(fn, [t], span, (ps, l) => {
    const lam = lambdaOver(fn, [t], span, (qs, l2) =>
      scalarResult(
        fn,
        applyFunction(
          fn,
          f,
          args.map((a, j) => (j === k ? qs[0]! : a)),
          env,
          l2,
          call,
        ),
        false,
        l2,
        call,
        "hessian",
      ),
    );
    return vjpOf(lam, ps[0]!, atom(dbl(1, span), T_DOUBLE), l, span).adjoint;
  });
  if (t.k === "double") return jvpOf(fn, gradientAt, x, atom(dbl(1, span), T_DOUBLE), lets, call).tangent;
  const xa = x as AtomVal;
  const n = app("length", [xa.expr], span);
  return lets.bind(
    buildOf(fn, n, span, (j, inner) => {
      const e = inner.bind(oneHot(fn, n, j, span), t, "e", span);
      return (jvpOf(fn, gradientAt, xa, e, inner, call).tangent as AtomVal).expr;
    }),
    tArray(t),
    "hessian",
    span,
  );
}

/** vmap(f, { inAxes })(...args): f of each element of the mapped arguments (the others shared), as an array. */
function mapped(fn: Fn, f: FnVal, args: readonly Val[], o: TransformOptions, env: Env, lets: Lets, call: Node): Val {
  const span = fn.span(call);
  const axes = args.map((_, k) => (o.inAxes === undefined ? 0 : o.inAxes.length === 1 ? o.inAxes[0] : o.inAxes[k]));
  const first = args.findIndex((_, k) => axes[k] === 0);
  if (first < 0) return fn.fail(call, "vmap maps at least one argument");
  args.forEach((a, k) => {
    if (axes[k] === 0 && !(a.kind === "atom" && a.type.k === "array"))
      fn.fail(
        call,
        `vmap inside a plain function maps arrays, but argument ${k} is ${showTsType(typeOfVal(a))}`,
        {},
        "type",
      );
  });
  let result: TsType | undefined;
  const n = app("length", [(args[first] as AtomVal).expr], span);
  const built = buildOf(fn, n, span, (i, inner) => {
    const elems = args.map((a, k) => {
      if (axes[k] !== 0) return a;
      const x = a as AtomVal;
      return inner.bind(index(x.expr, i, span), (x.type as { elem: TsType }).elem, "x", span);
    });
    const r = applyFunction(fn, f, elems, env, inner, call);
    result = typeOfVal(r);
    return packAs(r, result, span);
  });
  return lets.bind(built, tArray(result!), "ys", span);
}

/** A call of a function with custom rules: the language's customJvp or customVjp of lambdas calling them. */
function custom(
  fn: Fn,
  op: "customJvp" | "customVjp",
  fns: readonly FnVal[],
  args: readonly Val[],
  env: Env,
  lets: Lets,
  call: Node,
): Val {
  const span = fn.span(call);
  const xs = args.map((x) => asDifferentiable(fn, x, lets, call));
  const types = xs.map(typeOfVal);
  const n = xs.length;
  if (n === 0) return fn.fail(call, `a function with custom rules (${op}) needs at least one argument`);
  const a: TsType = n === 1 ? types[0]! : { k: "tuple", elems: types };
  const f = lambdaOver(fn, types, span, (ps, l) => applyFunction(fn, fns[0]!, ps, env, l, call));
  const b = f.result;
  const pair = (r: Val, what: string, l: Lets): [Val, Val] => {
    const two = elementsOf(fn, r, 2, l, call);
    if (two) return [two[0]!, two[1]!];
    return fn.fail(call, `${what} must return a pair [value, ${op === "customJvp" ? "tangent" : "residuals"}]`, {
      found: showTsType(typeOfVal(r)),
    });
  };
  const list = (vals: readonly Val[]): Val => ({ kind: "tuple", elems: vals });
  let rules: Expr[];
  if (op === "customJvp") {
    // rule(primals, tangents) => [value, tangent], primals and tangents one entry per argument.
    const rule = lambdaOver(fn, [a, a], span, (ps, l) => {
      const r = applyFunction(fn, fns[1]!, [list(parts(ps[0]!, n)), list(parts(ps[1]!, n))], env, l, call);
      const [v, t] = pair(r, "the rule of customJvp", l);
      return { kind: "tuple", elems: [conform(fn, v, b, l, call), conform(fn, t, b, l, call)] };
    });
    rules = [curried(rule.expr, fn, span)];
  } else {
    let residual: TsType | undefined;
    const fwd = lambdaOver(fn, types, span, (ps, l) => {
      const [v, r] = pair(applyFunction(fn, fns[1]!, ps, env, l, call), "the forward rule of customVjp", l);
      residual = typeOfVal(r);
      return { kind: "tuple", elems: [conform(fn, v, b, l, call), r] };
    });
    const bwd = lambdaOver(fn, [residual!, b], span, (ps, l) => {
      const out = applyFunction(fn, fns[2]!, [ps[0]!, ps[1]!], env, l, call);
      // One argument: its adjoint, also when given as a one-element list (JAX's convention).
      if (n === 1 && !sameShape(typeOfVal(out), a)) {
        const one = elementsOf(fn, out, 1, l, call);
        if (one) return conform(fn, one[0]!, a, l, call);
      }
      if (n === 1) return conform(fn, out, a, l, call);
      const adjoints = elementsOf(fn, out, n, l, call);
      if (!adjoints)
        return fn.fail(call, `the backward rule of customVjp returns one adjoint per argument (${n})`, {
          found: showTsType(typeOfVal(out)),
        });
      return list(adjoints.map((x, k) => conform(fn, x, types[k]!, l, call)));
    });
    rules = [fwd.expr, curried(bwd.expr, fn, span)];
  }
  const x = joined(xs);
  return lets.bind(app(op, [f.expr, ...rules, packValue(x, span)], span), b, "c", span);
}

/** The value at type t (an Index where a Double is needed converted), or an error naming both. */
function conform(fn: Fn, x: Val, t: TsType, lets: Lets, call: Node): Val {
  const span = fn.span(call);
  const found = typeOfVal(x);
  if (!sameShape(found, t))
    return fn.fail(call, `a rule gives ${showTsType(found)} where ${showTsType(t)} is needed`, {}, "type");
  return lets.bind(packAs(x, t, span), t, "r", span);
}

function sameShape(a: TsType, b: TsType): boolean {
  if (isNumber(a) && isNumber(b)) return true;
  if (a.k !== b.k) return false;
  if (a.k === "array") return sameShape(a.elem, (b as typeof a).elem);
  if (a.k === "record" || a.k === "tuple") {
    const pa = a.k === "record" ? a.fields : a.elems;
    const pb =
      (b as typeof a).k === "record"
        ? (b as { fields: readonly TsType[] }).fields
        : (b as { elems: readonly TsType[] }).elems;
    return pa.length === pb.length && pa.every((p, i) => sameShape(p, pb[i]!));
  }
  return true;
}

/** `fun p -> body` over a pair p as the language's two-parameter rule `fun x dx -> body`. */
function curried(lambda: Expr, fn: Fn, span: ReturnType<Fn["span"]>): Expr {
  const [x, dx] = [fn.names.fresh("x"), fn.names.fresh("dx")];
  const v = (name: string): Expr => ({ kind: "var", name, span });
  return {
    kind: "lam",
    params: [
      { name: x, span },
      { name: dx, span },
    ],
    body: app(lambda, [{ kind: "tuple", elems: [v(x), v(dx)], span }], span),
    span,
  };
}

const packValue = (x: Val, span: ReturnType<Fn["span"]>): Expr => packAs(x, typeOfVal(x), span);
