// One primitive, one place: for each primitive what holds whatever runs it: its type rule, its evaluation (the
// reference semantics) and its derivative rule (src/ad/derivatives.ts, shared by forward and reverse mode). The table
// is a mapped type over PrimName, so adding a name without a rule fails `tsc`. How a back end writes a primitive is
// that back end's own lowering table, a mapped type over the same names (the JavaScript one: src/codegen/lowering.ts).

import { fail } from "../syntax/diagnostics.js";
import type { Span } from "../syntax/source.js";
import { BOOL, DOUBLE, INT, showType, type Type } from "../types/types.js";
import { arrayGet, arrayLength, isArrayValue, type Value } from "../runtime/value.js";
import { MAX_ARRAY_ELEMENTS } from "../runtime/limits.js";
import type { PrimName } from "./names.js";
import * as D from "../ad/derivatives.js";
import { UPDATE_PRIMS } from "./updates.js";
import { TAPE_PRIMS } from "./tape.js";

export interface PrimRule {
  readonly arity: number;
  /** How the primitive is written in Smooth: an infix operator or a function name. */
  readonly syntax: { readonly infix: string } | { readonly prefix: string };
  /**
   * The result type, or a description of the argument types this primitive accepts. `literals` holds the value of
   * each operand that is a literal (`field` takes its component number that way).
   */
  type(args: readonly Type[], literals?: readonly (number | boolean | undefined)[]): Type | { expected: string };
  /** Reference semantics (the interpreter). `argTypes` tells Index from Double; `span` locates runtime errors. */
  evaluate(args: readonly Value[], argTypes: readonly Type[], span: Span | undefined): Value;
  /** How the primitive is differentiated (src/ad/derivatives.ts); every primitive must decide. */
  readonly derivative: D.DerivativeRule;
  // ---- facts the optimiser, AD and the lowering stage read (here, not as lists of names in each pass) ----
  /**
   * Whether an application can raise an error (an index or shape error, a division by zero), from its operands' types:
   * "never"; "operands": for some operands (an index out of range, sizes or shapes that differ; range facts may still
   * prove one application safe, src/opt/failure.ts); "index-division": on Index operands when the divisor is zero
   * (a Double division gives an infinity).
   */
  readonly fails: "never" | "operands" | "index-division";
  /**
   * What one application costs: "cheap" (a few machine operations, or a read: get, length and field copy nothing);
   * "transcendental" (a library function such as exp or log, or a power: worth storing for reverse mode rather than
   * recomputing, and worth computing once per element rather than once per read); "array" (makes an array as large as
   * its operand: zerosLike, and the updates unless they run in place; its result is a fresh array).
   */
  readonly cost: "cheap" | "transcendental" | "array";
  /**
   * "scalar": numbers or Bools in, one out, its value a function of the operands' values (so Index arithmetic on
   * values that are the same in every iteration is too); "array": reads, makes or describes arrays.
   */
  readonly domain: "scalar" | "array";
  /** Its two operands can be swapped (CSE puts them in one order). */
  readonly commutative?: boolean;
  /**
   * A functional update of the first operand: the result is that array with some elements changed (in place when
   * nothing else can see the old value, src/lowering/ownership.ts). "in-shape": of the operand's shape (setAt, addAt,
   * addArray); "may-reshape": an empty operand is first replaced (record).
   */
  readonly update?: "in-shape" | "may-reshape";
  /** The result's array dimensions follow from the first operand's alone (the same, a row's, or one field's). */
  readonly shapeOfFirst?: boolean;
  /**
   * For a primitive whose result type the operands do not determine (a tape pop: what was pushed), the node carries
   * it and this checks it (`type` then only describes the operands).
   */
  readonly resultFromNode?: (args: readonly Type[], result: Type) => boolean;
}

/** The facts of a scalar primitive that never fails and costs a few operations (the common case). */
const SCALAR = { fails: "never", cost: "cheap", domain: "scalar" } as const;

const isNum = (t: Type) => t.k === "double" || t.k === "int";

// Numbers in the interpreter: Double is a JS number; Index is a JS number kept in int32 range the way the compiled
// code keeps it (| 0, Math.imul), so the two back ends agree bit for bit.
const num = (v: Value) => v as number;

function arith(
  syntax: PrimRule["syntax"],
  dbl: (a: number, b: number) => number,
  int: (a: number, b: number, span?: Span) => number,
  derivative: D.DerivativeRule,
  facts: Partial<Pick<PrimRule, "fails" | "cost" | "commutative">> = {},
): PrimRule {
  return {
    ...SCALAR,
    ...facts,
    arity: 2,
    syntax,
    derivative,
    type: ([a, b]) =>
      isNum(a!) && a.k === b!.k
        ? a
        : { expected: "two Doubles or two Indexes (an Index is promoted when mixed with a Double)" },
    evaluate: ([a, b], [ta], span) => (ta!.k === "int" ? int(num(a!), num(b!), span) : dbl(num(a!), num(b!))),
  };
}

/** Index power with int32 wrap-around (exponentiation by squaring with Math.imul); negative exponents truncate. */
export function intPow(a: number, b: number): number {
  if (b < 0) return a === 1 ? 1 : a === -1 ? (b % 2 === 0 ? 1 : -1) : 0;
  let result = 1;
  let base = a | 0;
  for (let e = b; e > 0; e >>>= 1) {
    if (e & 1) result = Math.imul(result, base);
    base = Math.imul(base, base);
  }
  return result;
}

/** The Index equal to x, which must be an integer in the 32-bit range. */
export function toIndex(x: number, span?: Span): number {
  if (!Number.isInteger(x) || x < -2147483648 || x > 2147483647)
    fail("index", `${x} is used as an index or a count, but it is not a 32-bit integer`, span);
  return x | 0;
}

export function intDiv(a: number, b: number, span?: Span): number {
  if (b === 0) fail("index", "integer division by zero", span);
  return (a / b) | 0;
}

function unaryDouble(
  name: string,
  f: (x: number) => number,
  derivative: D.DerivativeRule,
  cost: PrimRule["cost"],
): PrimRule {
  return {
    ...SCALAR,
    cost,
    arity: 1,
    derivative,
    syntax: { prefix: name },
    type: ([a]) => (a!.k === "double" ? DOUBLE : { expected: "a Double" }),
    evaluate: ([a]) => f(num(a!)),
  };
}

/** A bit operator of JavaScript on two Indexes (int32 in, int32 out, as JavaScript computes it). */
function bits(name: string, f: (a: number, b: number) => number, commutative = false): PrimRule {
  return {
    ...SCALAR,
    commutative,
    arity: 2,
    derivative: D.NO_TANGENT,
    syntax: { prefix: name },
    type: ([a, b]) => (a!.k === "int" && b!.k === "int" ? INT : { expected: "two Indexes" }),
    evaluate: ([a, b]) => f(num(a!), num(b!)),
  };
}

function compare(infix: string, f: (a: number, b: number) => boolean, allowBool: boolean): PrimRule {
  return {
    ...SCALAR,
    commutative: infix === "=" || infix === "<>",
    arity: 2,
    derivative: D.NO_TANGENT,
    syntax: { infix },
    type: ([a, b]) =>
      (isNum(a!) || (allowBool && a!.k === "bool")) && a!.k === b!.k
        ? BOOL
        : { expected: allowBool ? "two numbers of the same type, or two Bools" : "two numbers" },
    evaluate: ([a, b]) => f(a as number, b as number),
  };
}

export const PRIMS: { readonly [K in PrimName]: PrimRule } = {
  add: arith(
    { infix: "+" },
    (a, b) => a + b,
    (a, b) => (a + b) | 0,
    D.ADD,
    { commutative: true },
  ),
  sub: arith(
    { infix: "-" },
    (a, b) => a - b,
    (a, b) => (a - b) | 0,
    D.SUB,
  ),
  mul: arith(
    { infix: "*" },
    (a, b) => a * b,
    (a, b) => Math.imul(a, b),
    D.MUL,
    { commutative: true },
  ),
  div: arith({ infix: "/" }, (a, b) => a / b, intDiv, D.DIV, { fails: "index-division" }),
  pow: arith({ infix: "**" }, (a, b) => a ** b, intPow, D.POW, { cost: "transcendental" }),
  max: arith(
    { prefix: "max" },
    (a, b) => Math.max(a, b),
    (a, b) => Math.max(a, b),
    D.MAX,
    { commutative: true },
  ),
  min: arith(
    { prefix: "min" },
    (a, b) => Math.min(a, b),
    (a, b) => Math.min(a, b),
    D.MIN,
    { commutative: true },
  ),
  neg: {
    ...SCALAR,
    derivative: D.NEG,
    arity: 1,
    syntax: { prefix: "-" },
    type: ([a]) => (isNum(a!) ? a : { expected: "a number" }),
    evaluate: ([a], [t]) => (t!.k === "int" ? -num(a!) | 0 : -num(a!)),
  },
  sin: unaryDouble("sin", Math.sin, D.SIN, "transcendental"),
  cos: unaryDouble("cos", Math.cos, D.COS, "transcendental"),
  tan: unaryDouble("tan", Math.tan, D.TAN, "transcendental"),
  log: unaryDouble("log", Math.log, D.LOG, "transcendental"),
  exp: unaryDouble("exp", Math.exp, D.EXP, "transcendental"),
  sqrt: unaryDouble("sqrt", Math.sqrt, D.SQRT, "transcendental"),
  tanh: unaryDouble("tanh", Math.tanh, D.TANH, "transcendental"),
  atan: unaryDouble("atan", Math.atan, D.ATAN, "transcendental"),
  asin: unaryDouble("asin", Math.asin, D.ASIN, "transcendental"),
  acos: unaryDouble("acos", Math.acos, D.ACOS, "transcendental"),
  atan2: {
    ...SCALAR,
    cost: "transcendental",
    arity: 2,
    derivative: D.ATAN2,
    syntax: { prefix: "atan2" },
    type: ([a, b]) => (a!.k === "double" && b!.k === "double" ? DOUBLE : { expected: "two Doubles" }),
    evaluate: ([a, b]) => Math.atan2(num(a!), num(b!)),
  },
  bitAnd: bits("bitAnd", (a, b) => a & b, true),
  bitOr: bits("bitOr", (a, b) => a | b, true),
  bitXor: bits("bitXor", (a, b) => a ^ b, true),
  shiftLeft: bits("shiftLeft", (a, b) => a << b),
  shiftRight: bits("shiftRight", (a, b) => a >> b),
  shiftRightUnsigned: {
    ...bits("shiftRightUnsigned", (a, b) => a >>> b),
    derivative: D.ZERO_TANGENT,
    type: ([a, b]) => (a!.k === "int" && b!.k === "int" ? DOUBLE : { expected: "two Indexes" }),
  },
  floor: unaryDouble("floor", Math.floor, D.ZERO_TANGENT, "cheap"),
  // The identity on Doubles whose derivative is zero: AD treats its result as a constant (reverse mode gives it no
  // adjoint, so the loop computing its operand is not reversed).
  stopGradient: {
    ...SCALAR,
    derivative: D.ZERO_TANGENT,
    arity: 1,
    syntax: { prefix: "stopGradient" },
    type: ([a]) => (a!.k === "double" ? DOUBLE : { expected: "a Double" }),
    evaluate: ([a]) => a!,
  },
  // a's value, b's derivative: AD sees b (src/ad/selection-folds.ts), the back ends a.
  withDerivativeOf: {
    ...SCALAR,
    derivative: D.WITH_DERIVATIVE_OF,
    arity: 2,
    syntax: { prefix: "withDerivativeOf" },
    type: ([a, b]) => (a!.k === "double" && b!.k === "double" ? DOUBLE : { expected: "two Doubles" }),
    evaluate: ([a]) => a!,
  },
  abs: {
    ...SCALAR,
    derivative: D.ABS,
    arity: 1,
    syntax: { prefix: "abs" },
    type: ([a]) => (isNum(a!) ? a : { expected: "a number" }),
    evaluate: ([a], [t]) => (t!.k === "int" ? Math.abs(num(a!)) | 0 : Math.abs(num(a!))),
  },
  toDouble: {
    ...SCALAR,
    derivative: D.ZERO_TANGENT,
    arity: 1,
    syntax: { prefix: "double" },
    type: ([a]) => (a!.k === "int" ? DOUBLE : { expected: "an Index" }),
    evaluate: ([a]) => num(a!),
  },
  toIndex: {
    fails: "operands",
    cost: "cheap",
    domain: "scalar",
    derivative: D.NO_TANGENT,
    arity: 1,
    syntax: { prefix: "toIndex" },
    type: ([a]) => (a!.k === "double" ? INT : { expected: "a Double" }),
    evaluate: ([a], _t, span) => toIndex(num(a!), span),
  },
  lt: compare("<", (a, b) => a < b, false),
  gt: compare(">", (a, b) => a > b, false),
  le: compare("<=", (a, b) => a <= b, false),
  ge: compare(">=", (a, b) => a >= b, false),
  eq: compare("=", (a, b) => a === b, true),
  ne: compare("<>", (a, b) => a !== b, true),
  and: {
    ...SCALAR,
    commutative: true,
    derivative: D.NO_TANGENT,
    arity: 2,
    syntax: { infix: "&&" },
    type: ([a, b]) => (a!.k === "bool" && b!.k === "bool" ? BOOL : { expected: "two Bools" }),
    evaluate: ([a, b]) => (a as boolean) && (b as boolean),
  },
  or: {
    ...SCALAR,
    commutative: true,
    derivative: D.NO_TANGENT,
    arity: 2,
    syntax: { infix: "||" },
    type: ([a, b]) => (a!.k === "bool" && b!.k === "bool" ? BOOL : { expected: "two Bools" }),
    evaluate: ([a, b]) => (a as boolean) || (b as boolean),
  },
  not: {
    ...SCALAR,
    derivative: D.NO_TANGENT,
    arity: 1,
    syntax: { prefix: "not" },
    type: ([a]) => (a!.k === "bool" ? BOOL : { expected: "a Bool" }),
    evaluate: ([a]) => !(a as boolean),
  },
  get: {
    derivative: D.STRUCTURAL,
    fails: "operands",
    cost: "cheap",
    domain: "array",
    shapeOfFirst: true,
    arity: 2,
    syntax: { prefix: "get" },
    type: ([a, i]) => (a!.k === "array" && i!.k === "int" ? a!.elem : { expected: "an array and an Index" }),
    evaluate: ([a, i], _types, span) => {
      if (!isArrayValue(a!)) throw new Error("get: not an array");
      const n = arrayLength(a);
      const k = num(i!);
      if (!(k >= 0 && k < n)) indexOutOfRange(k, n, span);
      return arrayGet(a, k);
    },
  },
  length: {
    derivative: D.STRUCTURAL,
    fails: "never",
    cost: "cheap",
    domain: "array",
    arity: 1,
    syntax: { prefix: "length" },
    type: ([a]) => (a!.k === "array" ? INT : { expected: "an array" }),
    evaluate: ([a]) => {
      if (!isArrayValue(a!)) throw new Error("length: not an array");
      return arrayLength(a);
    },
  },
  // The bounds check of `get` on its own: pull-array fusion turns `(build n f)[j]` into `f (checkIndex j n)`, so the
  // fused program fails exactly where the unfused one did.
  checkIndex: {
    derivative: D.NO_TANGENT,
    ...SCALAR,
    fails: "operands",
    arity: 2,
    syntax: { prefix: "checkIndex" },
    type: ([j, n]) => (j!.k === "int" && n!.k === "int" ? INT : { expected: "two Indexes" }),
    evaluate: ([j, n], _types, span) => {
      const k = num(j!);
      const m = num(n!);
      if (!(k >= 0 && k < m)) indexOutOfRange(k, m, span);
      return k;
    },
  },
  // The size precondition of the prelude's map2, reshape and scatter: equal sizes, else one clear shape error.
  // Compiled as the check, then n itself (src/codegen/lowering.ts), so loops over n keep its bounds facts.
  sameSize: {
    derivative: D.NO_TANGENT,
    ...SCALAR,
    fails: "operands",
    arity: 2,
    syntax: { prefix: "sameSize" },
    type: ([n, m]) => (n!.k === "int" && m!.k === "int" ? INT : { expected: "two Indexes" }),
    evaluate: ([n, m], _types, span) => {
      if (n !== m) sizesDiffer(num(n!), num(m!), span);
      return num(n!);
    },
  },
  // The snapshots a checkpointed loop keeps (src/ad/reverse-checkpoint.ts): the budget over one state's bytes.
  checkpointSlots: {
    derivative: D.NO_TANGENT,
    ...SCALAR,
    fails: "operands",
    arity: 4,
    syntax: { prefix: "checkpointSlots" },
    type: ([b, x, n, w]) =>
      b!.k === "double" && x!.k === "double" && n!.k === "int" && w!.k === "double"
        ? INT
        : { expected: "a Double, a Double, an Index and a Double" },
    evaluate: ([b, x, n, w], _types, span) => checkpointSlots(num(b!), num(x!), num(n!), num(w!), span),
  },
  ...UPDATE_PRIMS,
  ...TAPE_PRIMS,
};

/** What a loop's `checkpointSlots` found, for a listener (`inspect` reports it). */
export interface CheckpointDecision {
  readonly budget: number;
  readonly stateBytes: number;
  readonly steps: number;
  readonly slots: number;
  readonly span: Span | undefined;
}

/** Called with every decision `checkpointSlots` makes, while set (the interpreter's and compiled JavaScript's). */
export const checkpointListener: { current?: (d: CheckpointDecision) => void } = {};

/**
 * `checkpointSlots`: floor(budget / bytes), at most `steps` and at most the snapshots one array holds
 * (MAX_ARRAY_ELEMENTS over `widest` scalars); compiled code computes the same.
 */
export function checkpointSlots(
  budget: number,
  bytes: number,
  steps: number,
  widest: number,
  span: Span | undefined,
): number {
  const fit = Math.floor(budget / bytes);
  if (!(fit >= 1)) budgetTooSmall(budget, bytes, span);
  const slots = Math.min(fit, Math.floor(MAX_ARRAY_ELEMENTS / widest), steps);
  checkpointListener.current?.({ budget, stateBytes: bytes, steps, slots, span });
  return slots;
}

/** The error of a memory budget that cannot hold one state of the loop at `span` (compiled code raises it too). */
export function budgetTooSmall(budget: number, bytes: number, span: Span | undefined): never {
  return fail(
    "memory",
    `the memory budget of ${budget} bytes cannot hold one state of this loop (${bytes} bytes), which its gradient must store at least once`,
    span,
    {
      expected: `a memory budget of at least ${bytes} bytes`,
      hint: "raise the budget: the memoryBudget option of the transform, or SMOOTH_MEMORY_BUDGET (e.g. 256M)",
    },
  );
}

/** Whether some operands of these types make an application of `op` fail (see PrimRule.fails). */
export function primMayFail(op: PrimName, resultType: Type): boolean {
  const fails = PRIMS[op].fails;
  return fails === "operands" || (fails === "index-division" && resultType.k === "int");
}

/** The error of `sameSize` (compiled code reports it through this function too). */
export function sizesDiffer(n: number, m: number, span: Span | undefined): never {
  return fail("shape", `the sizes ${n} and ${m} differ`, span, { expected: "equal sizes" });
}

/** The error of `get` with a bad index; compiled code reports it through this function too. */
export function indexOutOfRange(index: number, length: number, span: Span | undefined): never {
  return fail("index", `index ${index} is out of range for an array of length ${length}`, span);
}

/** The result type of a primitive application, or a type error located at `span`. */
export function primResultType(
  op: PrimName,
  args: readonly Type[],
  span?: Span,
  literals?: readonly (number | boolean | undefined)[],
): Type {
  const rule = PRIMS[op];
  const r = rule.type(args, literals);
  if ("k" in r) return r;
  return fail(
    "type",
    `wrong argument types for ${"infix" in rule.syntax ? rule.syntax.infix : rule.syntax.prefix}`,
    span,
    {
      expected: r.expected,
      found: args.map(showType).join(", "),
    },
  );
}
