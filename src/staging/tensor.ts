// The tracer: a Tensor stands for a Double, Index or Bool scalar, or an array, computed by the program being staged.
// A tuple is a JavaScript array of staged values. This file also holds what every operation needs: turning the
// user's JavaScript values into operands (with clear errors for what cannot be staged), and the intrinsic array
// operations a Tensor exposes as members (length, shape, at).

import { showType, type Type } from "../types/types.js";
import { describeJsValue, stagingFail } from "./errors.js";
import {
  activeTrace,
  checkVisible,
  isEnclosing,
  traceFor,
  type Node,
  type Operand,
  type Pattern,
  type Rhs,
  type Trace,
} from "./graph.js";
import {
  aStatic,
  describeStatic,
  S_BOOL,
  S_DOUBLE,
  S_INT,
  typeOfStatic,
  type ArrayStatic,
  type StaticType,
} from "./static-type.js";

/**
 * A staged value: a symbolic scalar (Double, Index or Bool) or array. Operations on tensors record the program instead
 * of computing; JavaScript operators and control flow cannot see them (using a tensor as a JavaScript number or in an
 * `if` condition throws) — use the staged operations (`add`, `lt`, `cond`, ...).
 *
 * Members: `length` and `shape` are plain numbers where the lengths are known at trace time (else Index tensors);
 * `at(i)` reads element i (as `get`).
 */
export class Tensor {
  /** @internal The trace node this tensor names. */
  readonly node: Node;

  /** @internal Tensors are created by the tracer only. */
  constructor(node: Node) {
    this.node = node;
  }

  /** The Smooth type of the value. */
  get type(): Type {
    return typeOfStatic(this.node.type);
  }

  /** The number of array levels (0 for a scalar). */
  get rank(): number {
    let r = 0;
    for (let t = this.node.type; t.k === "array"; t = t.elem) r++;
    return r;
  }

  /** The number of elements along the first dimension: a number when known at trace time, else an Index tensor. */
  get length(): number | Tensor {
    return lengthOf(this, "length");
  }

  /** The length of each array level (numbers where known at trace time, else Index tensors). */
  get shape(): (number | Tensor)[] {
    return shapeOf(this);
  }

  /** Element i (i a number or an Index tensor), as `get(x, i)`. */
  at(i: number | Tensor): Tensor {
    return getElement(this, i, "at");
  }

  toString(): string {
    return `Tensor(${describeStatic(this.node.type)} ${this.node.name})`;
  }

  /** console.log shows the type and name, not the trace graph behind the tensor. */
  [Symbol.for("nodejs.util.inspect.custom")](): string {
    return this.toString();
  }

  [Symbol.toPrimitive](): never {
    return stagingFail(
      `a staged ${showType(this.type)} (${this.node.name}) was used as a JavaScript value (in an \`if\`, a JavaScript ` +
        "operator, a comparison, a string or a property key); JavaScript cannot see staged values: use the staged " +
        "operations instead (add, mul, lt, cond, ...)",
    );
  }

  valueOf(): never {
    return this[Symbol.toPrimitive]();
  }
}

/**
 * A value of the staged program as JavaScript sees it: a tensor, a constant number, or a tuple (a JavaScript array).
 */
export type Staged = Tensor | number | readonly Staged[];

/** The staged value of the same structure as S: numbers become tensors (a loop state or a branch result). */
export type Traced<S> = S extends Tensor | number ? Tensor : { -readonly [K in keyof S]: Traced<S[K]> };

/**
 * An element of an array as a traced function receives it: a Tensor, or for an array of tuples a JavaScript array.
 * Functions given to `map`, `map2`, `reduce`, ... take their element type as a parameter, Tensor unless annotated.
 */
export type Element = Tensor | Staged[];

/** A number or a tensor: a scalar operand. */
export type Scalar = Tensor | number;

export function fromPattern(p: Pattern): Staged {
  return Array.isArray(p) ? (p as readonly Pattern[]).map(fromPattern) : new Tensor(p as Node);
}

/**
 * A parameter as the traced function sees it: a tensor, or a tuple destructured by a binding (`let (x1_0, x1_1) = x1`).
 */
export function parameterValue(trace: Trace, param: Node): Staged {
  if (param.type.k !== "tuple") return new Tensor(param);
  return fromPattern(trace.bind({ kind: "value", value: nodeOperand(param) }, param.type, "t", param.name));
}

export interface TypedOperand {
  readonly operand: Operand;
  readonly type: StaticType;
}

export const litOperand = (value: number, type: "double" | "int"): Operand => ({ kind: "lit", value, type });
export const nodeOperand = (node: Node): Operand => ({ kind: "node", node });

/** What the library makes of data a traced function reads (see `setDataCapture`). */
export interface DataCapture {
  /** Identifies the data: the same data read twice is one parameter. */
  readonly key: unknown;
  /** The data's type, with its lengths (the trace takes them as constants). */
  readonly type: StaticType;
  /** What the library needs to pass the data's contents at each call. */
  readonly payload: unknown;
}

let dataCapture: (value: unknown) => DataCapture | undefined = () => undefined;

/**
 * Sets how data a traced function reads from outside (a Float64Array it closed over, an NDArray) becomes a parameter
 * of the trace: the library describes it (its type and lengths) and passes its contents at each call, so the data is
 * never written into the program. Values it returns undefined for are refused as before.
 */
export function setDataCapture(describe: (value: unknown) => DataCapture | undefined): void {
  dataCapture = describe;
}

/**
 * The node to use for tensor `t` in the active trace: t's own where the active trace made it (checked visible here),
 * or the parameter capturing it when an enclosing trace made it (a closure traced inside another trace).
 */
function localNode(t: Tensor, op: string): Node {
  const trace = activeTrace();
  const home = t.node.scope.trace;
  if (trace && home !== trace && isEnclosing(home)) return trace.capture(t.node, t.node.type, t);
  checkVisible(t.node, op);
  return t.node;
}

/** Data the active trace reads from outside, as the parameter capturing it (undefined: not data the library takes). */
function capturedData(v: unknown): Node | undefined {
  const trace = activeTrace();
  if (!trace || typeof v !== "object" || v === null) return undefined;
  const data = dataCapture(v);
  return data && trace.capture(data.key, data.type, data.payload);
}

/**
 * A user's value as an operand of `op`, with its static type. Numbers are Double constants unless `hint` asks for an
 * Index and the number is an integer. `what` names the value in messages ("the first operand", "the result").
 */
export function toOperand(v: unknown, op: string, what: string, hint?: StaticType): TypedOperand {
  if (v instanceof Tensor) {
    const node = localNode(v, op);
    return { operand: nodeOperand(node), type: node.type };
  }
  if (typeof v === "number") {
    const index = hint?.k === "int" && Number.isInteger(v) && Math.abs(v) <= 0x7fffffff;
    if (index) return { operand: litOperand(v, "int"), type: S_INT };
    return { operand: litOperand(v, "double"), type: S_DOUBLE };
  }
  const data = Array.isArray(v) ? undefined : capturedData(v);
  if (data) return { operand: nodeOperand(data), type: data.type };
  if (Array.isArray(v)) {
    if (v.length < 2) {
      stagingFail(
        `\`${op}\`: ${what} is ${describeJsValue(v)}; a tuple (a JavaScript array) needs at least two elements`,
      );
    }
    const hints = hint?.k === "tuple" && hint.elems.length === v.length ? hint.elems : undefined;
    const parts = v.map((e, k) => toOperand(e, op, `element ${k} of ${what}`, hints?.[k]));
    return {
      operand: { kind: "tuple", elems: parts.map((p) => p.operand) },
      type: { k: "tuple", elems: parts.map((p) => p.type) },
    };
  }
  const advice =
    typeof v === "boolean"
      ? "; decide a JavaScript boolean with a JavaScript `if` (static control flow), " +
        "or compare tensors (lt, eq, ...) for a staged Bool"
      : " (expected a tensor, a number, or a JavaScript array of those for a tuple)";
  return stagingFail(`\`${op}\`: ${what} is ${describeJsValue(v)}, which cannot be staged${advice}`);
}

/** A tensor argument of `op` (not a number or tuple), visible here. */
export function tensorArg(v: unknown, op: string, what: string): Tensor {
  if (!(v instanceof Tensor)) {
    const data = capturedData(v);
    if (data) return new Tensor(data);
    return stagingFail(`\`${op}\`: ${what} must be a tensor, but it is ${describeJsValue(v)}`);
  }
  const node = localNode(v, op);
  return node === v.node ? v : new Tensor(node);
}

/** An array tensor argument of `op`, with its static type. */
export function arrayArg(v: unknown, op: string, what: string): { t: Tensor; type: ArrayStatic } {
  const t = tensorArg(v, op, what);
  const type = t.node.type;
  if (type.k !== "array") stagingFail(`\`${op}\`: ${what} must be an array, but it is ${aStatic(type)}`);
  return { t, type };
}

/** An Index operand (a count or an index): an integer number or an Index tensor. */
export function indexOperand(v: unknown, op: string, what: string): { operand: Operand; value?: number } {
  if (typeof v === "number") {
    if (!Number.isInteger(v) || Math.abs(v) > 0x7fffffff) {
      stagingFail(`\`${op}\`: ${what} must be a 32-bit integer, but it is ${v}`);
    }
    return { operand: litOperand(v, "int"), value: v };
  }
  const t = tensorArg(v, op, what);
  if (t.node.type.k !== "int") stagingFail(`\`${op}\`: ${what} must be an Index, but it is ${aStatic(t.node.type)}`);
  return { operand: nodeOperand(t.node) };
}

/** A count (of a build, a loop, a vector): a non-negative integer or an Index tensor. */
export function countOperand(v: unknown, op: string, what: string): { operand: Operand; value?: number } {
  const c = indexOperand(v, op, what);
  if (c.value !== undefined && c.value < 0)
    stagingFail(`\`${op}\`: ${what} must not be negative, but it is ${c.value}`);
  return c;
}

/** Binds `rhs` in the current scope and returns the staged value (a tensor, or a JavaScript array for a tuple). */
export function emit(trace: Trace, rhs: Rhs, type: StaticType, prefix?: string): Staged {
  return fromPattern(trace.bind(rhs, type, prefix));
}

/** `emit` for a result that is a scalar or an array (never a tuple). */
export function emitTensor(trace: Trace, rhs: Rhs, type: StaticType, prefix?: string): Tensor {
  return emit(trace, rhs, type, prefix) as Tensor;
}

/**
 * The length of x's first dimension: a number when known at trace time, else `length x`, computed once, in the scope
 * where x is defined (it cannot fail and costs nothing, so a loop body reading it does not recompute it).
 */
export function lengthOf(x: Tensor, op: string): number | Tensor {
  const { t, type } = arrayArg(x, op, "its argument");
  if (type.length !== undefined) return type.length;
  const trace = traceFor(op);
  const known = trace.current.knownLength(t.node);
  if (known) return new Tensor(known);
  const home = t.node.scope;
  const n = fromPattern(
    trace.bindIn(home, { kind: "call", fn: "length", args: [nodeOperand(t.node)] }, S_INT),
  ) as Tensor;
  home.lengths.set(t.node.id, n.node);
  return n;
}

/** The lengths of every array level; an unknown inner length is `if length x = 0 then 0 else <length of x[0]>`. */
function shapeOf(x: Tensor): (number | Tensor)[] {
  const dims: (number | Tensor)[] = [lengthOf(x, "shape")];
  const elem = (x.node.type as ArrayStatic).elem;
  if (elem.k !== "array") return dims;
  if (!hasUnknownLength(elem)) {
    for (let t: StaticType = elem; t.k === "array"; t = t.elem) dims.push(t.length!);
    return dims;
  }
  const trace = traceFor("shape");
  const first = dims[0]!;
  if (typeof first === "number") {
    // Known non-empty: the inner lengths are those of x[0]; known empty: every inner length of an empty array is 0.
    if (first > 0) return [first, ...shapeOf(getElement(x, 0, "shape"))];
    for (let t: StaticType = elem; t.k === "array"; t = t.elem) dims.push(0);
    return dims;
  }
  // `empty`: some length before this level is 0 (then x[0]... cannot be read, and every further length is 0).
  const isZero = (n: Tensor) =>
    emitTensor(trace, { kind: "binop", op: "=", left: nodeOperand(n.node), right: litOperand(0, "int") }, S_BOOL);
  let empty = isZero(first);
  for (let depth = 1, t: StaticType = elem; t.k === "array"; depth++, t = t.elem) {
    if (t.length === 0) {
      for (let u: StaticType = t; u.k === "array"; u = u.elem) dims.push(0);
      return dims;
    }
    if (t.length !== undefined) {
      dims.push(t.length);
      continue;
    }
    const level = depth;
    const thenBlock = trace.nested("the `shape` of an empty array", (scope) => ({
      scope,
      result: litOperand(0, "int"),
    }));
    const elseBlock = trace.nested("the `shape` of a non-empty array", (scope) => {
      let row: Tensor = x;
      for (let k = 0; k < level; k++) row = getElement(row, 0, "shape");
      return { scope, result: nodeOperand((lengthOf(row, "shape") as Tensor).node) };
    });
    const dim = emitTensor(
      trace,
      { kind: "if", cond: nodeOperand(empty.node), then: thenBlock, else: elseBlock },
      S_INT,
    );
    dims.push(dim);
    if (t.elem.k === "array") {
      const zero = isZero(dim);
      empty = emitTensor(
        trace,
        { kind: "binop", op: "||", left: nodeOperand(empty.node), right: nodeOperand(zero.node) },
        S_BOOL,
      );
    }
  }
  return dims;
}

function hasUnknownLength(t: StaticType): boolean {
  if (t.k === "array") return t.length === undefined || hasUnknownLength(t.elem);
  if (t.k === "tuple") return t.elems.some(hasUnknownLength);
  return false;
}

/**
 * x[i] as a staged value (a JavaScript array for an array of tuples); a static index is checked against a static
 * length.
 */
export function getStaged(x: unknown, i: unknown, op: string): Staged {
  const { t, type } = arrayArg(x, op, "the indexed value");
  const idx = indexOperand(i, op, "the index");
  if (idx.value !== undefined) {
    const n = type.length;
    if (idx.value < 0 || (n !== undefined && idx.value >= n)) {
      stagingFail(`\`${op}\`: index ${idx.value} is out of range for ${aStatic(type)}`);
    }
  }
  return emit(traceFor(op), { kind: "index", array: nodeOperand(t.node), index: idx.operand }, type.elem);
}

/** x[i] for an array whose elements are scalars or arrays. */
export function getElement(x: unknown, i: unknown, op: string): Tensor {
  const elem = arrayArg(x, op, "the indexed value").type.elem;
  if (elem.k === "tuple") {
    stagingFail(`\`${op}\`: the elements are tuples (${showType(typeOfStatic(elem))}); read them with \`getTuple\``);
  }
  return getStaged(x, i, op) as Tensor;
}

/** The length of x's first dimension as an operand (a literal when known at trace time). */
export function lengthOperand(x: Tensor, op: string): Operand {
  const n = lengthOf(x, op);
  return typeof n === "number" ? litOperand(n, "int") : nodeOperand(n.node);
}

/**
 * The common length of two arrays that `op` pairs up element by element: a static mismatch is an error now; when a
 * length is known only at run time, the count is `sameSize (length a) (length b)`, which fails there with a shape
 * error.
 */
export function pairedLength(
  op: string,
  a: Tensor,
  b: Tensor,
  whatA = "the first operand",
  whatB = "the second operand",
): { count: Operand; length: number | undefined } {
  const la = (a.node.type as ArrayStatic).length;
  const lb = (b.node.type as ArrayStatic).length;
  if (la !== undefined && lb !== undefined) {
    if (la !== lb) {
      const shapes = `${aStatic(a.node.type)} and ${aStatic(b.node.type)}`;
      stagingFail(`\`${op}\`: ${whatA} and ${whatB} have different lengths: ${shapes}`);
    }
    return { count: litOperand(la, "int"), length: la };
  }
  const na = lengthOperand(a, op);
  const nb = lengthOperand(b, op);
  // The same array twice (or two arrays whose length is one value) needs no check.
  if (na.kind === "node" && nb.kind === "node" && na.node === nb.node) return { count: na, length: undefined };
  const n = emitTensor(traceFor(op), { kind: "call", fn: "sameSize", args: [na, nb] }, S_INT);
  return { count: nodeOperand(n.node), length: la ?? lb };
}

/** The scalar type at the bottom of an array type (the type itself for a scalar or a tuple). */
export function innerStatic(t: StaticType): StaticType {
  while (t.k === "array") t = t.elem;
  return t;
}
