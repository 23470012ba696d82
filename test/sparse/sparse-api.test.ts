// jacobian(f, { sparse: true }) and hessian(f, { sparse: true }): entry by entry equal to the dense derivatives of the
// same functions (the library's dense path), every entry the dense one has that is non-zero inside the pattern, the
// colouring as small as the structure allows, and the bad inputs' messages.

import { describe, expect, it } from "vitest";
import {
  compilations,
  dot,
  grad,
  hessian,
  jacobian,
  mul,
  smooth,
  sum,
  vmap,
  type SparseMatrix,
  type Tensor,
} from "../../src/index.js";
import { thrown } from "../helpers.js";
import { flat, rng } from "../library/helpers.js";

const m = smooth`
let tridiag = fun (x: Vector) ->
  let n = length x
  build n (fun i ->
    let left = if i > 0 then x[i - 1] else 0.
    let right = if i < n - 1 then x[i + 1] else 0.
    (3. - 2. * x[i]) * x[i] - left - 2. * right + 1.)
let rosenbrock = fun (x: Vector) ->
  ifold (fun s i -> s + 100. * (x[i + 1] - x[i] * x[i]) * (x[i + 1] - x[i] * x[i]) + (1. - x[i]) * (1. - x[i]))
    0. (length x - 1)
let halves = fun (x: Vector) ->
  let h = length x / 2
  build 2 (fun k -> ifold (fun s i -> s + x[k * h + i] * x[k * h + i]) 0. h)
let gather = fun (x: Vector) (idx: Array<Index>) -> build (length idx) (fun i -> sin x[idx[i]])
let branchy = fun (x: Vector) ->
  build (length x - 1) (fun i -> if x[i] > 0. then x[i + 1] * 2. else exp x[i])
let twoArgs = fun (a: Vector) (M: Matrix) -> build (length M) (fun i -> a[i] * M[i][i] + M[i][0])
let pair = fun (x: Vector) -> (build (length x) (fun i -> x[i] * x[i]), x[0] + x[1])
let newton = fun (x: Vector) ->
  build (length x) (fun i ->
    fst (while (fun s -> abs (snd s * snd s - x[i]) > 1e-12 && fst s < 100.) (fun s -> (fst s + 1., 0.5 * (snd s + x[i] / snd s))) (0., x[i])))
let mixing = fun (x: Vector) -> build (length x) (fun i -> x[i] * vectorSum x)
let unknownIndex = fun (x: Vector) -> build (length x) (fun i -> x[toIndex (floor (abs x[i]))] )
let grows = fun (x: Vector) -> build (toIndex (floor x[0])) (fun i -> x[1] * double i)
let count = fun (n: Index) -> double n
let chain = fun (x: Vector) -> ifold (fun s i -> s + exp (x[i] * x[i + 1])) 0. (length x - 1)
let rec walk = fun (x: Vector) (i: Index) (acc: Double) -> if i >= length x then acc else walk x (i + 2) (acc + x[i] * x[i])
let recursive = fun (x: Vector) -> walk x 0 0.
let cube = fun (x: Double) -> x * x * x
let angles = fun (x: Vector) -> ifold (fun s i -> s + atan2 x[i] x[i + 1] * asin (x[i] / 10.)) 0. (length x - 1)
let coupled = fun (a: Vector) (b: Double) -> ifold (fun s i -> s + a[i] * a[i] * b + sin a[i]) 0. (length a)
`;

const random = rng(11);
const vector = (n: number) => Float64Array.from({ length: n }, () => random() + 0.5);

/** The dense matrix of a sparse one (zeros outside the pattern). */
function denseOf(s: SparseMatrix): number[][] {
  const [rows, columns] = s.shape;
  const out = Array.from({ length: rows }, () => new Array<number>(columns).fill(0));
  for (let r = 0; r < rows; r++)
    for (let k = s.rowPointers[r]!; k < s.rowPointers[r + 1]!; k++) out[r]![s.columnIndexes[k]!] = s.values[k]!;
  return out;
}

/** The sparse matrix equals the dense one entry by entry (exactly where the dense one is non-zero or not). */
function expectSameAs(s: SparseMatrix, dense: unknown, tolerance = 0) {
  const d = denseOf(s);
  const expected = flat(dense);
  expect(d.flat().length).toBe(expected.length);
  d.flat().forEach((x, i) => {
    if (tolerance === 0)
      expect(x + 0).toBe(expected[i]! + 0); // -0 and 0 alike
    else expect(Math.abs(x - expected[i]!)).toBeLessThanOrEqual(tolerance * (1 + Math.abs(expected[i]!)));
  });
}

const entriesOf = (s: SparseMatrix) => s.values.length;

describe("sparse Jacobians", () => {
  it("of the tridiagonal map: three entries a row, three colours, equal to the dense Jacobian", () => {
    const x = vector(40);
    const s = jacobian(m.tridiag!, { sparse: true })(x);
    expect(s.shape).toEqual([40, 40]);
    expect(entriesOf(s)).toBe(3 * 40 - 2);
    expect(s.info).toMatchObject({ mode: "forward", colours: 3 });
    expect(s.info.note).toBeUndefined();
    expectSameAs(s, jacobian(m.tridiag!)(x));
  });

  it("in reverse mode when the rows need fewer colours (two outputs over disjoint halves: one sweep)", () => {
    const x = vector(20);
    const s = jacobian(m.halves!, { sparse: true })(x);
    expect(s.info).toMatchObject({ mode: "reverse", colours: 1 });
    expect(entriesOf(s)).toBe(20);
    expectSameAs(s, jacobian(m.halves!)(x));
    // Forced forward: one colour per column of a half (ten).
    const f = jacobian(m.halves!, { sparse: true, mode: "forward" })(x);
    expect(f.info).toMatchObject({ mode: "forward", colours: 10 });
    expectSameAs(f, jacobian(m.halves!)(x));
  });

  it("follows Index arguments: the pattern is found again for other index values", () => {
    const x = vector(8);
    const J = jacobian(m.gather!, { sparse: true });
    for (const idx of [Int32Array.from([3, 3, 0, 7]), Int32Array.from([1, 2, 5, 6])]) {
      const s = J(x, idx);
      expect(Array.from(s.columnIndexes)).toEqual(Array.from(idx));
      expectSameAs(s, jacobian(m.gather!)(x, idx));
    }
    // Same index values again: nothing new compiled (one program for both patterns).
    J(x, Int32Array.from([3, 3, 0, 7]));
    expect(compilations(J)).toBe(1);
  });

  it("takes both branches of a condition on Doubles, whichever the values choose", () => {
    const x = vector(10).map((v, i) => (i % 2 === 0 ? v : -v));
    const s = jacobian(m.branchy!, { sparse: true })(x);
    expect(Array.from(s.rowPointers)).toEqual(Array.from({ length: 10 }, (_, r) => 2 * r));
    expectSameAs(s, jacobian(m.branchy!)(x));
  });

  it("numbers columns argument after argument (a vector, then a matrix row-major)", () => {
    const a = vector(3);
    const M = [vector(3), vector(3), vector(3)];
    const s = jacobian(m.twoArgs!, { sparse: true, argnums: [0, 1] })(a, M);
    expect(s.shape).toEqual([3, 12]);
    const [da, dM] = jacobian(m.twoArgs!, { argnums: [0, 1] })(a, M) as [Float64Array[], Float64Array[][]];
    const dense = da.map((row, i) => [...row, ...flat(dM[i])]);
    expectSameAs(s, dense);
  });

  it("of a tuple of outputs: rows leaf after leaf", () => {
    const x = vector(5);
    const s = jacobian(m.pair!, { sparse: true })(x);
    expect(s.shape).toEqual([6, 5]);
    expectSameAs(s, [...Array.from({ length: 5 }, (_, i) => x.map((v, j) => (i === j ? 2 * v : 0))), [1, 1, 0, 0, 0]]);
  });

  it("through a while loop of unknown length (a fixpoint) and recursion", () => {
    const x = vector(6);
    const s = jacobian(m.newton!, { sparse: true })(x);
    // The iteration count depends on x[i], through Bools only: each row depends on its own x[i] at most.
    expect(s.rowPointers[6]).toBeLessThanOrEqual(6);
    expectSameAs(s, jacobian(m.newton!)(x));
    const h = hessian(m.recursive!, { sparse: true })(x);
    expect(Array.from(h.columnIndexes)).toEqual([0, 2, 4]);
    expectSameAs(h, hessian(m.recursive!)(x));
  });

  it("says so when the Jacobian is dense, and computes it as dense", () => {
    const x = vector(4);
    const s = jacobian(m.mixing!, { sparse: true })(x);
    expect(s.info.density).toBe(1);
    expect(s.info.note).toMatch(/the Jacobian of `mixing` is dense: 16 of 4 × 4 entries \(100\.0%\)/);
    expectSameAs(s, jacobian(m.mixing!)(x), 1e-15);
  });

  it("an index it cannot know reads every element: rows become dense, values still right", () => {
    const x = Float64Array.from([2.5, 0.5, 3.2, 1.1]);
    const s = jacobian(m.unknownIndex!, { sparse: true })(x);
    expect(entriesOf(s)).toBe(16);
    expectSameAs(s, jacobian(m.unknownIndex!)(x));
  });

  it("returns fresh arrays, or with borrowResult its own, rewritten by the next call", () => {
    const x = vector(6);
    const y = vector(6);
    const fresh = jacobian(m.tridiag!, { sparse: true });
    const a = fresh(x);
    const b = fresh(y);
    expect(a.values).not.toBe(b.values);
    expect(a.rowPointers).not.toBe(b.rowPointers);
    a.columnIndexes[0] = 5; // the caller's own array: the next call is not affected
    expect(fresh(x).columnIndexes[0]).toBe(0);
    const borrowing = jacobian(m.tridiag!, { sparse: true, borrowResult: true });
    const c = borrowing(x);
    const before = Array.from(c.values);
    const d = borrowing(y);
    expect(d.values).toBe(c.values);
    expect(Array.from(d.values)).toEqual(Array.from(b.values));
    expect(before).toEqual(Array.from(fresh(x).values));
  });

  it("refuses an output whose shape changes between calls of the same shapes", () => {
    const J = jacobian(m.grows!, { sparse: true });
    expect(J(Float64Array.from([3, 2])).shape).toEqual([3, 2]);
    const e = thrown(() => J(Float64Array.from([5, 2])));
    expect(e.message).toMatch(/has 5 rows at this call, but 3 when its sparsity pattern was found/);
    expect(e.message).toMatch(/depends on the values of its Doubles/);
  });

  it("of transformed functions: the Jacobian of a gradient is the sparse Hessian, of a vmap a diagonal", () => {
    const x = vector(8);
    const viaGrad = jacobian(grad(m.rosenbrock!), { sparse: true })(x);
    const direct = hessian(m.rosenbrock!, { sparse: true })(x);
    expect(Array.from(viaGrad.columnIndexes)).toEqual(Array.from(direct.columnIndexes));
    expectSameAs(viaGrad, hessian(m.rosenbrock!)(x), 1e-14);
    const diagonal = jacobian(vmap(m.cube!), { sparse: true })(x);
    expect(diagonal.info.colours).toBe(1);
    expect(Array.from(diagonal.columnIndexes)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expectSameAs(diagonal, jacobian(vmap(m.cube!))(x));
  });

  it("of a traced function closing over data: the data read at each call, as constants", () => {
    const data = new Float64Array([1, 2, 3]);
    const d = data as unknown as Tensor;
    const w = Float64Array.from([0.5, -1, 2]);
    const J = jacobian((u: Tensor) => mul(u, d), { sparse: true });
    expect(Array.from(J(w).values)).toEqual([1, 2, 3]);
    data.set([4, 5, 6]);
    expect(Array.from(J(w).values)).toEqual([4, 5, 6]);
    // (u·d)(Σu): H[i][j] = d_i + d_j, dense (and said so).
    const H = hessian((u: Tensor) => mul(dot(u, d), sum(u)), { sparse: true })(w);
    expect(Array.from(H.values)).toEqual([8, 9, 10, 9, 10, 11, 10, 11, 12]);
    expect(H.info.note).toMatch(/is dense/);
  });

  it("refuses a function with no Double argument, and being transformed again", () => {
    expect(thrown(() => jacobian(m.count!, { sparse: true })(3)).message).toMatch(
      /cannot differentiate with respect to parameter `n` of `count`: it is an Index/,
    );
    expect(thrown(() => jacobian(m.tridiag!, { sparse: "yes" } as never)).message).toMatch(
      /jacobian: sparse must be true or false/,
    );
    const J = jacobian(m.tridiag!, { sparse: true });
    expect(thrown(() => grad(J as never)).message).toMatch(
      /grad cannot transform jacobian\(`tridiag`, \{ sparse: true \}\)/,
    );
  });
});

describe("sparse Hessians", () => {
  it("of the chained Rosenbrock function: tridiagonal, three colours, equal to the dense Hessian", () => {
    const x = vector(30);
    const s = hessian(m.rosenbrock!, { sparse: true })(x);
    expect(s.shape).toEqual([30, 30]);
    expect(entriesOf(s)).toBe(3 * 30 - 2);
    expect(s.info.colours).toBe(3);
    expectSameAs(s, hessian(m.rosenbrock!)(x), 1e-14);
  });

  it("of a chain of exponentials of products (every pair of neighbours, and the diagonal)", () => {
    const x = vector(12).map((v) => v / 4);
    const s = hessian(m.chain!, { sparse: true })(x);
    expect(entriesOf(s)).toBe(3 * 12 - 2);
    expectSameAs(s, hessian(m.chain!)(x), 1e-14);
  });

  it("over several arguments: columns argument after argument, the blocks of the dense Hessian", () => {
    const a = vector(5);
    const s = hessian(m.coupled!, { sparse: true, argnums: [0, 1] })(a, 0.7);
    expect(s.shape).toEqual([6, 6]);
    // Diagonal of a, each a[i] with b, and b with itself (no: b appears linearly).
    expect(s.values.length).toBe(5 + 2 * 5);
    const [[haa, hab], [hba, hbb]] = hessian(m.coupled!, { argnums: [0, 1] })(a, 0.7) as [
      [Float64Array[], Float64Array],
      [Float64Array, number],
    ];
    const dense = [...haa.map((row, i) => [...row, hab[i]!]), [...hba, hbb]];
    expectSameAs(s, dense, 1e-15);
  });

  it("of a scalar function's Jacobian: one row, one reverse sweep", () => {
    const x = vector(9);
    const s = jacobian(m.rosenbrock!, { sparse: true })(x);
    expect(s.shape).toEqual([1, 9]);
    expect(s.info).toMatchObject({ mode: "reverse", colours: 1 });
    expectSameAs(s, [jacobian(m.rosenbrock!)(x)], 1e-15);
  });

  it("through primitives classified by their derivative rules (atan2, asin)", () => {
    const x = vector(7);
    const J = jacobian(grad(m.angles!), { sparse: true })(x);
    const H = hessian(m.angles!, { sparse: true })(x);
    expect(H.values.length).toBe(3 * 7 - 2);
    expectSameAs(H, hessian(m.angles!)(x), 1e-14);
    expectSameAs(J, hessian(m.angles!)(x), 1e-14);
  });

  it("refuses a function with several outputs", () => {
    expect(thrown(() => hessian(m.tridiag!, { sparse: true })(vector(3))).message).toMatch(
      /needs `tridiag` to return a Double/,
    );
  });
});
