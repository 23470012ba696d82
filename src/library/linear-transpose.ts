// linearTranspose(f, ...primals) (JAX's linear_transpose): for f linear in its arguments that hold Doubles, the
// function ct ↦ fᵀ(ct), through reverse mode's transposition of the linear primitives. A linear map's transpose is its
// vector-Jacobian product at any point, so the program is the vjp of f (at the primals, which only fix the
// arguments' types and shapes, and give the values of Index and Bool arguments). f is checked to be linear first
// (src/ad/linearity.ts): a function that is not is an error naming it and the reason.

import { derivativeFunction } from "../api/derivatives.js";
import { mapResult } from "../api/derivative-blocks.js";
import { prepare } from "../api/program.js";
import { hasTangent } from "../ad/dual-types.js";
import { checkLinear, NotLinear } from "../ad/linearity.js";
import { runPipeline } from "../opt/pass.js";
import { DERIVATIVE_PIPELINE, REVERSE_PRIMAL_PIPELINE } from "../opt/pipeline.js";
import { shapeOf, shapesEqual, showShape } from "../runtime/stack.js";
import type { Value } from "../runtime/value.js";
import { fail } from "../syntax/diagnostics.js";
import { fromConcrete } from "../types/mtype.js";
import { showType, typeEq, type Type } from "../types/types.js";
import { DEFAULT_LIBRARY_BACKEND } from "./backend-option.js";
import { decode, encode } from "./convert.js";
import { describe, showTree, treeType } from "./pytree.js";
import { compiledProgram, paramTypes, register, Specialisations, targetOf, withHidden } from "./target.js";
import type { AnyFunction } from "./types.js";

/**
 * The transpose of the linear function `f` at arguments like `primals`: `fT(ct)` takes a cotangent of f's result's
 * shape and returns one entry per argument, the transposed map's value for it (in the argument's form), or null for
 * an Index or Bool argument. f must be linear in every argument holding Doubles (`(x) => matVec(A, x)` with A fixed,
 * not `(A, x) => matVec(A, x)`); otherwise an error says why it is not.
 *
 * @example
 * const fT = linearTranspose(m.blur, x);
 * const [y] = fT(ct); // <blur(x), ct> = <x, y>
 */
export function linearTranspose(f: AnyFunction, ...primals: unknown[]): AnyFunction {
  const target = targetOf(f, "linearTranspose");
  const what = `linearTranspose(${target.label})`;
  const { inst, trees, values } = new Specialisations(target).lookup(primals);
  const wrt = inst.argTypes.flatMap((t, k) => (hasTangent(t) ? [k] : []));
  if (wrt.length === 0) fail("argument", `${what}: no argument of ${target.label} contains a Double`, target.span);
  if (!hasTangent(inst.resultType))
    fail("argument", `${what}: the result of ${target.label} has no Double in it`, target.span, {
      found: showType(inst.resultType),
    });
  const engine = DEFAULT_LIBRARY_BACKEND;
  const firstOrder = runPipeline(inst.lower(engine), REVERSE_PRIMAL_PIPELINE);
  try {
    checkLinear(firstOrder, wrt);
  } catch (e) {
    if (!(e instanceof NotLinear)) throw e;
    fail("argument", `${what}: ${target.label} is not linear in its arguments: it ${e.message}`, target.span, {
      hint: "linearTranspose is for linear functions; for the transpose of a derivative use vjp",
    });
  }
  // The vjp without the value, which the optimiser then does not compute.
  const vjp = derivativeFunction(firstOrder, "vjp", wrt, true, inst.paramNames);
  const adjoints = mapResult(vjp, `${firstOrder.name}_T`, (b, r) =>
    wrt.length === 1
      ? b.proj(1, r, "ct")
      : b.tuple(
          wrt.map((_, i) => b.proj(i + 1, r, "ct")),
          "cts",
        ),
  );
  const program = prepare(adjoints, [...paramTypes(inst), inst.resultType], engine, DERIVATIVE_PIPELINE);
  // The instance's own parameters after the arguments (data a traced function closes over) are constants of f.
  const y = compiledProgram(inst, engine).run(withHidden(inst, values));
  const transpose = (ct: unknown): unknown[] => {
    const c = cotangent(ct, inst.resultType, y, `the cotangent given to ${what}`, target.span);
    const out = program.run([...withHidden(inst, values), c]);
    return inst.argTypes.map((t: Type, k: number) => {
      const at = wrt.indexOf(k);
      if (at < 0) return null;
      const part = wrt.length === 1 ? out : (out as { elems: readonly Value[] }).elems[at]!;
      return decode(part, t, trees[k]);
    });
  };
  return register(transpose, { description: what, compilations: () => 1, program: () => program }, "linearTranspose");
}

/** A cotangent of f's result: its type and shape. */
function cotangent(value: unknown, type: Type, like: Value, what: string, span: Parameters<typeof fail>[2]): Value {
  const tree = describe(value, fromConcrete(type), { what, span });
  const v = typeEq(type, treeType(tree)) ? encode(value, tree, () => ({ what, span })) : undefined;
  if (v === undefined || !shapesEqual(shapeOf(v), shapeOf(like)))
    fail("argument", `${what} must have the shape of the function's result`, span, {
      expected: showShape(shapeOf(like)),
      found: v === undefined ? showTree(tree) : showShape(shapeOf(v)),
    });
  return v;
}
