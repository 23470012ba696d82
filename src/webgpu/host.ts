// Arithmetic the host does itself, on values it knows (the arguments' sizes and scalars, and what it computed from
// them): sizes, counts, loop bounds and branch conditions, so that kernels are dispatched with their sizes and no
// kernel runs for a branch not taken. Index and Bool as JavaScript computes them; Double in float32 (each operation
// rounded, as the kernels compute). An operation that would fail (an Index division by zero, sizes that differ) is a
// HostFailure: the sequential plan finds the program's first error.

import type { Prim } from "../ir/ir.js";
import type { PrimName } from "../prims/names.js";
import { HostFailure } from "./plan.js";

type HostOp = (args: readonly number[]) => number;

const f = Math.fround;
const bool = (b: boolean): number => (b ? 1 : 0);

const INDEX_OPS: Partial<Record<PrimName, HostOp>> = {
  add: ([a, b]) => (a! + b!) | 0,
  sub: ([a, b]) => (a! - b!) | 0,
  mul: ([a, b]) => Math.imul(a!, b!),
  div: ([a, b]) => {
    if (b === 0) throw new HostFailure("integer division by zero");
    return (a! / b!) | 0;
  },
  max: ([a, b]) => Math.max(a!, b!),
  min: ([a, b]) => Math.min(a!, b!),
  neg: ([a]) => -a! | 0,
  abs: ([a]) => Math.abs(a!) | 0,
};

const DOUBLE_OPS: Partial<Record<PrimName, HostOp>> = {
  add: ([a, b]) => f(a! + b!),
  sub: ([a, b]) => f(a! - b!),
  mul: ([a, b]) => f(a! * b!),
  div: ([a, b]) => f(a! / b!),
  neg: ([a]) => -a!,
};

const COMPARISONS: Partial<Record<PrimName, HostOp>> = {
  lt: ([a, b]) => bool(a! < b!),
  gt: ([a, b]) => bool(a! > b!),
  le: ([a, b]) => bool(a! <= b!),
  ge: ([a, b]) => bool(a! >= b!),
  eq: ([a, b]) => bool(a === b),
  ne: ([a, b]) => bool(a !== b),
  and: ([a, b]) => bool(a !== 0 && b !== 0),
  or: ([a, b]) => bool(a !== 0 || b !== 0),
  not: ([a]) => bool(a === 0),
};

const OTHERS: Partial<Record<PrimName, HostOp>> = {
  toDouble: ([a]) => f(a!),
  sameSize: ([n, m]) => {
    if (n !== m) throw new HostFailure("sizes differ");
    return n!;
  },
  checkIndex: ([j, n]) => {
    if (!(j! >= 0 && j! < n!)) throw new HostFailure("index out of range");
    return j!;
  },
};

/** How the host computes `p` from its operands' values, or undefined when it leaves `p` to a kernel. */
export function hostOp(p: Prim): HostOp | undefined {
  const t = p.args[0]?.type.k;
  if (p.type.k === "bool") return COMPARISONS[p.op];
  if (p.op === "toDouble" || p.op === "sameSize" || p.op === "checkIndex") return OTHERS[p.op];
  if (p.type.k === "int" && t === "int") return INDEX_OPS[p.op];
  // Products and quotients forward mode marks as tangents are symbolic zeros (Prim.tangent): left to kernels.
  if (p.type.k === "double" && t === "double" && p.tangent === undefined) return DOUBLE_OPS[p.op];
  return undefined;
}
