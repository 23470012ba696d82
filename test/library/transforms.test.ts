// jvp, vjp and vmap on Smooth source, against finite differences, the dot-product test <J t, c> = <t, Jᵀ c>, and
// plain loops.

import { describe, expect, it } from "vitest";
import { compilations, grad, inspect, jacobian, jvp, smooth, vjp, vmap } from "../../src/index.js";
import { thrown } from "../helpers.js";
import { expectClose, flat, numericGradient, rng } from "./helpers.js";

const m = smooth`
let softmax = fun (v: Vector) ->
  let e = vectorMap v exp
  vectorSMul e (1 / vectorSum e)
let affine = fun (M: Matrix) (x: Vector) (b: Double) -> build (length M) (fun i -> tanh (vectorDot M[i] x + b))
let energy = fun (p: Vector * Double) (k: Index) -> (vectorDot (fst p) (fst p)) * snd p * double k
let poly = fun (x: Double) (c: Vector) -> ifold (fun acc i -> acc * x + c[i]) 0 (length c)
`;

const random = rng(7);
const vector = (n: number) => Float64Array.from({ length: n }, random);
const dotProduct = (a: readonly number[], b: readonly number[]) => a.reduce((s, x, i) => s + x * b[i]!, 0);

describe("jvp", () => {
  it("gives the value and the directional derivative (central differences)", () => {
    const M = [Array.from(vector(3)), Array.from(vector(3))];
    const x = vector(3);
    const [dM, dx, db] = [[Array.from(vector(3)), Array.from(vector(3))], vector(3), 0.3];
    const [y, dy] = jvp(m.affine!, [M, x, 0.1], [dM, dx, db]);
    expectClose(flat(y), flat(m.affine!(M, x, 0.1)), 1e-14);
    const along = (t: number) =>
      flat(
        m.affine!(
          M.map((r, i) => r.map((v, j) => v + t * dM[i]![j]!)),
          x.map((v, j) => v + t * dx[j]!),
          0.1 + t * db,
        ),
      );
    const h = 1e-6;
    const fd = along(h).map((u, i) => (u - along(-h)[i]!) / (2 * h));
    expectClose(flat(dy), fd, 1e-6);
  });

  it("ignores the tangent of an Index and keeps object structure", () => {
    const [y, dy] = jvp(
      m.energy!,
      [{ x: new Float64Array([1, 2]), s: 3 }, 2],
      [{ x: new Float64Array([1, 0]), s: 1 }, null],
    );
    expect(y).toBe(30); // |x|² s k
    expect(dy).toBe(2 * (2 * 1 * 3) + 5 * 2); // k (2 x·dx s + |x|² ds)
  });

  it("rejects a tangent of another shape", () => {
    const e = thrown(() => jvp(m.softmax!, [new Float64Array(3)], [new Float64Array(2)]));
    expect(e.headline).toContain("the tangent of parameter `v` of `softmax` must have the shape of the argument");
    expect(e.message).toContain("expected: Vector of length 3");
  });
});

describe("vjp", () => {
  it("satisfies the dot-product test against jvp, and the pullback is compiled once", () => {
    const v = vector(5);
    const [y, pullback] = vjp(m.softmax!, v);
    for (let trial = 0; trial < 3; trial++) {
      const t = vector(5);
      const c = vector(5);
      const [, jt] = jvp(m.softmax!, [v], [t]);
      const [jtc] = pullback(c) as [Float64Array];
      expect(dotProduct(flat(jt), flat(c))).toBeCloseTo(dotProduct(flat(t), flat(jtc)), 12);
    }
    expectClose(flat(y), flat(m.softmax!(v)), 1e-15);
    expect(compilations(pullback)).toBe(1);
  });

  it("returns one adjoint per argument, null for an Index, and checks the cotangent's shape", () => {
    const [y, pullback] = vjp(m.energy!, [new Float64Array([1, 2]), 3], 2);
    expect(y).toBe(30);
    const [dp, dk] = pullback(1) as [[Float64Array, number], null];
    expect(dp[0]).toEqual(new Float64Array([12, 24])); // 2 x s k
    expect(dp[1]).toBe(10); // |x|² k
    expect(dk).toBeNull();
    expect(() => pullback(new Float64Array(2))).toThrow(
      /the cotangent given to the pullback of `energy` must have the shape of the value/,
    );
  });
});

describe("vmap", () => {
  it("maps over the leading axis and agrees with a loop", () => {
    const xs = [vector(4), vector(4), vector(4)];
    const out = vmap(m.softmax!)(xs) as Float64Array[];
    expect(out).toHaveLength(3);
    out.forEach((row, i) => expectClose(flat(row), flat(m.softmax!(xs[i])), 1e-15));
  });

  it("passes arguments whole with inAxes null, and composes with jacobian and itself", () => {
    const c = new Float64Array([1, -2, 3]);
    const xs = new Float64Array([0.5, 1, 2]);
    const polys = vmap(m.poly!, { inAxes: [0, null] });
    expectClose(
      flat(polys(xs, c)),
      Array.from(xs, (x) => x * x - 2 * x + 3),
      1e-15,
    );
    // The Jacobian of the mapped function is diagonal: p'(x_i) = 2 x_i - 2.
    const J = jacobian(polys)(xs, c) as Float64Array[];
    expectClose(flat(J), [-1, 0, 0, 0, 0, 0, 0, 0, 2], 1e-12);
    const table = vmap(vmap(m.poly!, { inAxes: [0, null] }), { inAxes: [null, 0] })(xs, [
      c,
      new Float64Array([0, 1, 0]),
    ]) as Float64Array[];
    expectClose(flat(table[1]), Array.from(xs), 1e-15);
    expect(inspect(polys, xs, c).smooth).toContain("build");
  });

  it("reports mapped arguments of different lengths and unmappable arguments", () => {
    const mapped = vmap(m.affine!, { inAxes: [0, 0, null] });
    expect(thrown(() => mapped([[[1]], [[2]]], [new Float64Array(1)], 0)).message).toContain(
      "the mapped arguments have different lengths along their axes",
    );
    expect(thrown(() => vmap(m.poly!)(1, [new Float64Array(1)])).headline).toContain(
      "vmap(`poly`) maps over axis 0 of parameter `x` of `poly`, but it is not an array",
    );
    expect(() => vmap(m.poly!, { inAxes: 0.5 })).toThrow(/vmap: inAxes entry 0.5 is not an axis/);
  });
});

describe("grad against finite differences", () => {
  it("of a loop with respect to both arguments", () => {
    const c = vector(4);
    const [dx, dc] = grad(m.poly!, { argnums: [0, 1] })(0.7, c) as [number, Float64Array];
    const f = (p: number[]) => m.poly!(p[0], Float64Array.from(p.slice(1))) as number;
    expectClose([dx, ...dc], numericGradient(f, [0.7, ...c]), 1e-7);
  });
});
