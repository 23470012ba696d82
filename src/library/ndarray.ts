// A dense n-dimensional array given to or returned by the library without copying: flat row-major data and a shape.
// It is the zero-copy way to pass a matrix (a JS array of rows must be copied into one buffer on every call).

import { fail } from "../syntax/diagnostics.js";
import { isDetached } from "./detached.js";

/** Flat element storage: Float64Array for Doubles, Int32Array for Indexes. */
export type NDData = Float64Array | Int32Array;

/**
 * A regular array of any rank stored flat in row-major order, as Smooth stores arrays: `data` holds exactly
 * `shape[0] * shape[1] * ...` elements. An argument given as an NDArray comes back (gradients, Jacobian blocks) as an
 * NDArray. Build one with {@link ndarray}.
 */
export class NDArray {
  /** The outermost dimension first; `shape.length` is the rank (at least 1). */
  readonly shape: readonly number[];

  constructor(
    readonly data: NDData,
    shape: readonly number[],
  ) {
    if (!(data instanceof Float64Array || data instanceof Int32Array))
      fail("argument", "an NDArray's data must be a Float64Array (Doubles) or an Int32Array (Indexes)");
    if (isDetached(data))
      fail("argument", "an NDArray's data must not be a transferred (detached) buffer: it has no elements any more");
    const dims: unknown = shape;
    if (!Array.isArray(dims) || dims.length === 0 || dims.some((d) => !Number.isSafeInteger(d) || (d as number) < 0))
      fail(
        "argument",
        `an NDArray's shape must be a non-empty list of sizes, got ${Array.isArray(dims) ? `[${dims.map(String).join(", ")}]` : typeof dims}`,
        undefined,
        { expected: "an array of whole numbers from 0, e.g. [2, 3]" },
      );
    const size = shape.reduce((n, d) => n * d, 1);
    if (size !== data.length)
      fail(
        "argument",
        `an NDArray of shape [${shape.join(", ")}] needs ${size} elements, but its data has ${data.length}`,
      );
    this.shape = Object.freeze([...shape]);
  }

  /** The rank: how many dimensions. */
  get rank(): number {
    return this.shape.length;
  }

  /** The element at one index per dimension. */
  at(...index: number[]): number {
    if (index.length !== this.shape.length)
      fail("index", `NDArray.at needs ${this.shape.length} indexes, got ${index.length}`);
    let flat = 0;
    index.forEach((i, d) => {
      const n = this.shape[d]!;
      if (!Number.isInteger(i) || i < 0 || i >= n)
        fail("index", `NDArray.at: index ${String(i)} is out of range for dimension ${d} of size ${n}`);
      flat = flat * n + i;
    });
    return this.data[flat]!;
  }

  /** The elements as nested plain JS arrays of numbers. */
  toArray(): unknown[] {
    const rec = (d: number, offset: number): unknown[] => {
      const n = this.shape[d]!;
      if (d === this.shape.length - 1) return Array.from(this.data.subarray(offset, offset + n));
      const stride = this.shape.slice(d + 1).reduce((a, b) => a * b, 1);
      return Array.from({ length: n }, (_, i) => rec(d + 1, offset + i * stride));
    };
    return rec(0, 0);
  }
}

/**
 * An {@link NDArray} over `data` (not copied) with the given shape. A plain number array is copied into a
 * Float64Array. `ndarray(new Float64Array(6), [2, 3])` is a 2 × 3 matrix.
 */
export function ndarray(data: NDData | readonly number[], shape: readonly number[]): NDArray {
  if (Array.isArray(data)) {
    const odd = data.findIndex((x) => typeof x !== "number");
    if (odd >= 0)
      fail("argument", `ndarray: element ${odd} of the data is not a number`, undefined, {
        expected: "an array of numbers, a Float64Array or an Int32Array",
      });
    return new NDArray(Float64Array.from(data as readonly number[]), shape);
  }
  return new NDArray(data as NDData, shape);
}
