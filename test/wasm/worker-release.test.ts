// A worker's instance of a module holds the module's shared memory: when the calling thread has collected every
// compiled function that ran the module across threads, the workers that instantiated it are ended (and replaced when
// next needed), so that the memory goes too (src/wasm/parallel-run.ts). Before, 100 such functions over a 10 MB matrix
// kept 1 GB in the workers for the life of the process.

import { afterAll, beforeAll, expect, it } from "vitest";
import { compile, smoothModule } from "../../src/index.js";
import { parallelCalls, setWasmThreads, waitForWorkers, workerInstances } from "../../src/wasm/parallel-run.js";
import { collectGarbage } from "../helpers.js";

const W = Array.from({ length: 300 }, (_, i) => Array.from({ length: 40 }, (_, k) => Math.sin(i * 40 + k)));

/** A new function with a parallel site, compiled for 2 threads and run once (so a worker instantiated it). */
function runOnce(k: number): number {
  const m = smoothModule(
    `let rowNorms = fun (W: Matrix) -> build (length W) (fun i -> sqrt (${k}. + ifold (fun s k -> s + W[i][k] * W[i][k]) 0. (length W[i])))`,
  );
  return (compile(m.rowNorms!, { backend: "wasm", threads: 2 })(W) as Float64Array)[0]!;
}

// Every call with a parallel site runs across the threads, however small.
beforeAll(() => setWasmThreads(undefined, 0));
afterAll(() => setWasmThreads(undefined, 100_000));

const turns = async (n: number) => {
  for (let i = 0; i < n; i++) await new Promise((resolve) => setTimeout(resolve, 0));
};

it("the workers drop the modules of collected functions once the event loop turns, and keep working", async () => {
  expect(waitForWorkers(2)).toBe(true);
  const before = parallelCalls();
  for (let k = 0; k < 5; k++) expect(runOnce(k)).toBeCloseTo(Math.sqrt(k + W[0]!.reduce((s, x) => s + x * x, 0)), 12);
  expect(parallelCalls() - before).toBe(5);
  expect(workerInstances()).toBe(5);
  // A few collections: the library's shared programs are held through WeakRefs (src/library/target.ts), which a
  // collection clears only once the job that made them has ended; the modules go in a collection after that.
  for (let i = 0; i < 6 && workerInstances() > 0; i++) {
    collectGarbage();
    await turns(5);
  }
  expect(workerInstances()).toBe(0);
  // A new worker takes the freed slot.
  expect(waitForWorkers(2)).toBe(true);
  expect(runOnce(7)).toBeCloseTo(Math.sqrt(7 + W[0]!.reduce((s, x) => s + x * x, 0)), 12);
  expect(parallelCalls() - before).toBe(6);
  expect(workerInstances()).toBe(1);
});
