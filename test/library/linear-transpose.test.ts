// linearTranspose: the transpose of linear maps against the dot-product identity <f(x), c> = <x, fᵀ(c)> and against
// transposes written out by hand; functions that are not linear refused with the reason.

import { describe, expect, it } from "vitest";
import { linearize, linearTranspose, mul, smooth, vjp, type Tensor } from "../../src/index.js";
import { thrown } from "../helpers.js";
import { flat, rng } from "./helpers.js";

const m = smooth`
let blur = fun (x: Vector) ->
  let n = length x
  build n (fun i -> 2. * x[i] + (if i > 0 then x[i - 1] else 0.) + (if i < n - 1 then x[i + 1] else 0.))
let cumsum = fun (x: Vector) ->
  snd (ifold (fun s i -> let t = fst s + x[i] in (t, setAt (snd s) i t)) (0., zerosLike x) (length x))
let mix = fun (a: Double) (v: Vector) (k: Index) -> build (length v) (fun i -> v[if i + k < length v then i + k else i + k - length v] / 4. - a)
let square = fun (x: Vector) -> build (length x) (fun i -> x[i] * x[i])
let shifted = fun (x: Vector) -> build (length x) (fun i -> x[i] + 1.)
let waves = fun (x: Vector) -> build (length x) (fun i -> sin x[i])
let clipped = fun (x: Vector) -> build (length x) (fun i -> if x[i] > 0. then x[i] else 0.)
let ratio = fun (x: Vector) -> x[0] / x[1]
let wave = fun (x: Vector) -> build (length x) (fun i -> sin x[i] * x[if i > 0 then i - 1 else 0])
`;

const random = rng(5);
const vec = (n: number) => Float64Array.from({ length: n }, random);
const dot = (a: readonly number[], b: readonly number[]) => a.reduce((s, x, i) => s + x * b[i]!, 0);

describe("linearTranspose", () => {
  it("transposes a stencil: the dot-product identity, and the transpose written out", () => {
    const x = vec(7);
    const c = vec(7);
    const [y] = linearTranspose(m.blur!, x)(c) as [Float64Array];
    expect(dot(flat(m.blur!(x)), flat(c))).toBeCloseTo(dot(flat(x), flat(y)), 12);
    // The stencil is symmetric: its transpose is itself.
    expect(flat(y)).toEqual(flat(m.blur!(c)));
  });

  it("transposes a running sum into a reversed running sum, through a loop with array updates", () => {
    const [y] = linearTranspose(m.cumsum!, vec(4))(Float64Array.from([1, 2, 3, 4])) as [Float64Array];
    expect(flat(y)).toEqual([10, 9, 7, 4]);
  });

  it("keeps Index arguments as constants and returns null for them", () => {
    const v = vec(5);
    const ct = vec(5);
    const out = linearTranspose(m.mix!, 0.5, v, 2)(ct) as [number, Float64Array, null];
    expect(out[2]).toBeNull();
    expect(out[0]).toBeCloseTo(-flat(ct).reduce((s, x) => s + x, 0), 14);
    // mix(a, v)[i] = v[(i + 2) % 5] / 4 - a: the transpose sends ct[i] to position (i + 2) % 5, divided by 4.
    expect(flat(out[1])).toEqual([0, 1, 2, 3, 4].map((j) => ct[(j + 3) % 5]! / 4));
  });

  it.each([
    ["square", /`square` is not linear in its arguments: it multiplies two values that both depend on them/],
    ["shifted", /`shifted` is not linear in its arguments: it has a constant term/],
    ["waves", /`waves` is not linear in its arguments: it applies `sin` to a value that depends on them/],
    ["clipped", /`clipped` is not linear in its arguments: it compares or converts a value that depends on them/],
    ["ratio", /`ratio` is not linear in its arguments: it divides by a value that depends on them/],
  ])("refuses %s, saying why", (name, message) => {
    const e = thrown(() => linearTranspose(m[name]!, vec(3)));
    expect(e.message).toMatch(/linearTranspose\(`\w+`\)/);
    expect(e.message).toMatch(message);
  });

  it("of a traced function closing over data, read at each call", () => {
    const data = new Float64Array([1, 2, 3]);
    const fT = linearTranspose((u: Tensor) => mul(u, data as unknown as Tensor), vec(3));
    expect(flat(fT(Float64Array.from([1, 1, 2])))).toEqual([1, 2, 6]);
    data.set([-1, 0, 5]);
    expect(flat(fT(Float64Array.from([1, 1, 2])))).toEqual([-1, 0, 10]);
  });

  it("of linearize's linear map is the vjp (JAX's linear_transpose of a linearized function)", () => {
    const x = Float64Array.from([0.5, 1.5, -2]);
    const ct = Float64Array.from([1, -1, 2]);
    const [, fJvp] = linearize(m.wave!, x);
    const [transposed] = linearTranspose(fJvp, x)(ct) as [Float64Array];
    const [pulled] = vjp(m.wave!, x)[1](ct) as [Float64Array];
    expect(flat(transposed)).toEqual(flat(pulled));
  });

  it("refuses a cotangent of the wrong shape", () => {
    expect(thrown(() => linearTranspose(m.blur!, vec(3))(vec(4))).message).toMatch(
      /the cotangent given to linearTranspose\(`blur`\) must have the shape of the function's result/,
    );
  });
});
