// One primitive, one place: for each primitive its type rule, its evaluation (the reference semantics) and its
// JavaScript lowering. The table is a mapped type over PrimName, so adding a name without a rule fails `tsc`.
// Each entry also names its derivative rule (src/ad/derivatives.ts), which forward and reverse mode share.

import { fail } from "../syntax/diagnostics.js";
import type { Span } from "../syntax/source.js";
import { BOOL, DOUBLE, INT, showType, type Type } from "../types/types.js";
import { arrayGet, arrayLength, isArrayValue, type Value } from "../runtime/value.js";
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
  /**
   * A JavaScript expression computing the primitive from JavaScript operand expressions (already parenthesised atoms).
   * `span` is a JavaScript expression for this application's Span (for runtime errors, like integer division by zero).
   * `get` and `length` work on flattened array leaves (typed array, offset, dimensions) and are lowered structurally
   * by the code generator (src/codegen/emit.ts), which is why their entries say so instead of producing text here;
   * the compiled get reports a bad index through `indexOutOfRange` below, like `evaluate`. `checkIndex` is lowered
   * there too, as the same bounds check as get's.
   */
  readonly js: ((args: readonly string[], argTypes: readonly Type[], span: string) => string) | "array-structural";
  /** How the primitive is differentiated (src/ad/derivatives.ts); every primitive must decide. */
  readonly derivative: D.DerivativeRule;
  /** Can raise an error for some operands (an index or shape error); Index division is decided by its operands. */
  readonly fallible?: boolean;
  /**
   * For a primitive whose result type the operands do not determine (a tape pop: what was pushed), the node carries
   * it and this checks it (`type` then only describes the operands).
   */
  readonly resultFromNode?: (args: readonly Type[], result: Type) => boolean;
}

const isNum = (t: Type) => t.k === "double" || t.k === "int";

// Numbers in the interpreter: Double is a JS number; Index is a JS number kept in int32 range the way the compiled
// code keeps it (| 0, Math.imul), so the two back ends agree bit for bit.
const num = (v: Value) => v as number;

function arith(
  syntax: PrimRule["syntax"],
  dbl: (a: number, b: number) => number,
  int: (a: number, b: number, span?: Span) => number,
  jsDouble: (a: string, b: string) => string,
  jsInt: (a: string, b: string, span: string) => string,
  derivative: D.DerivativeRule,
): PrimRule {
  return {
    arity: 2,
    syntax,
    derivative,
    type: ([a, b]) =>
      isNum(a!) && a.k === b!.k
        ? a
        : { expected: "two Doubles or two Indexes (an Index is promoted when mixed with a Double)" },
    evaluate: ([a, b], [ta], span) => (ta!.k === "int" ? int(num(a!), num(b!), span) : dbl(num(a!), num(b!))),
    js: ([a, b], [ta], span) => (ta!.k === "int" ? jsInt(a!, b!, span) : jsDouble(a!, b!)),
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

/** Index division in JavaScript: inline when the divisor is a non-zero literal (no division by zero to report). */
function intDivJs(a: string, b: string, span: string): string {
  return /^-?[0-9]+$/.test(b) && Number(b) !== 0 ? `((${a} / ${b}) | 0)` : `$rt.intDiv(${a}, ${b}, ${span})`;
}

export function intDiv(a: number, b: number, span?: Span): number {
  if (b === 0) fail("index", "integer division by zero", span);
  return (a / b) | 0;
}

function unaryDouble(name: string, f: (x: number) => number, jsName: string, derivative: D.DerivativeRule): PrimRule {
  return {
    arity: 1,
    derivative,
    syntax: { prefix: name },
    type: ([a]) => (a!.k === "double" ? DOUBLE : { expected: "a Double" }),
    evaluate: ([a]) => f(num(a!)),
    js: ([a]) => `${jsName}(${a})`,
  };
}

function compare(infix: string, f: (a: number, b: number) => boolean, jsOp: string, allowBool: boolean): PrimRule {
  return {
    arity: 2,
    derivative: D.NO_TANGENT,
    syntax: { infix },
    type: ([a, b]) =>
      (isNum(a!) || (allowBool && a!.k === "bool")) && a!.k === b!.k
        ? BOOL
        : { expected: allowBool ? "two numbers of the same type, or two Bools" : "two numbers" },
    evaluate: ([a, b]) => f(a as number, b as number),
    js: ([a, b]) => `(${a} ${jsOp} ${b})`,
  };
}

export const PRIMS: { readonly [K in PrimName]: PrimRule } = {
  add: arith(
    { infix: "+" },
    (a, b) => a + b,
    (a, b) => (a + b) | 0,
    (a, b) => `(${a} + ${b})`,
    (a, b) => `((${a} + ${b}) | 0)`,
    D.ADD,
  ),
  sub: arith(
    { infix: "-" },
    (a, b) => a - b,
    (a, b) => (a - b) | 0,
    (a, b) => `(${a} - ${b})`,
    (a, b) => `((${a} - ${b}) | 0)`,
    D.SUB,
  ),
  mul: arith(
    { infix: "*" },
    (a, b) => a * b,
    (a, b) => Math.imul(a, b),
    (a, b) => `(${a} * ${b})`,
    (a, b) => `Math.imul(${a}, ${b})`,
    D.MUL,
  ),
  div: arith(
    { infix: "/" },
    (a, b) => a / b,
    intDiv,
    (a, b) => `(${a} / ${b})`,
    intDivJs,
    D.DIV,
  ),
  pow: arith(
    { infix: "**" },
    (a, b) => a ** b,
    intPow,
    (a, b) => `(${a} ** ${b})`,
    (a, b) => `$rt.intPow(${a}, ${b})`,
    D.POW,
  ),
  max: arith(
    { prefix: "max" },
    (a, b) => Math.max(a, b),
    (a, b) => Math.max(a, b),
    (a, b) => `Math.max(${a}, ${b})`,
    (a, b) => `Math.max(${a}, ${b})`,
    D.MAX,
  ),
  min: arith(
    { prefix: "min" },
    (a, b) => Math.min(a, b),
    (a, b) => Math.min(a, b),
    (a, b) => `Math.min(${a}, ${b})`,
    (a, b) => `Math.min(${a}, ${b})`,
    D.MIN,
  ),
  neg: {
    derivative: D.NEG,
    arity: 1,
    syntax: { prefix: "-" },
    type: ([a]) => (isNum(a!) ? a : { expected: "a number" }),
    evaluate: ([a], [t]) => (t!.k === "int" ? -num(a!) | 0 : -num(a!)),
    js: ([a], [t]) => (t!.k === "int" ? `((-${a}) | 0)` : `(-${a})`),
  },
  sin: unaryDouble("sin", Math.sin, "Math.sin", D.SIN),
  cos: unaryDouble("cos", Math.cos, "Math.cos", D.COS),
  tan: unaryDouble("tan", Math.tan, "Math.tan", D.TAN),
  log: unaryDouble("log", Math.log, "Math.log", D.LOG),
  exp: unaryDouble("exp", Math.exp, "Math.exp", D.EXP),
  sqrt: unaryDouble("sqrt", Math.sqrt, "Math.sqrt", D.SQRT),
  tanh: unaryDouble("tanh", Math.tanh, "Math.tanh", D.TANH),
  floor: unaryDouble("floor", Math.floor, "Math.floor", D.ZERO_TANGENT),
  // The identity on Doubles whose derivative is zero: AD treats its result as a constant (reverse mode gives it no
  // adjoint, so the loop computing its operand is not reversed).
  stopGradient: {
    derivative: D.ZERO_TANGENT,
    arity: 1,
    syntax: { prefix: "stopGradient" },
    type: ([a]) => (a!.k === "double" ? DOUBLE : { expected: "a Double" }),
    evaluate: ([a]) => a!,
    js: ([a]) => a!,
  },
  abs: {
    derivative: D.ABS,
    arity: 1,
    syntax: { prefix: "abs" },
    type: ([a]) => (isNum(a!) ? a : { expected: "a number" }),
    evaluate: ([a], [t]) => (t!.k === "int" ? Math.abs(num(a!)) | 0 : Math.abs(num(a!))),
    js: ([a], [t]) => (t!.k === "int" ? `(Math.abs(${a}) | 0)` : `Math.abs(${a})`),
  },
  toDouble: {
    derivative: D.ZERO_TANGENT,
    arity: 1,
    syntax: { prefix: "double" },
    type: ([a]) => (a!.k === "int" ? DOUBLE : { expected: "an Index" }),
    evaluate: ([a]) => num(a!),
    js: ([a]) => a!,
  },
  lt: compare("<", (a, b) => a < b, "<", false),
  gt: compare(">", (a, b) => a > b, ">", false),
  le: compare("<=", (a, b) => a <= b, "<=", false),
  ge: compare(">=", (a, b) => a >= b, ">=", false),
  eq: compare("=", (a, b) => a === b, "===", true),
  ne: compare("<>", (a, b) => a !== b, "!==", true),
  and: {
    derivative: D.NO_TANGENT,
    arity: 2,
    syntax: { infix: "&&" },
    type: ([a, b]) => (a!.k === "bool" && b!.k === "bool" ? BOOL : { expected: "two Bools" }),
    evaluate: ([a, b]) => (a as boolean) && (b as boolean),
    js: ([a, b]) => `(${a} && ${b})`,
  },
  or: {
    derivative: D.NO_TANGENT,
    arity: 2,
    syntax: { infix: "||" },
    type: ([a, b]) => (a!.k === "bool" && b!.k === "bool" ? BOOL : { expected: "two Bools" }),
    evaluate: ([a, b]) => (a as boolean) || (b as boolean),
    js: ([a, b]) => `(${a} || ${b})`,
  },
  not: {
    derivative: D.NO_TANGENT,
    arity: 1,
    syntax: { prefix: "not" },
    type: ([a]) => (a!.k === "bool" ? BOOL : { expected: "a Bool" }),
    evaluate: ([a]) => !(a as boolean),
    js: ([a]) => `(!${a})`,
  },
  get: {
    derivative: D.STRUCTURAL,
    fallible: true,
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
    js: "array-structural",
  },
  length: {
    derivative: D.STRUCTURAL,
    arity: 1,
    syntax: { prefix: "length" },
    type: ([a]) => (a!.k === "array" ? INT : { expected: "an array" }),
    evaluate: ([a]) => {
      if (!isArrayValue(a!)) throw new Error("length: not an array");
      return arrayLength(a);
    },
    js: "array-structural",
  },
  // The bounds check of `get` on its own: pull-array fusion turns `(build n f)[j]` into `f (checkIndex j n)`, so the
  // fused program fails exactly where the unfused one did. Lowered structurally (src/codegen/emit.ts), like get's check.
  checkIndex: {
    derivative: D.NO_TANGENT,
    fallible: true,
    arity: 2,
    syntax: { prefix: "checkIndex" },
    type: ([j, n]) => (j!.k === "int" && n!.k === "int" ? INT : { expected: "two Indexes" }),
    evaluate: ([j, n], _types, span) => {
      const k = num(j!);
      const m = num(n!);
      if (!(k >= 0 && k < m)) indexOutOfRange(k, m, span);
      return k;
    },
    js: "array-structural",
  },
  // The size precondition of the prelude's map2, reshape and scatter: equal sizes, else one clear shape error.
  // Lowered structurally (src/codegen/emit.ts): the check, then n's own slot, so loops over it keep n's bounds facts.
  sameSize: {
    derivative: D.NO_TANGENT,
    fallible: true,
    arity: 2,
    syntax: { prefix: "sameSize" },
    type: ([n, m]) => (n!.k === "int" && m!.k === "int" ? INT : { expected: "two Indexes" }),
    evaluate: ([n, m], _types, span) => {
      if (n !== m) sizesDiffer(num(n!), num(m!), span);
      return num(n!);
    },
    js: "array-structural",
  },
  ...UPDATE_PRIMS,
  ...TAPE_PRIMS,
};

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
