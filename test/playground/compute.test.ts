// The playground's computations apart from the page (the page itself is driven in test/browser): parameters read from
// Smooth and TypeScript definitions, the arguments made from their types, and results labelled by parameter.

import { describe, expect, it } from "vitest";
import { evaluate, labelled } from "../../playground/compute.js";
import { defaultsFor, parametersOf } from "../../playground/signature.js";

const LOGISTIC = `function sigmoid(z: number) {
  return 1 / (1 + Math.exp(-z));
}
export function loss(w: number[], X: number[][], y: number[]) {
  let total = 0;
  for (let n = 0; n < X.length; n++) {
    let z = 0;
    for (let j = 0; j < w.length; j++) z += w[j] * X[n][j];
    const p = sigmoid(z);
    total -= y[n] * Math.log(p) + (1 - y[n]) * Math.log(1 - p);
  }
  return total / X.length;
}
`;

describe("the playground's parameters and defaults", () => {
  it("reads a Smooth definition's parameter names and inferred types", () => {
    const source = "let f = fun (u: Vector) (M: Matrix) (k: Index) (s: Double) -> s * u[k] + M[0][k]";
    const params = parametersOf(source, "smooth", "f");
    expect(params).toEqual([
      { name: "u", type: "Vector" },
      { name: "M", type: "Matrix" },
      { name: "k", type: "Index" },
      { name: "s", type: "Double" },
    ]);
    // Every parameter but the Index has a derivative.
    expect(defaultsFor(params!)).toEqual({ args: "[[1, 2, 3], [[1, 2, 3], [4, 5, 6]], 2, 1]", wrt: "0, 1, 3" });
  });

  it("reads a TypeScript function's annotations, and has no defaults for a type it has no example of", () => {
    expect(parametersOf(LOGISTIC, "typescript", "loss")).toEqual([
      { name: "w", type: "number[]" },
      { name: "X", type: "number[][]" },
      { name: "y", type: "number[]" },
    ]);
    const odd = "export function f(p: { a: number }, x = 2) { return p.a * x; }";
    expect(parametersOf(odd, "typescript", "f")).toEqual([
      { name: "p", type: "{ a: number }" },
      { name: "x", type: "" },
    ]);
    expect(defaultsFor(parametersOf(odd, "typescript", "f")!)).toBeUndefined();
    expect(parametersOf("let f = fun x -> x +", "smooth", "f")).toBeUndefined();
    expect(parametersOf(LOGISTIC, "typescript", "nothing")).toBeUndefined();
  });
});

describe("the playground's results", () => {
  it("labels a gradient in several parameters, one line each", () => {
    const params = [
      { name: "u", type: "Vector" },
      { name: "s", type: "Double" },
    ];
    expect(labelled([[1, 2], 3], "gradient", "f", [0, 1], params)).toBe("∂f/∂u = [1, 2]\n∂f/∂s = 3");
    expect(labelled(3, "gradient", "f", 1, params)).toBe("∂f/∂s = 3");
    expect(labelled(3, "value", "f", 0, params)).toBe("3");
    // The library's Hessian in several parameters is a matrix of blocks, [a][b] for ∂²f/∂a∂b.
    const scalars = [
      { name: "s", type: "Double" },
      { name: "t", type: "Double" },
    ];
    expect(
      labelled(
        [
          [4, 2],
          [2, 0],
        ],
        "hessian",
        "f",
        [0, 1],
        scalars,
      ),
    ).toBe("∂²f/∂s² = 4\n∂²f/∂s∂t = 2\n∂²f/∂t∂s = 2\n∂²f/∂t² = 0");
    expect(labelled(5, "hessian", "f", 1, params)).toBe("∂²f/∂s² = 5");
  });

  it("differentiates a plain TypeScript loss as the TypeScript tab does, against central differences", () => {
    const w = [0.5, -0.25];
    const X = [
      [1, 2],
      [0.5, -1],
      [-1.5, 0.25],
    ];
    const y = [1, 0, 1];
    const lossJs = (w: number[]) => {
      let total = 0;
      for (let n = 0; n < X.length; n++) {
        const z = w[0]! * X[n]![0]! + w[1]! * X[n]![1]!;
        const p = 1 / (1 + Math.exp(-z));
        total -= y[n]! * Math.log(p) + (1 - y[n]!) * Math.log(1 - p);
      }
      return total / X.length;
    };
    const out = evaluate({
      language: "typescript",
      source: LOGISTIC,
      fn: "loss",
      args: JSON.stringify([w, X, y]),
      transform: "gradient",
      wrt: "0",
    });
    const match = /^∂loss\/∂w = (\[.*\])$/.exec(out.result);
    expect(match).not.toBeNull();
    const gradient = JSON.parse(match![1]!) as number[];
    const h = 1e-6;
    gradient.forEach((g, j) => {
      const plus = w.map((x, k) => (k === j ? x + h : x));
      const minus = w.map((x, k) => (k === j ? x - h : x));
      expect(g).toBeCloseTo((lossJs(plus) - lossJs(minus)) / (2 * h), 8);
    });
    expect(out.program).toMatch(/^let /);
  });
});
