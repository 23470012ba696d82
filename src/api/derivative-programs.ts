// Derivative programs of an entry point, as ordinary IR functions (printable, optimisable, compiled like any other).
//
// Forward mode, vectorised (paper 000 §1.2): for each parameter differentiated, a build over its scalar positions of
// the output's tangent when that position's tangent is 1. With a scalar output this is the gradient with the
// parameter's shape; in general it is that parameter's block of Jacobian columns. The primal work shared by all
// columns is loop-invariant, so the optimiser can hoist it out of the builds.

import { AnfBuilder } from "../ir/builder.js";
import { freshVar, mkLam, typeOf, type Atom, type Expr, type IrFunction } from "../ir/ir.js";
import { dualType, hasTangent } from "../ad/dual-types.js";
import { overPositions, tangentOf } from "../ad/seed.js";
import { constDual } from "../ad/forward.js";
import { fail } from "../syntax/diagnostics.js";
import { showType } from "../types/types.js";

/** The program's functions of `fn`, for a derivative program of it (which calls them, or their derivatives). */
export function withFunctionsOf(fn: IrFunction): { functions?: readonly IrFunction[] } {
  return fn.functions !== undefined && fn.functions.length > 0 ? { functions: fn.functions } : {};
}

export interface DerivativeOptions {
  /** Parameter positions to differentiate with respect to. */
  readonly wrt: readonly number[];
  /** Names for messages, by parameter position. */
  readonly paramNames?: readonly (string | undefined)[];
}

/**
 * An IR function of the same parameters returning, for each parameter in `wrt` (a tuple when there are several),
 * the build over that parameter's scalar positions of the tangent of `fn`'s result.
 */
export function forwardDerivative(fn: IrFunction, opts: DerivativeOptions): IrFunction {
  const resultType = typeOf(fn.body);
  if (!hasTangent(resultType))
    fail("unsupported", `the result of \`${fn.name}\` has no Double in it, so it has no derivative`, undefined, {
      found: showType(resultType),
    });
  const params = fn.params.map((p) => freshVar(p.name, p.type));
  const b = new AnfBuilder();
  // f = fun p1 -> ... -> fun pn -> body, and its forward derivative D[f].
  let lam: Expr = fn.body;
  for (let i = fn.params.length - 1; i >= 0; i--) lam = mkLam(fn.params[i]!, lam);
  const f = b.bind(fn.name, lam);
  const df = b.bind("df", { kind: "jvp", fn: f, type: dualType(f.type) });
  const columns = opts.wrt.map((k) => {
    const what = `argument ${k}${opts.paramNames?.[k] ? ` (\`${opts.paramNames[k]}\`)` : ""}`;
    return overPositions(
      b,
      params[k]!,
      (inner, seed) => {
        let out: Atom = df;
        params.forEach((p, i) => {
          const arg = i === k ? seed : constDual(p, inner);
          out = inner.app(out, arg, "r");
        });
        return tangentOf(inner, out, resultType)!;
      },
      what,
    );
  });
  const result = columns.length === 1 ? columns[0]! : b.tuple(columns, "d");
  return { ...withFunctionsOf(fn), name: `${fn.name}'`, params, body: b.finish(result) };
}
