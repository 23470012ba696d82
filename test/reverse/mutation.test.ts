// Loops that update an array state in place (setAt, addAt), reversed by undo logs (src/ad/reverse-undo.ts): the primal
// logs each overwritten element, the reverse carries the array and puts the elements back. Every program runs in both
// engines and both modes against finite differences (Point.checkAll); the gradient programs hold no tape of arrays,
// except where the body reads an updated version (then the whole array is taped, as before: still right).

import { describe, expect, test } from "vitest";
import { splitLets, wrapLets } from "../../src/ir/builder.js";
import { mapNode, someNode } from "../../src/ir/free.js";
import type { Expr } from "../../src/ir/ir.js";
import { load, Point, seededRandom } from "./harness.js";

const p = load(`
// Two updates at the same place in one iteration: undone last first.
let twice = fun (v: Vector) ->
  let a = ifold (fun (a: Vector) (i: Index) -> setAt (setAt a i (a[i] * a[i])) i (sin a[i] + a[i])) v (length v)
  vectorDot a a
// A tuple state: the array and a running sum that reads it before the update; addAt as well as setAt.
let tupled = fun (v: Vector) (c: Double) ->
  let (a, s) = ifold (fun (st: Vector * Double) (i: Index) ->
    let (a, s) = st
    let x = a[i]
    let j = (i * 3 + 1) - (i * 3 + 1) / length a * length a
    (addAt (setAt a i (x * c + s)) j (0.5 * x), s + x * x)) (v, 0.) (length v)
  vectorSum a + s
// Updates in both branches of nested ifs (each branch updates the state's array: one path, one chain of updates).
let branchy = fun (v: Vector) (c: Double) ->
  let (a, s) = ifold (fun (st: Vector * Double) (i: Index) ->
    let (a, s) = st
    if a[i] * c > 0.1 then
      (if a[0] > s then (setAt a i (a[i] * a[0]), s + a[i]) else (addAt (setAt a 0 (s * 0.5)) i (a[i] * a[i]), s * c))
    else st) (v, 0.25) (length v)
  vectorDot a a + s * s
// A costly value in a branch (stored beside the branch's result by the primal, ./src/ad/reverse-if.ts) and one before
// it (recorded by the primal loop): the primal loop is the forward walk of the body, and logs the same updates.
let costly = fun (v: Vector) (c: Double) ->
  let (a, s) = ifold (fun (st: Vector * Double) (i: Index) ->
    let (a, s) = st
    let t = sin (s * c)
    if a[i] * t > 0.1 then
      let e = exp (a[i] * s)
      (setAt a i (e * a[0]), s + e * t)
    else (a, s * t)) (v, 0.25) (length v)
  vectorDot a a + s * s
// Whole rows replaced: the overwritten element is an array, which is taped as before.
let rows = fun (m: Matrix) ->
  let r = ifold (fun (a: Matrix) (i: Index) -> setAt a i (build (length a[i]) (fun j -> a[i][j] * a[i][0]))) m (length m)
  ifold (fun s i -> s + r[i][0] * r[i][1]) 0. (length r)
// A while whose state is an array and a step counter, updated until a condition on the array holds.
let relax = fun (v: Vector) ->
  let (a, _k) = while (fun (st: Vector * Index) -> (fst st)[0] < 10 && snd st < 50)
    (fun st ->
      let (a, k) = st
      let i = k - k / length a * length a
      (setAt a i (a[i] * 1.3 + a[0] * 0.1 + 0.2), k + 1)) (v, 0)
  vectorDot a a
// Bubble sort to the end: passes (inner ifolds, each undone from logs) until a pass swaps nothing.
let sorted = fun (v: Vector) ->
  let (a, _swapped) = while (fun (st: Vector * Bool) -> snd st)
    (fun st ->
      ifold (fun (s: Vector * Bool) (i: Index) ->
        let (a, any) = s
        let x = a[i]
        let y = a[i + 1]
        if x > y then (setAt (setAt a i y) (i + 1) x, true) else (a, any)) (fst st, false) (length v - 1))
    (v, true)
  ifold (fun s i -> s + a[i] * double (i + 1) * a[i]) 0. (length a)
// A read of the updated array in the same iteration: not undone (the whole array is taped), still right.
let readsAfter = fun (v: Vector) ->
  let a = ifold (fun (a: Vector) (i: Index) -> let b = setAt a i (a[i] * 2) in setAt b 0 (b[i] * b[0] * 0.5 + 0.1)) v (length v)
  vectorDot a a
// An array of tuples holding rows, one element replaced: the reverse reads the element's adjoint (a view of the
// adjoint array's row) after clearing it there, which must not happen in place (it gave a zero gradient).
let tupleRows = fun (v: Vector) ->
  let layers = setAt (build 2 (fun i -> (v, 0.8))) 1 (build 3 (fun j -> v[2 - j]), 1.)
  ifold (fun s i -> let (w, c) = layers[i] in tanh (c * (w[0] * s + w[1]))) v[2] (length layers)
`);
const rnd = seededRandom(44);
const v = [0.3, -1.2, 0.8, 1.9, -0.4];

/**
 * Whether the program has a value whose type is an array of arrays of Doubles (a tape of Vector states), outside the
 * code a loop runs instead when its tapes would not fit (src/ad/reverse-checkpoint.ts: snapshots of the state, and
 * empty ones where it does not).
 */
const tapesArrays = (e: Expr): boolean =>
  someNode(
    withoutCheckpoints(e),
    (n) =>
      n.kind === "let" &&
      n.v.type.k === "array" &&
      n.v.type.elem.k === "array" &&
      !(n.rhs.kind === "build" && n.rhs.size.kind === "lit" && n.rhs.size.value === 0),
  );

/** The program with each choice `if checkpointed then ... else taped` replaced by its taped branch. */
function withoutCheckpoints(e: Expr): Expr {
  if (e.kind === "let") {
    const { bindings, tail } = splitLets(e);
    return wrapLets(
      bindings.map(({ v, rhs }) => ({ v, rhs: withoutCheckpoints(rhs) })),
      withoutCheckpoints(tail),
    );
  }
  if (e.kind === "if" && e.cond.kind === "var" && e.cond.name === "checkpointed") return withoutCheckpoints(e.else);
  return mapNode(e, (a) => a, withoutCheckpoints);
}

describe("in-place updates of a loop's array state, reversed from undo logs", () => {
  test("two updates of one element per iteration; a tuple state with setAt and addAt; updates in branches", () => {
    for (const [name, args] of [
      ["twice", [v]],
      ["tupled", [v, 0.7]],
      ["branchy", [v, 0.7]],
      ["branchy", [v.map(Math.abs), 1.5]],
      ["costly", [v, 0.7]],
      ["costly", [v, 3]],
    ] as const) {
      const point = new Point(p, name, args);
      point.checkAll(rnd);
      expect(tapesArrays(point.specs("gradient").js.optimised.body), name).toBe(false);
    }
  });

  test("a while loop over an array state, and bubble sort (a while of passes)", () => {
    const relax = new Point(p, "relax", [[1.5, 0.5, 2]]);
    relax.checkAll(rnd);
    const sorted = new Point(p, "sorted", [v]);
    sorted.checkAll(rnd);
    // The sorted values weighted by position: d/dv_j = 2 (rank(j) + 1) v_j.
    const rank = [...v].sort((a, b) => a - b);
    const [row] = sorted.reverseJacobian();
    v.forEach((x, j) => expect(row![j]).toBeCloseTo(2 * (rank.indexOf(x) + 1) * x, 12));
  });

  test("an element of an array of tuples holding a row, replaced and read", () => {
    new Point(p, "tupleRows", [[0.6, -0.3, 0.9]]).checkAll(rnd);
  });

  test("a read of the updated version, or rows replaced whole, fall back to taping the array, and are still right", () => {
    const point = new Point(p, "readsAfter", [v]);
    point.checkAll(rnd);
    expect(tapesArrays(point.specs("gradient").js.optimised.body)).toBe(true);
    new Point(p, "rows", [
      [
        [0.3, -1.2],
        [0.8, 1.9],
        [-0.4, 2],
      ],
    ]).checkAll(rnd);
  });
});
