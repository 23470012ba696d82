// The static types of the transforms: each is generic over the function it transforms, so `grad(f)` of
// `(p: {w: Float64Array; b: number}, x: Float64Array) => number` has type `(p: ..., x: ...) => {w: Float64Array; b:
// number}`. They follow the run-time rules (README, "Values"): a result in the form of what it corresponds to. A
// function whose types say nothing (a Smooth definition without generated types: `any`) gives `any`; a staged
// function's Tensor parameters accept any library value, and what corresponds to them is typed `any` (a Tensor does
// not say its rank).

import type { Tensor } from "../staging/index.js";
import type { NDArray } from "./ndarray.js";
import type { SparseMatrix } from "../sparse/sparse-derivative.js";

/** Any function the library accepts or returns: arguments and results are library values (see the README). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- library values are checked at run time
export type AnyFunction = (...args: any[]) => any;

type IsAny<T> = 0 extends 1 & T ? true : false;

/** A value of unknown rank (what corresponds to a Tensor parameter, or to anything of an untyped function). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- see the file comment
export type Untyped = any;

/** What a parameter accepts when called: Tensor parameters of a staged function accept any library value. */
export type Input<T> =
  IsAny<T> extends true
    ? Untyped
    : T extends Tensor
      ? Untyped
      : T extends number | boolean | Float64Array | Float32Array | Int32Array | NDArray
        ? T
        : T extends readonly unknown[]
          ? { readonly [K in keyof T]: Input<T[K]> }
          : T extends object
            ? { readonly [K in keyof T]: Input<T[K]> }
            : T;

/** The arguments of a transformed function. */
export type Inputs<P extends readonly unknown[]> = { [K in keyof P]: Input<P[K]> };

/** The gradient with respect to a value of type T: T's form, with the numbers' derivatives. */
export type Gradient<T> =
  IsAny<T> extends true
    ? Untyped
    : T extends Tensor
      ? Untyped
      : T extends number
        ? number
        : T extends Float64Array
          ? Float64Array
          : T extends Float32Array
            ? Float32Array
            : T extends NDArray
              ? NDArray
              : T extends readonly unknown[]
                ? { -readonly [K in keyof T]: Gradient<T[K]> }
                : T extends object
                  ? { -readonly [K in keyof T]: Gradient<T[K]> }
                  : never;

/** What a function's result becomes as a library result (a Tensor result: untyped). */
export type Output<T> =
  IsAny<T> extends true
    ? Untyped
    : T extends Tensor
      ? Untyped
      : T extends number | boolean | Float64Array | Float32Array | Int32Array | NDArray
        ? T
        : T extends readonly unknown[]
          ? { -readonly [K in keyof T]: Output<T[K]> }
          : T extends object
            ? { -readonly [K in keyof T]: Output<T[K]> }
            : T;

/** `argnums` as the options give it (0 by default). */
type ArgnumsOf<O> = O extends { readonly argnums: infer A } ? (undefined extends A ? 0 : A) : 0;

/** The gradients of the parameters P at `A` (a position, or a list of positions: a list of gradients). */
export type Gradients<P extends readonly unknown[], A> = A extends number
  ? Gradient<P[A]>
  : A extends readonly number[]
    ? { -readonly [K in keyof A]: Gradient<P[A[K] & number]> }
    : Untyped;

/** The auxiliary result of a function returning `[value, aux]`. */
export type Aux<R> = IsAny<R> extends true ? Untyped : R extends readonly [unknown, infer X] ? Output<X> : Untyped;

type HasAux<O> = O extends { readonly hasAux: true } ? true : false;

/** The function `grad(f, options)` returns. */
export type GradFunction<F extends AnyFunction, O> = (
  ...args: Inputs<Parameters<F>>
) => HasAux<O> extends true
  ? [Gradients<Parameters<F>, ArgnumsOf<O>>, Aux<ReturnType<F>>]
  : Gradients<Parameters<F>, ArgnumsOf<O>>;

/** The function `valueAndGrad(f, options)` returns. */
export type ValueAndGradFunction<F extends AnyFunction, O> = (
  ...args: Inputs<Parameters<F>>
) => [HasAux<O> extends true ? [number, Aux<ReturnType<F>>] : number, Gradients<Parameters<F>, ArgnumsOf<O>>];

/** A block with one more leading dimension than X (X's form: a number gives a Float64Array, a row an array of rows). */
export type Prefixed<X> =
  IsAny<X> extends true
    ? Untyped
    : X extends number
      ? Float64Array
      : X extends NDArray
        ? NDArray
        : X extends Float64Array | Float32Array | readonly unknown[]
          ? X[]
          : X extends object
            ? { -readonly [K in keyof X]: Prefixed<X[K]> }
            : Untyped;

/** The Jacobian block of an output leaf of type O with respect to an input of type I: I's form, O's dims first. */
export type JacobianBlock<O, I> =
  IsAny<O> extends true
    ? Untyped
    : O extends Tensor
      ? Untyped
      : O extends number
        ? Gradient<I>
        : O extends Float64Array | Float32Array | readonly number[]
          ? Prefixed<Gradient<I>>
          : O extends readonly (infer R)[]
            ? Prefixed<JacobianBlock<R, I>>
            : Untyped;

/** Whether an output type is a structure of parts (an object, or a fixed-length tuple) rather than one array. */
type IsTree<O> = O extends Float64Array | Float32Array | Int32Array | NDArray | Tensor
  ? false
  : O extends readonly unknown[]
    ? number extends O["length"]
      ? false
      : true
    : O extends object
      ? true
      : false;

/** The blocks of one output leaf: for one argument position, its block; for a list, one block per position. */
type LeafBlocks<P extends readonly unknown[], O, A> = A extends number
  ? JacobianBlock<O, P[A]>
  : A extends readonly number[]
    ? { -readonly [K in keyof A]: JacobianBlock<O, P[A[K] & number]> }
    : Untyped;

/** The Jacobian of a result of type R: R's structure (objects, tuples) whose leaves hold their blocks (JAX's). */
type Blocks<P extends readonly unknown[], R, A> =
  IsAny<R> extends true
    ? Untyped
    : IsTree<R> extends true
      ? { -readonly [K in keyof R]: Blocks<P, R[K], A> }
      : LeafBlocks<P, R, A>;

/** The function `jacobian(f, options)` returns. */
export type JacobianFunction<F extends AnyFunction, O> = (
  ...args: Inputs<Parameters<F>>
) => O extends { readonly sparse: true } ? SparseMatrix : Blocks<Parameters<F>, ReturnType<F>, ArgnumsOf<O>>;

/** A Hessian block ∂²f/∂a∂b. */
type HessianBlock<A, B> = A extends number ? Gradient<B> : Prefixed<Gradient<B>>;

/** The Hessian with respect to a value of type T (an object: an object of objects of blocks). */
export type HessianOf<A, B = A> =
  IsAny<A> extends true
    ? Untyped
    : A extends Tensor
      ? Untyped
      : A extends number | Float64Array | Float32Array | NDArray | readonly number[] | readonly Float64Array[]
        ? B extends number | Float64Array | Float32Array | NDArray | readonly number[] | readonly Float64Array[]
          ? HessianBlock<A, B>
          : { -readonly [L in keyof B]: HessianOf<A, B[L]> }
        : { -readonly [K in keyof A]: HessianOf<A[K], B> };

type Hessians<P extends readonly unknown[], A> = A extends number
  ? HessianOf<P[A]>
  : A extends readonly number[]
    ? { -readonly [K in keyof A]: { -readonly [L in keyof A]: HessianOf<P[A[K] & number], P[A[L] & number]> } }
    : Untyped;

/** The function `hessian(f, options)` returns. */
export type HessianFunction<F extends AnyFunction, O> = (
  ...args: Inputs<Parameters<F>>
) => O extends { readonly sparse: true } ? SparseMatrix : Hessians<Parameters<F>, ArgnumsOf<O>>;

/** A batch of inputs of type T (along one axis of each of its arrays). */
export type Batch<T> =
  IsAny<T> extends true
    ? Untyped
    : T extends Tensor
      ? Untyped
      : T extends number
        ? Float64Array | Float32Array | readonly number[]
        : T extends Float64Array | Float32Array | readonly number[]
          ? readonly (Float64Array | Float32Array | readonly number[])[] | NDArray
          : T extends NDArray
            ? NDArray
            : T extends readonly unknown[]
              ? readonly Input<T>[]
              : T extends object
                ? { readonly [K in keyof T]: Batch<T[K]> }
                : Untyped;

/** A batch of results of type T: each leaf with one more dimension (a batch of objects is an object of batches). */
export type BatchOutput<T> =
  IsAny<T> extends true
    ? Untyped
    : T extends Tensor
      ? Untyped
      : T extends number
        ? Float64Array
        : T extends boolean
          ? boolean[]
          : T extends Int32Array
            ? Int32Array[]
            : T extends Float64Array | Float32Array | NDArray | readonly unknown[]
              ? Prefixed<T>
              : T extends object
                ? { -readonly [K in keyof T]: BatchOutput<T[K]> }
                : Untyped;

type InAxesOf<O> = O extends { readonly inAxes: infer A } ? (undefined extends A ? 0 : A) : 0;

/** The arguments of a vmapped function: mapped ones batched, the others (inAxes null) as they are. */
export type VmapInputs<P extends readonly unknown[], Axes> = Axes extends null
  ? Inputs<P>
  : Axes extends readonly unknown[]
    ? { [K in keyof P]: K extends keyof Axes ? (Axes[K] extends null ? Input<P[K]> : Batch<P[K]>) : Input<P[K]> }
    : { [K in keyof P]: Batch<P[K]> };

/** The function `vmap(f, options)` returns. */
export type VmapFunction<F extends AnyFunction, O> = (
  ...args: VmapInputs<Parameters<F>, InAxesOf<O>>
) => BatchOutput<ReturnType<F>>;

/**
 * A function the library returns, as the options' back end runs it: on `webgpu` it returns a promise of its result
 * (GPU results arrive asynchronously), on the CPU back ends the result itself.
 */
export type OnBackend<O, Fn extends AnyFunction> = O extends { readonly backend: "webgpu" }
  ? (...args: Parameters<Fn>) => Promise<ReturnType<Fn>>
  : Fn;

/** The function `compile(f)` returns. */
export type CompiledFunction<F extends AnyFunction> = (...args: Inputs<Parameters<F>>) => Output<ReturnType<F>>;

/**
 * The tangent (or cotangent, or adjoint) of a value of type T, as jvp, linearize and vjp give it: T's form, with null
 * for a part that has no tangent (a Bool, an Int32Array; an Index is a `number` to TypeScript, so it is typed
 * `number` although it is null at run time).
 */
export type TangentOf<T> =
  IsAny<T> extends true
    ? Untyped
    : T extends Tensor
      ? Untyped
      : T extends number
        ? number
        : T extends boolean | Int32Array
          ? null
          : T extends Float64Array | Float32Array | NDArray
            ? T
            : T extends readonly unknown[]
              ? { -readonly [K in keyof T]: TangentOf<T[K]> }
              : T extends object
                ? { -readonly [K in keyof T]: TangentOf<T[K]> }
                : never;

/**
 * The tangent given for a value of type T (a primal's, or a vjp cotangent): T's form, with null (or undefined) where
 * the value has no tangent; a number may be null, since an Index is a number to TypeScript.
 */
export type TangentIn<T> =
  IsAny<T> extends true
    ? Untyped
    : T extends Tensor
      ? Untyped
      : T extends number
        ? number | null
        : T extends boolean | Int32Array
          ? null | undefined
          : T extends Float64Array | Float32Array | NDArray
            ? Input<T>
            : T extends readonly unknown[]
              ? { readonly [K in keyof T]: TangentIn<T[K]> }
              : T extends object
                ? { readonly [K in keyof T]: TangentIn<T[K]> }
                : T;

/** One tangent per parameter. */
export type Tangents<P extends readonly unknown[]> = { [K in keyof P]: TangentIn<P[K]> };

/** One adjoint per parameter (null for one without a tangent). */
export type Adjoints<P extends readonly unknown[]> = { -readonly [K in keyof P]: TangentOf<P[K]> };

/** The pullback `vjp(f, ...primals)` returns: a cotangent of f's result to the adjoints of its arguments. */
export type Pullback<F extends AnyFunction> = (cotangent: TangentIn<ReturnType<F>>) => Adjoints<Parameters<F>>;

/** The linear map `linearize(f, ...primals)` returns: tangents of f's arguments to the tangent of its result. */
export type LinearMap<F extends AnyFunction> = (...tangents: Tangents<Parameters<F>>) => TangentOf<ReturnType<F>>;
