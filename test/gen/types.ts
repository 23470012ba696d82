// The types of generated programs. Unlike the compiler's types, arrays carry their static length: every array a
// generated program makes has a length known when it is generated (sizes are literals or `length` of an array whose
// length is known), so indexes can be kept in range and builds are always regular.

import type { Rng } from "./rng.js";

export type GenType =
  | { readonly k: "double" }
  | { readonly k: "index" }
  | { readonly k: "bool" }
  | { readonly k: "array"; readonly elem: GenType; readonly n: number }
  | { readonly k: "pair"; readonly fst: GenType; readonly snd: GenType };

/** A local function `S -> T` (let-bound, annotated, applied or passed to a map). */
export interface FunType {
  readonly k: "fun";
  readonly param: GenType;
  readonly result: GenType;
}

export const DOUBLE: GenType = { k: "double" };
export const INDEX: GenType = { k: "index" };
export const BOOL: GenType = { k: "bool" };
export const arrayOf = (elem: GenType, n: number): GenType => ({ k: "array", elem, n });
export const pairOf = (fst: GenType, snd: GenType): GenType => ({ k: "pair", fst, snd });
export const vectorOf = (n: number): GenType => arrayOf(DOUBLE, n);
export const matrixOf = (rows: number, cols: number): GenType => arrayOf(vectorOf(cols), rows);

export const isVector = (t: GenType): boolean => t.k === "array" && t.elem.k === "double";
export const isMatrix = (t: GenType): boolean => t.k === "array" && isVector(t.elem);

/** Same type and same static shape. */
export function sameType(a: GenType, b: GenType): boolean {
  switch (a.k) {
    case "double":
    case "index":
    case "bool":
      return a.k === b.k;
    case "array":
      return b.k === "array" && a.n === b.n && sameType(a.elem, b.elem);
    case "pair":
      return b.k === "pair" && sameType(a.fst, b.fst) && sameType(a.snd, b.snd);
  }
}

/** Smooth annotation syntax: `Double`, `Vector`, `Matrix`, `Array<Index>`, `(Double * Index) * Bool`. */
export function annotation(t: GenType): string {
  switch (t.k) {
    case "double":
      return "Double";
    case "index":
      return "Index";
    case "bool":
      return "Bool";
    case "array":
      if (isVector(t)) return "Vector";
      if (isMatrix(t)) return "Matrix";
      return `Array<${annotation(t.elem)}>`;
    case "pair": {
      // `*` is n-ary in annotations (`A * B * C` is a triple), so a nested pair is parenthesised.
      const part = (x: GenType) => (x.k === "pair" ? `(${annotation(x)})` : annotation(x));
      return `${part(t.fst)} * ${part(t.snd)}`;
    }
  }
}

export const funAnnotation = (f: FunType): string => {
  const param = f.param.k === "pair" ? `(${annotation(f.param)})` : annotation(f.param);
  return `${param} -> ${annotation(f.result)}`;
};

/** The number of array dimensions from the outside in, through arrays only. */
export function rank(t: GenType): number {
  return t.k === "array" ? 1 + rank(t.elem) : 0;
}

/**
 * A random type for a parameter, a let or a loop state. `depth` bounds nesting; lengths come from `lengths`
 * (lengths already in use, so `length x` can size new arrays) or are small literals.
 */
export function randomType(rng: Rng, depth: number, lengths: readonly number[]): GenType {
  const len = () => (lengths.length > 0 && rng.chance(0.6) ? rng.pick(lengths) : rng.int(0, 4));
  const scalar = () =>
    rng.weighted<GenType>([
      [4, DOUBLE],
      [2, INDEX],
      [1, BOOL],
    ]);
  if (depth <= 0) return scalar();
  return rng.weighted<() => GenType>([
    [5, () => DOUBLE],
    [2.5, () => INDEX],
    [1, () => BOOL],
    [3, () => vectorOf(len())],
    [1.5, () => matrixOf(len(), len())],
    [0.6, () => arrayOf(INDEX, len())],
    [0.4, () => arrayOf(BOOL, len())],
    [0.5, () => arrayOf(pairOf(DOUBLE, rng.pick([DOUBLE, INDEX])), len())],
    [1.2, () => pairOf(randomType(rng, depth - 1, lengths), randomType(rng, depth - 1, lengths))],
    [0.25, () => arrayOf(matrixOf(rng.int(1, 2), rng.int(0, 3)), rng.int(0, 2))],
  ])();
}

/** Every static length occurring in a type (for choosing sizes that `length` of a variable can express). */
export function lengthsIn(t: GenType, out: number[] = []): number[] {
  if (t.k === "array") {
    out.push(t.n);
    lengthsIn(t.elem, out);
  } else if (t.k === "pair") {
    lengthsIn(t.fst, out);
    lengthsIn(t.snd, out);
  }
  return out;
}

/** A random JSON value of type `t` (a program argument). */
export function randomJson(rng: Rng, t: GenType): unknown {
  switch (t.k) {
    case "double":
      return rng.weighted<() => number | string>([
        [3, () => rng.int(-3, 3)],
        [3, () => rng.int(-400, 400) / 100],
        [1, () => rng.int(-2000, 2000) / 7],
        [0.3, () => rng.pick([1e-9, -1e8, 0.1, 2.5e6])],
        // JSON has no NaN or infinities; program arguments spell them as strings.
        [0.15, () => rng.pick(["NaN", "Infinity", "-Infinity"])],
      ])();
    case "index":
      return rng.weighted<() => number>([
        [6, () => rng.int(-2, 6)],
        [0.5, () => rng.pick([2147483647, -2147483648, 65536, 46341, 1000003])],
      ])();
    case "bool":
      return rng.chance(0.5);
    case "array":
      return Array.from({ length: t.n }, () => randomJson(rng, t.elem));
    case "pair":
      return [randomJson(rng, t.fst), randomJson(rng, t.snd)];
  }
}
