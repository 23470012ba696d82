// linearize(f, ...primals) → [value, fJvp]: fJvp is the Jacobian-vector product at the point (against jvp, central
// differences and, by the dot-product test, vjp), for Smooth definitions, staged functions and plain TypeScript, on
// both compiled back ends; its program is the tangent computation alone (no transcendental of the primal left in it),
// compiled once; and it composes: vmap(fJvp), jacobian(fJvp) = J, grad of a function calling it = Jᵀ c.

import { describe, expect, it } from "vitest";
import {
  add,
  compilations,
  compile,
  dot,
  exp,
  get,
  grad,
  ifold,
  inspect,
  jacobian,
  jvp,
  linearize,
  log,
  mul,
  smooth,
  sub,
  sum,
  vjp,
  vmap,
  type AnyFunction,
  type Tensor,
} from "../../src/index.js";
import { thrown } from "../helpers.js";
import { expectClose, flat, rng } from "./helpers.js";

const backends = ["js", "wasm"] as const;
const random = rng(5);
const vector = (n: number) => Float64Array.from({ length: n }, random);
const dotOf = (a: readonly number[], b: readonly number[]) => a.reduce((s, x, i) => s + x * b[i]!, 0);

const m = smooth`
let softmax = fun (v: Vector) ->
  let e = vectorMap v exp
  vectorSMul e (1 / vectorSum e)
let loss = fun (w: Vector) (X: Matrix) (y: Vector) ->
  ifold (fun acc i -> let z = vectorDot w X[i] in acc + log (1 + exp z) - y[i] * z) 0 (length X)
let poly = fun (x: Double) (c: Vector) -> ifold (fun acc i -> acc * x + c[i]) 0 (length c)
`;

const stagedLoss = (w: Tensor, X: Tensor, y: Tensor) =>
  ifold(
    (acc: Tensor, i: Tensor) => {
      const z = dot(w, get(X, i));
      return add(acc, sub(log(add(1, exp(z))), mul(get(y, i), z)));
    },
    0,
    X.length as number,
  );

function plainLoss(w: Float64Array, X: readonly Float64Array[], y: Float64Array): number {
  let total = 0;
  for (let i = 0; i < X.length; i++) {
    let z = 0;
    for (let j = 0; j < w.length; j++) z += w[j]! * X[i]![j]!;
    total += Math.log(1 + Math.exp(z)) - y[i]! * z;
  }
  return total;
}

const X = Array.from({ length: 6 }, () => vector(3));
const y = Float64Array.from({ length: 6 }, () => (random() > 0 ? 1 : 0));

/** The point, a way to build a tangent, and the function's value along a tangent (for central differences). */
const cases = [
  {
    name: "softmax (Smooth)",
    f: m.softmax!,
    point: [vector(4)],
    tangent: () => [vector(4)],
  },
  {
    name: "a loss over data (Smooth)",
    f: m.loss!,
    point: [vector(3), X, y],
    tangent: () => [vector(3), X.map(() => vector(3)), vector(6)],
  },
  { name: "poly (Smooth)", f: m.poly!, point: [0.7, vector(5)], tangent: () => [random(), vector(5)] },
  {
    name: "a loss over data (staged)",
    f: stagedLoss,
    point: [vector(3), X, y],
    tangent: () => [vector(3), X.map(() => vector(3)), vector(6)],
  },
  {
    name: "a loss over data (plain TypeScript)",
    f: plainLoss,
    point: [vector(3), X, y],
    tangent: () => [vector(3), X.map(() => vector(3)), vector(6)],
  },
] as const;

/** f at point + h t, flattened. */
function along(f: AnyFunction, point: readonly unknown[], t: readonly unknown[], h: number) {
  const shift = (p: unknown, d: unknown): unknown =>
    typeof p === "number"
      ? p + h * (d as number)
      : p instanceof Float64Array
        ? p.map((v, i) => v + h * (d as Float64Array)[i]!)
        : (p as unknown[]).map((r, i) => shift(r, (d as unknown[])[i]));
  return flat(f(...point.map((p, k) => shift(p, t[k]))));
}

describe.each(backends)("linearize (%s)", (backend) => {
  it.each(cases)("$name: the value, and fJvp = jvp's tangent = central differences", ({ f, point, tangent }) => {
    // (The cases' functions differ in type: they are called here as untyped library functions.)
    const g = compile(f as AnyFunction, { backend });
    const args = point as readonly unknown[];
    const [value, fJvp] = linearize(g, ...args);
    expectClose(flat(value), flat(g(...args)), 0);
    for (let trial = 0; trial < 3; trial++) {
      const t = tangent() as readonly unknown[];
      const dy = fJvp(...t);
      const [, byJvp] = jvp(g, args, t);
      expectClose(flat(dy), flat(byJvp), 1e-13);
      const fd = along(g, point, t, 1e-6).map((u, i) => (u - along(g, point, t, -1e-6)[i]!) / 2e-6);
      expectClose(flat(dy), fd, 1e-7);
    }
  });

  it("satisfies the dot-product test against vjp: <fJvp(t), c> = <t, pullback(c)>", () => {
    const g = compile(m.softmax!, { backend });
    const x = vector(5);
    const [, fJvp] = linearize(g, x);
    const [, pullback] = vjp(g, x);
    for (let trial = 0; trial < 3; trial++) {
      const [t, c] = [vector(5), vector(5)];
      const [jtc] = pullback(c) as [Float64Array];
      expect(dotOf(flat(fJvp(t)), flat(c))).toBeCloseTo(dotOf(flat(t), flat(jtc)), 14);
    }
  });
});

describe("linearize's program", () => {
  it("is the tangent computation alone: no exp or log of the primal is left in it, and it is compiled once", () => {
    const [, fJvp] = linearize(m.loss!, vector(3), X, y);
    const text = inspect(fJvp).smooth;
    expect(m.loss!.definitionType).toBeDefined();
    expect(text).not.toMatch(/\b(exp|log)\b/);
    // (The jvp program itself computes both.)
    expect(inspect(grad(m.loss!), vector(3), X, y).smooth).toMatch(/\bexp\b/);
    const [, again] = linearize(m.loss!, vector(3), X, y);
    expect(compilations(again)).toBe(1);
    const [, poly] = linearize(m.poly!, 0.5, vector(4));
    // Horner's rule: the tangent loop reads each iteration's primal accumulator back.
    expect(inspect(poly).smooth).toMatch(/accs\[i\]/);
  });
});

describe("linearize where the split keeps primal work in the linear part", () => {
  // A while loop, a recursive function, values inside branches and nested loops are not stored: the linear part
  // computes them again. It must still be J·t.
  const w = smooth`
let sqrtTo = fun (a: Double) -> while (fun x -> abs (x * x - a) > 0.000000000001 * a) (fun x -> 0.5 * (x + a / x)) (a + 1)
let rec fact (n: Index) (x: Double) : Double = if n = 0 then 1. else x * fact (n - 1) x
let usesRec = fun (x: Double) -> fact 4 (sin x)
let branchy = fun (v: Vector) -> build (length v) (fun i -> if v[i] > 0. then sin v[i] * v[i] else exp v[i])
let matLoop = fun (M: Matrix) (x: Vector) ->
  ifold (fun acc i -> vectorAdd acc (build (length x) (fun j -> tanh (M[i][j] * x[j])))) (build (length x) (fun j -> 0.)) (length M)
`;
  it.each([
    ["sqrtTo", [2], [1]],
    ["usesRec", [0.3], [1]],
    ["branchy", [new Float64Array([1, -2, 3])], [new Float64Array([1, 0.5, -1])]],
    [
      "matLoop",
      [
        [
          [1, 2],
          [3, 4],
          [5, 6],
        ],
        new Float64Array([0.1, 0.2]),
      ],
      [
        [
          [1, 0],
          [0, 1],
          [1, 1],
        ],
        new Float64Array([1, -1]),
      ],
    ],
  ] as const)("%s: fJvp equals jvp's tangent", (name, point, t) => {
    const f = w[name]!;
    const [, fJvp] = linearize(f, ...point);
    expectClose(flat(fJvp(...t)), flat(jvp(f, point, t)[1]), 1e-14);
  });
});

describe("fJvp composes", () => {
  const x = vector(4);

  it("vmap(fJvp) maps it over a batch of tangents; jacobian(fJvp) is f's Jacobian", () => {
    const [, fJvp] = linearize(m.softmax!, x);
    const ts = [vector(4), vector(4), vector(4)];
    const batch = vmap(fJvp)(ts) as Float64Array[];
    ts.forEach((t, i) => expectClose(flat(batch[i]), flat(fJvp(t)), 1e-15));
    expectClose(flat(jacobian(fJvp)(vector(4))), flat(jacobian(m.softmax!)(x)), 1e-14);
  });

  it("grad of a function calling it is its transpose: Jᵀ c", () => {
    const [, fJvp] = linearize(m.softmax!, x);
    const c = vector(4);
    const [, pullback] = vjp(m.softmax!, x);
    const g = grad((t: Tensor) => dot(fJvp(t) as Tensor, c as unknown as Tensor));
    expectClose(flat(g(vector(4))), flat(pullback(c)[0]), 1e-14);
  });

  it("of a function returning an object, on an object of tangents", () => {
    const f = (p: { w: Tensor; c: Tensor }) => ({ a: mul(p.c, sum(p.w)), b: mul(p.w, mul(p.c, p.c)) });
    const p = { w: vector(3), c: 0.5 };
    const [value, fJvp] = linearize(f, p);
    expect(Object.keys(value)).toEqual(["a", "b"]);
    const t = { w: vector(3), c: 0.25 };
    const dy = fJvp(t);
    const [, byJvp] = jvp(f, [p], [t]);
    expect(Object.keys(dy)).toEqual(["a", "b"]);
    expectClose(flat(dy), flat(byJvp), 1e-15);
  });
});

describe("fJvp's errors", () => {
  it("the number of tangents, their shapes, and a tangent for an Index are checked", () => {
    const counted = smooth`let f = fun (v: Vector) (n: Index) -> vectorSum v * double n`;
    const [, fJvp] = linearize(counted.f!, vector(3), 2);
    expect(fJvp(new Float64Array([1, 1, 1]), null)).toBe(6);
    expect(thrown(() => fJvp(vector(3))).headline).toContain(
      "the linear map of linearize(`f`) takes one tangent per argument of `f` (2), but 1 was given",
    );
    expect(thrown(() => fJvp(vector(2), null)).message).toMatch(
      /the tangent of parameter `v` of `f` must have the shape of the argument[\s\S]*expected: Vector of length 3/,
    );
    expect(thrown(() => fJvp(vector(3), 1)).headline).toContain(
      "the tangent of parameter `n` of `f` must be null: the value there is an Index, which has no tangent",
    );
  });
});
