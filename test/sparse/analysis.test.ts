// The sparsity analysis on its own (src/sparse/analysis.ts): its work grows linearly with the size of a banded problem
// (steps counted, not timed), the dependency sets of a sum are shared rather than copied, and the pattern of a
// while loop whose length depends on Doubles is widened rather than missed.

import { describe, expect, it } from "vitest";
import { loadProgram } from "../../src/api/program.js";
import { lowerEntry } from "../../src/ir/lower.js";
import { REVERSE_PRIMAL_PIPELINE } from "../../src/opt/pipeline.js";
import { jacobianAlgebra } from "../../src/sparse/algebra.js";
import { Analysis } from "../../src/sparse/analysis.js";
import { DepsReader } from "../../src/sparse/deps.js";
import { jacobianPattern } from "../../src/sparse/pattern.js";
import { abstractOf, Lattice } from "../../src/sparse/values.js";
import { VECTOR } from "../../src/types/types.js";
import { vector } from "../helpers.js";

const prog = loadProgram({
  name: "analysis.smooth",
  text: `
let tridiag = fun (x: Vector) ->
  let n = length x
  build n (fun i -> (if i > 0 then x[i - 1] else 0.) * x[i] + (if i < n - 1 then x[i + 1] else 0.))
let prefix = fun (x: Vector) ->
  snd (ifold (fun s i -> let t = fst s + x[i] in (t, setAt (snd s) i t)) (0., zerosLike x) (length x))
let spread = fun (x: Vector) ->
  snd (while (fun s -> fst s < 2. * x[0]) (fun s -> (fst s + 1., build (length x) (fun i -> (snd s)[i] + (snd s)[if i > 0 then i - 1 else 0]))) (0., x))
`,
});

function analyse(name: string, n: number) {
  const argTypes = [VECTOR];
  const fo = prog.primalThrough(name, argTypes, REVERSE_PRIMAL_PIPELINE, lowerEntry(prog.checked, name, argTypes));
  const algebra = jacobianAlgebra();
  const analysis = new Analysis(new Lattice(algebra, new DepsReader(n)), fo);
  const x = vector(Array.from({ length: n }, (_, i) => i + 1));
  const out = analysis.run(fo, [abstractOf(x, VECTOR, (j) => algebra.input(j))]);
  const pattern = jacobianPattern(out, VECTOR, () => x, algebra, n);
  return { steps: analysis.stepsTaken, pattern };
}

describe("the sparsity analysis", () => {
  it("does work linear in n on a banded map", () => {
    const small = analyse("tridiag", 1000);
    const large = analyse("tridiag", 4000);
    expect(large.steps / small.steps).toBeGreaterThan(3.9);
    expect(large.steps / small.steps).toBeLessThan(4.1);
    expect(large.pattern.columnIndexes.length).toBe(3 * 4000 - 2);
  });

  it("shares a running sum's sets: row i of a prefix sum holds columns 0..i, work linear in n", () => {
    const { steps, pattern } = analyse("prefix", 300);
    expect(pattern.columnIndexes.length).toBe((300 * 301) / 2);
    expect(Array.from(pattern.columnIndexes.subarray(pattern.rowPointers[3], pattern.rowPointers[4]))).toEqual([
      0, 1, 2, 3,
    ]);
    expect(steps / analyse("prefix", 600).steps).toBeCloseTo(0.5, 1);
  });

  it("widens a loop whose length depends on a Double instead of missing what later iterations reach", () => {
    // Each iteration spreads every element to its right neighbour; the number of iterations depends on x[0].
    const { pattern } = analyse("spread", 40);
    for (let r = 0; r < 40; r++) {
      const row = Array.from(pattern.columnIndexes.subarray(pattern.rowPointers[r], pattern.rowPointers[r + 1]));
      // Row r can depend on every column up to r (and on x[0], through the count).
      for (let c = 0; c <= r; c++) expect(row).toContain(c);
    }
  });
});
