// The derivative programs as text (`smooth show --grad|--jacobian|--hessian [--mode]`, `smooth dev --derivative
// --mode`), and the errors of the derivative commands: one message, exit code 1, no stack trace.

import { describe, expect, it } from "vitest";
import { file, smooth } from "./run.js";

// Paper 001's first example: f(x1, x2) = x1² x2, so ∇f = (2 x1 x2, x1²) = (24, 9) at (3, 4).
const paper = file("paper001.smooth", "let f = fun x1 x2 -> let w1 = x1 * x2 in let w2 = w1 * x1 in w2");

/** The printed program (a definition named `name`) run again on `args` without the prelude. */
function runShown(shown: string, name: string, args: string) {
  const again = file(`${name.replace(/\W/g, "_")}-again.smooth`, shown);
  return smooth("run", again, "--fn", name, "--args", args, "--no-prelude");
}

describe("smooth show --grad in reverse mode", () => {
  it("paper 001's first example: the reverse gradient is straight-line code that evaluates to (2 x1 x2, x1²)", () => {
    const r = smooth("show", paper, "--fn", "f", "--args", "[3, 4]", "--grad");
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^let f' /);
    expect(r.stdout).not.toMatch(/\bifold\b/);
    expect(r.stdout).not.toMatch(/\bbuild\b/);
    expect(runShown(r.stdout, "f'", "[3, 4]").stdout).toBe("[24,9]\n");
    expect(runShown(r.stdout, "f'", "[-1.5, 2]").stdout).toBe("[-6,2.25]\n");
  });

  it("--mode reverse is the default; --mode forward prints the forward program, to the same numbers", () => {
    const dot = file("dot-r.smooth", "let f = fun (v1: Vector) (v2: Vector) -> vectorDot v1 v2");
    const reverse = smooth("show", dot, "--fn", "f", "--grad", "--wrt", "0", "--mode", "reverse").stdout;
    expect(smooth("show", dot, "--fn", "f", "--grad", "--wrt", "0").stdout).toBe(reverse);
    const forward = smooth("show", dot, "--fn", "f", "--grad", "--wrt", "0", "--mode", "forward").stdout;
    expect(forward).not.toBe(reverse);
    // ∂(v1·v2)/∂v1 = v2.
    for (const shown of [reverse, forward]) expect(runShown(shown, "f'", "[[1, 2], [3, 4]]").stdout).toBe("[3,4]\n");
  });

  it("show --hessian prints the forward-over-reverse program, [[2y, 2x], [2x, -sin y]] for x² y + sin y", () => {
    const p = file("hess-show.smooth", "let f = fun x y -> x * x * y + sin y");
    const r = smooth("show", p, "--fn", "f", "--args", "[2, 3]", "--hessian");
    expect(r.code).toBe(0);
    // The program returns one gradient per input column: ((2y, 2x), (2x, -sin y)); -sin 0 = 0.
    expect(runShown(r.stdout, "f''", "[2, 0]").stdout).toBe("[[0,4],[4,0]]\n");
  });

  it("show --jacobian --mode reverse prints the rows program, to the same numbers as forward", () => {
    const p = file("jac-show.smooth", "let g = fun (v: Vector) -> build 2 (fun i -> v[i] * v[1 - i])");
    const reverse = smooth("show", p, "--fn", "g", "--jacobian", "--mode", "reverse").stdout;
    const forward = smooth("show", p, "--fn", "g", "--jacobian", "--mode", "forward").stdout;
    expect(reverse).toMatch(/^let g_jac /);
    // Rows (reverse) and columns (forward) of [[v1, v0], [v1, v0]] at v = (3, 5).
    expect(runShown(reverse, "g_jac", "[[3, 5]]").stdout).toBe("[[5,3],[5,3]]\n");
    expect(runShown(forward, "g'", "[[3, 5]]").stdout).toBe("[[5,5],[3,3]]\n");
  });
});

describe("smooth dev --derivative --mode", () => {
  const dot = file("dot-dev.smooth", "let f = fun (v1: Vector) (v2: Vector) -> vectorDot v1 v2");

  it("reverse mode (the default for a Double result) ends where show --grad does", () => {
    const shown = smooth("show", dot, "--fn", "f", "--grad", "--wrt", "0").stdout.trimEnd();
    for (const mode of [[], ["--mode", "reverse"]]) {
      const r = smooth("dev", dot, "--fn", "f", "--derivative", "--wrt", "0", ...mode);
      expect(r.code).toBe(0);
      // The reverse sweep: the adjoint of v1 accumulated from zeros, not a forward build over v1's positions.
      expect(r.stdout).toMatch(/^\/\/ lowered\nlet f' [^]*zerosLike v1[^]*\/\/ after /);
      expect(r.stdout.trimEnd().endsWith(shown)).toBe(true);
    }
  });

  it("--passes applies to the derivative program", () => {
    const r = smooth("dev", dot, "--fn", "f", "--derivative", "--mode", "reverse", "--passes", "inline,simplify");
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^\/\/ lowered\nlet f' /);
    expect(r.stdout).toContain("zerosLike");
    expect(r.stdout.match(/\/\/ after \S+/g)).toEqual(["// after inline", "// after simplify"]);
  });
});

describe("errors of the derivative commands: one message, exit code 1, no stack trace", () => {
  const mixed = file(
    "mixed-e.smooth",
    "let f = fun (x: Double) (v: Vector) (n: Index) -> x * vectorSum v + double n\nlet g = fun (v: Vector) -> vectorSMul v 2.",
  );
  const args = ["--args", "[2, [1, 2, 3], 4]"];
  const cases: [string, string[], RegExp][] = [
    [
      "grad: unknown mode",
      ["grad", mixed, "--fn", "f", ...args, "--mode", "sideways"],
      /^argument error: unknown mode `sideways`\n {2}expected: forward or reverse/,
    ],
    [
      "jacobian: unknown mode",
      ["jacobian", mixed, "--fn", "f", ...args, "--mode", "backward"],
      /^argument error: unknown mode `backward`/,
    ],
    [
      "show: unknown mode",
      ["show", mixed, "--fn", "f", ...args, "--grad", "--mode", "rev"],
      /^argument error: unknown mode `rev`/,
    ],
    [
      "dev: unknown mode",
      ["dev", mixed, "--fn", "f", ...args, "--derivative", "--mode", "Reverse"],
      /^argument error: unknown mode `Reverse`/,
    ],
    [
      "hessian of a Vector",
      ["hessian", mixed, "--fn", "g", "--args", "[[1, 2]]"],
      /^.*argument error: smooth hessian needs `g` to return a Double, but it returns Vector/,
    ],
    [
      "show --hessian of a Vector",
      ["show", mixed, "--fn", "g", "--hessian"],
      /^.*argument error: smooth show --hessian needs `g` to return a Double, but it returns Vector/,
    ],
    [
      "grad of a Vector (reverse)",
      ["grad", mixed, "--fn", "g", "--args", "[[1, 2]]", "--mode", "reverse"],
      /^.*argument error: smooth grad needs `g` to return a Double, but it returns Vector/,
    ],
    ...(["grad", "jacobian", "hessian"] as const).map((cmd): [string, string[], RegExp] => [
      `${cmd} --wrt an Index`,
      [cmd, mixed, "--fn", "f", ...args, "--wrt", "2", ...(cmd === "hessian" ? [] : ["--mode", "reverse"])],
      /^.*mixed-e\.smooth:1:5: argument error: cannot differentiate with respect to parameter `n` of `f`: it is an Index/,
    ]),
    ["hessian --mode", ["hessian", mixed, "--fn", "f", ...args, "--mode", "reverse"], /unknown option '--mode'/],
  ];
  it.each(cases)("%s", (_, argv, headline) => {
    const r = smooth(...argv);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe("");
    expect(r.stderr).toMatch(headline);
    expect(r.stderr).not.toMatch(/\n\s+at /);
    expect(r.stderr).not.toMatch(/internal error/);
  });
});
