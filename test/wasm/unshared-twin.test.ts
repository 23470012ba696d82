// A module with parallel sites has an unshared twin (src/wasm/runtime.ts): calls that stay on one thread run there,
// because V8 copies arrays into and out of a shared memory more slowly. Which instance runs a call follows the calls
// before it; either way the results are the same bits as a module compiled for one thread.

import { afterAll, describe, expect, it } from "vitest";
import { loadProgram } from "../../src/api/program.js";
import type { Value } from "../../src/runtime/value.js";
import { MATRIX, VECTOR } from "../../src/types/types.js";
import { parallelCalls, setWasmThreads } from "../../src/wasm/parallel-run.js";
import { unsharedTwinCalls } from "../../src/wasm/runtime.js";
import { random } from "../helpers.js";

const SOURCE = `let matVec = fun (W: Matrix) (x: Vector) -> build (length W) (fun i -> vectorDot W[i] x)`;
const dense = (shape: number[], seed: number): Value => ({
  tag: "dense",
  elemKind: "double",
  shape,
  data: Float64Array.from(
    random(
      shape.reduce((a, b) => a * b, 1),
      seed,
    ),
  ),
});
const numbers = (v: Value) => [...(v as { data: Float64Array }).data];
const NEVER = 1e15;

describe("the unshared twin of a module compiled for threads", () => {
  afterAll(() => setWasmThreads(undefined, 100_000, true));

  it("runs the calls that stay on one thread, and hands back to the shared module when a call wants threads", () => {
    const args = [dense([64, 50], 1), dense([50], 2)];
    setWasmThreads(1);
    const expected = numbers(
      loadProgram({ name: "one.smooth", text: SOURCE }).specialise("matVec", [MATRIX, VECTOR], "wasm").run(args),
    );
    setWasmThreads(2, NEVER, false);
    const f = loadProgram({ name: "two.smooth", text: SOURCE }).specialise("matVec", [MATRIX, VECTOR], "wasm");
    expect(f.code?.text).toMatch(/1 builds across 2 threads when large/);

    // Three calls in a row on one thread, on the shared module; then the twin.
    const twin0 = unsharedTwinCalls();
    for (let k = 0; k < 3; k++) expect(numbers(f.run(args))).toEqual(expected);
    expect(unsharedTwinCalls()).toBe(twin0);
    expect(numbers(f.run(args))).toEqual(expected);
    expect(unsharedTwinCalls()).toBe(twin0 + 1);

    // Now every site pays: the next call (on the twin) runs on one thread and asks for threads, the one after it
    // runs on the shared module across threads.
    setWasmThreads(2, 0, false);
    const [twin1, par1] = [unsharedTwinCalls(), parallelCalls()];
    expect(numbers(f.run(args))).toEqual(expected);
    expect([unsharedTwinCalls() - twin1, parallelCalls() - par1]).toEqual([1, 0]);
    expect(numbers(f.run(args))).toEqual(expected);
    expect([unsharedTwinCalls() - twin1, parallelCalls() - par1]).toEqual([1, 1]);
    expect(numbers(f.run(args))).toEqual(expected);
    expect([unsharedTwinCalls() - twin1, parallelCalls() - par1]).toEqual([1, 2]);
  });
});
