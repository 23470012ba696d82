// Pytree outputs in every transform (issue 28, item 4): a function returning an object, a JS array of parts or a
// Smooth tuple has a Jacobian in JAX's structure (the output's structure of the inputs' structures of blocks) in both
// modes, and jvp / vjp / vmap keep the structures of values, tangents and cotangents (null where there is none). Every
// derivative against central differences, and jvp against vjp by the dot-product test <J t, c> = <t, Jᵀ c>, on both
// compiled back ends. Wrong tangents are one clear error naming the argument.

import { describe, expect, it } from "vitest";
import {
  compile,
  jacobian,
  jvp,
  mul,
  smooth,
  sum,
  vectorSMul,
  vjp,
  vmap,
  sin,
  map,
  type Tensor,
} from "../../src/index.js";
import { thrown } from "../helpers.js";
import { cli, expectClose, flat } from "./helpers.js";

const backends = ["js", "wasm"] as const;
const modes = ["forward", "reverse", "auto"] as const;

/** Central differences of f (flat inputs to flat outputs): rows are outputs, columns inputs. */
function numericJacobian(f: (x: number[]) => number[], x: readonly number[], h = 1e-6): number[][] {
  const columns = x.map((_, j) => {
    const up = [...x];
    const down = [...x];
    up[j]! += h;
    down[j]! -= h;
    const [a, b] = [f(up), f(down)];
    return a.map((v, i) => (v - b[i]!) / (2 * h));
  });
  return columns[0]!.map((_, i) => columns.map((c) => c[i]!));
}

const dotOf = (a: readonly number[], b: readonly number[]) => a.reduce((s, x, i) => s + x * b[i]!, 0);

// f({w, c}) = {a: c Σ sin w_i, b: c² w}: an object of a number and a vector, of an object of a vector and a number.
const staged = (p: { w: Tensor; c: Tensor }) => ({
  a: mul(p.c, sum(map((x: Tensor) => sin(x), p.w))),
  b: vectorSMul(p.w, mul(p.c, p.c)),
});
function plain(p: { w: Float64Array; c: number }): { a: number; b: Float64Array } {
  let s = 0;
  for (let i = 0; i < p.w.length; i++) s += Math.sin(p.w[i]!);
  const b = new Float64Array(p.w.length);
  for (let i = 0; i < p.w.length; i++) b[i] = p.c * p.c * p.w[i]!;
  return { a: p.c * s, b };
}
const flatF = (x: number[]) => {
  const out = plain({ w: Float64Array.from(x.slice(0, 3)), c: x[3]! });
  return [out.a, ...out.b];
};

describe.each(backends)("jacobian of a function returning an object (%s)", (backend) => {
  const p = { w: new Float64Array([0.3, -1.2, 2]), c: 1.5 };
  const fd = numericJacobian(flatF, [...p.w, p.c]);

  it.each(modes)("is {a: {w, c}, b: {w, c}} with blocks O ++ I, against central differences (mode %s)", (mode) => {
    for (const f of [staged, plain]) {
      const J = jacobian(f as typeof plain, { mode, backend })(p);
      expect(Object.keys(J)).toEqual(["a", "b"]);
      expect(Object.keys(J.a)).toEqual(["w", "c"]);
      expect(J.a.w).toBeInstanceOf(Float64Array);
      expect(typeof J.a.c).toBe("number");
      expect(J.b.w).toHaveLength(3); // three rows (one per output of b) of three columns
      expect(J.b.c).toBeInstanceOf(Float64Array);
      expectClose(flat(J.a.w), fd[0]!.slice(0, 3), 1e-8);
      expectClose([J.a.c], [fd[0]![3]!], 1e-8);
      expectClose(
        flat(J.b.w),
        [1, 2, 3].flatMap((r) => fd[r]!.slice(0, 3)),
        1e-8,
      );
      expectClose(
        flat(J.b.c),
        [1, 2, 3].map((r) => fd[r]![3]!),
        1e-8,
      );
    }
  });

  it("with a list of argnums each part of the output holds one entry per argument", () => {
    const g = (p: { w: Tensor; c: Tensor }, s: Tensor) => ({ a: mul(s, p.c), b: vectorSMul(p.w, s) });
    const J = jacobian(g, { argnums: [0, 1], backend })(p, 2);
    // ∂a/∂p = {w: 0, c: s}, ∂a/∂s = c; ∂b/∂p = {w: s I, c: 0}, ∂b/∂s = w.
    expectClose(flat(J.a[0]), [0, 0, 0, 2], 0);
    expect(J.a[1]).toBe(1.5);
    expectClose(flat(J.b[0].w), [2, 0, 0, 0, 2, 0, 0, 0, 2], 0);
    expectClose(flat(J.b[0].c), [0, 0, 0], 0);
    expectClose(flat(J.b[1]), Array.from(p.w), 0);
  });
});

const m = smooth`
let pair = fun (x: Vector) -> (vectorDot x x, build (length x) (fun i -> x[i] * x[0]))
let counted = fun (p: Vector * Double) (n: Index) -> (vectorDot (fst p) (fst p) * snd p, n + 1)
`;

describe.each(backends)("a Smooth tuple result (%s)", (backend) => {
  const x = new Float64Array([1, -2, 0.5]);
  const reference = cli(
    "jacobian",
    "let pair = fun (x: Vector) -> (vectorDot x x, build (length x) (fun i -> x[i] * x[0]))",
    "pair",
    [Array.from(x)],
  ) as {
    jacobian: number[][];
  };

  it.each(modes)("jacobian is [gradient, matrix], the CLI's rows in order (mode %s)", (mode) => {
    const [g, M] = jacobian(m.pair!, { mode, backend })(x) as [Float64Array, Float64Array[]];
    expectClose(flat(g), reference.jacobian[0]!, 1e-14);
    expectClose(flat(M), reference.jacobian.slice(1).flat(), 1e-14);
    // And the CLI's rows are the derivatives: 2x, then ∂(x_i x_0) = x_0 e_i + x_i e_0.
    expectClose(reference.jacobian.flat(), [2, -4, 1, 2, 0, 0, -2, 1, 0, 0.5, 0, 1], 1e-14);
  });

  it("jvp and vjp keep the tuple, and agree by the dot-product test", () => {
    const f = compile(m.pair!, { backend });
    for (let trial = 0; trial < 3; trial++) {
      const t = Float64Array.from({ length: 3 }, (_, i) => Math.cos(trial + i));
      const c: [number, Float64Array] = [Math.sin(trial), Float64Array.from({ length: 3 }, (_, i) => i - trial)];
      const [y, jt] = jvp(f, [x], [t]) as [[number, Float64Array], [number, Float64Array]];
      const [y2, pullback] = vjp(f, x);
      const [jtc] = pullback(c) as [Float64Array];
      expect(y2).toEqual(y);
      expect(dotOf(flat(jt), flat(c))).toBeCloseTo(dotOf(Array.from(t), flat(jtc)), 13);
      // J t by central differences along t.
      const along = (h: number) => flat(m.pair!(x.map((v, i) => v + h * t[i]!)));
      expectClose(
        flat(jt),
        along(1e-6).map((u, i) => (u - along(-1e-6)[i]!) / 2e-6),
        1e-7,
      );
    }
  });

  it("an Index part of the result has a null tangent and takes a null cotangent", () => {
    const f = compile(m.counted!, { backend });
    const p = [new Float64Array([1, 2]), 3] as const;
    const [y, dy] = jvp(f, [p, 4], [[new Float64Array([1, 0]), 0.5], null]);
    expect(y).toEqual([15, 5]);
    expect(dy).toEqual([2 * 1 * 3 + 5 * 0.5, null]); // 2 x·dx s + |x|² ds
    const [, pullback] = vjp(f, p, 4);
    const [dp, dn] = pullback([1, null]) as [[Float64Array, number], null];
    expect(Array.from(dp[0])).toEqual([6, 12]);
    expect(dp[1]).toBe(5);
    expect(dn).toBeNull();
  });
});

describe.each(backends)("jvp, vjp and vmap of a function returning an object (%s)", (backend) => {
  const p = { w: new Float64Array([0.3, -1.2, 2]), c: 1.5 };

  it("tangents and adjoints are objects with the same keys; <J t, c> = <t, Jᵀ c>", () => {
    const f = compile(staged, { backend });
    const t = { w: new Float64Array([1, 0.5, -1]), c: 0.25 };
    const c = { a: 0.7, b: new Float64Array([1, -1, 2]) };
    const [y, jt] = jvp(f, [p], [t]);
    expect(Object.keys(y)).toEqual(["a", "b"]);
    expect(Object.keys(jt)).toEqual(["a", "b"]);
    const [, pullback] = vjp(f, p);
    const [jtc] = pullback(c);
    expect(Object.keys(jtc)).toEqual(["w", "c"]);
    expect(dotOf(flat(jt), flat(c))).toBeCloseTo(dotOf(flat(t), flat(jtc)), 13);
    const fd = numericJacobian(flatF, [...p.w, p.c]);
    expectClose(
      flat(jt),
      fd.map((row) => dotOf(row, flat(t))),
      1e-8,
    );
  });

  it("vmap gives an object of batches", () => {
    const batch = vmap(staged, { backend })({ w: [p.w, p.w.map((v) => -v)], c: new Float64Array([1, 2]) });
    // Row 0 has c = 1, row 1 has -w and c = 2: a = c Σ sin w_i.
    const sines = plain(p).a / 1.5;
    expectClose(flat(batch.a), [sines, -2 * sines], 1e-14);
    expect(batch.b).toHaveLength(2);
    expectClose(
      flat(batch.b[1]),
      Array.from(p.w, (v) => -4 * v),
      1e-14,
    );
  });
});

describe("wrong tangents and Jacobians without one are one clear error", () => {
  const p = { w: new Float64Array([0.3, -1.2, 2]), c: 1.5 };

  it("a tangent for an Index argument names the argument", () => {
    const e = thrown(() => jvp(m.counted!, [[new Float64Array([1, 2]), 3], 4], [[new Float64Array([1, 0]), 1], 1]));
    expect(e.headline).toContain(
      "the tangent of parameter `n` of `counted` must be null: the value there is an Index, which has no tangent",
    );
  });

  it("a tangent of another structure or shape names where", () => {
    const f = compile(staged);
    expect(thrown(() => jvp(f, [p], [{ w: new Float64Array(2), c: 1 }])).message).toMatch(
      /the tangent of argument 0 of the TypeScript function `staged` at \.w must have the shape of the argument[\s\S]*expected: Vector of length 3[\s\S]*found: +Vector of length 2/,
    );
    // (The types refuse these too.)
    // @ts-expect-error -- `c` is missing
    const missing = () => jvp(f, [p], [{ w: p.w }]);
    // @ts-expect-error -- `d` is not a key of the argument
    const extra = () => jvp(f, [p], [{ w: p.w, c: 1, d: 2 }]);
    // @ts-expect-error -- an array is not the object
    const array = () => jvp(f, [p], [[p.w, 1]]);
    expect(thrown(missing).headline).toContain(
      "the tangent of argument 0 of the TypeScript function `staged` at .c must have the shape of the argument",
    );
    expect(thrown(extra).message).toContain("an object with the key `d`");
    expect(thrown(array).headline).toContain("must have the shape of the argument");
  });

  it("a Jacobian of a result with an Index part, or of an argument with one", () => {
    expect(thrown(() => jacobian(m.counted!)([new Float64Array([1, 2]), 3], 4)).headline).toContain(
      "jacobian(`counted`) needs every part of the result of `counted` to be a Double or an array of Doubles, but it is Index",
    );
    const g = smooth`let g = fun (p: Vector * Index) -> vectorDot (fst p) (fst p)`;
    expect(thrown(() => jacobian(g.g!)([new Float64Array([1]), 2])).headline).toContain(
      "jacobian(`g`) needs every part of parameter `p` of `g` to be a Double or an array of Doubles, but it is Index",
    );
  });
});
