// Running a few rules alone on a hand-written program, for the rule tests: the printed result and the rule counts.

import { expect } from "vitest";
import type { IrFunction } from "../../src/ir/ir.js";
import { printIr } from "../../src/ir/print.js";
import { verify } from "../../src/ir/verify.js";
import type { AnyRule } from "../../src/opt/rules/rule.js";
import { simplify } from "../../src/opt/simplify.js";
import type { Type } from "../../src/types/types.js";

/** Simplifies with only `rules` (the structural rewrites always run); the printed result and the counts. */
export function runRules(
  fn: IrFunction,
  rules: readonly AnyRule[],
  sugar = true,
): { text: string; fired: Readonly<Record<string, number>>; out: IrFunction } {
  verify(fn);
  const { fn: out, report } = simplify(fn, { rules });
  verify(out);
  expect(report.reason).toBe("fixpoint");
  return { text: printIr(out, { sugar }), fired: report.fired, out };
}

export const params = (...ps: [string, Type][]) => ps;
