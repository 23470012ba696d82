// Ahead-of-time modules (src/aot/, emitModule, `smooth compile --module`): standalone ES modules that evaluate no code,
// contain none of the program's text, and compute what the library computes (checked against hand-written
// derivatives). test/browser/ runs one under `Content-Security-Policy: script-src 'self'` in Chromium.

import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { add, dot, emitModule, exp, grad, log, mul, smooth, sub, type Tensor } from "../../src/index.js";
import { smooth as cli } from "../cli/run.js";

const dir = mkdtempSync(join(tmpdir(), "smooth-aot-"));
let count = 0;

/** Writes module text to a file and imports it (each under a new name: modules are cached by URL). */
async function load(text: string): Promise<Record<string, (...args: unknown[]) => unknown>> {
  const file = join(dir, `m${count++}.mjs`);
  writeFileSync(file, text);
  return (await import(pathToFileURL(file).href)) as Record<string, (...args: unknown[]) => unknown>;
}

// Names and text that must not reach the module.
const SOURCE = `
// a comment: zebraComment
let zebraLoss = fun (zebraWeights: Vector) (zebraRows: Matrix) (zebraK: Index) ->
  let zebraScores = build (length zebraRows) (fun zebraI -> log (1 + exp (vectorDot zebraWeights zebraRows[zebraI])))
  vectorSum zebraScores + zebraWeights[zebraK] * 3
`;

/** d/dw of Σ_i log(1 + exp(w·x_i)) + 3 w_k, by hand. */
function lossGradient(w: number[], rows: number[][], k: number): number[] {
  const g = w.map((_, j) => (j === k ? 3 : 0));
  for (const x of rows) {
    const z = x.reduce((s, xi, j) => s + xi * w[j]!, 0);
    const sigma = 1 / (1 + Math.exp(-z));
    x.forEach((xi, j) => (g[j]! += sigma * xi));
  }
  return g;
}

describe("emitModule", () => {
  const m = smooth(Object.assign([SOURCE], { raw: [SOURCE] }));
  const w = new Float64Array([0.5, -0.25]);
  const rows = [
    [1, 2],
    [3, -4],
    [0.5, 0.5],
  ];

  it("writes a standalone module: no imports, no eval, none of the program's text", () => {
    const text = emitModule(m.zebraLoss!, w, rows, 1);
    expect(text).not.toMatch(/zebra/i);
    expect(text).not.toMatch(/\bnew Function\b|\beval\s*\(|^\s*import\b|\bimport\s*\(|\brequire\s*\(/m);
    expect(text).toMatch(/^export const value = /m);
    expect(text).toMatch(/^export const gradient = /m);
  });

  it("its value and gradient are the library's, and the hand-written gradient", async () => {
    const mod = await load(emitModule(m.zebraLoss!, w, rows, 1));
    const w2 = new Float64Array([0.1, 0.7]);
    const rows2 = [
      [2, 1],
      [-1, 1],
    ];
    expect(mod.value!(w2, rows2, 0)).toBe(m.zebraLoss!(w2, rows2, 0));
    const g = mod.gradient!(w2, rows2, 0) as Float64Array;
    expect(g).toBeInstanceOf(Float64Array);
    expect([...g]).toEqual([...(grad(m.zebraLoss!)(w2, rows2, 0) as Float64Array)]);
    lossGradient([0.1, 0.7], rows2, 0).forEach((x, j) => expect(g[j]).toBeCloseTo(x, 12));
    expect(mod.default).toBe(mod.value);
  });

  it("reports errors as SmoothErrors with the line and column of the source", async () => {
    const mod = await load(emitModule(m.zebraLoss!, w, rows, 1));
    // The library's error, with its excerpt, says where: `<smooth>:5:27`, the read zebraWeights[zebraK].
    expect(() => m.zebraLoss!(w, rows, 5)).toThrow(/^<smooth>:5:27: index error: index 5 is out of range/);
    expect(() => mod.value!(w, rows, 5)).toThrow(/^index error: index 5 is out of range .*\(line 5, column 27 of/);
    expect(() => mod.value!(w, rows)).toThrow(/takes 3 argument\(s\), but 2 were given/);
    expect(() => mod.value!(1, rows, 1)).toThrow(/not of the types this module was compiled for/);
  });

  it("compiles a TypeScript function over tensors, with an object argument", async () => {
    const loss = (p: { w: Tensor; b: Tensor }, x: Tensor, y: Tensor) => {
      const z = add(dot(p.w, x), p.b);
      return sub(log(add(1, exp(z))), mul(y, z));
    };
    const p = { w: new Float64Array([0.5, -0.25]), b: 0.1 };
    const x = new Float64Array([1, 2]);
    const mod = await load(emitModule(loss, p, x, 1));
    const g = mod.gradient!(p, x, 1) as { w: Float64Array; b: number };
    // d/dp of log(1 + e^z) - y z with z = w·x + b: (σ(z) - y) (x, 1).
    const s = 1 / (1 + Math.exp(-(0.5 - 0.5 + 0.1))) - 1;
    expect([...g.w]).toEqual([s * 1, s * 2].map((v) => expect.closeTo(v, 14)));
    expect(g.b).toBeCloseTo(s, 14);
    expect(g).toEqual(grad(loss)(p, x, 1));
  });

  it("has no gradient for a function that does not return a Double", () => {
    const v = smooth`let f = fun (v: Vector) -> vectorSMul v 2`;
    const text = emitModule(v.f!, new Float64Array([1]));
    expect(text).toMatch(/^export const value = /m);
    expect(text).not.toMatch(/^export const gradient = /m);
  });
});

describe("smooth compile --module", () => {
  it("writes a module whose gradient is `smooth grad`'s", async () => {
    const src = join(dir, "f.smooth");
    writeFileSync(src, "let f = fun (v: Vector) (s: Double) (k: Index) -> s * vectorDot v v + sin v[k]\n");
    const out = join(dir, "f-cli.mjs");
    const args = "[[1, 2, 3], 2, 0]";
    const r = cli("compile", src, "--fn", "f", "--args", args, "--grad", "--module", out);
    expect(r.stderr).toBe("");
    expect(r.stdout).toMatch(/^wrote .*f-cli\.mjs: export value, gradient/);
    const mod = (await import(pathToFileURL(out).href)) as Record<string, (...a: unknown[]) => unknown>;
    const expected = JSON.parse(cli("grad", src, "--fn", "f", "--args", args).stdout);
    expect(mod.value!([1, 2, 3], 2, 0)).toBe(expected.value);
    expect(mod.gradient!([1, 2, 3], 2, 0)).toEqual(expected.gradient.slice(0, 2));
    // By hand: (2 s v + cos v0 e0, v·v).
    expect(expected.gradient[0][0]).toBeCloseTo(4 + Math.cos(1), 14);
    expect(readFileSync(out, "utf8")).not.toMatch(/vectorDot|sin v/);
  });

  it("needs --args, and --wrt only with --grad", () => {
    const src = join(dir, "g.smooth");
    writeFileSync(src, "let f = fun x -> x * x\n");
    expect(cli("compile", src, "--fn", "f", "--module", join(dir, "g.mjs")).stderr).toMatch(/--module needs --args/);
    expect(cli("compile", src, "--fn", "f", "--args", "[1]", "--wrt", "0", "--module", "x.mjs").stderr).toMatch(
      /--wrt applies to --grad/,
    );
  });
});
