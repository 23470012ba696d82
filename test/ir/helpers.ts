// Small helpers for writing IR by hand in tests.

import { AnfBuilder } from "../../src/ir/builder.js";
import { freshVar, type Expr, type IrFunction, type Var } from "../../src/ir/ir.js";
import type { Type } from "../../src/types/types.js";

/** `let name (p1: T1) ... = body`, the body written with an AnfBuilder. */
export function func(
  name: string,
  params: readonly (readonly [string, Type])[],
  body: (b: AnfBuilder, ...ps: Var[]) => Expr,
): IrFunction {
  const vars = params.map(([n, t]) => freshVar(n, t));
  const b = new AnfBuilder();
  return { name, params: vars, body: b.finish(body(b, ...vars)) };
}
