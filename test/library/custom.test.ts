// The library's customJvp and customVjp (src/library/custom.ts): TypeScript functions over tensors with their own
// derivative rules, given to every transform (grad, jvp, vjp, hessian, jacobian, vmap, compile) and called inside
// other staged functions. References: closed forms and central differences.

import { describe, expect, it } from "vitest";
import {
  add,
  compile,
  customJvp,
  customVjp,
  div,
  exp,
  grad,
  hessian,
  inspect,
  jacobian,
  jvp,
  log,
  map,
  max,
  min,
  neg,
  mul,
  smooth,
  StagingError,
  sub,
  sum,
  vjp,
  vmap,
} from "../../src/index.js";
import type { Tensor } from "../../src/index.js";
import { flat, numericGradient } from "./helpers.js";

const sigmoid = (x: number) => 1 / (1 + Math.exp(-x));
const log1pexp = customJvp(
  (x: Tensor) => log(add(1, exp(x))),
  ([x]: [Tensor], [dx]: [Tensor]) => [log(add(1, exp(x))), mul(dx, sub(1, div(1, add(1, exp(x)))))],
);

describe("customJvp", () => {
  it("log1pexp: its derivative at 1000 is 1 by grad, jvp and vjp (not NaN); σ elsewhere; σ(1 - σ) by hessian", () => {
    expect(log1pexp(0.5)).toBeCloseTo(Math.log(1 + Math.exp(0.5)), 15);
    expect(grad(log1pexp)(1000)).toBe(1);
    expect(jvp(log1pexp, [1000], [1])).toEqual([Infinity, 1]);
    const [, pullback] = vjp(log1pexp, 1000) as [number, (ct: number) => number[]];
    expect(pullback(1)).toEqual([1]);
    for (const x of [0.5, -3]) {
      expect(grad(log1pexp)(x)).toBeCloseTo(sigmoid(x), 14);
      const s = sigmoid(x);
      expect(hessian(log1pexp)(x)).toBeCloseTo(s * (1 - s), 14);
    }
  });

  it("vmap over it, compile it, and call it from another staged function", () => {
    const xs = new Float64Array([0.5, 1000, -2]);
    const ys = flat(vmap(log1pexp)(xs));
    expect(ys[1]).toBe(Infinity);
    [0, 2].forEach((i) => expect(ys[i]).toBeCloseTo(Math.log(1 + Math.exp(xs[i]!)), 15));
    // The Jacobian of the mapped function: σ on the diagonal (1 at 1000).
    const jac = jacobian(vmap(log1pexp), { mode: "reverse" })(xs) as Float64Array[];
    [sigmoid(0.5), 1, sigmoid(-2)].forEach((d, i) => expect(jac[i]![i]).toBeCloseTo(d, 15));
    expect(jac.every((row, i) => row.every((x, j) => i === j || x === 0))).toBe(true);
    expect(compile(log1pexp)(-2)).toBeCloseTo(Math.log1p(Math.exp(-2)), 15);
    const loss = (v: Tensor) => sum(map((x: Tensor) => mul(2, log1pexp(x)), v));
    expect(flat(grad(loss)(new Float64Array([0.5, 1000])))).toEqual([2 * sigmoid(0.5), 2]);
    // The rule is in the program: the gradient has no exp x / (1 + exp x) of the formula, only the rule's form.
    expect(inspect(grad(loss), new Float64Array([0.5, 1000])).smooth).toMatch(/1\. - 1\. \/ \(1\. \+ exp/);
  });

  it("a function of two arguments: primals and tangents come as arrays, one entry per argument", () => {
    const product = customJvp(
      (a: Tensor, b: Tensor) => mul(a, b),
      ([a, b]: [Tensor, Tensor], [da, db]: [Tensor, Tensor]) => [mul(a, b), add(mul(da, b), mul(a, db))],
    );
    expect(grad(product, { argnums: [0, 1] })(2, 5)).toEqual([5, 2]);
    expect(jacobian(product, { argnums: [0, 1], mode: "forward" })(2, 5)).toEqual([5, 2]);
  });

  it("inside a map over a Vector: forward and reverse mode agree with central differences", () => {
    // v ↦ Σ log1pexp(v_i w_i) with the rule inside a map: the gradient by both modes against central differences.
    const f = (v: Tensor, w: Tensor) => sum(map((x: Tensor) => log1pexp(x), mul(v, w)));
    const v = [0.3, -1.2, 2];
    const w = [1.5, 0.5, -1];
    const numeric = numericGradient((x) => x.reduce((s, xi, i) => s + Math.log1p(Math.exp(xi * w[i]!)), 0), v);
    const args = [new Float64Array(v), new Float64Array(w)] as const;
    expect(flat(grad(f)(...args)).every((g, i) => Math.abs(g - numeric[i]!) < 1e-7)).toBe(true);
    expect(flat(jacobian(f, { mode: "forward" })(...args)).every((g, i) => Math.abs(g - numeric[i]!) < 1e-7)).toBe(
      true,
    );
  });
});

describe("customVjp", () => {
  const clip = customVjp(
    (x: Tensor) => x,
    (x: Tensor) => [x, 0],
    (_r: Tensor, ct: Tensor) => max(-1, min(1, ct)),
  );

  it("gradient clipping: the cotangent reaching clip is clipped to [-1, 1]", () => {
    const loss = (x: Tensor) => mul(10, clip(mul(x, x)));
    for (const x of [0.5, 3]) expect(grad(loss)(x)).toBeCloseTo(2 * x, 14);
    const gentle = (x: Tensor) => mul(0.5, clip(mul(x, x)));
    expect(grad(gentle)(3)).toBeCloseTo(3, 14);
  });

  it("residuals and several arguments: bwd returns one adjoint per argument", () => {
    const weighted = customVjp(
      (a: Tensor, b: Tensor) => mul(a, exp(b)),
      (a: Tensor, b: Tensor) => {
        const e = exp(b);
        return [mul(a, e), [a, e]];
      },
      (r: Tensor[], ct: Tensor) => [mul(ct, r[1]!), mul(ct, mul(r[0]!, r[1]!))],
    );
    expect(flat(grad(weighted, { argnums: [0, 1] })(2, 0.5))).toEqual([Math.exp(0.5), 2 * Math.exp(0.5)]);
    // Forward mode transposes bwd (linear in the cotangent here): the same derivatives.
    const fwd = flat(jacobian(weighted, { argnums: [0, 1], mode: "forward" })(2, 0.5));
    expect(fwd[0]).toBeCloseTo(Math.exp(0.5), 14);
    expect(fwd[1]).toBeCloseTo(2 * Math.exp(0.5), 14);
  });

  it("rules that do not fit are staging errors; a library function is not a rule", () => {
    const bad = customJvp(
      (x: Tensor) => neg(x),
      ([x]: [Tensor]) => neg(x),
    );
    expect(() => grad(bad)(1)).toThrow(StagingError);
    expect(() => grad(bad)(1)).toThrow(/must return a pair/);
    const m = smooth`let f = fun (x: Double) -> x * x`;
    expect(() => customJvp(m.f!, (x: Tensor) => [x, x])).toThrow(/a Smooth definition gets its rules in its source/);
  });
});
