// The transformation D and the forward-ad pass as program text: what D makes of each construct and of free
// variables, that zero tangents generate no arithmetic, and that the pass is registered first in the standard pipeline.

import { describe, expect, test } from "vitest";
import { forwardAdPass } from "../../src/ad/expand.js";
import { forwardTransform } from "../../src/ad/forward.js";
import { AnfBuilder, litDouble, mkApp } from "../../src/ir/builder.js";
import { someNode } from "../../src/ir/free.js";
import { freshVar, mkLam, type Expr, type IrFunction, type Var } from "../../src/ir/ir.js";
import { printIr } from "../../src/ir/print.js";
import { verify } from "../../src/ir/verify.js";
import { runFunction } from "../../src/eval/interpreter.js";
import { PASSES, STANDARD_PIPELINE } from "../../src/opt/pipeline.js";
import { DOUBLE, funOf, VECTOR } from "../../src/types/types.js";
import { dualType } from "../../src/ad/dual-types.js";
import { vector } from "../eval/ir-builder.js";
import { expand, load } from "./harness.js";

/** `fun x -> body(x)` as IR. */
function lambda(body: (x: Var, b: AnfBuilder) => Expr, type = DOUBLE): Expr {
  const x = freshVar("x", type);
  const b = new AnfBuilder();
  return mkLam(x, b.finish(body(x, b)));
}

/** A function of `params` computing snd (D[lam] (x, 1.)) for its last parameter x (the others are free in lam). */
function derivativeAt(lam: Expr, params: Var[]): IrFunction {
  const x = params[params.length - 1]!;
  const b = new AnfBuilder();
  const df = b.bind("df", forwardTransform(lam));
  const r = b.bind("r", mkApp(df, b.tuple([x, litDouble(1)])));
  const fn: IrFunction = { name: "d", params, body: b.finish(b.proj(1, r)) };
  verify(fn);
  return fn;
}

describe("D on IR", () => {
  test("a free Double is a constant: its tangent is 0 and generates no arithmetic", () => {
    const c = freshVar("c", DOUBLE);
    const lam = lambda((x, b) => b.prim("add", [b.prim("mul", [x, c]), litDouble(2)]));
    expect(printIr(forwardTransform(lam))).toMatchInlineSnapshot(`"fun x' -> (fst x' * c + 2., c * snd x')"`);
    const fn = derivativeAt(lam, [c, freshVar("x", DOUBLE)]);
    expect(runFunction(fn, [3.5, 2])).toBe(3.5);
  });

  test("a free array becomes a build of (element, 0.); the free function in it becomes jvp g", () => {
    const v = freshVar("v", VECTOR);
    const g = freshVar("g", funOf(DOUBLE, DOUBLE));
    const lam = lambda((x, b) => b.prim("mul", [b.app(g, x), b.prim("get", [v, b.prim("length", [v])])]));
    const out = forwardTransform(lam);
    expect(printIr(out)).toMatchInlineSnapshot(`
      "let g' = jvp g in
      let v' = build (length v) (fun i -> (v[i], 0.)) in
      fun x' ->
        let r' = g' x' in
        let r = fst r' in
        let get' = v'[length v'] in
        let get_2 = fst get' in
        (r * get_2, get_2 * snd r' + r * snd get')"
    `);
    expect(someNode(out, (e) => e.kind === "jvp" && e.type === undefined)).toBe(false);
  });

  test("every construct maps to itself on duals: build, ifold, if, tuples", () => {
    const n = freshVar("n", { k: "int" });
    const lam = lambda((x, b) => {
      const xs = b.build(n, (i, bb) => bb.prim("mul", [x, bb.prim("toDouble", [i])]));
      const s = b.ifold(litDouble(0), n, (acc, i, bb) => bb.prim("add", [acc, bb.prim("get", [xs, i])]));
      const pos = b.prim("gt", [s, litDouble(0)]);
      const t = b.if(
        pos,
        (bb) => bb.tuple([s, n]),
        (bb) => bb.tuple([x, n]),
      );
      return b.proj(0, t);
    });
    const out = forwardTransform(lam);
    expect(printIr(out)).toMatchInlineSnapshot(`
      "fun x' ->
        let x = fst x' in
        let dx = snd x' in
        let xs' = build n (fun i ->
          let toDouble = double i in
          (x * toDouble, toDouble * dx)) in
        let s' = ifold (fun acc' i_2 ->
          let get' = xs'[i_2] in
          (fst acc' + fst get', snd acc' + snd get')) (0., 0.) n in
        fst (if fst s' > 0. then (s', n) else (x', n))"
    `);
    // d/dx Σ_{i<n} x·i = n(n-1)/2 where the sum is positive, else d/dx x = 1
    const fn = derivativeAt(lam, [n, freshVar("x", DOUBLE)]);
    expect(runFunction(fn, [4, 2])).toBe(6);
    expect(runFunction(fn, [4, -2])).toBe(1);
  });

  test("the exponent's term of pow is guarded unless its tangent is the literal 0", () => {
    const e = freshVar("e", DOUBLE);
    const constant = lambda((x, b) => b.prim("pow", [x, e]));
    expect(printIr(forwardTransform(constant))).not.toContain("log");
    const both = lambda((p, b) => b.prim("pow", [b.proj(0, p), b.proj(1, p)]), { k: "tuple", elems: [DOUBLE, DOUBLE] });
    expect(printIr(forwardTransform(both))).toMatch(/\(if (d\w+) = 0\. then 0\. else log \w+ \* \w+ \* \1\)/);
  });

  test("the dual lambda has the dual type", () => {
    const lam = lambda((x, b) => b.tuple([x, b.prim("sin", [x])]));
    const out = forwardTransform(lam);
    expect(out.kind).toBe("lam");
    expect((out as { type: unknown }).type).toEqual(dualType(funOf(DOUBLE, { k: "tuple", elems: [DOUBLE, DOUBLE] })));
  });
});

describe("the forward-ad pass", () => {
  test("is registered, and first in the standard pipeline", () => {
    expect(PASSES["forward-ad"]).toBe(forwardAdPass);
    expect(STANDARD_PIPELINE.map((p) => p.name)).toEqual(["forward-ad", "inline", "optimise"]);
  });

  test("returns a function without jvp unchanged", () => {
    const p = load("let f = fun (v: Vector) -> vectorSum (vectorMap v (fun a -> a * a))");
    const lowered = p.specialise("f", [VECTOR], "interp").lowered;
    expect(forwardAdPass.run(lowered)).toBe(lowered);
  });

  test("expands diff into a readable dual-number program, first order after the standard pipeline", () => {
    const p = load("let main = fun (x: Double) -> snd (diff (fun y -> sin y * y) x)");
    const { expanded, optimised } = expand(p, "main", [0.5]);
    expect(printIr(expanded)).toMatchInlineSnapshot(`
      "let main (x: Double) =
        let df = fun y' ->
          let y = fst y' in
          let dy = snd y' in
          let t = sin y in
          (t * y, y * (cos y * dy) + t * dy) in
        snd (df (x, 1.))"
    `);
    expect(someNode(optimised.body, (e) => e.kind === "lam" || e.kind === "app")).toBe(false);
  });

  test("a gradient of a vector function is one build of loops over the input", () => {
    const p = load("let main = fun (v: Vector) -> grad (fun w -> vectorDot w w) v");
    const { optimised } = expand(p, "main", [[1, 2, 3]]);
    let builds = 0;
    someNode(optimised.body, (e) => {
      if (e.kind === "build") builds++;
      return false;
    });
    expect(builds).toBe(1);
    expect(p.runJson("main", [[1, 2, 3]])).toEqual([
      [14, 2],
      [14, 4],
      [14, 6],
    ]);
    expect(runFunction(optimised, [vector([1, 2, 3])])).toEqual(runFunction(optimised, [vector([1, 2, 3])]));
  });
});
