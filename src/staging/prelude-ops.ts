// The prelude's vector and matrix operations and combinators (prelude/prelude.smooth): each is staged as one call of
// the prelude's Smooth definition, with its argument types and the lengths known at trace time checked now.
// Functions given to map2, reduce, scanl and scanr are traced as lambdas.

import { checkFunction, traceLambda, traceStep } from "./control.js";
import { stagingFail } from "./errors.js";
import { traceFor, type Lambda, type Operand } from "./graph.js";
import { aStatic, S_DOUBLE, S_INT, sameType, sArray, type StaticType } from "./static-type.js";
import { toDouble } from "./scalar-ops.js";
import {
  arrayArg,
  countOperand,
  emit,
  emitTensor,
  indexOperand,
  nodeOperand,
  Tensor,
  toOperand,
  type Element,
  type Staged,
  type Traced,
} from "./tensor.js";

type ArrayStatic = Extract<StaticType, { k: "array" }>;

/** One call of a prelude (or builtin) function, bound to a fresh name. */
export function callPrelude(op: string, fn: string, args: readonly (Operand | Lambda)[], type: StaticType): Tensor {
  return emitTensor(traceFor(op), { kind: "call", fn, args }, type);
}

/** A vector argument: an array of Doubles, of numbers (Double or Index), or of anything. */
export function vectorArg(
  v: unknown,
  op: string,
  what: string,
  elem: "double" | "numeric",
): { t: Tensor; type: ArrayStatic } {
  const r = arrayArg(v, op, what);
  const k = r.type.elem.k;
  if (elem === "double" ? k !== "double" : k !== "double" && k !== "int") {
    const expected = elem === "double" ? "Vector" : "vector of numbers";
    stagingFail(`\`${op}\`: ${what} must be a ${expected}, but it is ${aStatic(r.type)}`);
  }
  return r;
}

/** A matrix argument (an array of arrays of numbers), with its row and column lengths where known. */
function matrixArg(v: unknown, op: string, what: string) {
  const r = arrayArg(v, op, what);
  const row = r.type.elem;
  if (row.k !== "array" || (row.elem.k !== "double" && row.elem.k !== "int")) {
    stagingFail(`\`${op}\`: ${what} must be a Matrix, but it is ${aStatic(r.type)}`);
  }
  return { ...r, rows: r.type.length, cols: row.length, scalar: row.elem };
}

/** A Double operand: a number, a Double tensor, or an Index tensor (promoted). */
function doubleOperand(v: unknown, op: string, what: string): Operand {
  const r = toOperand(v, op, what);
  if (r.type.k === "int") return nodeOperand(toDouble(v as Tensor).node);
  if (r.type.k !== "double") stagingFail(`\`${op}\`: ${what} must be a Double, but it is ${aStatic(r.type)}`);
  return r.operand;
}

/** Two arrays paired elementwise: same element type, same length where both are known. */
function sameLength(op: string, a: ArrayStatic, b: ArrayStatic): number | undefined {
  if (a.length !== undefined && b.length !== undefined && a.length !== b.length) {
    stagingFail(`\`${op}\`: the arrays have different lengths: ${aStatic(a)} and ${aStatic(b)}`);
  }
  return a.length ?? b.length;
}

function sameElements(op: string, a: ArrayStatic, b: ArrayStatic): void {
  if (!sameType(a.elem, b.elem)) {
    stagingFail(`\`${op}\`: the arrays hold different types: ${aStatic(a)} and ${aStatic(b)}`);
  }
}

const node = (t: Tensor): Operand => nodeOperand(t.node);

function elementwiseVectors(op: string, a: Tensor, b: Tensor): Tensor {
  const x = vectorArg(a, op, "the first vector", "numeric");
  const y = vectorArg(b, op, "the second vector", "numeric");
  sameElements(op, x.type, y.type);
  return callPrelude(op, op, [node(x.t), node(y.t)], sArray(sameLength(op, x.type, y.type), x.type.elem));
}

/** The elementwise sum of two vectors. */
export const vectorAdd = (a: Tensor, b: Tensor): Tensor => elementwiseVectors("vectorAdd", a, b);
/** The elementwise product of two vectors. */
export const vectorEMul = (a: Tensor, b: Tensor): Tensor => elementwiseVectors("vectorEMul", a, b);

/** The vector v scaled by s. */
export function vectorSMul(v: Tensor, s: Tensor | number): Tensor {
  const x = vectorArg(v, "vectorSMul", "the vector", "double");
  return callPrelude("vectorSMul", "vectorSMul", [node(x.t), doubleOperand(s, "vectorSMul", "the scale")], x.type);
}

/** The sum of the elements of a vector. */
export function vectorSum(v: Tensor): Tensor {
  const x = vectorArg(v, "vectorSum", "the vector", "numeric");
  return callPrelude("vectorSum", "vectorSum", [node(x.t)], x.type.elem);
}

/** The product of the elements of a Vector (1 for the empty vector). */
export function prod(v: Tensor): Tensor {
  return callPrelude("prod", "prod", [node(vectorArg(v, "prod", "the vector", "double").t)], S_DOUBLE);
}

/** The dot product of two vectors (the prelude's definition, without a run-time length check; see also `dot`). */
export function vectorDot(a: Tensor, b: Tensor): Tensor {
  const x = vectorArg(a, "vectorDot", "the first vector", "numeric");
  const y = vectorArg(b, "vectorDot", "the second vector", "numeric");
  sameElements("vectorDot", x.type, y.type);
  sameLength("vectorDot", x.type, y.type);
  return callPrelude("vectorDot", "vectorDot", [node(x.t), node(y.t)], x.type.elem);
}

/** The Euclidean norm of a Vector. */
export function vectorNorm(v: Tensor): Tensor {
  return callPrelude(
    "vectorNorm",
    "vectorNorm",
    [node(vectorArg(v, "vectorNorm", "the vector", "double").t)],
    S_DOUBLE,
  );
}

/** The largest element of a (non-empty) vector. */
export function vectorMax(v: Tensor): Tensor {
  const x = vectorArg(v, "vectorMax", "the vector", "numeric");
  if (x.type.length === 0) stagingFail("`vectorMax`: the vector is empty");
  return callPrelude("vectorMax", "vectorMax", [node(x.t)], x.type.elem);
}

/** log (sum (exp v)), computed without overflow. */
export function logsumexp(v: Tensor): Tensor {
  const x = vectorArg(v, "logsumexp", "the vector", "double");
  if (x.type.length === 0) stagingFail("`logsumexp`: the vector is empty");
  return callPrelude("logsumexp", "logsumexp", [node(x.t)], S_DOUBLE);
}

/** The elements of v from index s to index e, both included. */
export function vectorSlice(v: Tensor, s: number | Tensor, e: number | Tensor): Tensor {
  const op = "vectorSlice";
  const { t, type } = arrayArg(v, op, "the vector");
  const from = indexOperand(s, op, "the first index");
  const to = indexOperand(e, op, "the last index");
  let length: number | undefined;
  if (from.value !== undefined && to.value !== undefined) {
    length = to.value - from.value + 1;
    const outside =
      from.value < 0 || length < 0 || (type.length !== undefined && to.value >= type.length && length > 0);
    if (outside) stagingFail(`\`${op}\`: the slice ${from.value}..${to.value} is not inside ${aStatic(type)}`);
  }
  return callPrelude(op, op, [node(t), from.operand, to.operand], sArray(length, type.elem));
}

/** n copies of x (a tensor, a number — a Double — or a tuple). */
export function replicate(n: number | Tensor, x: Staged): Tensor {
  const count = countOperand(n, "replicate", "the count");
  const value = toOperand(x, "replicate", "the element");
  return callPrelude("replicate", "replicate", [count.operand, value.operand], sArray(count.value, value.type));
}

/** The vector of n zeros. */
export function vectorZeros(n: number | Tensor): Tensor {
  const count = countOperand(n, "vectorZeros", "the length");
  return callPrelude("vectorZeros", "vectorZeros", [count.operand], sArray(count.value, S_DOUBLE));
}

/** The Index vector [0, 1, ..., n-1]. */
export function vectorRange(n: number | Tensor): Tensor {
  const count = countOperand(n, "vectorRange", "the length");
  return callPrelude("vectorRange", "vectorRange", [count.operand], sArray(count.value, S_INT));
}

/** The one-hot vector of length n with a 1 at index i. */
export function vectorHot(n: number | Tensor, i: number | Tensor): Tensor {
  const count = countOperand(n, "vectorHot", "the length");
  const at = indexOperand(i, "vectorHot", "the index");
  return callPrelude("vectorHot", "vectorHot", [count.operand, at.operand], sArray(count.value, S_DOUBLE));
}

/** The outer product: the matrix a[i] * b[j]. */
export function vectorOutProd(a: Tensor, b: Tensor): Tensor {
  const x = vectorArg(a, "vectorOutProd", "the first vector", "double");
  const y = vectorArg(b, "vectorOutProd", "the second vector", "double");
  const result = sArray(x.type.length, sArray(y.type.length, S_DOUBLE));
  return callPrelude("vectorOutProd", "vectorOutProd", [node(x.t), node(y.t)], result);
}

/** The elementwise sum of two matrices. */
export function matrixAdd(a: Tensor, b: Tensor): Tensor {
  const x = matrixArg(a, "matrixAdd", "the first matrix");
  const y = matrixArg(b, "matrixAdd", "the second matrix");
  sameElements("matrixAdd", x.type, y.type);
  const rows = sameLength("matrixAdd", x.type, y.type);
  const cols = sameLength("matrixAdd", x.type.elem as ArrayStatic, y.type.elem as ArrayStatic);
  return callPrelude("matrixAdd", "matrixAdd", [node(x.t), node(y.t)], sArray(rows, sArray(cols, x.scalar)));
}

/** The matrix product a b. */
export function matrixMult(a: Tensor, b: Tensor): Tensor {
  const x = matrixArg(a, "matrixMult", "the first matrix");
  const y = matrixArg(b, "matrixMult", "the second matrix");
  sameElements("matrixMult", x.type, y.type);
  if (x.cols !== undefined && y.rows !== undefined && x.cols !== y.rows) {
    stagingFail(`\`matrixMult\`: the first matrix has ${x.cols} columns but the second has ${y.rows} rows`);
  }
  return callPrelude("matrixMult", "matrixMult", [node(x.t), node(y.t)], sArray(x.rows, sArray(y.cols, x.scalar)));
}

/** The transpose of a matrix (of any elements). */
export function transpose(m: Tensor): Tensor {
  const { t, type } = arrayArg(m, "transpose", "the matrix");
  const row = type.elem;
  if (row.k !== "array")
    stagingFail(`\`transpose\`: the argument must be an array of arrays, but it is ${aStatic(type)}`);
  return callPrelude("transpose", "transpose", [node(t)], sArray(row.length, sArray(type.length, row.elem)));
}

/** The sum of the diagonal of a square matrix. */
export function matrixTrace(m: Tensor): Tensor {
  const x = matrixArg(m, "matrixTrace", "the matrix");
  if (x.rows !== undefined && x.cols !== undefined && x.rows > x.cols) {
    stagingFail(`\`matrixTrace\`: the matrix has ${x.rows} rows but only ${x.cols} columns`);
  }
  return callPrelude("matrixTrace", "matrixTrace", [node(x.t)], x.scalar);
}

/** The n-by-n identity matrix. */
export function matrixEye(n: number | Tensor): Tensor {
  const count = countOperand(n, "matrixEye", "the size");
  return callPrelude("matrixEye", "matrixEye", [count.operand], sArray(count.value, sArray(count.value, S_DOUBLE)));
}

/** The r-by-c matrix of zeros. */
export const matrixZeros = (r: number | Tensor, c: number | Tensor): Tensor => filledMatrix("matrixZeros", r, c);
/** The r-by-c matrix of ones. */
export const matrixOnes = (r: number | Tensor, c: number | Tensor): Tensor => filledMatrix("matrixOnes", r, c);

function filledMatrix(op: string, r: number | Tensor, c: number | Tensor): Tensor {
  const rows = countOperand(r, op, "the number of rows");
  const cols = countOperand(c, op, "the number of columns");
  return callPrelude(op, op, [rows.operand, cols.operand], sArray(rows.value, sArray(cols.value, S_DOUBLE)));
}

/** The array f(a[i], b[i]); a and b must have the same length (checked when the program runs if not known now). */
export function map2<E1 extends Element = Tensor, E2 extends Element = Tensor>(
  f: (x: E1, y: E2) => Staged,
  a: Tensor,
  b: Tensor,
): Tensor {
  const op = "map2";
  const x = arrayArg(a, op, "the first array");
  const y = arrayArg(b, op, "the second array");
  checkFunction(f, op, "the function");
  const length = sameLength(op, x.type, y.type);
  const params = [
    { type: x.type.elem, prefix: "e" },
    { type: y.type.elem, prefix: "e" },
  ];
  const traced = f as unknown as (...a: Staged[]) => unknown;
  const fn = traceLambda(traceFor(op), op, "the function given to `map2`", params, traced);
  return callPrelude(op, op, [fn.lambda, node(x.t), node(y.t)], sArray(length, fn.type));
}

/** The left fold of a with f from z: f(...f(f(z, a[0]), a[1])..., a[n-1]). The state may be a tuple. */
export function reduce<S extends Staged | [], E extends Element = Tensor>(
  f: (acc: Traced<S>, x: E) => Staged,
  z: S,
  a: Tensor,
): Traced<S> {
  const { lambda, init, state, arr } = foldStep("reduce", f as unknown as (...a: Staged[]) => unknown, z, a, "left");
  return emit(traceFor("reduce"), { kind: "call", fn: "reduce", args: [lambda, init, node(arr.t)] }, state) as never;
}

/** The running left folds [z, f(z, a[0]), ...] (length n + 1). */
export function scanl<S extends Staged | [], E extends Element = Tensor>(
  f: (acc: Traced<S>, x: E) => Staged,
  z: S,
  a: Tensor,
): Tensor {
  const { lambda, init, state, arr } = foldStep("scanl", f as unknown as (...a: Staged[]) => unknown, z, a, "left");
  const n = arr.type.length === undefined ? undefined : arr.type.length + 1;
  return callPrelude("scanl", "scanl", [lambda, init, node(arr.t)], sArray(n, state));
}

/** The running right folds [..., f(a[n-1], z), z] (length n + 1); note f takes the element first. */
export function scanr<S extends Staged | [], E extends Element = Tensor>(
  f: (x: E, acc: Traced<S>) => Staged,
  z: S,
  a: Tensor,
): Tensor {
  const { lambda, init, state, arr } = foldStep("scanr", f as unknown as (...a: Staged[]) => unknown, z, a, "right");
  const n = arr.type.length === undefined ? undefined : arr.type.length + 1;
  return callPrelude("scanr", "scanr", [lambda, init, node(arr.t)], sArray(n, state));
}

/** The step of a fold over an array, traced with the state first (left folds) or the element first (scanr). */
function foldStep(op: string, f: (...a: Staged[]) => unknown, z: Staged, a: Tensor, side: "left" | "right") {
  const arr = arrayArg(a, op, "the array");
  checkFunction(f, op, "the function");
  const start = toOperand(z, op, "the initial value");
  const elem = { type: arr.type.elem, prefix: "e" };
  const step = traceStep(
    traceFor(op),
    op,
    `the function given to \`${op}\``,
    start.type,
    (state) => (side === "left" ? [{ type: state, prefix: "a" }, elem] : [elem, { type: state, prefix: "a" }]),
    f,
  );
  return { lambda: step.lambda, init: start.operand, state: step.state, arr };
}

/** The elements of a at the indexes idx (an Index vector): result[k] = a[idx[k]]. */
export function gather(a: Tensor, idx: Tensor): Tensor {
  const x = arrayArg(a, "gather", "the array");
  const i = arrayArg(idx, "gather", "the indexes");
  if (i.type.elem.k !== "int")
    stagingFail(`\`gather\`: the indexes must be an Index vector, but they are ${aStatic(i.type)}`);
  return callPrelude("gather", "gather", [node(x.t), node(i.t)], sArray(i.type.length, x.type.elem));
}

/** The Vector of length n with vals[k] added at idx[k] for every k (colliding indexes add). */
export function scatter(n: number | Tensor, idx: Tensor, vals: Tensor): Tensor {
  const op = "scatter";
  const count = countOperand(n, op, "the length");
  const i = arrayArg(idx, op, "the indexes");
  if (i.type.elem.k !== "int")
    stagingFail(`\`scatter\`: the indexes must be an Index vector, but they are ${aStatic(i.type)}`);
  const v = vectorArg(vals, op, "the values", "double");
  sameLength(op, i.type, v.type);
  return callPrelude(op, op, [count.operand, node(i.t), node(v.t)], sArray(count.value, S_DOUBLE));
}

/** The r-by-c matrix whose rows are consecutive slices of v (v must have r * c elements). */
export function reshape(r: number | Tensor, c: number | Tensor, v: Tensor): Tensor {
  const op = "reshape";
  const rows = countOperand(r, op, "the number of rows");
  const cols = countOperand(c, op, "the number of columns");
  const x = arrayArg(v, op, "the vector");
  if (rows.value !== undefined && cols.value !== undefined && x.type.length !== undefined) {
    const needed = rows.value * cols.value;
    if (needed !== x.type.length) {
      stagingFail(
        `\`reshape\`: ${rows.value} × ${cols.value} needs ${needed} elements, but the vector is ${aStatic(x.type)}`,
      );
    }
  }
  return callPrelude(
    op,
    op,
    [rows.operand, cols.operand, node(x.t)],
    sArray(rows.value, sArray(cols.value, x.type.elem)),
  );
}
