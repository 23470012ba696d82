// The derivative programs of compressed evaluation: one pass per colour of a colouring (./colouring.ts), all in one
// IR function as a build over the colours (paper 000 §3's vectorised forward mode, with the seed of colour k being
// the sum of the one-hot seeds of the columns of colour k; the primal work the passes share is loop-invariant, so
// the optimiser hoists it). Each takes the colours as arguments, so one compiled program serves every colouring of
// arguments of its types:
//  - forward (Jacobian columns): params ++ [colours of each differentiated parameter (its shape, of Indexes)] ++
//    [count]; returns, per colour k, the tangent of the result when the seed is 1 on the positions of colour k;
//  - rows (reverse mode, Jacobian rows): params ++ [colours of the result's positions] ++ [count]; per colour k, the
//    adjoints of the differentiated parameters for the cotangent that is 1 on the result positions of colour k;
//  - Hessian: reverse over forward, per colour k the gradient of the derivative along the seed of colour k.

import { constDual } from "../ad/forward.js";
import { dualType } from "../ad/dual-types.js";
import { reverseSweep } from "../ad/reverse.js";
import { tangentOf } from "../ad/seed.js";
import { functionsOf, renameParams, withFunctions } from "../api/reverse-programs.js";
import { AnfBuilder, litDouble, mkIf } from "../ir/builder.js";
import { freshVar, mkLam, mkTuple, typeOf, type Atom, type Expr, type IrFunction, type Var } from "../ir/ir.js";
import { copyFunction } from "../ir/rename.js";
import { arrayOf, INT, type Type } from "../types/types.js";
import { runPipeline } from "../opt/pass.js";
import { PASSES } from "../opt/pipeline.js";

/** The type of a colour argument for a value of type `t` (a Double or an array of Doubles): its Indexes. */
export function colourType(t: Type): Type {
  return t.k === "array" ? arrayOf(colourType(t.elem)) : INT;
}

/** 1 where `colours` (shaped like the value) is k, else 0: `if c = k then 1. else 0.`, in builds. */
function seedOf(b: AnfBuilder, colours: Atom, k: Atom, withPrimal?: Atom): Atom {
  if (colours.type.k !== "array") {
    const t = b.bind("t", mkIf(b.prim("eq", [colours, k], "hit"), litDouble(1), litDouble(0)));
    return withPrimal === undefined ? t : b.bind("dx", mkTuple([withPrimal, t]));
  }
  return b.build(
    b.prim("length", [colours], "n"),
    (j, inner) =>
      seedOf(
        inner,
        inner.prim("get", [colours, j], "c"),
        k,
        withPrimal === undefined ? undefined : inner.prim("get", [withPrimal, j], "x"),
      ),
    withPrimal === undefined ? "ct" : "dx",
    "j",
  );
}

/** `fn`'s parameters, then a colour argument per `shapes` entry, then the number of colours. */
function compressedParams(fn: IrFunction, shapes: readonly Type[]): { params: Var[]; colours: Var[]; count: Var } {
  const params = fn.params.map((p) => freshVar(p.name, p.type));
  const colours = shapes.map((t, i) => freshVar(`colours${i}`, colourType(t)));
  return { params, colours, count: freshVar("colourCount", INT) };
}

/** Forward mode, one tangent per colour of the columns (the `wrt` parameters' positions). */
export function compressedForward(fn: IrFunction, wrt: readonly number[]): IrFunction {
  const resultType = typeOf(fn.body);
  const { params, colours, count } = compressedParams(
    fn,
    wrt.map((k) => fn.params[k]!.type),
  );
  const b = new AnfBuilder();
  let lam: Expr = fn.body;
  for (let i = fn.params.length - 1; i >= 0; i--) lam = mkLam(fn.params[i]!, lam);
  const f = b.bind(fn.name, lam);
  const df = b.bind("df", { kind: "jvp", fn: f, type: dualType(f.type) });
  const passes = b.build(
    count,
    (k, inner) => {
      let out: Atom = df;
      params.forEach((p, i) => {
        const at = wrt.indexOf(i);
        out = inner.app(out, at < 0 ? constDual(p, inner) : seedOf(inner, colours[at]!, k, p), "r");
      });
      return tangentOf(inner, out, resultType)!;
    },
    "passes",
    "colour",
  );
  const all = [...params, ...colours, count];
  return {
    ...(fn.functions?.length ? { functions: fn.functions } : {}),
    name: `${fn.name}_colours`,
    params: all,
    body: b.finish(passes),
  };
}

/** Reverse mode, one sweep per colour of the rows (the result's positions); `fn` is first-order. */
export function compressedRows(fn: IrFunction, wrt: readonly number[]): IrFunction {
  const { params, colours, count } = compressedParams(fn, [typeOf(fn.body)]);
  const table = functionsOf(fn, `${fn.name}_rows`);
  const b = new AnfBuilder();
  const passes = b.build(
    count,
    (k, inner) => {
      const copy = copyFunction(fn);
      const body = renameParams(copy, params);
      const ct = seedOf(inner, colours[0]!, k);
      const active = wrt.map((i) => params[i]!);
      const { adjoint } = reverseSweep(body, active, ct, inner, undefined, table);
      const adjoints = active.map(adjoint);
      return adjoints.length === 1 ? adjoints[0]! : inner.tuple(adjoints, "adj");
    },
    "passes",
    "colour",
  );
  const result: IrFunction = {
    name: `${fn.name}_rows`,
    params: [...params, ...colours, count],
    body: b.finish(passes),
  };
  return withFunctions(result, table);
}

/**
 * The derivative of the first-order `fn` along the seed of one colour: params ++ colours ++ [colour] -> the tangent
 * of its (Double) result, made first-order (forward-ad expanded) for reverse mode to differentiate.
 */
function directional(fn: IrFunction, wrt: readonly number[]): { dir: IrFunction; colours: Var[] } {
  const { params, colours } = compressedParams(
    fn,
    wrt.map((k) => fn.params[k]!.type),
  );
  const colour = freshVar("colour", INT);
  const b = new AnfBuilder();
  let lam: Expr = fn.body;
  for (let i = fn.params.length - 1; i >= 0; i--) lam = mkLam(fn.params[i]!, lam);
  const f = b.bind(fn.name, lam);
  const df = b.bind("df", { kind: "jvp", fn: f, type: dualType(f.type) });
  let out: Atom = df;
  params.forEach((p, i) => {
    const at = wrt.indexOf(i);
    out = b.app(out, at < 0 ? constDual(p, b) : seedOf(b, colours[at]!, colour, p), "r");
  });
  const tangent = tangentOf(b, out, typeOf(fn.body))!;
  const dir: IrFunction = {
    ...(fn.functions?.length ? { functions: fn.functions } : {}),
    name: `${fn.name}_along`,
    params: [...params, ...colours, colour],
    body: b.finish(tangent),
  };
  return { dir: runPipeline(dir, DIRECTIONAL_PIPELINE), colours };
}

const DIRECTIONAL_PIPELINE = [PASSES["forward-ad"]!, PASSES["inline-keep-custom"]!, PASSES.optimise!];

/**
 * The Hessian's columns per colour, reverse mode over forward mode: per colour k, the gradient of x ↦ ∇f(x)·v_k
 * (v_k the seed of colour k). Its adjoint accumulators are arrays of Doubles, where forward over reverse carries the
 * gradient's values beside the tangents (arrays of pairs) and computes them once per colour for nothing.
 */
export function compressedHessian(fn: IrFunction, wrt: readonly number[]): IrFunction {
  const { dir } = directional(fn, wrt);
  const table = functionsOf(dir, `${fn.name}_hessian`);
  const params = dir.params.slice(0, -1).map((p) => freshVar(p.name, p.type));
  const count = freshVar("colourCount", INT);
  const b = new AnfBuilder();
  const passes = b.build(
    count,
    (k, inner) => {
      const body = renameParams(copyFunction(dir), [...params, k]);
      const active = wrt.map((i) => params[i]!);
      const { adjoint } = reverseSweep(body, active, litDouble(1), inner, undefined, table);
      const adjoints = active.map(adjoint);
      return adjoints.length === 1 ? adjoints[0]! : inner.tuple(adjoints, "adj");
    },
    "passes",
    "colour",
  );
  return withFunctions({ name: `${fn.name}_hessian`, params: [...params, count], body: b.finish(passes) }, table);
}

/**
 * The compressed program of a request and the types of its arguments. `lowered` is the primal as lowered (forward
 * mode differentiates it); `firstOrder()` the first-order primal reverse mode differentiates.
 */
export function compressedFunction(
  kind: "jacobian" | "hessian",
  mode: "forward" | "reverse",
  lowered: IrFunction,
  firstOrder: () => IrFunction,
  wrt: readonly number[],
): { fn: IrFunction; argTypes: Type[] } {
  const argTypes = lowered.params.map((p) => p.type);
  const seeded = mode === "forward" ? wrt.map((k) => argTypes[k]!) : [typeOf(lowered.body)];
  const fn =
    kind === "hessian"
      ? compressedHessian(firstOrder(), wrt)
      : mode === "forward"
        ? compressedForward(lowered, wrt)
        : compressedRows(firstOrder(), wrt);
  return { fn, argTypes: [...argTypes, ...seeded.map(colourType), INT] };
}
