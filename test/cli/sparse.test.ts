// `smooth jacobian --sparse` and `smooth hessian --sparse` end to end (the built command): the CSR JSON, equal to the
// dense JSON of the same command at the pattern's entries and zero elsewhere; a dense pattern's note on stderr; a
// TypeScript function.

import { describe, expect, it } from "vitest";
import { file, smooth } from "./run.js";

const json = (r: { stdout: string }) => JSON.parse(r.stdout) as Record<string, unknown>;

const program = file(
  "sparse.smooth",
  `let tridiag = fun (x: Vector) ->
  let n = length x
  build n (fun i ->
    let left = if i > 0 then x[i - 1] else 0.
    let right = if i < n - 1 then x[i + 1] else 0.
    (3. - 2. * x[i]) * x[i] - left - 2. * right + 1.)
let rosenbrock = fun (x: Vector) ->
  ifold (fun s i -> s + 100. * (x[i + 1] - x[i] * x[i]) * (x[i + 1] - x[i] * x[i]) + (1. - x[i]) * (1. - x[i]))
    0. (length x - 1)
let mixing = fun (x: Vector) -> build (length x) (fun i -> x[i] * vectorSum x)
`,
);

interface Csr {
  shape: [number, number];
  rowPointers: number[];
  columnIndexes: number[];
  values: number[];
}

function denseOf(s: Csr): number[][] {
  const out = Array.from({ length: s.shape[0] }, () => new Array<number>(s.shape[1]).fill(0));
  for (let r = 0; r < s.shape[0]; r++)
    for (let k = s.rowPointers[r]!; k < s.rowPointers[r + 1]!; k++) out[r]![s.columnIndexes[k]!] = s.values[k]!;
  return out;
}

const args = "[[0.5, -1.5, 2, 0.25, 1]]";

describe("smooth jacobian|hessian --sparse", () => {
  it.each(["js", "wasm", "interp"])("gives the dense command's matrix in CSR (--engine %s)", (engine) => {
    for (const [kind, fn] of [
      ["jacobian", "tridiag"],
      ["hessian", "rosenbrock"],
    ] as const) {
      const sparse = smooth(kind, program, "--fn", fn, "--args", args, "--sparse", "--engine", engine);
      expect(sparse.stderr).toBe("");
      const s = json(sparse);
      const dense = json(smooth(kind, program, "--fn", fn, "--args", args, "--engine", engine));
      expect(s.value).toEqual(dense.value);
      expect(s.colours).toBe(3);
      const csr = s[kind] as Csr;
      expect(csr.shape).toEqual([5, 5]);
      expect(csr.columnIndexes.length).toBe(13);
      expect(
        denseOf(csr)
          .flat()
          .map((x) => x + 0),
      ).toEqual((dense[kind] as number[][]).flat().map((x) => x + 0));
    }
  });

  it("says on stderr, and in the JSON, when the pattern is dense", () => {
    const r = smooth("jacobian", program, "--fn", "mixing", "--args", "[[1, 2, 3]]", "--sparse");
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/^smooth: note: the Jacobian of `mixing` is dense: 9 of 3 × 3 entries \(100\.0%\)/);
    expect(json(r).note).toMatch(/is dense/);
  });

  it("on a TypeScript function", () => {
    const ts = file(
      "sparse.ts",
      `export function diffs(x: Float64Array): Float64Array {
  const y = new Float64Array(x.length - 1);
  for (let i = 0; i < x.length - 1; i++) y[i] = x[i + 1] * x[i + 1] - x[i];
  return y;
}
`,
    );
    const r = smooth("jacobian", ts, "--fn", "diffs", "--args", "[[1, 2, 3]]", "--sparse");
    expect(r.stderr).toBe("");
    expect(json(r)).toMatchObject({
      value: [3, 7],
      jacobian: { shape: [2, 3], rowPointers: [0, 2, 4], columnIndexes: [0, 1, 1, 2], values: [-1, 4, -1, 6] },
    });
  });
});
