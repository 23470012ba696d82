// Reverse mode from the command line: `smooth grad` (reverse by default), `smooth jacobian --mode reverse` and its
// default, `smooth hessian` (forward over reverse), against derivatives worked out by hand; forward and reverse mode
// agree, and so do the two back ends.

import { describe, expect, it } from "vitest";
import { file, smooth } from "./run.js";

const json = (r: { stdout: string; stderr: string }) => {
  expect(r.stderr).toBe("");
  return JSON.parse(r.stdout) as Record<string, unknown>;
};

/** Nested arrays of numbers equal within `tol` (same shape, same nulls). */
function expectClose(actual: unknown, expected: unknown, tol = 1e-12): void {
  if (typeof expected === "number") {
    expect(typeof actual).toBe("number");
    expect(Math.abs((actual as number) - expected)).toBeLessThanOrEqual(tol * Math.max(1, Math.abs(expected)));
  } else if (Array.isArray(expected)) {
    expect(Array.isArray(actual) && actual.length === expected.length).toBe(true);
    expected.forEach((e, i) => expectClose((actual as unknown[])[i], e, tol));
  } else expect(actual).toEqual(expected);
}

const ENGINES = ["js", "interp", "wasm"] as const;
const MODES = ["forward", "reverse"] as const;

// f(x, y) = x² y + sin y: ∇f = (2xy, x² + cos y); H = [[2y, 2x], [2x, -sin y]].
const fxy = file("fxy.smooth", "let f = fun x y -> x * x * y + sin y");
const points: [number, number][] = [
  [2, 3],
  [-0.5, 1.25],
];

describe("smooth grad: reverse mode by default", () => {
  it.each(points)("f(x, y) = x² y + sin y at (%d, %d): value and gradient, in both modes and both engines", (x, y) => {
    const expected = { value: x * x * y + Math.sin(y), gradient: [2 * x * y, x * x + Math.cos(y)] };
    const byDefault = json(smooth("grad", fxy, "--fn", "f", "--args", JSON.stringify([x, y])));
    expectClose(byDefault.value, expected.value);
    expectClose(byDefault.gradient, expected.gradient);
    for (const mode of MODES)
      for (const engine of ENGINES) {
        const r = json(
          smooth("grad", fxy, "--fn", "f", "--args", JSON.stringify([x, y]), "--mode", mode, "--engine", engine),
        );
        expectClose(r.value, expected.value);
        expectClose(r.gradient, expected.gradient);
      }
  });

  it("one entry per argument with its shape, null for an Index", () => {
    // g = x Σ v + n: ∂g/∂x = Σ v = 6, ∂g/∂v_i = x = 2.
    const p = file("mixed-r.smooth", "let g = fun (x: Double) (v: Vector) (n: Index) -> x * vectorSum v + double n");
    for (const engine of ENGINES)
      expect(json(smooth("grad", p, "--fn", "g", "--args", "[2, [1, 2, 3], 4]", "--engine", engine))).toEqual({
        value: 16,
        gradient: [6, [2, 2, 2], null],
      });
  });

  it("a loop with an accumulator: Horner's rule, ∂/∂cs and ∂/∂x", () => {
    // p(cs, x) = Σ cs[k] x^(n-1-k) with cs = [1, -2, 3], x = 1.5: p = 2.25 - 3 + 3 = 2.25; ∂p/∂cs = [x², x, 1];
    // ∂p/∂x = 2 cs0 x + cs1 = 1.
    const p = file(
      "horner.smooth",
      "let p = fun (cs: Vector) (x: Double) -> ifold (fun acc i -> acc * x + cs[i]) 0 (length cs)",
    );
    for (const mode of MODES)
      for (const engine of ENGINES) {
        const r = json(
          smooth("grad", p, "--fn", "p", "--args", "[[1, -2, 3], 1.5]", "--mode", mode, "--engine", engine),
        );
        expectClose(r.value, 2.25);
        expectClose(r.gradient, [[2.25, 1.5, 1], 1]);
      }
  });
});

describe("smooth jacobian --mode reverse", () => {
  it("one row per output scalar, the same as forward mode, in both engines", () => {
    // h(M, s) = (M00 s, M10 s): columns M00 M01 M10 M11 s.
    const p = file("jac-r.smooth", "let h = fun (M: Matrix) (s: Double) -> build (length M) (fun i -> M[i][0] * s)");
    const expected = {
      value: [10, 30],
      jacobian: [
        [10, 0, 0, 0, 1],
        [0, 0, 10, 0, 3],
      ],
    };
    for (const mode of MODES)
      for (const engine of ENGINES)
        expect(
          json(
            smooth("jacobian", p, "--fn", "h", "--args", "[[[1, 2], [3, 4]], 10]", "--mode", mode, "--engine", engine),
          ),
        ).toEqual(expected);
  });

  it("a matrix output gives its rows flattened row-major", () => {
    // O(v) = v vᵀ: ∂O_ij/∂v_k = δ_ik v_j + v_i δ_jk; at v = (2, 5) the rows are O00 O01 O10 O11.
    const p = file(
      "outer.smooth",
      "let o = fun (v: Vector) -> build (length v) (fun i -> build (length v) (fun j -> v[i] * v[j]))",
    );
    const expected = {
      value: [
        [4, 10],
        [10, 25],
      ],
      jacobian: [
        [4, 0],
        [5, 2],
        [5, 2],
        [0, 10],
      ],
    };
    for (const mode of MODES)
      for (const engine of ENGINES)
        expect(
          json(smooth("jacobian", p, "--fn", "o", "--args", "[[2, 5]]", "--mode", mode, "--engine", engine)),
        ).toEqual(expected);
  });

  it("a scalar output is a one-row Jacobian", () => {
    const r = json(smooth("jacobian", fxy, "--fn", "f", "--args", "[2, 3]", "--mode", "reverse"));
    expectClose(r.value, 12 + Math.sin(3));
    expectClose(r.jacobian, [[12, 4 + Math.cos(3)]]);
  });

  it("the default is reverse with fewer outputs than inputs, forward otherwise (as show --jacobian --args tells)", () => {
    const p = file(
      "shape.smooth",
      "let few = fun (v: Vector) -> (v[0] * v[1], v[2])\nlet many = fun (s: Double) -> build 3 (fun i -> s * double i)",
    );
    // g: 2 outputs of 3 inputs, reverse; many: 3 outputs of 1 input, forward; few: fewer outputs (a tuple's), reverse.
    const rows = file("rows.smooth", "let g = fun (v: Vector) -> build 2 (fun i -> v[i] * v[2])");
    expect(smooth("show", rows, "--fn", "g", "--args", "[[1, 2, 3]]", "--jacobian").stdout).toMatch(/^let g_jac /);
    expect(smooth("show", p, "--fn", "many", "--args", "[2]", "--jacobian").stdout).toMatch(/^let many' /);
    expect(smooth("show", p, "--fn", "few", "--args", "[[1, 2, 3]]", "--jacobian").stdout).toMatch(/^let few_jac /);
    // And the numbers: ∂(v_i v2)/∂v = (δ_i0 v2, δ_i1 v2, v_i).
    expect(json(smooth("jacobian", rows, "--fn", "g", "--args", "[[1, 2, 3]]"))).toEqual({
      value: [3, 6],
      jacobian: [
        [3, 0, 1],
        [0, 3, 2],
      ],
    });
    expect(json(smooth("jacobian", p, "--fn", "many", "--args", "[2]"))).toEqual({
      value: [0, 2, 4],
      jacobian: [[0], [1], [2]],
    });
  });

  it.each(["forward", "reverse"])("a tuple result: one row per Double of its parts, in order (--mode %s)", (mode) => {
    // t(v, s) = (v0 v1, (s v, n)) with n an Index: rows ∂(v0 v1), then ∂(s v_i); columns v0, v1, s.
    const p = file(
      "tuple.smooth",
      "let t = fun (v: Vector) (s: Double) (n: Index) -> (v[0] * v[1], (vectorSMul v s, n + 1))",
    );
    const r = json(smooth("jacobian", p, "--fn", "t", "--args", "[[2, 3], 5, 7]", "--mode", mode));
    expect(r).toEqual({
      value: [6, [[10, 15], 8]],
      jacobian: [
        [3, 2, 0],
        [5, 0, 2],
        [0, 5, 3],
      ],
    });
  });
});

describe("smooth hessian", () => {
  it.each(points)("f(x, y) = x² y + sin y at (%d, %d): [[2y, 2x], [2x, -sin y]] in both engines", (x, y) => {
    for (const engine of ENGINES) {
      const r = json(smooth("hessian", fxy, "--fn", "f", "--args", JSON.stringify([x, y]), "--engine", engine));
      expectClose(r.value, x * x * y + Math.sin(y));
      expectClose(r.hessian, [
        [2 * y, 2 * x],
        [2 * x, -Math.sin(y)],
      ]);
    }
  });

  it("over the flattened inputs of every argument with Doubles, or of --wrt K only", () => {
    // c(v, s, n) = s Σ v_i³ + n: ∂²/∂v_i² = 6 s v_i, ∂²/∂v_i∂s = 3 v_i², ∂²/∂s² = 0; n is an Index (not
    // differentiated).
    const p = file(
      "cubes.smooth",
      "let c = fun (v: Vector) (s: Double) (n: Index) -> s * vectorSum (build (length v) (fun i -> v[i] * v[i] * v[i])) + double n",
    );
    const args = "[[1, 2], 10, 7]";
    for (const engine of ENGINES) {
      expect(json(smooth("hessian", p, "--fn", "c", "--args", args, "--engine", engine))).toEqual({
        value: 97,
        hessian: [
          [60, 0, 3],
          [0, 120, 12],
          [3, 12, 0],
        ],
      });
      expect(json(smooth("hessian", p, "--fn", "c", "--args", args, "--wrt", "0", "--engine", engine))).toEqual({
        value: 97,
        hessian: [
          [60, 0],
          [0, 120],
        ],
      });
    }
  });
});
