// What a derivative request means, for every front end (the CLI's `grad`/`jacobian`/`hessian` commands and the
// library's transforms): which arguments may be differentiated, what result a gradient or a Hessian needs, which mode
// a Jacobian uses, which derivative program computes each kind, and how that program's result splits into one part
// per differentiated argument. The front ends only convert values in (JSON, JavaScript values) and out.

import { hasTangent } from "../ad/dual-types.js";
import { doubleRank } from "../ad/seed.js";
import { someNode } from "../ir/free.js";
import { type IrFunction } from "../ir/ir.js";
import { isTapeOp } from "../prims/tape.js";
import { runPipeline } from "../opt/pass.js";
import { timed } from "../opt/stage-times.js";
import { REVERSE_PRIMAL_PIPELINE, REVERSE_PRIMAL_REFERENCE } from "../opt/pipeline.js";
import { shapeSize, type DenseArray, type Value } from "../runtime/value.js";
import { allocFlat } from "../runtime/value.js";
import { fail } from "../syntax/diagnostics.js";
import type { Span } from "../syntax/source.js";
import { showType, type Type } from "../types/types.js";
import { forwardDerivative } from "./derivative-programs.js";
import {
  jacobianLeaves,
  reverseGradient,
  reverseJacobian,
  vjpFunction,
  type JacobianLeaf,
} from "./reverse-programs.js";
import { derivativeByForward } from "./tape-derivatives.js";

/**
 * Which derivative program: forward (vectorised forward mode: per parameter, a build over its positions of the output's
 * tangent), gradient (reverse mode; a Double result), value-gradient (the value, then the gradients), vjp (reverse mode
 * with the cotangent as an extra last argument; returns the value and the adjoints), jacobian-rows (reverse mode, one
 * sweep per output scalar), hessian (forward over reverse: the Jacobian of the reverse-mode gradient).
 */
export type DerivativeKind = "forward" | "gradient" | "value-gradient" | "vjp" | "jacobian-rows" | "hessian";

export type Mode = "forward" | "reverse";

/** The function a request is about, as messages name it. */
export interface Subject {
  /** "`f`", "the TypeScript function `loss`", "vmap(`f`)". */
  readonly label: string;
  /** Where the function is defined (Smooth or TypeScript source), when known. */
  readonly span?: Span;
  /** How argument k is named: "parameter `x` of `f`", "argument 0 of `f`" (positions count from 0). */
  argument(k: number): string;
}

const article = (t: Type): string =>
  t.k === "int" ? "an Index" : t.k === "bool" ? "a Bool" : `of type ${showType(t)}`;

const prefix = (context: string): string => (context ? `${context}: ` : "");

/** Each differentiated argument exists and contains a Double. `context` names the request ("grad(`f`)"), if needed. */
export function checkWrt(subject: Subject, argTypes: readonly Type[], wrt: readonly number[], context: string): void {
  const n = argTypes.length;
  for (const k of wrt) {
    if (!Number.isInteger(k) || k < 0 || k >= n)
      fail(
        "argument",
        `${prefix(context)}argnums ${String(k)} is out of range: ${subject.label} is called with ${n} argument${n === 1 ? "" : "s"}`,
        subject.span,
        { expected: n === 0 ? "no position" : `an argument position from 0 to ${n - 1}`, found: String(k) },
      );
    const t = argTypes[k]!;
    if (!hasTangent(t))
      fail(
        "argument",
        `${prefix(context)}cannot differentiate with respect to ${subject.argument(k)}: it is ${article(t)}`,
        subject.span,
        {
          expected: "an argument containing Doubles",
          found: showType(t),
          hint: "Index and Bool values are constants to differentiation; choose other arguments to differentiate",
        },
      );
  }
}

/** The positions of the arguments that contain a Double (what is differentiated when nothing is chosen). */
export const differentiable = (argTypes: readonly Type[]): number[] =>
  argTypes.flatMap((t, k) => (hasTangent(t) ? [k] : []));

/** A gradient or a Hessian is of a function with one Double output. */
export function requireDoubleResult(subject: Subject, resultType: Type, context: string, hint: string): void {
  if (resultType.k !== "double")
    fail(
      "argument",
      `${context} needs ${subject.label} to return a Double, but it returns ${showType(resultType)}`,
      subject.span,
      { expected: "Double", found: showType(resultType), hint },
    );
}

/** The rank of a Double or an array of Doubles (what Jacobian blocks are made of); anything else fails. */
export function requireDoubleRank(subject: Subject, t: Type, which: string, context: string): number {
  const rank = doubleRank(t);
  if (rank === undefined)
    fail(
      "unsupported",
      `${context} needs ${which} to be a Double or an array of Doubles, but it is ${showType(t)}`,
      subject.span,
      {
        expected: "Double, Vector, Matrix, ...",
        found: showType(t),
      },
    );
  return rank;
}

/**
 * The leaves of a Jacobian's output (see jacobianLeaves): a Double, an array of Doubles, or a tuple of these (parts
 * without a tangent, an Index or a Bool, are allowed and have no rows); anything else fails.
 */
export function requireJacobianResult(subject: Subject, t: Type, context: string): JacobianLeaf[] {
  const leaves = jacobianLeaves(t);
  if (leaves === undefined)
    fail(
      "unsupported",
      `${context} needs the result of ${subject.label} to be a Double, an array of Doubles, or a tuple of these, but it is ${showType(t)}`,
      subject.span,
      { expected: "Double, Vector, Matrix, ..., or a tuple (an object) of them", found: showType(t) },
    );
  return leaves;
}

/** The hint of a gradient asked of a function with several outputs. */
export const GRADIENT_HINT = "a gradient is of a function with one Double output: use jacobian (or vjp) for several";
export const HESSIAN_HINT =
  "a Hessian is of a function with one Double output; reduce the outputs to one first (e.g. a sum)";

/**
 * The Jacobian's mode. A requested mode is checked (reverse sweeps an output that is a Double or an array of Doubles,
 * or a tuple of these; forward seeds arguments that are Doubles or arrays of Doubles). Otherwise: a reverse sweep per
 * output scalar when there are fewer output scalars than differentiated input scalars, else a forward sweep per input
 * scalar; whichever is the only one possible when the other is not. `outputSize` is asked only when both are
 * possible (it may run the primal).
 */
export function chooseJacobianMode(
  requested: Mode | undefined,
  subject: Subject,
  resultType: Type,
  argTypes: readonly Type[],
  wrt: readonly number[],
  sizes: { readonly inputs: number; output(): number },
  context: string,
): Mode {
  const reverseOk = jacobianLeaves(resultType) !== undefined;
  const forwardOk = wrt.every((k) => doubleRank(argTypes[k]!) !== undefined);
  if (requested === "reverse") requireJacobianResult(subject, resultType, `${context} in reverse mode`);
  if (requested === "forward")
    for (const k of wrt) requireDoubleRank(subject, argTypes[k]!, subject.argument(k), `${context} in forward mode`);
  if (requested) return requested;
  if (!reverseOk && !forwardOk) requireJacobianResult(subject, resultType, context);
  if (!reverseOk) return "forward";
  if (!forwardOk) return "reverse";
  return sizes.output() < sizes.inputs ? "reverse" : "forward";
}

/**
 * The derivative program of a lowered entry point. Reverse mode works on first-order IR: derivatives inside the
 * program are expanded and functions inlined first; for the compiled back end the primal is also optimised first
 * (fused, hoisted), so the reverse sweep is written for the program that would actually run. The interpreter's
 * reference transforms the unoptimised primal, so comparing the back ends also tests the optimiser on both sides.
 */
export function derivativeFunction(
  primal: IrFunction,
  kind: DerivativeKind,
  wrt: readonly number[],
  optimisePrimal: boolean,
  paramNames: readonly (string | undefined)[] = [],
  /** The primal through REVERSE_PRIMAL_PIPELINE, when the caller has it already (../api/program.ts). */
  optimisedPrimal?: () => IrFunction,
): IrFunction {
  if (kind === "forward") return forwardDerivative(primal, { wrt, paramNames });
  const firstOrder = timed("primal pipeline", () =>
    optimisePrimal && optimisedPrimal !== undefined
      ? optimisedPrimal()
      : runPipeline(primal, optimisePrimal ? REVERSE_PRIMAL_PIPELINE : REVERSE_PRIMAL_REFERENCE),
  );
  // A reverse-mode derivative of a recursive function (tapes inside) is not reversed again: what reverse mode would
  // give is made from forward mode's columns instead (the cost grows with the inputs' size).
  if (usesTapes(firstOrder)) return derivativeByForward(firstOrder, kind, { wrt, paramNames });
  return timed("reverse-ad", () => reverseDerivative(firstOrder, kind, wrt, paramNames));
}

/** The reverse-mode derivative `kind` of the first-order primal `firstOrder`. */
function reverseDerivative(
  firstOrder: IrFunction,
  kind: Exclude<DerivativeKind, "forward">,
  wrt: readonly number[],
  paramNames: readonly (string | undefined)[],
): IrFunction {
  switch (kind) {
    case "gradient":
      return reverseGradient(firstOrder, { wrt });
    case "value-gradient":
      return reverseGradient(firstOrder, { wrt, withValue: true });
    case "vjp":
      return vjpFunction(firstOrder, { wrt });
    case "jacobian-rows":
      return reverseJacobian(firstOrder, { wrt });
    case "hessian":
      return forwardDerivative(reverseGradient(firstOrder, { wrt }), { wrt, paramNames });
  }
}

/** Whether `fn` (or a function of its program) uses tapes: it is a reverse-mode derivative of recursive code. */
function usesTapes(fn: IrFunction): boolean {
  return [fn, ...(fn.functions ?? [])].some((f) => someNode(f.body, (e) => e.kind === "prim" && isTapeOp(e.op)));
}

/** How many scalars a value holds (what the Jacobian's mode compares). */
export function valueSize(v: Value): number {
  if (typeof v !== "object") return 1;
  switch (v.tag) {
    case "dense":
      return shapeSize(v.shape);
    case "tuple":
      return v.elems.reduce((n: number, e) => n + valueSize(e), 0);
    case "tuparr":
      return v.fields.reduce((n: number, f) => n + valueSize(f), 0);
    case "fun":
      return 0;
  }
}

/** Part i of a derivative program's result: the program returns a tuple (or an array of tuples) for several. */
export function resultPart(v: Value, i: number, count: number): Value {
  if (count === 1) return v;
  if (typeof v === "object" && v.tag === "tuple") return v.elems[i]!;
  if (typeof v === "object" && v.tag === "tuparr") return v.fields[i]!;
  throw new Error("a derivative program with several parts returned neither a tuple nor an array of tuples");
}

/**
 * The Jacobian block of one differentiated argument from its part of the derivative program's result, with the
 * output's dimensions first: reverse mode gives it so (one adjoint per output position); forward mode gives, per input
 * position, the output's tangent (shape I ++ O), which is transposed to O ++ I.
 */
export function jacobianBlock(part: Value, mode: Mode, outRank: number): Value {
  if (mode === "reverse" || outRank === 0 || typeof part !== "object" || part.tag !== "dense") return part;
  return swapBlocks(part, part.shape.length - outRank);
}

/**
 * Block [i][j] of a Hessian program's result (n differentiated arguments, the j-th of rank `rankJ`): column j is, over
 * x_j's positions, the tangent of each gradient i (shape I_j ++ I_i), transposed here to I_i ++ I_j.
 */
export function hessianBlock(out: Value, i: number, j: number, n: number, rankJ: number): Value {
  const p = resultPart(resultPart(out, j, n), i, n);
  if (typeof p !== "object" || p.tag !== "dense") return p;
  return swapBlocks(p, rankJ);
}

/** A dense array of shape A ++ B (A having `leading` dimensions) transposed to shape B ++ A. */
export function swapBlocks(v: DenseArray, leading: number): DenseArray {
  if (leading === 0 || leading === v.shape.length) return v;
  const a = v.shape.slice(0, leading);
  const b = v.shape.slice(leading);
  const na = shapeSize(a);
  const nb = shapeSize(b);
  const out = allocFlat(v.elemKind, na * nb);
  for (let i = 0; i < na; i++) for (let j = 0; j < nb; j++) out[j * na + i] = v.data[i * nb + j]!;
  return { tag: "dense", elemKind: v.elemKind, shape: [...b, ...a], data: out };
}
