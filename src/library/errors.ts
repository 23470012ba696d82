// The checks every derivative transform makes before compiling, with messages that name the transform, the function,
// the argument and — for Smooth source — the definition's line and column. All are SmoothErrors.

import { hasTangent } from "../ad/dual-types.js";
import { doubleRank } from "../ad/seed.js";
import { fail } from "../syntax/diagnostics.js";
import { showType, type Type } from "../types/types.js";
import type { Instance, Target } from "./target.js";

/** Which arguments to differentiate: `argnums` as given (a number gives one result, an array a list of results). */
export interface Argnums {
  readonly list: readonly number[];
  readonly single: boolean;
}

/** Checks the form of `argnums` (its range is checked per call, against the arguments). */
export function parseArgnums(argnums: number | readonly number[] | undefined, what: string): Argnums {
  const single = argnums === undefined || typeof argnums === "number";
  const list = argnums === undefined ? [0] : typeof argnums === "number" ? [argnums] : [...argnums];
  if (!single && !Array.isArray(argnums)) fail("argument", `${what}: argnums must be a number or an array of numbers`);
  for (const k of list)
    if (!Number.isInteger(k) || k < 0)
      fail("argument", `${what}: argnums ${String(k)} is not an argument position`, undefined, {
        expected: "an integer from 0",
      });
  if (list.length === 0) fail("argument", `${what}: argnums is empty`);
  if (new Set(list).size !== list.length) fail("argument", `${what}: argnums [${list.join(", ")}] repeats a position`);
  return { list, single };
}

const article = (t: Type): string =>
  t.k === "int" ? "an Index" : t.k === "bool" ? "a Bool" : `of type ${showType(t)}`;

/** Each differentiated argument exists and contains a Double. */
export function checkWrt(target: Target, inst: Instance, argnums: Argnums, what: string): void {
  const n = inst.argTypes.length;
  for (const k of argnums.list) {
    if (k >= n)
      fail(
        "argument",
        `${what}: argnums ${k} is out of range: ${target.label} is called with ${n} argument${n === 1 ? "" : "s"}`,
        target.span,
        {
          expected: `an argument position from 0 to ${n - 1}`,
          found: String(k),
        },
      );
    const t = inst.argTypes[k]!;
    if (!hasTangent(t))
      fail(
        "argument",
        `${what}: cannot differentiate with respect to ${target.where(k).what}: it is ${article(t)}`,
        target.span,
        {
          expected: "an argument containing Doubles",
          found: showType(t),
          hint: "Index and Bool values are constants to differentiation; choose other arguments with `argnums`",
        },
      );
  }
}

/** A gradient or Hessian needs one Double output. */
export function requireDoubleResult(target: Target, inst: Instance, what: string, hint: string): void {
  if (inst.resultType.k !== "double")
    fail(
      "argument",
      `${what} needs ${target.label} to return a Double, but it returns ${showType(inst.resultType)}`,
      target.span,
      {
        expected: "Double",
        found: showType(inst.resultType),
        hint,
      },
    );
}

/** The rank of a Double or an array of Doubles; anything else fails (what Jacobians and Hessians work on). */
export function requireDoubleRank(target: Target, inst: Instance, k: number | "result", what: string): number {
  const t = k === "result" ? inst.resultType : inst.argTypes[k]!;
  const rank = doubleRank(t);
  if (rank === undefined) {
    const which = k === "result" ? `the result of ${target.label}` : target.where(k).what;
    fail(
      "unsupported",
      `${what} needs ${which} to be a Double or an array of Doubles, but it is ${showType(t)}`,
      target.span,
      {
        expected: "Double, Vector, Matrix, ...",
        found: showType(t),
      },
    );
  }
  return rank;
}
