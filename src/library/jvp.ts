// jvp (forward mode with given tangents) and vjp (reverse mode with a reusable pullback). Both keep one compiled
// program per function and argument types, across calls.

import { prepare, type Specialised } from "../api/program.js";
import { hasTangent } from "../ad/dual-types.js";
import { tangentType } from "../ad/seed.js";
import { lowerEntry } from "../ir/lower.js";
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
import { encodeArgs, register, Specialisations, targetOf, type Instance, type Target } from "./target.js";

/** Optimises and compiles an IR function as `SmoothProgram.derivative` does for the js engine. */
function compileIr(lowered: ReturnType<typeof lowerEntry>, argTypes: readonly Type[]): Specialised {
  return prepare(lowered, argTypes, "js", DERIVATIVE_PIPELINE);
}

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

// One cache per function and transform, kept for the function's lifetime.
const JVPS = new WeakMap<Target, Specialisations<Specialised>>();
const VJPS = new WeakMap<Target, Specialisations<{ primal: Specialised; vjp: Specialised; wrt: number[] }>>();

function cached<E>(
  table: WeakMap<Target, Specialisations<E>>,
  target: Target,
  make: (inst: Instance) => E,
): Specialisations<E> {
  let specs = table.get(target);
  if (!specs) table.set(target, (specs = new Specialisations(target, make)));
  return specs;
}

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
  const specs = cached(JVPS, target, (inst) => {
    requireTangentResult(target, inst, what);
    return compileIr(jvpProgram(lowerEntry(inst.program.checked, inst.name, inst.argTypes)), inst.argTypes);
  });
  const { entry, inst, trees } = specs.lookup(primals);
  const { values } = encodeArgs(target, primals, trees);
  const dxs = tangentPositions(inst.argTypes).map((k) =>
    readLike(tangents[k], inst.argTypes[k]!, { tree: trees[k]! }, `the tangent of ${target.where(k).what}`, target),
  );
  const out = entry.run([...values, ...dxs]) as { elems: readonly Value[] };
  const tType = tangentType(inst.resultType)!;
  const tTree = typeEq(tType, inst.resultType) ? inst.resultTree : undefined;
  return [decode(out.elems[0]!, inst.resultType, inst.resultTree), decode(out.elems[1]!, tType, tTree)];
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
  const specs = cached(VJPS, target, (inst) => {
    requireTangentResult(target, inst, what);
    const wrt = tangentPositions(inst.argTypes);
    if (wrt.length === 0) fail("argument", `${what}: no argument of ${target.label} contains a Double`, target.span);
    return {
      primal: inst.program.specialise(inst.name, inst.argTypes, "js"),
      vjp: inst.program.derivative(inst.name, inst.argTypes, wrt, "js", undefined, "vjp"),
      wrt,
    };
  });
  const { entry, inst, trees } = specs.lookup(primals);
  const { values, inputs } = encodeArgs(target, primals, trees);
  const y = entry.primal.run(values);
  const pullback = (ct: unknown): unknown[] => {
    const c = readLike(
      ct,
      inst.resultType,
      { value: y },
      `the cotangent given to the pullback of ${target.label}`,
      target,
    );
    const out = entry.vjp.run([...values, c]) as { elems: readonly Value[] };
    return inst.argTypes.map((t, k) => {
      const at = entry.wrt.indexOf(k);
      return at < 0 ? null : decode(out.elems[at + 1]!, t, trees[k]);
    });
  };
  register(
    pullback,
    { description: `the pullback of ${what}`, compilations: () => specs.count, program: () => entry.vjp },
    "pullback",
  );
  return [decode(y, inst.resultType, inst.resultTree, inputs), pullback];
}
