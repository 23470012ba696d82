// Array operations written with the tracer itself: indexing, lengths, sums, dot products, maps, tuples of arrays.

import { buildArray, checkFunction } from "./control.js";
import { describeJsValue, stagingFail } from "./errors.js";
import { traceFor } from "./graph.js";
import { aStatic, describeStatic, joinStatic, sameType, sArray, S_INT, type StaticType } from "./static-type.js";
import { mul } from "./scalar-ops.js";
import { callPrelude, vectorArg } from "./prelude-ops.js";
import {
  arrayArg,
  emitTensor,
  getElement,
  getStaged,
  innerStatic,
  lengthOf,
  lengthOperand,
  litOperand,
  nodeOperand,
  pairedLength,
  Tensor,
  toOperand,
  type Element,
  type Staged,
} from "./tensor.js";

/** x[i], or x[i][j]... with several indexes (each a number or an Index tensor). A static index is range-checked now. */
export function get(x: Tensor, ...indexes: (number | Tensor)[]): Tensor {
  if (indexes.length === 0) stagingFail("`get`: no index given");
  let v = x;
  for (const i of indexes) v = getElement(v, i, "get");
  return v;
}

/** Element i of an array of tuples, as a JavaScript array of its components. */
export function getTuple(x: Tensor, i: number | Tensor): Staged[] {
  const { type } = arrayArg(x, "getTuple", "the indexed value");
  if (type.elem.k !== "tuple") {
    stagingFail(`\`getTuple\`: the elements are not tuples (the array is ${aStatic(type)}); use \`get\``);
  }
  return getStaged(x, i, "getTuple") as Staged[];
}

/** The number of elements of x (its first dimension): a number when known at trace time, else an Index tensor. */
export function length(x: Tensor): number | Tensor {
  return lengthOf(x, "length");
}

/** The lengths of all array levels of x (numbers where known at trace time, else Index tensors). */
export function shape(x: Tensor): (number | Tensor)[] {
  arrayArg(x, "shape", "its argument");
  return x.shape;
}

/** The sum of all the elements of an array of numbers (of any rank). */
export function sum(x: Tensor): Tensor {
  const { t, type } = arrayArg(x, "sum", "its argument");
  const scalar = innerStatic(type);
  if (scalar.k !== "double" && scalar.k !== "int") {
    stagingFail(`\`sum\`: its argument must be an array of numbers, but it is ${aStatic(type)}`);
  }
  if (type.elem.k === "array") {
    // The sum of the sums of the rows.
    return sum(buildArray(lengthOperand(t, "sum"), type.length, (i) => sum(getElement(t, i, "sum")), "sum"));
  }
  // The prelude's `sum` is the Vector one; `vectorSum` also sums Index vectors.
  return callPrelude("sum", scalar.k === "double" ? "sum" : "vectorSum", [nodeOperand(t.node)], scalar);
}

/** The dot product of two vectors of the same length. */
export function dot(a: Tensor, b: Tensor): Tensor {
  const x = vectorArg(a, "dot", "the first operand", "numeric");
  const y = vectorArg(b, "dot", "the second operand", "numeric");
  if (x.type.length !== undefined && y.type.length !== undefined && x.type.length !== y.type.length) {
    stagingFail(`\`dot\`: the vectors have different lengths: ${aStatic(x.type)} and ${aStatic(y.type)}`);
  }
  const bothDouble = x.type.elem.k === "double" && y.type.elem.k === "double";
  const sameLength = x.t.node === y.t.node || (x.type.length !== undefined && x.type.length === y.type.length);
  if (bothDouble && sameLength) {
    return callPrelude("dot", "vectorDot", [nodeOperand(x.t.node), nodeOperand(y.t.node)], x.type.elem);
  }
  // Lengths known only at run time (or different now: `mul` reports it): checked elementwise product, then the sum.
  return sum(mul(x.t, y.t));
}

/** The array of f(x[0]), ..., f(x[n-1]); an element that is a tuple reaches f as a JavaScript array. */
export function map<E extends Element = Tensor>(f: (e: E) => Staged, x: Tensor): Tensor {
  const { t, type } = arrayArg(x, "map", "the array");
  checkFunction(f, "map", "the function");
  return buildArray(lengthOperand(t, "map"), type.length, (i) => f(getStaged(t, i, "map") as E), "map");
}

/** The array of pairs (a[i], b[i]); a and b must have the same length. */
export function zip(a: Tensor, b: Tensor): Tensor {
  const x = arrayArg(a, "zip", "the first array").t;
  const y = arrayArg(b, "zip", "the second array").t;
  const { count, length: n } = pairedLength("zip", x, y, "the first array", "the second array");
  return buildArray(count, n, (i) => [getStaged(x, i, "zip"), getStaged(y, i, "zip")], "zip");
}

/** An array of tuples as a JavaScript array of arrays, one per component (the inverse of `zip`). */
export function unzip(x: Tensor): Tensor[] {
  const { t, type } = arrayArg(x, "unzip", "its argument");
  if (type.elem.k !== "tuple") stagingFail(`\`unzip\`: the elements must be tuples, but the array is ${aStatic(type)}`);
  return type.elem.elems.map((_, k) =>
    buildArray(lengthOperand(t, "unzip"), type.length, (i) => (getStaged(t, i, "unzip") as Staged[])[k], "unzip"),
  );
}

/** m v: the vector of the dot products of m's rows with v. */
export function matrixVectorMult(m: Tensor, v: Tensor): Tensor {
  const rows = arrayArg(m, "matrixVectorMult", "the matrix");
  const vec = vectorArg(v, "matrixVectorMult", "the vector", "numeric");
  const row = rows.type.elem;
  if (row.k !== "array" || (row.elem.k !== "double" && row.elem.k !== "int")) {
    stagingFail(`\`matrixVectorMult\`: the matrix must be a Matrix, but it is ${aStatic(rows.type)}`);
  }
  if (row.length !== undefined && vec.type.length !== undefined && row.length !== vec.type.length) {
    stagingFail(
      `\`matrixVectorMult\`: the matrix has ${row.length} columns but the vector has ${vec.type.length} elements`,
    );
  }
  const op = "matrixVectorMult";
  return buildArray(lengthOperand(rows.t, op), rows.type.length, (i) => dot(getElement(m, i, op), v), op);
}

/**
 * The array [e0, e1, ...] of the given elements (tensors or numbers of one type; at least one). Written as a chain of
 * `setAt` on `replicate n e0`, which compiled code updates in place.
 */
export function stack(elems: readonly Staged[]): Tensor {
  const op = "stack";
  if (!Array.isArray(elems) || elems.length === 0) {
    stagingFail(`\`stack\`: expected a non-empty JavaScript array of elements, but got ${describeJsValue(elems)}`);
  }
  const trace = traceFor(op);
  // Numbers take the type of the first element that is not a number (an Index vector may list integers).
  const typed: Staged | undefined = elems.find((e: Staged) => typeof e !== "number");
  const hint = typed === undefined ? undefined : toOperand(typed, op, `element ${elems.indexOf(typed)}`).type;
  const first = toOperand(elems[0], op, "element 0", hint);
  let type: StaticType = first.type;
  const rest = elems.slice(1).map((e, k) => {
    const o = toOperand(e, op, `element ${k + 1}`, type);
    if (!sameType(o.type, type)) {
      stagingFail(`\`stack\`: element ${k + 1} is ${aStatic(o.type)}, but element 0 is ${aStatic(type)}`);
    }
    type = joinStatic(type, o.type);
    return o.operand;
  });
  const n = elems.length;
  const result = sArray(n, type);
  let acc = emitTensor(trace, { kind: "call", fn: "replicate", args: [litOperand(n, "int"), first.operand] }, result);
  rest.forEach((o, k) => {
    acc = emitTensor(
      trace,
      { kind: "call", fn: "setAt", args: [nodeOperand(acc.node), litOperand(k + 1, "int"), o] },
      result,
    );
  });
  return acc;
}

/** x with element i replaced by v (a copy; compiled code updates in place when x is not used afterwards). */
export function setAt(x: Tensor, i: number | Tensor, v: Staged): Tensor {
  return update("setAt", x, i, v);
}

/** x with v added to element i (a copy; compiled code updates in place when x is not used afterwards). */
export function addAt(x: Tensor, i: number | Tensor, v: Staged): Tensor {
  return update("addAt", x, i, v);
}

function update(op: "setAt" | "addAt", x: Tensor, i: number | Tensor, v: Staged): Tensor {
  const { t, type } = arrayArg(x, op, "the array");
  if (op === "addAt" && innerStatic(type).k !== "double" && innerStatic(type).k !== "int") {
    stagingFail(`\`addAt\`: the array must hold numbers, but it is ${aStatic(type)}`);
  }
  const idx = toOperand(i, op, "the index", S_INT);
  if (idx.type.k !== "int") stagingFail(`\`${op}\`: the index must be an Index, but it is ${aStatic(idx.type)}`);
  if (typeof i === "number" && (i < 0 || (type.length !== undefined && i >= type.length))) {
    stagingFail(`\`${op}\`: index ${i} is out of range for ${aStatic(type)}`);
  }
  const value = toOperand(v, op, "the new element", type.elem);
  if (!sameType(value.type, type.elem)) {
    stagingFail(
      `\`${op}\`: the new element is ${aStatic(value.type)}, but the array holds ${describeStatic(type.elem)}`,
    );
  }
  const elem = joinStatic(type.elem, value.type);
  const args = [nodeOperand(t.node), idx.operand, value.operand];
  return emitTensor(traceFor(op), { kind: "call", fn: op, args }, sArray(type.length, elem));
}
