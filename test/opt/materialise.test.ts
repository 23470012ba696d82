// Materialising a shared transcendental element computation (src/opt/materialise.ts), alone and in the strategy:
// program in, printed program out, and the same values as the input program through the interpreter.

import { describe, expect, test } from "vitest";
import { litDouble, type AnfBuilder } from "../../src/ir/builder.js";
import { runFunction } from "../../src/eval/interpreter.js";
import type { Atom, IrFunction } from "../../src/ir/ir.js";
import { printIr } from "../../src/ir/print.js";
import { verify } from "../../src/ir/verify.js";
import { materialiseShared } from "../../src/opt/materialise.js";
import { optimise } from "../../src/opt/strategy.js";
import { DOUBLE, INT, VECTOR } from "../../src/types/types.js";
import type { Value } from "../../src/runtime/value.js";
import { func } from "../ir/helpers.js";
import { params } from "./run-rules.js";

const vec = (xs: number[]) => ({
  tag: "dense" as const,
  elemKind: "double" as const,
  shape: [xs.length],
  data: Float64Array.from(xs),
});

function materialised(fn: IrFunction): { text: string; count: number; out: IrFunction } {
  verify(fn);
  const { fn: out, materialised: count } = materialiseShared(fn);
  verify(out);
  return { text: printIr(out), count, out };
}

function sameValues(a: IrFunction, b: IrFunction, args: readonly unknown[]): void {
  expect(runFunction(b, args as Value[])).toEqual(runFunction(a, args as Value[]));
}

/** exp (v[i] - p), written afresh in each loop. */
const term = (v: Atom, p: Atom, i: Atom, b: AnfBuilder) =>
  b.prim("exp", [b.prim("sub", [b.prim("get", [v, i], "x"), p], "t")], "e");

/** softmax by hand: the denominator's ifold and the build each compute exp (v[i] - p). */
const softmax = () =>
  func("softmax", params(["v", VECTOR], ["p", DOUBLE]), (b, v, p) => {
    const n = b.prim("length", [v], "n");
    const s = b.ifold(litDouble(0), n, (acc, i, bb) => bb.prim("add", [acc, term(v, p, i, bb)]), "s");
    return b.build(n, (j, bb) => bb.prim("div", [term(v, p, j, bb), s]));
  });

describe("materialise", () => {
  test("the same exp (v[i] - p) in an ifold and a build over length v is computed once", () => {
    const fn = softmax();
    const { text, count, out } = materialised(fn);
    expect(count).toBe(1);
    expect(text).toMatchInlineSnapshot(`
      "let softmax (v: Vector) (p: Double) =
        let n = length v in
        let mat = build n (fun i -> exp (v[i] - p)) in
        let s = ifold (fun acc i_2 ->
          let t = v[i_2] - p in
          acc + mat[i_2]) 0. n in
        build n (fun i_3 ->
          let t_2 = v[i_3] - p in
          mat[i_3] / s)"
    `);
    sameValues(fn, out, [vec([1, -2, 3.5, 0]), 0.25]);
    sameValues(fn, out, [vec([]), 1]);
  });

  test("a tail occurrence (the element itself) counts too, and each occurrence reads with its own index", () => {
    const fn = func("f", params(["v", VECTOR]), (b, v) => {
      const n = b.prim("length", [v], "n");
      const a = b.build(n, (i, bb) => bb.prim("log", [bb.prim("get", [v, i])]), "a");
      const c = b.build(n, (j, bb) => bb.prim("mul", [litDouble(2), bb.prim("log", [bb.prim("get", [v, j])])]), "c");
      return b.tuple([a, c]);
    });
    const { text, count, out } = materialised(fn);
    expect(count).toBe(1);
    expect(text).toMatchInlineSnapshot(`
      "let f (v: Vector) =
        let n = length v in
        let mat = build n (fun i -> log v[i]) in
        (build n (fun i_2 ->
          let get_2 = v[i_2] in
          mat[i_2]), build n (fun i_3 ->
          let get_3 = v[i_3] in
          2. * mat[i_3]))"
    `);
    sameValues(fn, out, [vec([1, 2, 0.5])]);
  });

  test("unchanged: a bare read, a single occurrence, a computation that may fail, one that uses the accumulator", () => {
    const bare = func("bare", params(["v", VECTOR]), (b, v) => {
      const n = b.prim("length", [v], "n");
      const s = b.ifold(litDouble(0), n, (acc, i, bb) => bb.prim("add", [acc, bb.prim("get", [v, i])]));
      return b.build(n, (j, bb) => bb.prim("div", [bb.prim("get", [v, j]), s]));
    });
    const single = func("single", params(["v", VECTOR], ["p", DOUBLE]), (b, v, p) =>
      b.build(b.prim("length", [v]), (j, bb) => term(v, p, j, bb)),
    );
    // Over a size m that is not length v: v[i] may be out of range, so computing it early could raise an error.
    const mayFail = func("mayFail", params(["v", VECTOR], ["m", INT], ["p", DOUBLE]), (b, v, m, p) => {
      const s = b.ifold(litDouble(0), m, (acc, i, bb) => bb.prim("add", [acc, term(v, p, i, bb)]), "s");
      return b.build(m, (j, bb) => bb.prim("div", [term(v, p, j, bb), s]));
    });
    const usesAcc = func("usesAcc", params(["v", VECTOR]), (b, v) => {
      const n = b.prim("length", [v], "n");
      const loop = () =>
        b.ifold(litDouble(0), n, (acc, i, bb) => bb.prim("exp", [bb.prim("add", [acc, bb.prim("get", [v, i])])]));
      return b.tuple([loop(), loop()]);
    });
    for (const fn of [bare, single, mayFail, usesAcc]) {
      const { text, count } = materialised(fn);
      expect(count).toBe(0);
      expect(text).toBe(printIr(fn));
    }
    expect(printIr(mayFail)).toContain("build m");
  });

  test("in the strategy: fusion does not undo it, and the optimiser reaches its fixpoint", () => {
    const fn = softmax();
    const { fn: out, report } = optimise(fn, { verify: true });
    expect(report.reason).toBe("fixpoint");
    expect(report.fired["materialise"]).toBe(1);
    expect(printIr(out)).toMatchInlineSnapshot(`
      "let softmax (v: Vector) (p: Double) =
        let n = length v in
        let mat = build n (fun i -> exp (v[i] - p)) in
        let s = ifold (fun acc i_2 -> acc + mat[i_2]) 0. n in
        build n (fun i_3 -> mat[i_3] / s)"
    `);
    sameValues(fn, out, [vec([1, -2, 3.5, 0]), 0.25]);
  });

  test("the forward derivative's shape: the sum, the hot branch's sum without one term, and the cold entries", () => {
    const fn = func("lse", params(["v", VECTOR], ["p", DOUBLE], ["k", INT]), (b, v, p, k) => {
      const n = b.prim("length", [v], "n");
      const s = b.ifold(litDouble(0), n, (acc, i, bb) => bb.prim("add", [acc, term(v, p, i, bb)]), "s");
      return b.build(n, (j, bb) =>
        bb.if(
          bb.prim("eq", [k, j], "hot"),
          (bt) =>
            bt.ifold(litDouble(0), n, (acc, i, b3) =>
              b3.if(
                b3.prim("eq", [i, j]),
                () => acc,
                (be) => be.prim("sub", [acc, term(v, p, i, be)]),
              ),
            ),
          (be) => be.prim("div", [term(v, p, j, be), s]),
        ),
      );
    });
    const { fn: out, report } = optimise(fn, { verify: true });
    expect(report.reason).toBe("fixpoint");
    expect(printIr(out)).toMatchInlineSnapshot(`
      "let lse (v: Vector) (p: Double) (k: Index) =
        let n = length v in
        let mat = build n (fun i -> exp (v[i] - p)) in
        let s = ifold (fun acc i_2 -> acc + mat[i_2]) 0. n in
        build n (fun i_3 ->
          if k = i_3 then
            ifold (fun acc_2 i_4 -> if i_4 = i_3 then acc_2 else acc_2 - mat[i_4]) 0. n
          else
            mat[i_3] / s)"
    `);
    for (const k of [0, 2, 5]) sameValues(fn, out, [vec([0.5, 3, -1]), 3, k]);
  });
});
