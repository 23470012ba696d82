// What the benchmark files share: the concrete types they specialise at, runtime arrays, and reproducible data.

export const DBL = { k: "double" };
export const INT = { k: "int" };
export const VEC = { k: "array", elem: DBL };
export const MAT = { k: "array", elem: VEC };

/** A dense runtime array of Doubles with the given shape. */
export const dense = (data, shape) => ({ tag: "dense", elemKind: "double", shape, data });

/** n pseudo-random Doubles in [lo, hi), the same for the same seed (a linear congruential generator). */
export function random(n, seed, lo = -0.5, hi = 0.5) {
  const a = new Float64Array(n);
  let s = seed;
  for (let i = 0; i < n; i++) {
    s = (s * 1103515245 + 12345) % 2147483648;
    a[i] = lo + (hi - lo) * (s / 2147483648);
  }
  return a;
}
