// jvp (forward mode with given tangents) and vjp (reverse mode with a reusable pullback), as JAX's: jvp(f, primals,
// tangents) is [f(...primals), J·tangents]; vjp(f, ...primals) is [f(...primals), pullback] with pullback(ct) the
// adjoints Jᵀ·ct, one per primal. Tangents and cotangents have the structure of their values, null where a value has
// none (./tangents.ts). Both keep one compiled program per function, argument types and back end (the function's:
// `vjp(compile(f, { backend: "wasm" }), x)` runs on wasm), across calls.

import { registerTransform } from "../tsfront/transforms.js";
import { derivativeFunction } from "../api/derivatives.js";
import { optimisesFirst } from "../backends/registry.js";
import { prepare, type Engine, type Specialised } from "../api/program.js";
import { hasTangent } from "../ad/dual-types.js";
import type { IrFunction } from "../ir/ir.js";
import { DERIVATIVE_PIPELINE } from "../opt/pipeline.js";
import type { Value } from "../runtime/value.js";
import { fail } from "../syntax/diagnostics.js";
import { showType } from "../types/types.js";
import { NDArray } from "./ndarray.js";
import { jvpProgram, tangentPositions } from "./jvp-program.js";
import type { Tree } from "./pytree.js";
import { decodeAdjoint, decodeTangent, readTangent } from "./tangents.js";
import { decode } from "./convert.js";
import {
  compiledProgram,
  engineOf,
  register,
  sharedProgram,
  Specialisations,
  targetOf,
  withHidden,
  type Instance,
  type Target,
} from "./target.js";
import type { AnyFunction, Inputs, Output, Pullback, TangentOf, Tangents } from "./types.js";

/** Optimises and compiles a derivative IR function for `engine`. */
export const compileDerivative = (fn: IrFunction, engine: Engine): Specialised =>
  prepare(
    fn,
    fn.params.map((p) => p.type),
    engine,
    DERIVATIVE_PIPELINE,
  );

export function requireTangentResult(target: Target, inst: Instance, what: string): void {
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

/**
 * One program per instance, transform and back end, kept for the instance's lifetime (and shared with instances of
 * the same program key, see `sharedProgram`).
 */
export class ProgramCache<E> {
  private readonly table = new WeakMap<Instance, Map<string, E>>();

  /** `kind` names the transform (the shared programs' keys tell them apart by it). */
  constructor(private readonly kind: string) {}

  get(inst: Instance, engine: Engine, make: () => E): E {
    let byEngine = this.table.get(inst);
    if (!byEngine) this.table.set(inst, (byEngine = new Map<string, E>()));
    let e = byEngine.get(engine);
    if (!e) byEngine.set(engine, (e = sharedProgram(inst, `${this.kind}/${engine}`, make)));
    return e;
  }
}

const JVPS = new ProgramCache<Specialised>("jvp");
const VJPS = new ProgramCache<{ vjp: Specialised; wrt: number[] }>("vjp");

/** Specialisations of a target for jvp, vjp and linearize, one per function (so their instances are cached too). */
const SPECS = new WeakMap<Target, Specialisations>();
export const specsOf = (target: Target): Specialisations => {
  let s = SPECS.get(target);
  if (!s) SPECS.set(target, (s = new Specialisations(target)));
  return s;
};

/** The buffers of the typed arrays and NDArrays among `xs` (a result sharing one is copied: see decode). */
export const buffersOf = (xs: readonly unknown[]): ArrayBufferLike[] =>
  xs.flatMap((x) =>
    x instanceof Float64Array || x instanceof Int32Array ? [x.buffer] : x instanceof NDArray ? [x.data.buffer] : [],
  );

/**
 * The tangents of a call's arguments as runtime values, for the arguments that take one (the others' must be null).
 */
export function readTangents(
  target: Target,
  inst: Instance,
  trees: readonly Tree[],
  values: readonly Value[],
  tangents: readonly unknown[],
): Value[] {
  return inst.argTypes.flatMap((t, k) => {
    const site = { what: `the tangent of ${target.where(k).what}`, of: "the argument", span: target.span };
    const v = readTangent(tangents[k], t, values[k]!, trees[k], site);
    return hasTangent(t) ? [v] : [];
  });
}

/**
 * Forward mode: `[f(...primals), J·tangents]`, the value and the directional derivative along `tangents` (one per
 * primal, each in its primal's structure and shapes; null for an argument, or a part of one, without a tangent: an
 * Index, a Bool). The tangent of the result has the result's structure, null where it has no tangent. The program is
 * compiled once per function and argument types.
 *
 * @example
 * const [y, dy] = jvp(m.f, [x], [dx]);
 */
export function jvp<F extends AnyFunction>(
  f: F,
  primals: Readonly<Inputs<Parameters<F>>>,
  tangents: Readonly<Tangents<Parameters<F>>>,
): [Output<ReturnType<F>>, TangentOf<ReturnType<F>>] {
  const target = targetOf(f, "jvp");
  const engine = engineOf(f);
  const what = `jvp(${target.label})`;
  if (!Array.isArray(primals) || !Array.isArray(tangents) || primals.length !== tangents.length)
    fail("argument", `${what}: primals and tangents must be two arrays of the same length (one entry per argument)`);
  const { inst, trees, values, inputs } = specsOf(target).lookup(primals);
  const program = JVPS.get(inst, engine, () => {
    requireTangentResult(target, inst, what);
    return compileDerivative(jvpProgram(inst.lower(engine), inst.argTypes.length), engine);
  });
  const dxs = readTangents(target, inst, trees, values, tangents);
  const out = program.run([...withHidden(inst, values), ...dxs]) as { elems: readonly Value[] };
  const form = inst.resultForm(trees);
  const shared = [...inputs, ...buffersOf(tangents)];
  return [
    decode(out.elems[0]!, inst.resultType, form, inputs) as Output<ReturnType<F>>,
    decodeTangent(out.elems[1]!, inst.resultType, form, shared) as TangentOf<ReturnType<F>>,
  ];
}

/**
 * Reverse mode: `[f(...primals), pullback]`. `pullback(ct)` takes a cotangent of the value's structure and shapes
 * (null where the value has no tangent) and returns one entry per primal: its adjoint, in the primal's form (null for
 * an argument, or a part of one, without a tangent: an Index, a Bool). The pullback can be called many times; its
 * program is compiled once per function and argument types.
 *
 * @example
 * const [y, pullback] = vjp(m.f, x);
 * const [dx] = pullback(new Float64Array([1, 0, 0]));
 */
export function vjp<F extends AnyFunction>(
  f: F,
  ...primals: Inputs<Parameters<F>>
): [Output<ReturnType<F>>, Pullback<F>] {
  const target = targetOf(f, "vjp");
  const engine = engineOf(f);
  const what = `vjp(${target.label})`;
  const specs = specsOf(target);
  const { inst, trees, values, inputs } = specs.lookup(primals);
  const entry = VJPS.get(inst, engine, () => {
    requireTangentResult(target, inst, what);
    const wrt = tangentPositions(inst.argTypes);
    if (wrt.length === 0) fail("argument", `${what}: no argument of ${target.label} contains a Double`, target.span);
    const fn = derivativeFunction(inst.lower(engine), "vjp", wrt, optimisesFirst(engine), inst.paramNames);
    return { vjp: compileDerivative(fn, engine), wrt };
  });
  const all = withHidden(inst, values);
  const y = compiledProgram(inst, engine).run(all);
  const form = inst.resultForm(trees);
  const site = { what: `the cotangent given to the pullback of ${target.label}`, of: "the value", span: target.span };
  const pullback = (ct: unknown): unknown[] => {
    const c = readTangent(ct, inst.resultType, y, form, site);
    const out = entry.vjp.run([...all, c]) as { elems: readonly Value[] };
    return inst.argTypes.map((t, k) => {
      const at = entry.wrt.indexOf(k);
      return at < 0 ? null : decodeAdjoint(out.elems[at + 1]!, t, trees[k]);
    });
  };
  register(
    pullback,
    { description: `the pullback of ${what}`, compilations: () => specs.count, program: () => entry.vjp },
    "pullback",
  );
  return [decode(y, inst.resultType, form, inputs) as Output<ReturnType<F>>, pullback as Pullback<F>];
}

registerTransform(jvp, "jvp");
registerTransform(vjp, "vjp");
