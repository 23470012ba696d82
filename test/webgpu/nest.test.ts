// Nested accumulation loops on the webgpu back end (../../src/webgpu/nest.ts): a loop adding into the outer loop's
// accumulators runs a thread per inner iteration; one whose state holds an array of its own (which later iterations
// read) is not flattened, since a thread would see only its own iteration's additions to it. References by hand.

import { beforeAll, describe, expect, it } from "vitest";
import { compile, smooth } from "../../src/index.js";
import { libraryFunction } from "../../src/library/target.js";
import { lastRun } from "../../src/webgpu/backend.js";
import type { AnyFunction } from "../../src/library/compile.js";
import { useDawn } from "./gpu.js";

let ready = false;
beforeAll(async () => {
  ready = await useDawn();
});

const n = 20;
const v = Float64Array.from({ length: n }, (_, i) => i + 1);

/** The threads of each dispatch of the last call. */
const threads = (fn: AnyFunction): number[] =>
  lastRun(libraryFunction(fn)!.program([v]))!.launches.map((l) => l.threads);

describe("nested accumulation loops on webgpu", () => {
  it("run a thread per inner iteration when they add into the outer loop's accumulators", async () => {
    if (!ready) return;
    const m = smooth`let f = fun (v: Vector) ->
  ifold (fun acc k -> ifold (fun a j -> addAt a j (v[j] * double k)) acc (length v)) (vectorZeros (length v)) (length v)`;
    const f = compile(m.f!, { backend: "webgpu" });
    const got = (await f(v)) as Float64Array;
    // Each element j gets v[j] * k for k = 0 .. n - 1: v[j] * n (n - 1) / 2.
    expect([...got]).toEqual(Array.from(v, (x) => (x * n * (n - 1)) / 2));
    expect(threads(f)).toEqual([n * n + (64 - ((n * n) % 64))]);
  });

  it("keep a thread per outer iteration when the inner state holds an array of its own", async () => {
    if (!ready) return;
    // The inner loop counts its iterations in z[0] and adds z[0] * v[j] at j: z[0] is j there.
    const m = smooth`let f = fun (v: Vector) ->
  ifold (fun acc k ->
    let st = ifold (fun s j -> (addAt (fst s) j ((snd s)[0] * v[j]), addAt (snd s) 0 1.)) (acc, vectorZeros 1) (length v) in
    fst st) (vectorZeros (length v)) (length v)`;
    const f = compile(m.f!, { backend: "webgpu" });
    const got = (await f(v)) as Float64Array;
    expect([...got]).toEqual(Array.from(v, (x, j) => n * j * x));
    expect(threads(f)).toEqual([64]);
  });
});
