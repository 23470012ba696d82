// `smooth repl`, driven through its standard input as a person would type: definitions, expressions, :type, :grad,
// :show, continued lines, and errors that do not end the session.

import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { cli, file, root } from "./run.js";

function repl(lines: string[], ...args: string[]) {
  const r = spawnSync(process.execPath, [cli, "repl", ...args], {
    cwd: root,
    encoding: "utf8",
    input: lines.join("\n") + "\n",
  });
  return { code: r.status, out: r.stdout.trimEnd().split("\n"), stderr: r.stderr };
}

describe("smooth repl", () => {
  it("defines, evaluates, types and differentiates", () => {
    const r = repl([
      "let f = fun (x: Double) (y: Double) -> x * x * y + sin y",
      "f 2. 3.",
      ":type f",
      ":type vectorSum (build 3 (fun i -> double i))",
      ":grad f [2, 3]",
      ":show f --hessian",
    ]);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe("");
    // 12 + sin 3; the gradient (2xy, x² + cos y) = (12, 4 + cos 3); the Hessian [[2y, 2x], [2x, -sin y]].
    expect(r.out.slice(0, 4)).toEqual([
      "f : Double -> Double -> Double",
      `${12 + Math.sin(3)} : Double`,
      "Double -> Double -> Double",
      "Double",
    ]);
    const grad = JSON.parse(r.out[4]!);
    expect(grad.value).toBe(12 + Math.sin(3));
    expect(grad.gradient[0]).toBe(12);
    expect(grad.gradient[1]).toBeCloseTo(4 + Math.cos(3), 14);
    expect(r.out.slice(5).join("\n")).toBe(
      "let f'' (x: Double) (y: Double) =\n  let dt = x + x in\n  ((y + y, dt), (dt, -sin y))",
    );
  });

  it("continues a definition over lines, and shows the gradient program", () => {
    const r = repl([
      "let h = fun (v: Vector) ->",
      "  let s = vectorSum v",
      "  s * s",
      "h (build 3 (fun i -> double i))",
      ":show h --grad",
    ]);
    expect(r.out[0]).toBe("h : Vector -> Double");
    expect(r.out[1]).toBe("9 : Double");
    expect(r.out[2]).toMatch(/^let h' \(v: Vector\) =/);
  });

  it("reports errors with their location and goes on", () => {
    const r = repl([
      "let g = fun (v: Vector) -> v + 1.",
      ":grad nothere [1]",
      ":frobnicate",
      "let g = fun x -> x +",
      "",
      "1 + 2",
    ]);
    expect(r.code).toBe(0);
    const text = r.out.join("\n");
    expect(text).toMatch(/^<repl>:1:\d+: type error/m);
    expect(text).toMatch(/^name error: there is no definition named `nothere`/m);
    expect(text).toMatch(/^argument error: unknown command :frobnicate/m);
    expect(text).toMatch(/^<repl>:1:21: syntax error: unexpected end of input/m);
    expect(r.out[r.out.length - 1]).toBe("3 : Double");
  });

  it("starts from a file's definitions", () => {
    const path = file("repl-start.smooth", "let sq = fun (x: Double) -> x * x\n");
    const r = repl([":defs", ":grad sq [3]"], path);
    // Loading prints the file's definitions; :defs lists them again.
    expect(r.out).toEqual(["sq : Double -> Double", "sq : Double -> Double", '{"value":9,"gradient":[6]}']);
  });
});
