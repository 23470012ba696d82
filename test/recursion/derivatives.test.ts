// Derivatives of recursive functions, in both engines and both modes: forward mode differentiates a call of f by a
// call of D[f] (itself recursive), reverse mode by f_fwd / f_bwd passing a tape (src/ad/reverse-functions.ts). Each
// example is checked against a closed form and central finite differences, forward against reverse (Jacobians, the
// dot-product test), and second derivatives (forward over reverse) against closed forms.

import { describe, expect, it } from "vitest";
import { expectClose, FD_TOL, load, Point, seededRandom } from "../reverse/harness.js";
import { runBoth } from "../ad/harness.js";
import { thrown } from "../helpers.js";

const p = load(`
let rec pow (x: Double) (n: Index) : Double = if n = 0 then 1. else x * pow x (n - 1)
let pow7 = fun (x: Double) -> pow x 7

// Divide and conquer over an index range of the vector around it (two recursive calls per level).
let treeSum = fun (v: Vector) ->
  let rec go lo hi = if hi - lo = 1 then sin v[lo] * v[lo] else (let mid = (lo + hi) / 2 in go lo mid + go mid hi)
  go 0 (length v)

// A factorial-like product (Myia's examples): the rising factorial x (x + 1) ... (x + n - 1).
let rec rising (x: Double) (n: Index) : Double = if n = 0 then 1. else (x + double (n - 1)) * rising x (n - 1)
let rising6 = fun (x: Double) -> rising x 6

// Mutual recursion through both functions' arguments.
let rec ping (x: Double) (y: Double) (n: Index) : Double = if n = 0 then x * y else pong (sin x) (x + y) (n - 1)
and pong (x: Double) (y: Double) (n: Index) : Double = if n = 0 then x - y else ping (y * 0.5) (x * y) (n - 1)
let mutual = fun (x: Double) (y: Double) -> ping x y 5

// Calls of a recursive function inside a loop (reversed by recomputing each call), and a loop calling recursion
// inside a recursive function.
let cubes = fun (v: Vector) -> vectorSum (build (length v) (fun i -> pow v[i] 3))
let rec nest (v: Vector) (k: Index) : Double =
  if k = 0 then vectorDot v v else vectorSum (build (length v) (fun i -> v[i] * nest v (k - 1)))
let nested = fun (v: Vector) -> nest v 2

// A recursive neural network over a binary tree encoded in index arrays (paper 002 cites tree-structured models as
// more natural with recursion): node i is a leaf with word word[i] when left[i] < 0, else h = tanh (W [h_l; h_r] + b).
let rnn = fun (W: Matrix) (b: Vector) (E: Matrix) (left: Array<Index>) (right: Array<Index>) (word: Array<Index>) ->
  let d = length b
  let rec node (i: Index) : Vector =
    if left[i] < 0 then E[word[i]]
    else
      let hl = node left[i]
      let hr = node right[i]
      let c = build (2 * d) (fun k -> if k < d then hl[k] else hr[k - d])
      let z = build d (fun r -> vectorDot W[r] c)
      build d (fun k -> tanh (z[k] + b[k]))
  node 0
let rnnLoss = fun (W: Matrix) (b: Vector) (E: Matrix) (left: Array<Index>) (right: Array<Index>) (word: Array<Index>) ->
  vectorSum (rnn W b E left right word)

// Derivatives taken inside programs: vjp and diff of recursive functions, and gradient descent calling them.
let vjpPow = fun (x: Double) -> snd (vjp (fun y -> pow y 5) x 1.)
let diffPow = fun (x: Double) -> snd (diff (fun y -> pow y 5) x)
let descend = fun (v0: Vector) (steps: Index) ->
  ifold (fun v k -> let g = snd (vjp treeSum v 1.) in build (length v) (fun i -> v[i] - 0.05 * g[i])) v0 steps

let powVjp = fun (x: Double) -> snd (vjp (fun y -> pow y 5) x 1.)
let reverseOverReverse = fun (x: Double) -> snd (vjp powVjp x 1.)
let reverseOverReversePair = fun (x: Double) -> snd (vjp (fun (q: Double * Double) -> powVjp (fst q) * snd q) (x, x) 1.)
let forwardOverReverse = fun (x: Double) -> snd (diff powVjp x)

let rec lin (v: Vector) (i: Index) : Double = if i = length v then 0. else sin v[i] * v[i] + lin v (i + 1)
let linear = fun (v: Vector) -> lin v 0
`);

const rnd = seededRandom(12);
const v5 = [0.3, -1.2, 2.5, 0.7, -0.4];
const sinTimes1 = (x: number) => Math.cos(x) * x + Math.sin(x);
const sinTimes2 = (x: number) => 2 * Math.cos(x) - x * Math.sin(x);

describe("closed forms, both engines, both modes, finite differences", () => {
  it("pow x 7: 7 x⁶, second derivative 42 x⁵", () => {
    const pt = new Point(p, "pow7", [1.3]);
    const fwd = pt.checkAll(rnd);
    expectClose(fwd, [[7 * 1.3 ** 6]], 1e-12, "pow7'");
    expectClose(pt.hessian(), [[42 * 1.3 ** 5]], 1e-12, "pow7''");
  });

  it("the divide-and-conquer sum of sin vᵢ · vᵢ: its gradient and its (diagonal) Hessian", () => {
    const pt = new Point(p, "treeSum", [v5]);
    const fwd = pt.checkAll(rnd);
    expectClose(fwd, [v5.map(sinTimes1)], 1e-12, "treeSum'");
    const h = pt.hessian();
    expectClose(
      h,
      v5.map((x, i) => v5.map((_, j) => (i === j ? sinTimes2(x) : 0))),
      1e-10,
      "treeSum''",
    );
    expectClose(h, pt.fdHessian(), FD_TOL, "treeSum'' against differences of the gradient");
  });

  it("the rising factorial: its derivative is the product times Σ 1/(x + k)", () => {
    const x = 0.7;
    const pt = new Point(p, "rising6", [x]);
    const fwd = pt.checkAll(rnd);
    const prod = [0, 1, 2, 3, 4, 5].reduce((a, k) => a * (x + k), 1);
    expectClose(fwd, [[prod * [0, 1, 2, 3, 4, 5].reduce((a, k) => a + 1 / (x + k), 0)]], 1e-12, "rising'");
  });

  it("mutual recursion (against finite differences, forward against reverse)", () => {
    new Point(p, "mutual", [0.8, -0.3]).checkAll(rnd);
  });

  it("recursion called inside loops, and loops calling recursion inside a recursive function", () => {
    const cubes = new Point(p, "cubes", [v5]);
    expectClose(cubes.checkAll(rnd), [v5.map((x) => 3 * x * x)], 1e-12, "cubes'");
    // nest v 2 = (Σ v)² · (v·v): gradient 2 (Σ v)(v·v) + 2 (Σ v)² v.
    const v = [0.5, -1, 2];
    const s = v.reduce((a, x) => a + x, 0);
    const q = v.reduce((a, x) => a + x * x, 0);
    const nested = new Point(p, "nested", [v]);
    expectClose(nested.checkAll(rnd), [v.map((x) => 2 * s * q + 2 * s * s * x)], 1e-12, "nested'");
  });

  it("the tree RNN: gradients with respect to W, b and E, and its Jacobian by rows", () => {
    const d = 2;
    const W = [
      [0.3, -0.2, 0.5, 0.1],
      [-0.4, 0.6, 0.2, -0.3],
    ];
    const b = [0.05, -0.1];
    const E = [
      [0.5, -0.5],
      [1, 0.2],
      [-0.7, 0.4],
    ];
    // ((w0 w1) (w2 (w1 w0))): nodes 0 = root, 1 = (w0 w1), 2 = (w2 (w1 w0)), 3..8 leaves and one inner node.
    const left = [1, 3, 5, -1, -1, -1, 7, -1, -1];
    const right = [2, 4, 6, -1, -1, -1, 8, -1, -1];
    const word = [0, 0, 0, 0, 1, 2, 0, 1, 0];
    expect(d).toBe(b.length);
    new Point(p, "rnnLoss", [W, b, E, left, right, word], [0, 1, 2]).checkAll(rnd);
    new Point(p, "rnn", [W, b, E, left, right, word], [0, 1]).checkAll(rnd);
  });
});

describe("derivatives taken inside programs", () => {
  it("vjp and diff of a recursive function, and gradient descent through one", () => {
    for (const x of [1.5, -0.5]) {
      expect(runBoth(p, "vjpPow", [x], { reread: false })).toBeCloseTo(5 * x ** 4, 12);
      expect(runBoth(p, "diffPow", [x])).toBeCloseTo(5 * x ** 4, 12);
    }
    let v = [0.4, -0.8, 1.1];
    const out = runBoth(p, "descend", [v, 3], { reread: false }) as number[];
    for (let k = 0; k < 3; k++) v = v.map((x) => x - 0.05 * sinTimes1(x));
    expectClose(out, v, 1e-12, "descend");
  });
});

describe("second derivatives", () => {
  it("forward over reverse through recursion works; reverse over reverse runs forward mode, or is a located error", () => {
    expect(runBoth(p, "forwardOverReverse", [1.5], { reread: false })).toBeCloseTo(20 * 1.5 ** 3, 10);
    // Reverse mode does not reverse tapes again: a Double or array argument is seeded by forward mode instead.
    expect(runBoth(p, "reverseOverReverse", [1.5], { reread: false })).toBeCloseTo(20 * 1.5 ** 3, 10);
    const e = thrown(() => runBoth(p, "reverseOverReversePair", [1.5], { reread: false }));
    expect(e.headline).toBe(
      "ad-test.smooth:48:52: unsupported error: reverse mode cannot differentiate a reverse-mode derivative of a " +
        "recursive function (reverse over reverse)",
    );
  });
  it("reverse over reverse where the tapes are out of sight: calls inside loops, a recursive function's own vjp", () => {
    const q = load(`
let rec pow (x: Double) (n: Index) : Double = if n = 0 then 1. else x * pow x (n - 1)
let cubes = fun (v: Vector) -> snd (vjp (fun w -> vectorSum (build (length w) (fun i -> pow w[i] 3))) v 1.)
let throughLoop = fun (v: Vector) -> snd (vjp (fun w -> vectorSum (cubes w)) v 1.)
let rec outer (x: Double) (n: Index) : Double = if n = 0 then x else outer (snd (vjp (fun y -> pow y 3) x 1.)) (n - 1)
let throughFunction = fun (x: Double) -> snd (vjp (fun y -> outer y 2) x 1.)
`);
    // Σ 3 wᵢ² has gradient 6 w; outer x 2 = 27 x⁴ (the reverse of its tapes gave 0 before), derivative 108 x³.
    expectClose(runBoth(q, "throughLoop", [[1, 2, -0.5]], { reread: false }), [6, 12, -3], 1e-12, "throughLoop");
    expect(runBoth(q, "throughFunction", [1.5], { reread: false })).toBeCloseTo(108 * 1.5 ** 3, 10);
  });

  it("a recursive call in a branch after a while, whose taped value has no default (found by seed 4242)", () => {
    // Reverse mode tapes the call; loop-invariant code motion must keep the tape-typed let where it is.
    const q = load(`
let main = fun (x: Double) ->
  if fst (while (fun (s: Bool * Index) -> snd s < 0 && fst s) (fun (s: Bool * Index) -> (fst s, snd s + 1)) (true, 0))
  then (let rec r (n: Index) (y: Double) : Vector = if n <= 0 then build 2 (fun i -> x * y) else build 2 (fun i -> x) in r 0 x)
  else build 2 (fun i -> x)
`);
    expectClose(new Point(q, "main", [-3]).checkAll(rnd), [[-6], [-6]], 1e-12, "(x², x²)' = (2x, 2x)");
  });
});

describe("deep recursion", () => {
  it("the gradient of a 10⁵-deep linear recursion runs (compiled) and matches the closed form", () => {
    const n = 100_000;
    const v = Array.from({ length: n }, (_, i) => Math.sin(i));
    const pt = new Point(p, "linear", [v]);
    const g = pt.specs("gradient").js.run(pt.values);
    const data = (g as { data: Float64Array }).data;
    expect(data.length).toBe(n);
    let worst = 0;
    for (let i = 0; i < n; i++) worst = Math.max(worst, Math.abs(data[i]! - sinTimes1(v[i]!)));
    expect(worst).toBeLessThan(1e-12);
  });
});
