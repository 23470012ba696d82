// jvp (forward mode with given tangents) and vjp (reverse mode with a reusable pullback). Both keep one compiled
// program per function and argument types, across calls.

import { derivativeFunction } from "../api/derivatives.js";
import { prepare, type Specialised } from "../api/program.js";
import { hasTangent } from "../ad/dual-types.js";
import { tangentType } from "../ad/seed.js";
import type { IrFunction } from "../ir/ir.js";
import { DERIVATIVE_PIPELINE } from "../opt/pipeline.js";
import { shapeOf, shapesEqual, showShape } from "../runtime/stack.js";
import type { Value } from "../runtime/value.js";
import { fail } from "../syntax/diagnostics.js";
import { fromConcrete } from "../types/mtype.js";
import { showType, typeEq, type Type } from "../types/types.js";
import type { AnyFunction } from "./compile.js";
import { decode, encode } from "./convert.js";
import { jvpProgram, tangentPositions } from "./jvp-program.js";
import { describe, showTree, treeKey, treeType, type Tree } from "./pytree.js";
import { compiledProgram, register, Specialisations, targetOf, type Instance, type Target } from "./target.js";

/** Optimises and compiles a derivative IR function. */
const compileDerivative = (fn: IrFunction, argTypes: readonly Type[]): Specialised =>
  prepare(fn, argTypes, "js", DERIVATIVE_PIPELINE);

function requireTangentResult(target: Target, inst: Instance, what: string): void {
  if (!hasTangent(inst.resultType))
    fail(
      "argument",
      `${what}: the result of ${target.label} has no Double in it, so it has no derivative`,
      target.span,
      {
        found: showType(inst.resultType),
      },
    );
}

// One compiled program per instance and transform, kept for the instance's lifetime.
const JVPS = new WeakMap<Instance, Specialised>();
const VJPS = new WeakMap<Instance, { vjp: Specialised; wrt: number[] }>();

function cached<E>(table: WeakMap<Instance, E>, inst: Instance, make: () => E): E {
  let e = table.get(inst);
  if (!e) table.set(inst, (e = make()));
  return e;
}

/** Specialisations of a target for jvp and vjp, one per function (so their instances are cached too). */
const SPECS = new WeakMap<Target, Specialisations>();
const specsOf = (target: Target): Specialisations => {
  let s = SPECS.get(target);
  if (!s) SPECS.set(target, (s = new Specialisations(target)));
  return s;
};

/** Reads a tangent (shaped like its primal, `like` a Tree) or a cotangent (shaped like the value, `like` a Value). */
function readLike(
  value: unknown,
  type: Type,
  like: { tree: Tree } | { value: Value },
  what: string,
  target: Target,
): Value {
  const tree = describe(value, fromConcrete(type), { what, span: target.span });
  const mismatch = (expected: string, found: string): never =>
    fail("argument", `${what} must have the shape of ${"tree" in like ? "the argument" : "the value"}`, target.span, {
      expected,
      found,
    });
  if (!typeEq(type, treeType(tree))) mismatch(showType(type), showTree(tree));
  if ("tree" in like && treeKey(like.tree, true) !== treeKey(tree, true)) mismatch(showTree(like.tree), showTree(tree));
  const v = encode(value, tree, () => ({ what, span: target.span }));
  if ("value" in like && !shapesEqual(shapeOf(v), shapeOf(like.value)))
    mismatch(showShape(shapeOf(like.value)), showShape(shapeOf(v)));
  return v;
}

/**
 * Forward mode: `[f(...primals), J·tangents]`, the value and the directional derivative along `tangents` (one per
 * primal, each of its primal's shape; ignored for Index and Bool arguments). The program is compiled once per
 * function and argument types.
 *
 * @example
 * const [y, dy] = jvp(m.f, [x], [dx]);
 */
export function jvp(f: AnyFunction, primals: readonly unknown[], tangents: readonly unknown[]): [unknown, unknown] {
  const target = targetOf(f, "jvp");
  const what = `jvp(${target.label})`;
  if (!Array.isArray(primals) || !Array.isArray(tangents) || primals.length !== tangents.length)
    fail("argument", `${what}: primals and tangents must be two arrays of the same length (one entry per argument)`);
  const { inst, trees, values } = specsOf(target).lookup(primals);
  const entry = cached(JVPS, inst, () => {
    requireTangentResult(target, inst, what);
    return compileDerivative(jvpProgram(inst.lower("js")), inst.argTypes);
  });
  const dxs = tangentPositions(inst.argTypes).map((k) =>
    readLike(tangents[k], inst.argTypes[k]!, { tree: trees[k]! }, `the tangent of ${target.where(k).what}`, target),
  );
  const out = entry.run([...values, ...dxs]) as { elems: readonly Value[] };
  const tType = tangentType(inst.resultType)!;
  const form = inst.resultForm(trees);
  const tForm = typeEq(tType, inst.resultType) ? form : undefined;
  return [decode(out.elems[0]!, inst.resultType, form), decode(out.elems[1]!, tType, tForm)];
}

/**
 * Reverse mode: `[f(...primals), pullback]`. `pullback(ct)` takes a cotangent of the value's shape and returns one
 * entry per primal: its adjoint (in the primal's form), or null for an Index or Bool argument. The pullback can be
 * called many times; its program is compiled once per function and argument types.
 *
 * @example
 * const [y, pullback] = vjp(m.f, x);
 * const [dx] = pullback(new Float64Array([1, 0, 0]));
 */
export function vjp(f: AnyFunction, ...primals: unknown[]): [unknown, AnyFunction] {
  const target = targetOf(f, "vjp");
  const what = `vjp(${target.label})`;
  const specs = specsOf(target);
  const { inst, trees, values, inputs } = specs.lookup(primals);
  const entry = cached(VJPS, inst, () => {
    requireTangentResult(target, inst, what);
    const wrt = tangentPositions(inst.argTypes);
    if (wrt.length === 0) fail("argument", `${what}: no argument of ${target.label} contains a Double`, target.span);
    const fn = derivativeFunction(inst.lower("js"), "vjp", wrt, true, inst.paramNames);
    return { vjp: compileDerivative(fn, [...inst.argTypes, inst.resultType]), wrt };
  });
  const y = compiledProgram(inst).run(values);
  const pullback = (ct: unknown): unknown[] => {
    const c = readLike(
      ct,
      inst.resultType,
      { value: y },
      `the cotangent given to the pullback of ${target.label}`,
      target,
    );
    const out = entry.vjp.run([...values, c]) as { elems: readonly Value[] };
    return inst.argTypes.map((t: Type, k: number) => {
      const at = entry.wrt.indexOf(k);
      return at < 0 ? null : decode(out.elems[at + 1]!, t, trees[k]);
    });
  };
  register(
    pullback,
    { description: `the pullback of ${what}`, compilations: () => specs.count, program: () => entry.vjp },
    "pullback",
  );
  return [decode(y, inst.resultType, inst.resultForm(trees), inputs), pullback];
}
