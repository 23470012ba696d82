// Worker threads boot while a module is compiled (src/wasm/parallel-run.ts): a call made before a worker has booted
// runs on the calling thread alone, without waiting for it, and gives the same bits; once it has booted, calls run
// across threads. This file's process starts its own pool, so its worker is the one made slow to boot here.

import { afterAll, describe, expect, it } from "vitest";
import { loadProgram } from "../../src/api/program.js";
import { MATRIX, VECTOR } from "../../src/types/types.js";
import { parallelCalls, setWasmThreads, waitForWorkers } from "../../src/wasm/parallel-run.js";
import { matrix, random, vector } from "../helpers.js";

const SOURCE = `let matVec = fun (W: Matrix) (x: Vector) -> build (length W) (fun i -> vectorDot W[i] x)`;

describe("a worker that is still booting", () => {
  afterAll(() => setWasmThreads(undefined, 100_000, true, 0));

  it("is left out of calls until it has booted; the results are the same bits", () => {
    const bootMs = 3000;
    setWasmThreads(2, 0, true, bootMs);
    const prog = loadProgram({ name: "boot.smooth", text: SOURCE });
    const two = prog.specialise("matVec", [MATRIX, VECTOR], "wasm");
    expect(two.code?.text).toMatch(/1 builds across 2 threads/);
    const args = [matrix(101, 37, random(101 * 37, 3)), vector(random(37, 5))];
    const expected = loadProgram({ name: "boot.smooth", text: SOURCE }).specialise("matVec", [MATRIX, VECTOR], "js");
    const want = [...(expected.run(args) as { data: Float64Array }).data];

    const before = parallelCalls();
    const started = Date.now();
    const early = [...(two.run(args) as { data: Float64Array }).data];
    // The worker needs seconds to boot; the call did not wait for it.
    expect(Date.now() - started).toBeLessThan(bootMs / 2);
    expect(parallelCalls()).toBe(before);
    expect(early).toEqual(want);

    expect(waitForWorkers(2)).toBe(true);
    const late = [...(two.run(args) as { data: Float64Array }).data];
    expect(parallelCalls()).toBe(before + 1);
    expect(late).toEqual(want);
  });
});
