// Closures made afresh in a loop (issue 29's leak: 0.11 MB kept per closure, and identical source compiled each time):
// `grad(x => x * k + Math.sin(x))` for 10⁴ values of k compiles one program, and the heap after 10⁴ closures is within
// a small bound of the heap after 10³ (the library keeps nothing per closure once the closure is gone: its reads of
// the closure are released, its caches are weak or bounded).

import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { describe, expect, it } from "vitest";
import { compilations, grad } from "../../src/index.js";

setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;

/** The heap in use after collecting garbage. */
function heapMB(): number {
  gc();
  gc();
  return process.memoryUsage().heapUsed / 2 ** 20;
}

describe("closures made in a loop", () => {
  it("10⁴ closures over a number and an array: one compilation, flat memory, each its own values", () => {
    let made = 0;
    const closures = (n: number) => {
      for (let i = 0; i < n; i++, made++) {
        const k = made % 97;
        const w = new Float64Array([k, 1]);
        const d = grad((x: number) => x * k + Math.sin(x) * w[1]!)(1);
        if (Math.abs(d - (k + Math.cos(1))) > 1e-12) throw new Error(`closure ${made}: ${d}`);
      }
    };
    const before = compilations();
    closures(1_000);
    const after1e3 = heapMB();
    closures(9_000);
    const after1e4 = heapMB();
    expect(compilations() - before).toBe(1);
    // (Before: about 0.11 MB per closure, a gigabyte for these 10⁴.)
    expect(after1e4 - after1e3).toBeLessThan(8);
  }, 120_000);
});
