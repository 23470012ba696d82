// linearize (JAX's): `[f(...primals), fJvp]`, where fJvp(...tangents) is the Jacobian-vector product at the primal
// point, evaluated without running the primal again: the jvp program is split once per function, argument types and
// back end into a primal part, run here and keeping its residuals, and a linear part that fJvp runs on them
// (src/ad/linear-split.ts). fJvp is a library function every transform accepts (vmap(fJvp), jacobian(fJvp),
// grad of a function calling it): its target takes the tangents of the arguments with one, and supplies the primal
// arguments and the residuals itself (hidden parameters, ./target.ts).

import { registerTransform } from "../tsfront/transforms.js";
import { linearSplit, type LinearSplit } from "../ad/linear-split.js";
import { tangentType } from "../ad/seed.js";
import type { Engine, Specialised } from "../api/program.js";
import type { IrFunction } from "../ir/ir.js";
import { copyFunction } from "../ir/rename.js";
import { runPipeline } from "../opt/pass.js";
import { DERIVATIVE_PIPELINE } from "../opt/pipeline.js";
import type { Value } from "../runtime/value.js";
import { fail } from "../syntax/diagnostics.js";
import type { MType } from "../types/mtype.js";
import { typeEq } from "../types/types.js";
import { CapturedValue } from "./captured.js";
import { decode } from "./convert.js";
import { jvpProgram, tangentPositions } from "./jvp-program.js";
import { buffersOf, compileDerivative, ProgramCache, readTangents, requireTangentResult, specsOf } from "./jvp.js";
import { keyOf, showTree, type Tree, type Where } from "./pytree.js";
import { decodeTangent } from "./tangents.js";
import { isStagedCall, stagedCall } from "./staged-call.js";
import { engineOf, register, targetOf, withHidden, type Hidden, type Instance, type Target } from "./target.js";
import type { AnyFunction, Inputs, LinearMap, Output } from "./types.js";

/** The split jvp program of an instance, and its two parts compiled. */
interface Split {
  readonly parts: LinearSplit;
  readonly primal: Specialised;
  readonly tangent: Specialised;
}

const SPLITS = new ProgramCache<Split>("linearize");

function splitOf(inst: Instance, engine: Engine): Split {
  return SPLITS.get(inst, engine, () => {
    const n = inst.argTypes.length;
    const jvp = runPipeline(jvpProgram(inst.lower(engine), n), DERIVATIVE_PIPELINE);
    const parts = linearSplit(jvp, tangentPositions(inst.argTypes));
    return {
      parts,
      primal: compileDerivative(parts.primal, engine),
      tangent: compileDerivative(parts.tangent, engine),
    };
  });
}

/**
 * The linear map's target: its arguments are the tangents of f's arguments with one (of the primals' structures and
 * shapes); the primal arguments and the residuals are its hidden parameters.
 */
class LinearTarget implements Target {
  readonly label: string;
  private readonly inst: Instance;

  constructor(
    private readonly inner: Target,
    innerInst: Instance,
    private readonly trees: readonly Tree[],
    private readonly positions: readonly number[],
    tangent: IrFunction,
    hidden: readonly Hidden[],
  ) {
    this.label = `the linear map of linearize(${inner.label})`;
    // The tangent of the result leaves out its parts without one; it has the result's form where it has them all.
    const resultType = tangentType(innerInst.resultType)!;
    const form = typeEq(resultType, innerInst.resultType) ? innerInst.resultForm(trees) : undefined;
    this.inst = {
      argTypes: positions.map((k) => innerInst.argTypes[k]!),
      hidden,
      resultType,
      paramNames: positions.map((k) => innerInst.paramNames[k]),
      derivative: true,
      lower: () => copyFunction(tangent),
      resultForm: () => form,
    };
  }

  get span() {
    return this.inner.span;
  }

  hint(k: number): MType | undefined {
    return this.inner.hint(this.positions[k]!);
  }

  where(k: number): Where {
    const w = this.inner.where(this.positions[k]!);
    return { ...w, what: `the tangent of ${w.what}` };
  }

  argument(k: number): string {
    return this.where(k).what;
  }

  checkArity(n: number): void {
    if (n !== this.positions.length)
      fail(
        "argument",
        `${this.label} takes ${this.positions.length} tangent${this.positions.length === 1 ? "" : "s"} (one per argument with a Double in it), but ${n} ${n === 1 ? "was" : "were"} given`,
        this.span,
      );
  }

  key(trees: readonly Tree[]): string {
    const expected = this.positions.map((k) => this.trees[k]!);
    trees.forEach((t, i) => {
      if (keyOf([t], true) !== keyOf([expected[i]!], true))
        fail("argument", `${this.where(i).what} must have the shape of the argument`, this.span, {
          expected: showTree(expected[i]!),
          found: showTree(t),
        });
    });
    return keyOf(trees, true);
  }

  instance(trees: readonly Tree[]): Instance {
    this.key(trees);
    return this.inst;
  }
}

/** A runtime value the library holds, as a hidden parameter (passed as data into a trace that calls the map). */
const held = (value: Value, type: Hidden["type"]): Hidden => ({
  type,
  value: () => value,
  staged: new CapturedValue(value, type),
});

/**
 * `[f(...primals), fJvp]`: the value, and the linear map `fJvp(...tangents)` = J·tangents at the primals (tangents
 * as jvp takes them: one per argument, null for one without a tangent). The primal runs once, here; fJvp runs only
 * the tangent computation, on the primal values it keeps (its residuals). The program is split and compiled once per
 * function, argument types and back end (f's: `linearize(compile(f, { backend: "wasm" }), x)` runs on wasm). fJvp is
 * itself a function transforms accept: `vmap(fJvp)` maps it over a batch of tangents, `jacobian(fJvp)` is J.
 *
 * @example
 * const [y, fJvp] = linearize(m.f, x);
 * const dy = fJvp(dx);
 */
export function linearize<F extends AnyFunction>(
  f: F,
  ...primals: Inputs<Parameters<F>>
): [Output<ReturnType<F>>, LinearMap<F>] {
  const target = targetOf(f, "linearize");
  const engine = engineOf(f);
  const what = `linearize(${target.label})`;
  const specs = specsOf(target);
  const { inst, trees, values, inputs } = specs.lookup(primals);
  requireTangentResult(target, inst, what);
  const positions = tangentPositions(inst.argTypes);
  if (positions.length === 0)
    fail("argument", `${what}: no argument of ${target.label} contains a Double`, target.span);
  const split = splitOf(inst, engine);
  const primalArgs = withHidden(inst, values);
  const out = split.primal.run(primalArgs) as { elems: readonly Value[] };
  const residualParams = split.parts.tangent.params.slice(positions.length + primalArgs.length);
  const residuals = out.elems.slice(1);
  const hidden = [
    ...primalArgs.map((v, k) => held(v, split.parts.primal.params[k]!.type)),
    ...residuals.map((v, k) => held(v, residualParams[k]!.type)),
  ];
  const form = inst.resultForm(trees);
  const linear = new LinearTarget(target, inst, trees, positions, split.parts.tangent, hidden);
  const fJvp = (...tangents: unknown[]): unknown => {
    if (tangents.length !== inst.argTypes.length)
      fail(
        "argument",
        `${linear.label} takes one tangent per argument of ${target.label} (${inst.argTypes.length}), but ${tangents.length} ${tangents.length === 1 ? "was" : "were"} given`,
        target.span,
        { hint: "give null for an argument without a tangent (an Index, a Bool)" },
      );
    // Called with tensors inside a traced function: part of that trace, as any library function.
    if (isStagedCall(tangents))
      return stagedCall(
        linear,
        linear.label,
        positions.map((k) => tangents[k]),
      );
    const dxs = readTangents(target, inst, trees, values, tangents);
    const t = split.tangent.run([...dxs, ...primalArgs, ...residuals]);
    return decodeTangent(t, inst.resultType, form, buffersOf(tangents));
  };
  register(
    fJvp,
    {
      target: linear,
      description: linear.label,
      engine,
      compilations: () => specs.count,
      program: () => split.tangent,
    },
    "fJvp",
  );
  return [decode(out.elems[0]!, inst.resultType, form, inputs) as Output<ReturnType<F>>, fJvp as LinearMap<F>];
}

registerTransform(linearize, "linearize");
