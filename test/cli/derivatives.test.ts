// `smooth grad` and `smooth jacobian` in forward mode end to end, against derivatives worked out by hand
// (reverse mode and `smooth hessian`: ./reverse.test.ts).

import { describe, expect, it } from "vitest";
import { file, smooth } from "./run.js";

const json = (r: { stdout: string }) => JSON.parse(r.stdout);

const mixed = file("mixed.smooth", "let f = fun (x: Double) (v: Vector) (n: Index) -> x * vectorSum v + double n");

describe("smooth grad", () => {
  it("prints the value and one gradient entry per argument, null for an Index", () => {
    // f = x * (v0 + v1 + v2) + n: df/dx = sum v = 6, df/dv_i = x = 2.
    for (const engine of ["js", "interp", "wasm"]) {
      const r = smooth(
        "grad",
        mixed,
        "--fn",
        "f",
        "--args",
        "[2, [1, 2, 3], 4]",
        "--mode",
        "forward",
        "--engine",
        engine,
      );
      expect(r.stderr).toBe("");
      expect(json(r)).toEqual({ value: 16, gradient: [6, [2, 2, 2], null] });
    }
  });

  it.each(["forward", "reverse"])("--wrt K restricts to argument K (--mode %s)", (mode) => {
    expect(
      json(smooth("grad", mixed, "--fn", "f", "--args", "[2, [1, 2, 3], 4]", "--wrt", "1", "--mode", mode)),
    ).toEqual({
      value: 16,
      gradient: [null, [2, 2, 2], null],
    });
  });

  it.each(["forward", "reverse"])("a matrix argument gets a matrix gradient (--mode %s)", (mode) => {
    // tr(M A) with A = [[1, 2], [3, 4]]: the gradient is Aᵀ.
    const p = file("trma.smooth", "let f = fun (M: Matrix) (A: Matrix) -> matrixTrace (matrixMul M A)");
    expect(
      json(
        smooth("grad", p, "--fn", "f", "--args", "[[[5, 6], [7, 8]], [[1, 2], [3, 4]]]", "--wrt", "0", "--mode", mode),
      ),
    ).toEqual({
      value: 5 * 1 + 6 * 3 + 7 * 2 + 8 * 4,
      gradient: [
        [
          [1, 3],
          [2, 4],
        ],
        null,
      ],
    });
  });

  it("differentiating with respect to an integer is a clear error", () => {
    const r = smooth("grad", mixed, "--fn", "f", "--args", "[2, [1, 2, 3], 4]", "--wrt", "2");
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /argument error: cannot differentiate with respect to parameter `n` of `f`: it is an Index/,
    );
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  it("a gradient needs a scalar result", () => {
    const p = file("vec.smooth", "let f = fun (v: Vector) -> vectorSMul v 2.");
    const r = smooth("grad", p, "--fn", "f", "--args", "[[1, 2]]");
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/argument error: smooth grad needs `f` to return a Double, but it returns Vector/);
  });
});

describe("smooth jacobian --mode forward", () => {
  it("one row per output scalar, one column per input scalar", () => {
    // g(v) = (v0 v1, v1 v0): both rows are [v1, v0].
    const p = file("jac.smooth", "let g = fun (v: Vector) -> build 2 (fun i -> v[i] * v[1 - i])");
    expect(json(smooth("jacobian", p, "--fn", "g", "--args", "[[3, 5]]", "--mode", "forward"))).toEqual({
      value: [15, 15],
      jacobian: [
        [5, 3],
        [5, 3],
      ],
    });
  });

  it("columns run over every differentiated argument, flattened row-major", () => {
    // h(M, s) = (M00 s, M10 s): columns M00 M01 M10 M11 s.
    const p = file("jac2.smooth", "let h = fun (M: Matrix) (s: Double) -> build (length M) (fun i -> M[i][0] * s)");
    for (const engine of ["js", "interp", "wasm"]) {
      expect(json(smooth("jacobian", p, "--fn", "h", "--args", "[[[1, 2], [3, 4]], 10]", "--engine", engine))).toEqual({
        value: [10, 30],
        jacobian: [
          [10, 0, 0, 0, 1],
          [0, 0, 10, 0, 3],
        ],
      });
    }
  });
});

describe("the derivative API inside the language", () => {
  it("nested deriv has no perturbation confusion (paper 000 §3.3): the result is 1", () => {
    const p = file("nest.smooth", "let main = fun x y -> snd (deriv (x * snd (deriv (x + y) y)) x)");
    for (const args of ["[2, 3]", "[-1.5, 0.25]"]) {
      expect(smooth("run", p, "--args", args).stdout).toBe("1\n");
      expect(smooth("run", p, "--args", args, "--engine", "interp").stdout).toBe("1\n");
    }
  });

  it("diff (diff f) gives the second derivative", () => {
    // f = x³: f'' = 6x.
    const p = file("dd.smooth", "let f = fun x -> x * x * x\nlet main = fun x -> snd (snd (diff (diff f) x))");
    expect(smooth("run", p, "--args", "[1.5]").stdout).toBe("9\n");
  });

  it("grad and jacob return dual numbers, as in the paper's Fig. 5", () => {
    // grad of v0² + 3 v1 at (2, 5): value 19 in every entry, tangents (4, 3).
    const p = file("g.smooth", "let f = fun (v: Vector) -> v[0] * v[0] + 3. * v[1]\nlet main = fun v -> grad f v");
    expect(json(smooth("run", p, "--args", "[[2, 5]]"))).toEqual([
      [19, 4],
      [19, 3],
    ]);
  });
});

describe("smooth show --grad and smooth dev", () => {
  const dot = file("dot.smooth", "let f = fun (v1: Vector) (v2: Vector) -> vectorDot v1 v2");

  it("show --grad --mode forward prints the optimised gradient: ∂(v1·v2)/∂v1 = v2 (paper 000 Example 4)", () => {
    const r = smooth("show", dot, "--fn", "f", "--grad", "--wrt", "0", "--mode", "forward");
    expect(r.stdout).toBe("let f' (v1: Vector) (v2: Vector) = build (length v1) (fun p0 -> v2[p0])\n");
  });

  it("dev --derivative --mode forward shows each pass and why the strategy stopped", () => {
    const r = smooth("dev", dot, "--fn", "f", "--derivative", "--wrt", "0", "--mode", "forward");
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("// after forward-ad");
    expect(r.stdout).toMatch(/\/\/ optimise stopped: fixpoint; fired: .*single-access 1/);
    expect(r.stdout.trimEnd().endsWith("build (length v1) (fun p0 -> v2[p0])")).toBe(true);
  });

  it("dev --passes runs the named passes and rejects unknown ones", () => {
    expect(smooth("dev", dot, "--fn", "f", "--passes", "inline,simplify").stdout).toContain("// after simplify");
    const bad = smooth("dev", dot, "--fn", "f", "--passes", "inline,nonsense");
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/argument error: unknown pass `nonsense`/);
  });
});
