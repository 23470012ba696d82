// Peak memory of a long loop's gradient, measured (each gradient in a process of its own: its peak resident set, as
// the operating system counts it): taped, it grows with the number of steps (a state per step); checkpointed under a
// memory budget it does not (snapshots that fit in the budget, and loop iterations that give back what they
// allocate: src/ad/reverse-checkpoint.ts, src/lowering/regions.ts). Sizes kept small; no timings.

import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { root } from "./run.js";

const PROGRAM = `
let simulate = fun (x0: Vector) (steps: Index) ->
  let n = length x0
  let x = ifold (fun (x: Vector) (i: Index) ->
      build n (fun j ->
        let c = x[j]
        let l = if j = 0 then c else x[j - 1]
        let r = if j = n - 1 then c else x[j + 1]
        c + 0.1 * (0.1 * (l - 2. * c + r) + c - c * c * c))) x0 steps
  vectorDot x x
`;

/** The peak resident memory, in MiB, of a process that computes the gradient once (and its first entry). */
function peak(engine: string, steps: number, budget: string): { mib: number; first: number } {
  const script = `
    const { loadProgram } = await import(${JSON.stringify(join(root, "dist/api/program.js"))});
    const prog = loadProgram({ name: "sim.smooth", text: ${JSON.stringify(PROGRAM)} });
    const VEC = { k: "array", elem: { k: "double" } };
    const grad = prog.derivative("simulate", [VEC, { k: "int" }], [0], ${JSON.stringify(engine)}, undefined, "gradient");
    const x0 = new Float64Array(1000).map((_, i) => 0.8 * Math.sin(i * 0.01));
    const g = grad.run([{ tag: "dense", elemKind: "double", shape: [1000], data: x0 }, ${steps}]);
    console.log(JSON.stringify({ mib: process.resourceUsage().maxRSS / 1024, first: g.data[0] }));
  `;
  const r = spawnSync(process.execPath, ["--input-type=module", "-e", script], {
    cwd: root,
    encoding: "utf8",
    env: { ...process.env, SMOOTH_MEMORY_BUDGET: budget },
  });
  if (r.status !== 0) throw new Error(`the gradient failed: ${r.stderr}`);
  return JSON.parse(r.stdout) as { mib: number; first: number };
}

describe("a long loop's gradient", () => {
  it("grows with the steps when taped, and stays within its budget checkpointed", { timeout: 120_000 }, () => {
    // A 1,000-element state (8 kB): 12,000 more steps tape 96 MB more.
    const taped = [peak("wasm", 3000, "off"), peak("wasm", 15000, "off")];
    expect(taped[1]!.mib - taped[0]!.mib).toBeGreaterThan(60);
    for (const engine of ["wasm", "js"]) {
      const checkpointed = [peak(engine, 3000, "2M"), peak(engine, 15000, "2M")];
      // 2 MB of snapshots, the working arrays of a step, and what a loop allocates before giving it back (1 MB).
      expect(checkpointed[1]!.mib - checkpointed[0]!.mib, engine).toBeLessThan(12);
      expect(checkpointed[1]!.mib, engine).toBeLessThan(taped[1]!.mib - 60);
      // The same gradient.
      expect(checkpointed[1]!.first, engine).toBe(taped[1]!.first);
    }
  });
});
