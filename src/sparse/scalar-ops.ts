// The scalar primitives of the sparsity analysis (./analysis.ts): a primitive on known numbers or Bools is evaluated
// (the reference semantics of src/prims/table.ts), one on Doubles combines its operands' tracers by its kind.

import type { Prim } from "../ir/ir.js";
import type { PrimName } from "../prims/names.js";
import { PRIMS } from "../prims/table.js";
import type { Algebra, Tracer } from "./algebra.js";
import { GiveUp, isScalar, tracerOf, UNKNOWN, type Abs, type Frame } from "./values.js";

/** An expression compiled to a JavaScript closure over its function's frame (./analysis.ts). */
export type Code = (frame: Frame) => Abs;

type DoubleKind = "linear" | "product" | "quotient" | "nonlinear" | "none" | "second";

/**
 * How primitives on Doubles combine the dependencies of their operands (see ./algebra.ts). A primitive not listed is
 * classified by its derivative rule (`doubleKind`): no tangent, none; a selection (max, min), linear; partials,
 * non-linear — every pair, which is never less than the truth.
 */
const DOUBLE_KINDS: Partial<Record<PrimName, DoubleKind>> = {
  add: "linear",
  sub: "linear",
  neg: "linear",
  max: "linear",
  min: "linear",
  abs: "linear",
  mul: "product",
  div: "quotient",
  pow: "nonlinear",
  sin: "nonlinear",
  cos: "nonlinear",
  tan: "nonlinear",
  log: "nonlinear",
  exp: "nonlinear",
  sqrt: "nonlinear",
  tanh: "nonlinear",
  floor: "none",
  stopGradient: "none",
  toDouble: "none",
  withDerivativeOf: "second",
};

function doubleKind(op: PrimName): DoubleKind {
  const listed = DOUBLE_KINDS[op];
  if (listed !== undefined) return listed;
  switch (PRIMS[op].derivative.kind) {
    case "zero-tangent":
    case "no-tangent":
      return "none";
    case "select":
      return "linear";
    default:
      return "nonlinear";
  }
}

const known = (x: Abs | undefined) => x === undefined || typeof x === "number" || typeof x === "boolean";

/**
 * A primitive on numbers or Bools: evaluated when its operands are known, else UNKNOWN, or for a Double the tracer
 * its kind makes of its operands' tracers.
 */
export function scalarCode(p: Prim, codes: readonly Code[], algebra: Algebra): Code {
  const rule = PRIMS[p.op];
  const types = p.args.map((a) => a.type);
  const isDouble = p.type.k === "double";
  const kind = doubleKind(p.op);
  const [codeA, codeB] = codes;
  return (f) => {
    const a = codeA!(f);
    const b = codeB === undefined ? undefined : codeB(f);
    if (known(a) && known(b)) {
      try {
        return rule.evaluate(b === undefined ? [a] : [a, b], types, undefined);
      } catch {
        return UNKNOWN; // the program fails here for these values (an index division by zero)
      }
    }
    if (p.op === "and" && (a === false || b === false)) return false;
    if (p.op === "or" && (a === true || b === true)) return true;
    if (!isDouble) return UNKNOWN;
    if (!isScalar(a) || (b !== undefined && !isScalar(b))) throw new GiveUp(`${p.op} of a value that is not a number`);
    const ta = tracerOf(a);
    const tb = b === undefined ? undefined : tracerOf(b);
    let r: Tracer | undefined;
    switch (kind) {
      case "linear":
        r = algebra.linear(ta, tb);
        break;
      case "product":
        r = algebra.product(ta, tb);
        break;
      case "quotient":
        r = algebra.quotient(ta, tb);
        break;
      case "nonlinear":
        r = algebra.nonlinear(ta, tb);
        break;
      case "second":
        r = tb;
        break;
      default:
        r = undefined;
    }
    return r ?? UNKNOWN;
  };
}
