// `{ backend: "js" | "wasm" }`: compile and the transforms run the function on the back end asked for, with the same
// results as the other one and as values computed here; an unknown back end is an argument error.

import { describe, expect, it } from "vitest";
import { compile, grad, hessian, jacobian, smooth, valueAndGrad, vmap } from "../../src/index.js";
import { libraryFunction } from "../../src/library/target.js";
import { thrown } from "../helpers.js";
import { flat } from "./helpers.js";

const m = smooth`
let loss = fun (w: Vector) (X: Matrix) -> vectorSum (build (length X) (fun i -> log (1 + exp (vectorDot w X[i]))))
let cube = fun (x: Double) -> x * x * x
`;

const w = new Float64Array([0.5, -0.25]);
const X = [
  [1, 2],
  [3, -1],
  [0.5, 0.5],
];
/** The loss and its gradient, by hand: sum_i softplus(w·x_i), gradient sum_i sigmoid(w·x_i) x_i. */
const z = X.map((x) => w[0]! * x[0]! + w[1]! * x[1]!);
const lossByHand = z.reduce((s, v) => s + Math.log(1 + Math.exp(v)), 0);
const gradByHand = [0, 1].map((j) => X.reduce((s, x, i) => s + x[j]! / (1 + Math.exp(-z[i]!)), 0));

const engineOf = (fn: unknown, ...args: unknown[]) => libraryFunction(fn)!.program(args).engine;

describe.each(["js", "wasm"] as const)("borrowResult on %s", (backend) => {
  it("gives results in the function's own memory: the same buffer each call, each call's values right", () => {
    const g = grad(m.loss!, { backend, borrowResult: true });
    const first = g(w, X) as Float64Array;
    expect(Array.from(first)).toEqual(gradByHand.map((x) => expect.closeTo(x, 13)));
    const w2 = new Float64Array([-0.5, 0.25]);
    const z2 = X.map((x) => w2[0]! * x[0]! + w2[1]! * x[1]!);
    const second = g(w2, X) as Float64Array;
    expect(Array.from(second)).toEqual(
      [0, 1].map((j) =>
        expect.closeTo(
          X.reduce((s, x, i) => s + x[j]! / (1 + Math.exp(-z2[i]!)), 0),
          13,
        ),
      ),
    );
    // Borrowed: the second call wrote where the first result was (valid only until the next call, as documented).
    expect(second.buffer).toBe(first.buffer);
    const fresh = grad(m.loss!, { backend });
    expect((fresh(w, X) as Float64Array).buffer).not.toBe((fresh(w2, X) as Float64Array).buffer);
  });
});

describe.each(["js", "wasm"] as const)("backend %s", (backend) => {
  it("compiles a definition for that back end, to the value computed by hand", () => {
    const f = compile(m.loss!, { backend });
    expect(f(w, X)).toBeCloseTo(lossByHand, 14);
    expect(engineOf(f, w, X)).toBe(backend);
  });

  it("differentiates on it: grad and valueAndGrad", () => {
    const g = grad(m.loss!, { backend });
    expect(flat(g(w, X))).toEqual(gradByHand.map((x) => expect.closeTo(x, 13)));
    expect(engineOf(g, w, X)).toBe(backend);
    const [v, dv] = valueAndGrad(m.cube!, { backend })(2) as [number, number];
    expect([v, dv]).toEqual([8, 12]);
  });

  it("runs jacobian, hessian and vmap on it", () => {
    expect(jacobian(m.cube!, { backend })(3)).toBe(27);
    expect(hessian(m.cube!, { backend })(3)).toBe(18);
    const cubes = vmap(m.cube!, { backend })(new Float64Array([1, 2, 3]));
    expect(Array.from(cubes as Float64Array)).toEqual([1, 8, 27]);
  });
});

it("gives the same bits on both back ends", () => {
  const [a, b] = (["js", "wasm"] as const).map((backend) => flat(grad(m.loss!, { backend })(w, X)));
  expect(b).toEqual(a);
});

it("refuses an unknown back end", () => {
  const e = thrown(() => compile(m.loss!, { backend: "gpu" as never }));
  expect(e.kind).toBe("argument");
  expect(e.headline).toContain("unknown backend `gpu`");
});
