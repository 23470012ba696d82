// Loops cut short: Mesa's software rasterizers end a thread's loops after 65,535 iterations, silently. Every kernel
// loop is followed by a test that it ended as the program says (src/webgpu/loop-guard.ts), so such a program gives a
// clear error on those adapters (and its value on others), never a wrong number.

import { beforeAll, describe, expect, it } from "vitest";
import { compile, gpuAdapter, smooth } from "../../src/index.js";
import { guardLoops } from "../../src/webgpu/loop-guard.js";
import { useDawn } from "./gpu.js";

let ready = false;
beforeAll(async () => {
  ready = await useDawn();
});

describe("loops that report being cut short", () => {
  it("follows each kind of loop with its test, breaks of inner loops left to them", () => {
    const code = [
      "for (var i: i32 = 0; i < n; i++) { a += 1; }",
      "while (e > 0u) { e = e >> 1u; }",
      "loop { if (r.done) { break; } loop { if (x) { break; } } }",
    ].join("\n");
    const flag = "atomicStore(&C[5], 1u);";
    expect(guardLoops(code).split("\n")).toEqual([
      `{ var i: i32 = 0; for (; i < n; i++) { a += 1; } if (i < n) { ${flag} } }`,
      `{ while (e > 0u) { e = e >> 1u; } if (e > 0u) { ${flag} } }`,
      "{ var loop_done_0 = false; loop { if (r.done) { { loop_done_0 = true; break; } } " +
        `{ var loop_done_1 = false; loop { if (x) { { loop_done_1 = true; break; } } } if (!loop_done_1) { ${flag} } } }` +
        ` if (!loop_done_0) { ${flag} } }`,
    ]);
  });

  it("a thread looping 100,000 times: an error naming the cap on a software adapter, the value on others", async () => {
    if (!ready) return;
    // Not a sum (the branch): the loop runs on one thread.
    const m = smooth`let f = fun (n: Index) -> ifold (fun a i -> if a > 1e30 then 0. else a + 1.) 0. n`;
    const f = compile(m.f!, { backend: "webgpu" });
    expect(await f(1000)).toBe(1000);
    const long = f(100_000);
    if (/llvmpipe|lavapipe|softpipe/i.test(await gpuAdapter()))
      await expect(long).rejects.toThrow(/cut a kernel's loop short \(Mesa's software rasterizers stop a thread/);
    else expect(await long).toBe(100_000);
  });
});
