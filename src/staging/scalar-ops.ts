// Arithmetic, comparisons and the scalar functions, elementwise over arrays.
//
// Numbers: an operation on plain numbers is done by JavaScript at trace time (static); a number meeting a tensor is a
// constant of the program (an Index when the tensor's scalars are Index and the number is an integer, else a
// Double). An Index meeting a Double is promoted (`double i`); arithmetic on two Index values is Smooth's integer
// arithmetic (`/` truncates). An operand that is an array applies the operation to each element (a `build`); the other
// operand is then a scalar used for every element, or an array of the same shape.

import { describeJsValue, stagingFail } from "./errors.js";
import { traceFor, type BinarySymbol, type Operand, type Rhs } from "./graph.js";
import { aStatic, S_BOOL, S_DOUBLE, S_INT, type ArrayStatic, type StaticType } from "./static-type.js";
import { buildArray } from "./control.js";
import {
  emitTensor,
  getElement,
  innerStatic,
  lengthOperand,
  litOperand,
  nodeOperand,
  pairedLength,
  Tensor,
  toOperand,
  type Scalar,
} from "./tensor.js";

type ArithmeticName = "add" | "sub" | "mul" | "div" | "pow" | "max" | "min";
type BinaryName = ArithmeticName | "lt" | "gt" | "le" | "ge" | "eq" | "ne" | "and" | "or";
type UnaryName = "neg" | "abs" | "exp" | "log" | "sin" | "cos" | "tan" | "tanh" | "sqrt" | "floor" | "stopGradient";

interface BinaryRule {
  /** The operator, or the builtin function (max, min). */
  readonly syntax: { readonly op: BinarySymbol } | { readonly fn: string };
  readonly kind: "arithmetic" | "comparison" | "logical";
  readonly js: (a: number, b: number) => number | boolean;
}

const BINARY: Readonly<Record<BinaryName, BinaryRule>> = {
  add: { syntax: { op: "+" }, kind: "arithmetic", js: (a, b) => a + b },
  sub: { syntax: { op: "-" }, kind: "arithmetic", js: (a, b) => a - b },
  mul: { syntax: { op: "*" }, kind: "arithmetic", js: (a, b) => a * b },
  div: { syntax: { op: "/" }, kind: "arithmetic", js: (a, b) => a / b },
  pow: { syntax: { op: "**" }, kind: "arithmetic", js: (a, b) => a ** b },
  max: { syntax: { fn: "max" }, kind: "arithmetic", js: (a, b) => Math.max(a, b) },
  min: { syntax: { fn: "min" }, kind: "arithmetic", js: (a, b) => Math.min(a, b) },
  lt: { syntax: { op: "<" }, kind: "comparison", js: (a, b) => a < b },
  gt: { syntax: { op: ">" }, kind: "comparison", js: (a, b) => a > b },
  le: { syntax: { op: "<=" }, kind: "comparison", js: (a, b) => a <= b },
  ge: { syntax: { op: ">=" }, kind: "comparison", js: (a, b) => a >= b },
  eq: { syntax: { op: "=" }, kind: "comparison", js: (a, b) => a === b },
  ne: { syntax: { op: "<>" }, kind: "comparison", js: (a, b) => a !== b },
  and: { syntax: { op: "&&" }, kind: "logical", js: () => stagingFail("`and` works on staged Bools") },
  or: { syntax: { op: "||" }, kind: "logical", js: () => stagingFail("`or` works on staged Bools") },
};

/** Unary functions; `onIndex`: defined on Index (else an Index argument is promoted to Double). */
const UNARY: Readonly<Record<UnaryName, { readonly js: (x: number) => number; readonly onIndex: boolean }>> = {
  neg: { js: (x) => -x, onIndex: true },
  abs: { js: Math.abs, onIndex: true },
  exp: { js: Math.exp, onIndex: false },
  log: { js: Math.log, onIndex: false },
  sin: { js: Math.sin, onIndex: false },
  cos: { js: Math.cos, onIndex: false },
  tan: { js: Math.tan, onIndex: false },
  tanh: { js: Math.tanh, onIndex: false },
  sqrt: { js: Math.sqrt, onIndex: false },
  floor: { js: Math.floor, onIndex: false },
  stopGradient: { js: (x) => x, onIndex: false },
};

/** A binary operation: on two numbers a number (computed now), else a tensor (elementwise over arrays). */
export interface BinaryOp {
  (a: number, b: number): number;
  (a: Scalar, b: Scalar): Tensor;
}
/** A comparison: on two numbers a JavaScript boolean (computed now), else a staged Bool (elementwise over arrays). */
export interface CompareOp {
  (a: number, b: number): boolean;
  (a: Scalar, b: Scalar): Tensor;
}
/** A unary function: on a number a number (computed now), else a tensor (elementwise over arrays). */
export interface UnaryOp {
  (a: number): number;
  (a: Scalar): Tensor;
}

const binaryOp = (name: BinaryName) => ((a: Scalar, b: Scalar) => binary(name, a, b)) as BinaryOp;
const compareOp = (name: BinaryName) => ((a: Scalar, b: Scalar) => binary(name, a, b)) as CompareOp;
const unaryOp = (name: UnaryName) => ((a: Scalar) => unary(name, a)) as UnaryOp;

/** a + b */
export const add = binaryOp("add");
/** a - b */
export const sub = binaryOp("sub");
/** a * b */
export const mul = binaryOp("mul");
/** a / b (on two Index tensors: integer division, truncating) */
export const div = binaryOp("div");
/** a ** b */
export const pow = binaryOp("pow");
/** The larger of a and b. */
export const max = binaryOp("max");
/** The smaller of a and b. */
export const min = binaryOp("min");
/** a < b */
export const lt = compareOp("lt");
/** a > b */
export const gt = compareOp("gt");
/** a <= b */
export const le = compareOp("le");
/** a >= b */
export const ge = compareOp("ge");
/** a = b */
export const eq = compareOp("eq");
/** a ≠ b */
export const ne = compareOp("ne");
/** -a */
export const neg = unaryOp("neg");
/** |a| */
export const abs = unaryOp("abs");
/** e^a */
export const exp = unaryOp("exp");
/** The natural logarithm. */
export const log = unaryOp("log");
export const sin = unaryOp("sin");
export const cos = unaryOp("cos");
export const tan = unaryOp("tan");
export const tanh = unaryOp("tanh");
export const sqrt = unaryOp("sqrt");
export const floor = unaryOp("floor");
/** a in value, with derivative zero: differentiation treats it as a constant (JAX's lax.stop_gradient). */
export const stopGradient = unaryOp("stopGradient");

/** Both staged Bools (Smooth's `&&`). */
export function and(a: Tensor, b: Tensor): Tensor {
  return binary("and", a, b) as Tensor;
}

/** Either staged Bool (Smooth's `||`). */
export function or(a: Tensor, b: Tensor): Tensor {
  return binary("or", a, b) as Tensor;
}

/** The negation of a staged Bool. */
export function not(a: Tensor): Tensor {
  const { operand, type } = toOperand(a, "not", "its argument");
  if (type.k !== "bool") stagingFail(`\`not\`: its argument must be a Bool, but it is ${aStatic(type)}`);
  return emitTensor(traceFor("not"), { kind: "call", fn: "not", args: [operand] }, S_BOOL);
}

/** An Index (or array of Index) as Double; a Double is returned as it is. */
export const toDouble = ((a: Scalar): Scalar => {
  if (typeof a === "number") return a;
  const { operand, type } = toOperand(a, "toDouble", "its argument");
  if (type.k === "array") return mapElements("toDouble", a, (e) => toDouble(e));
  if (type.k === "double") return a;
  if (type.k !== "int") stagingFail(`\`toDouble\`: its argument must be an Index, but it is ${aStatic(type)}`);
  return emitTensor(traceFor("toDouble"), { kind: "call", fn: "double", args: [operand] }, S_DOUBLE);
}) as UnaryOp;

/** The integer k as a staged Index constant (for an Index loop state or branch result). */
export function index(k: number): Tensor {
  if (!Number.isInteger(k) || Math.abs(k) > 0x7fffffff)
    stagingFail(`\`index\`: ${describeJsValue(k)} is not a 32-bit integer`);
  return emitTensor(traceFor("index"), { kind: "value", value: litOperand(k, "int") }, S_INT);
}

function binary(name: BinaryName, a: unknown, b: unknown): Scalar | boolean {
  const rule = BINARY[name];
  if (typeof a === "number" && typeof b === "number") return rule.js(a, b);
  const x = operandOf(a, b, name, "the first operand");
  const y = operandOf(b, a, name, "the second operand");
  if (x.type.k === "array" || y.type.k === "array") {
    const [p, q] = [local(x, a), local(y, b)];
    return elementwise(name, p, q, x.type, y.type, (e, f) => binary(name, e, f) as Scalar);
  }
  const kx = x.type.k;
  const ky = y.type.k;
  const both = `${aStatic(x.type)} and ${aStatic(y.type)}`;
  if (rule.kind === "logical" || kx === "bool" || ky === "bool") {
    const allowed = rule.kind === "logical" || name === "eq" || name === "ne";
    if (!allowed || kx !== "bool" || ky !== "bool") stagingFail(`\`${name}\` cannot combine ${both}`);
    return emitBinary(name, x.operand, y.operand, S_BOOL);
  }
  // Both numeric: the same kind, or an Index promoted to Double.
  const kind = kx === ky ? kx : "double";
  const left = kind === "double" && kx === "int" ? promote(name, x.operand) : x.operand;
  const right = kind === "double" && ky === "int" ? promote(name, y.operand) : y.operand;
  const result = rule.kind === "comparison" ? S_BOOL : kind === "int" ? S_INT : S_DOUBLE;
  return emitBinary(name, left, right, result);
}

function emitBinary(name: BinaryName, left: Operand, right: Operand, type: StaticType): Tensor {
  const s = BINARY[name].syntax;
  const rhs: Rhs =
    "op" in s ? { kind: "binop", op: s.op, left, right } : { kind: "call", fn: s.fn, args: [left, right] };
  return emitTensor(traceFor(name), rhs, type);
}

/** The operand for `v`; a number is an Index when the other operand's scalars are Index and the number an integer. */
function operandOf(v: unknown, other: unknown, op: string, what: string): { operand: Operand; type: StaticType } {
  if (Array.isArray(v)) {
    stagingFail(`\`${op}\`: ${what} is a tuple (a JavaScript array); \`${op}\` works on numbers, scalars and arrays`);
  }
  const hint = other instanceof Tensor ? innerStatic(other.node.type) : undefined;
  const r = toOperand(v, op, what, hint);
  if (innerStatic(r.type).k === "tuple") {
    stagingFail(`\`${op}\`: ${what} is ${aStatic(r.type)}; \`${op}\` works on arrays of scalars`);
  }
  return r;
}

/**
 * The operand as the tensor the active trace uses for it: data the trace captured, or an enclosing trace's tensor,
 * becomes the parameter standing for it (see toOperand); anything else stays as it was given.
 */
const local = (o: { operand: Operand }, given: unknown): Scalar =>
  o.operand.kind === "node" ? new Tensor(o.operand.node) : (given as Scalar);

/** `double x` for an Index operand (a literal is simply retyped). */
function promote(op: string, o: Operand): Operand {
  if (o.kind === "lit") return litOperand(o.value, "double");
  return nodeOperand(emitTensor(traceFor(op), { kind: "call", fn: "double", args: [o] }, S_DOUBLE).node);
}

function unary(name: UnaryName, a: unknown): Scalar {
  const rule = UNARY[name];
  if (typeof a === "number") return rule.js(a);
  const { operand, type } = operandOf(a, undefined, name, "its argument");
  if (type.k === "array") return mapElements(name, local({ operand }, a) as Tensor, (e) => unary(name, e));
  if (type.k === "bool") stagingFail(`\`${name}\` cannot take a Bool`);
  const arg = type.k === "int" && !rule.onIndex ? promote(name, operand) : operand;
  const result = type.k === "int" && rule.onIndex ? S_INT : S_DOUBLE;
  const rhs: Rhs = name === "neg" ? { kind: "neg", arg } : { kind: "call", fn: name, args: [arg] };
  return emitTensor(traceFor(name), rhs, result);
}

/** `build (length a) (fun i -> f a[i])`. */
function mapElements(op: string, a: Tensor, f: (e: Tensor) => Scalar): Tensor {
  return buildArray(lengthOperand(a, op), staticLength(a), (i) => f(getElement(a, i, op)), op);
}

const staticLength = (a: Tensor): number | undefined => (a.node.type as ArrayStatic).length;

/** A binary operation with an array operand: elementwise, the two arrays of the same shape, a scalar broadcast. */
function elementwise(
  op: string,
  a: Scalar,
  b: Scalar,
  ta: StaticType,
  tb: StaticType,
  f: (x: Scalar, y: Scalar) => Scalar,
): Tensor {
  const arrayA = ta.k === "array" ? (a as Tensor) : undefined;
  const arrayB = tb.k === "array" ? (b as Tensor) : undefined;
  if (arrayA && arrayB) {
    checkSameShape(op, ta, tb);
    const { count, length } = pairedLength(op, arrayA, arrayB);
    return buildArray(count, length, (i) => f(getElement(arrayA, i, op), getElement(arrayB, i, op)), op);
  }
  const arr = (arrayA ?? arrayB)!;
  return buildArray(
    lengthOperand(arr, op),
    staticLength(arr),
    (i) => f(arrayA ? getElement(arrayA, i, op) : a, arrayB ? getElement(arrayB, i, op) : b),
    op,
  );
}

/** Arrays combined elementwise need the same rank and the same lengths (where known at trace time). */
function checkSameShape(op: string, ta: StaticType, tb: StaticType): void {
  let x = ta;
  let y = tb;
  for (; x.k === "array" && y.k === "array"; x = x.elem, y = y.elem) {
    if (x.length !== undefined && y.length !== undefined && x.length !== y.length) break;
  }
  if (x.k === "array" || y.k === "array") {
    stagingFail(`\`${op}\`: the operands have different shapes: ${aStatic(ta)} and ${aStatic(tb)}`);
  }
}
