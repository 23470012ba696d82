// customJvp and customVjp whose function and rules are plain TypeScript (Math.* and operators, no tensor operations):
// translated to the language's custom rules (issue 28, item 5), given to every transform and called from plain
// functions. References: closed forms, central differences, and rules that deliberately differ from the true
// derivative, which must show in the result (the rule is used, not the function differentiated).

import { describe, expect, it } from "vitest";
import { compile, customJvp, customVjp, grad, hessian, inspect, jacobian, jvp, vjp, vmap } from "../../src/index.js";
import { thrown } from "../helpers.js";
import { expectClose, flat, numericGradient } from "../library/helpers.js";

const sigmoid = (x: number) => 1 / (1 + Math.exp(-x));
const log1pexp = customJvp(
  (x: number) => Math.log(1 + Math.exp(x)),
  ([x]: number[], [dx]: number[]) => [Math.log(1 + Math.exp(x!)), dx! * (1 - 1 / (1 + Math.exp(x!)))],
);
/** x² with a rule that says 3x: every derivative through it must be 3x, not 2x. */
const square = customJvp(
  (x: number) => x * x,
  ([x]: number[], [dx]: number[]) => [x! * x!, 3 * x! * dx!],
);
const num = (x: unknown) => x as number;

describe("customJvp with plain rules", () => {
  it("log1pexp: its derivative at 1000 is 1 (not NaN) by grad, jvp and vjp; σ elsewhere; σ(1 - σ) by hessian", () => {
    expect(log1pexp(0.5)).toBeCloseTo(Math.log(1 + Math.exp(0.5)), 15);
    expect(grad(log1pexp)(1000)).toBe(1);
    expect(jvp(log1pexp, [1000], [1])).toEqual([Infinity, 1]);
    const [, pullback] = vjp(log1pexp, 1000) as [number, (ct: number) => number[]];
    expect(pullback(1)).toEqual([1]);
    for (const x of [0.5, -3]) {
      expect(grad(log1pexp)(x)).toBeCloseTo(sigmoid(x), 14);
      expect(hessian(log1pexp)(x)).toBeCloseTo(sigmoid(x) * (1 - sigmoid(x)), 14);
    }
    const xs = new Float64Array([0.5, 1000, -2]);
    const jac = jacobian(vmap(log1pexp), { mode: "reverse" })(xs) as Float64Array[];
    [sigmoid(0.5), 1, sigmoid(-2)].forEach((d, i) => expect(jac[i]![i]).toBeCloseTo(d, 15));
  });

  it("a rule that differs from the true derivative is the one used, in every mode and from a plain caller", () => {
    expect(compile(square)(2)).toBe(4);
    expect(grad(square)(2)).toBe(6);
    expect(jvp(square, [2], [1])).toEqual([4, 6]);
    expect(jacobian(square, { mode: "forward" })(2)).toBe(6);
    expect(jacobian(square, { mode: "reverse" })(2)).toBe(6);
    const caller = (x: number) => square(x) + Math.sin(x);
    expect(grad(caller)(2)).toBeCloseTo(6 + Math.cos(2), 14);
    // In a loop of a plain function: Σ_i c_i (x_i)² by the rule is Σ 3 c_i x_i.
    const weighted = (v: Float64Array, c: Float64Array) => {
      let s = 0;
      for (let i = 0; i < v.length; i++) s += c[i]! * square(v[i]!);
      return s;
    };
    const v = new Float64Array([1, -2, 0.5]);
    const c = new Float64Array([2, 1, 4]);
    expect(Array.from(grad(weighted)(v, c))).toEqual([6, -6, 6]);
    // The rule is in the program: its 3 x appears, not the 2 x of differentiating x * x.
    expect(inspect(grad(caller), 2).smooth).toMatch(/3\./);
  });

  it("from plain functions, against central differences: grad, jvp ∘ grad, vmap of it, inside a map", () => {
    const f = (x: number, y: number) => 2 * log1pexp(x * y) - log1pexp(-x);
    const fd = (x: number, y: number) => numericGradient((p) => f(p[0]!, p[1]!), [x, y]);
    for (const [x, y] of [
      [0.3, 1.5],
      [-1.2, 0.4],
    ] as const) {
      expect(compile(f)(x, y)).toBeCloseTo(f(x, y), 14);
      expectClose(flat(grad(f, { argnums: [0, 1] })(x, y)), fd(x, y), 1e-7);
      // jvp of the gradient: a second derivative, differentiating the rule; against differences of the gradient.
      const g = (t: number) => num(grad(f)(t, y));
      const [, second] = jvp(grad(f), [x, y], [1, 0]);
      expectClose(
        [second],
        numericGradient((p) => g(p[0]!), [x], 1e-5),
        1e-6,
      );
    }
    const mapped = (v: Float64Array) =>
      Array.from(v)
        .map((z) => log1pexp(z * z))
        .reduce((a, b) => a + b, 0);
    const v = new Float64Array([0.5, -1, 2]);
    expectClose(
      Array.from(grad(mapped)(v)),
      Array.from(v, (z) => 2 * z * sigmoid(z * z)),
      1e-14,
    );
    expectClose(
      flat(vmap(log1pexp)(v)),
      Array.from(v, (z) => Math.log1p(Math.exp(z))),
      1e-15,
    );
  });

  it("made inside a plain function, with a wrong rule: the rule shows", () => {
    const f = (x: number) => {
      const cube = customJvp(
        (t: number) => t * t * t,
        ([t]: number[], [dt]: number[]) => [t! * t! * t!, 5 * t! * t! * dt!],
      );
      return cube(x) + x;
    };
    expect(compile(f)(2)).toBe(10);
    expect(grad(f)(2)).toBe(21);
  });
});

describe("customVjp with plain rules", () => {
  const clip = customVjp(
    (x: number) => x,
    (x: number) => [x, 0],
    (_r: number, ct: number) => Math.max(-1, Math.min(1, ct)),
  );

  it("gradient clipping: the cotangent reaching clip is clipped to [-1, 1]", () => {
    for (const x of [0.5, 3]) expect(grad((x: number) => 10 * clip(x * x))(x)).toBeCloseTo(2 * x, 14);
    expect(grad((x: number) => 0.5 * clip(x * x))(3)).toBeCloseTo(3, 14);
  });

  it("residuals and two arguments: bwd gives one adjoint per argument; forward mode transposes it", () => {
    const weighted = customVjp(
      (a: number, b: number) => a * Math.exp(b),
      (a: number, b: number) => {
        const e = Math.exp(b);
        return [a * e, [a, e]];
      },
      (r: number[], ct: number) => [ct * r[1]!, ct * r[0]! * r[1]!],
    );
    expect(weighted(2, 0.5)).toBeCloseTo(2 * Math.exp(0.5), 15);
    expect(flat(grad(weighted, { argnums: [0, 1] })(2, 0.5))).toEqual([Math.exp(0.5), 2 * Math.exp(0.5)]);
    const forward = flat(jacobian(weighted, { argnums: [0, 1], mode: "forward" })(2, 0.5));
    expectClose(forward, [Math.exp(0.5), 2 * Math.exp(0.5)], 1e-14);
    // From a plain function, against central differences.
    const f = (x: number) => weighted(x, x * x) + x;
    expectClose(
      [num(grad(f)(0.7))],
      numericGradient((p) => f(p[0]!), [0.7]),
      1e-7,
    );
  });

  it("a backward rule that differs from the true derivative is the one used", () => {
    const doubled = customVjp(
      (x: number) => Math.sin(x),
      (x: number) => [Math.sin(x), Math.cos(x)],
      (c: number, ct: number) => 2 * c * ct,
    );
    expect(grad(doubled)(0.4)).toBeCloseTo(2 * Math.cos(0.4), 15);
    expect(grad((x: number) => doubled(x) * 3)(0.4)).toBeCloseTo(6 * Math.cos(0.4), 15);
  });
});

describe("plain rules that do not fit", () => {
  it("a rule not returning a pair is a located error at the call", () => {
    const bad = customJvp(
      (x: number) => x,
      ([x]: number[]) => x!,
    );
    const e = thrown(() => grad(bad)(1));
    expect(e.headline).toMatch(/the rule of customJvp must return a pair \[value, tangent\]/);
    const caller = (x: number) => bad(x) * 2;
    const e2 = thrown(() => grad(caller)(1));
    expect(e2.span!.file.text.slice(e2.span!.start, e2.span!.end)).toBe("bad(x)");
  });
});
