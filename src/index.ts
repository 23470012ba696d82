// The Smooth library: `import { smooth, grad, ... } from "smooth-ad"`. See the README's "The library" section.
// It runs in Node and in browsers (no `node:` imports); reading .smooth files is in the Node-only entry
// (src/node.ts, `smooth-ad/node`).
//
// Functions come in two ways — Smooth source (the `smooth` tag, smoothModule; loadModule in `smooth-ad/node`) or
// TypeScript functions over tensors, written with the operations re-exported below from src/staging/ — and every
// transform accepts both. Errors a caller can cause are SmoothErrors (the tracer's own are StagingErrors, of kind
// "staging").

export { smooth, smoothModule, type SmoothFunction, type SmoothModule } from "./library/module.js";
export { compile, compilations, type AnyFunction } from "./library/compile.js";
export {
  grad,
  valueAndGrad,
  jacobian,
  hessian,
  type ArgnumsOption,
  type GradOptions,
  type JacobianOptions,
  type SparseOption,
} from "./library/transforms.js";
export type { Adjoints, LinearMap, Pullback, TangentIn, TangentOf, Tangents } from "./library/types.js";
export type { SparseInfo, SparseMatrix } from "./sparse/sparse-derivative.js";
export { jvp, vjp } from "./library/jvp.js";
export { linearize } from "./library/linearize.js";
export { linearTranspose } from "./library/linear-transpose.js";
export { vmap, type Axis, type VmapOptions } from "./library/vmap.js";
export { checkpoint, customJvp, customVjp } from "./library/custom.js";
export { treeFlatten, treeLeaves, treeMap, treeUnflatten, type TreeDef, type TreeLeaf } from "./library/tree.js";
export { inspect, type CheckpointReport, type Inspection } from "./library/inspect.js";
export { emitModule, type EmitOptions } from "./library/emit-module.js";
export { NDArray, ndarray, type NDData } from "./library/ndarray.js";
export { typescriptModule, type TypeScriptModule } from "./library/ts-module.js";
export { useTypeScript } from "./tsfront/use-typescript.js";
export { withClosure } from "./tsfront/with-closure.js";
export { SmoothError, type ErrorKind } from "./syntax/diagnostics.js";
export { useGpu, gpuAdapter, type WebGpu, type WebGpuAdapterOptions } from "./webgpu/gpu-setup.js";

// The tensor operations of staged TypeScript functions (src/staging/index.ts documents them).
export {
  StagingError,
  Tensor,
  type Element,
  type Scalar,
  type Staged,
  type Traced,
  build,
  cond,
  ifold,
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
} from "./staging/index.js";
