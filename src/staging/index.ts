// The staged-TypeScript front end: the tracer's public operations (re-exported by the package entry) and the
// staging entry point used by the library.
//
// Style: operations are functions (`add(x, y)`, `build(n, i => ...)`), with the argument order of the language and the
// prelude (`ifold(f, init, n)`, `map2(f, a, b)`); a Tensor has only `length`, `shape`, `rank`, `type` and `at(i)`.

export { StagingError } from "./errors.js";
export { Tensor, type Element, type Scalar, type Staged, type Traced } from "./tensor.js";
export type { StaticType } from "./static-type.js";
export {
  isJsFunction,
  stageFunction,
  staticTypeKey,
  staticTypeOfValue,
  type JsFunction,
  type StagedFunction,
  type StageOptions,
} from "./stage.js";
export { build, cond, ifold } from "./control.js";
export {
  abs,
  add,
  and,
  cos,
  div,
  eq,
  exp,
  floor,
  ge,
  gt,
  index,
  le,
  log,
  lt,
  max,
  min,
  mul,
  ne,
  neg,
  not,
  or,
  pow,
  sin,
  sqrt,
  stopGradient,
  sub,
  tan,
  tanh,
  toDouble,
  type BinaryOp,
  type CompareOp,
  type UnaryOp,
} from "./scalar-ops.js";
export {
  addAt,
  dot,
  get,
  getTuple,
  length,
  map,
  matrixVectorMult,
  setAt,
  shape,
  stack,
  sum,
  unzip,
  zip,
} from "./array-ops.js";
export {
  gather,
  logsumexp,
  map2,
  matrixAdd,
  matrixEye,
  matrixMult,
  matrixOnes,
  matrixTrace,
  matrixZeros,
  prod,
  reduce,
  replicate,
  reshape,
  scanl,
  scanr,
  scatter,
  transpose,
  vectorAdd,
  vectorDot,
  vectorEMul,
  vectorHot,
  vectorMax,
  vectorNorm,
  vectorOutProd,
  vectorRange,
  vectorSlice,
  vectorSMul,
  vectorSum,
  vectorZeros,
} from "./prelude-ops.js";
export { callExternal } from "./external.js";
export type { External } from "./graph.js";
