// The command line on TypeScript files: `smooth run|grad|jacobian|hessian model.ts --fn f --args JSON` (gradients
// against hand-derived ones, the Hessian symmetric and equal to the Jacobian of the gradient), `smooth types`, and
// located errors with exit code 1.

import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { file, smooth } from "./run.js";

const MODEL = `const DECAY = 0.5;
interface Params { w: Float64Array; b: number }
function predict(p: Params, x: Float64Array): number {
  let z = p.b;
  for (let i = 0; i < x.length; i++) z += p.w[i]! * x[i]!;
  return z;
}
export function loss(p: Params, x: Float64Array, y: number): number {
  const r = predict(p, x) - y;
  return DECAY * r * r;
}
export function field(v: Float64Array): Float64Array {
  const out = new Float64Array(v.length);
  for (let i = 0; i < v.length; i++) out[i] = v[i]! * v[(i + 1) % v.length]!;
  return out;
}
export function spin(x: number): number {
  let s = 0;
  while (s < x) s += 1;
  return s;
}
export function power(x: number, n: number): number {
  return n === 0 ? 1 : x * power(x, n - 1);
}
export function label(x: number): number {
  const name = "x";
  return name.length * x;
}
`;
const json = (r: { stdout: string }) => JSON.parse(r.stdout) as Record<string, unknown>;
const ARGS = '[{"w": [0.5, -0.25], "b": 0.1}, [1, 2], 1]';

describe("smooth on a TypeScript file", () => {
  const model = file("model.ts", MODEL);

  it("run and grad: objects in, objects out", () => {
    expect(json(smooth("run", model, "--fn", "loss", "--args", ARGS))).toBeCloseTo(0.405, 15);
    // r = 0.5 - 0.5 + 0.1 - 1 = -0.9; ∂/∂w = r x, ∂/∂b = r, ∂/∂x = r w, ∂/∂y = -r.
    const g = json(smooth("grad", model, "--fn", "loss", "--args", ARGS));
    expect(g).toEqual({ value: 0.405, gradient: [{ w: [-0.9, -1.8], b: -0.9 }, [-0.45, 0.225], 0.9] });
  });

  it("jacobian and hessian, rows over output scalars and columns over input scalars", () => {
    expect(json(smooth("jacobian", model, "--fn", "field", "--args", "[[1, 2, 3]]"))).toEqual({
      value: [2, 6, 3],
      jacobian: [
        [2, 1, 0],
        [0, 3, 2],
        [3, 0, 1],
      ],
    });
    const h = json(smooth("hessian", model, "--fn", "loss", "--args", ARGS, "--wrt", "0")) as { hessian: number[][] };
    // f = (w·x + b - y)² / 2: the Hessian in (w0, w1, b) is [x; 1][x; 1]ᵀ.
    expect(h.hessian).toEqual([
      [1, 2, 1],
      [2, 4, 2],
      [1, 2, 1],
    ]);
  });

  it("a while loop is the language's while: the step count 3 at 2.5, whose derivative is 0", () => {
    const r = smooth("grad", model, "--fn", "spin", "--args", "[2.5]");
    expect(r.code).toBe(0);
    expect(json(r)).toEqual({ value: 3, gradient: [0] });
  });

  it("a recursive function is a `let rec`: x^3 and its derivative 3x^2 at 1.5", () => {
    const r = smooth("grad", model, "--fn", "power", "--args", "[1.5, 3]");
    expect(r.code).toBe(0);
    expect(json(r)).toEqual({ value: 3.375, gradient: [6.75, 0] });
  });

  it("a construct outside the subset is a located error, exit 1, no stack trace", () => {
    const r = smooth("grad", model, "--fn", "label", "--args", "[1.5]");
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/model\.ts:\d+:\d+: unsupported error: strings are not supported/);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });
});

describe("smooth types", () => {
  it("writes the declarations of a Smooth file", () => {
    const p = file("m.smooth", "let f = fun (v: Vector) (k: Index) -> vectorSum v * double k");
    const r = smooth("types", p);
    expect(r.code).toBe(0);
    expect(readFileSync(`${p}.d.ts`, "utf8")).toContain("readonly f: ((v: Float64Array, k: number) => number)");
  });
});
