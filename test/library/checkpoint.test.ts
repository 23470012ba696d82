// The library's checkpointing: `checkpoint(f)` (src/library/custom.ts) for TypeScript functions over tensors, plain
// TypeScript functions and Smooth definitions, through every transform; the `memoryBudget` option of the transforms
// (a checkpointed loop gives the taped gradient's bits) and `inspect`'s report of the checkpoints made. References:
// the same functions without checkpoint, and central differences.

import { describe, expect, it } from "vitest";
import {
  add,
  checkpoint,
  get,
  grad,
  hessian,
  ifold,
  inspect,
  jvp,
  mul,
  sin,
  smooth,
  sum,
  valueAndGrad,
  vmap,
  build,
} from "../../src/index.js";
import type { Tensor } from "../../src/index.js";

const m = smooth`
let step = fun (x: Vector) -> build (length x) (fun j -> sin x[j] * 0.9 + 0.1 * x[0])
let loss = fun (x0: Vector) (steps: Index) -> vectorSum (ifold (fun (x: Vector) (i: Index) -> step x) x0 steps)
let twice = fun (x: Vector) -> vectorSum (step (step x))
`;

const stepTs = (x: Tensor) => build(x.length, (j) => add(mul(sin(get(x, j)), 0.9), mul(0.1, get(x, 0))));
const lossTs = (x0: Tensor) => sum(ifold((x: Tensor) => stepTs(x), x0, 12));
const x0 = new Float64Array([0.3, 0.5, -0.2, 0.8]);

/** Central differences of f at x (each coordinate). */
function fd(f: (x: Float64Array) => number, x: Float64Array): number[] {
  return Array.from(x, (_, i) => {
    const h = 1e-6;
    const [a, b] = [Float64Array.from(x), Float64Array.from(x)];
    a[i]! += h;
    b[i]! -= h;
    return (f(a) - f(b)) / (2 * h);
  });
}

describe("checkpoint(f)", () => {
  const stepCk = checkpoint(stepTs);
  const lossCk = (x: Tensor) => sum(ifold((s: Tensor) => stepCk(s), x, 12));
  const want = grad(lossTs)(x0) as Float64Array;

  it("of a function over tensors: the same value, gradient and Hessian, in vmap and jvp", () => {
    const stepped = (checkpoint(stepTs) as unknown as (x: Float64Array) => Float64Array)(x0);
    expect(Array.from(stepped)).toEqual(Array.from(m.step!(x0) as Float64Array));
    const g = grad(lossCk)(x0) as Float64Array;
    expect(Array.from(g)).toEqual(Array.from(want));
    const numeric = fd((x) => valueAndGrad(lossTs)(x)[0], x0);
    numeric.forEach((d, i) => expect(g[i]).toBeCloseTo(d, 6));
    const [ga, gb] = vmap(grad(lossCk))([x0, x0]) as Float64Array[];
    expect(Array.from(ga!)).toEqual(Array.from(want));
    expect(Array.from(gb!)).toEqual(Array.from(want));
    const h = hessian(lossCk)(x0) as Float64Array[];
    const hWant = hessian(lossTs)(x0) as Float64Array[];
    h.forEach((row, i) => Array.from(row).forEach((v, j) => expect(v).toBeCloseTo(hWant[i]![j]!, 12)));
    const [, tangent] = jvp(lossCk, [x0], [new Float64Array([1, 0, 0, 0])]) as [number, number];
    expect(tangent).toBeCloseTo(want[0]!, 12);
  });

  it("of a Smooth definition, inside a function over tensors and given to grad itself", () => {
    const lossDef = (x: Tensor) => sum(ifold((s: Tensor) => checkpoint(m.step!)(s) as Tensor, x, 12));
    expect(Array.from(grad(lossDef)(x0) as Float64Array)).toEqual(Array.from(want));
    const whole = grad(checkpoint(m.twice!))(x0) as Float64Array;
    expect(Array.from(whole)).toEqual(Array.from(grad(m.twice!)(x0) as Float64Array));
  });

  it("of a plain TypeScript function", () => {
    const cube = (x: number) => x * x * x + Math.sin(x);
    expect(grad(checkpoint(cube))(0.7)).toBeCloseTo(3 * 0.49 + Math.cos(0.7), 12);
  });

  it("refuses what is not a function", () => {
    expect(() => checkpoint(3 as never)).toThrow(/checkpoint/);
  });
});

describe("the memoryBudget option", () => {
  it("checkpoints a loop whose tape would pass it, with the taped gradient's bits, and inspect reports it", () => {
    const taped = grad(m.loss!, { memoryBudget: Infinity })(x0, 300) as Float64Array;
    // 300 steps of a 4-element state: a tape of 301 * 32 bytes; 10 snapshots fit in 320.
    const small = grad(m.loss!, { memoryBudget: 320 });
    expect(Array.from(small(x0, 300) as Float64Array)).toEqual(Array.from(taped));
    for (const backend of ["js", "wasm"] as const)
      expect(Array.from(grad(m.loss!, { memoryBudget: 320, backend })(x0, 300) as Float64Array)).toEqual(
        Array.from(taped),
      );
    const report = inspect(small, x0, 300);
    expect(report.checkpointable).toHaveLength(1);
    expect(report.checkpoints).toHaveLength(1);
    const [c] = report.checkpoints;
    expect(c).toMatchObject({ steps: 300, stateBytes: 32, budget: 320, snapshots: 10 });
    expect(c!.loop).toMatch(/:\d+:\d+$/);
    // At most a few recomputed steps per step with 10 snapshots (Revolve: 300 <= beta(10, 3)).
    expect(c!.recomputation).toBeGreaterThan(1);
    expect(c!.recomputation).toBeLessThan(3);
    // The default budget holds the tape: nothing is checkpointed.
    expect(inspect(grad(m.loss!), x0, 300).checkpoints).toEqual([]);
  });

  it("is a positive whole number of bytes (or Infinity), and a budget under one state is a located error", () => {
    expect(() => grad(m.loss!, { memoryBudget: -1 })(x0, 3)).toThrow(/memoryBudget must be a positive whole number/);
    expect(() => grad(m.loss!, { memoryBudget: 1.5 })(x0, 3)).toThrow(/memoryBudget must be a positive whole number/);
    expect(() => grad(m.loss!, { memoryBudget: 16 })(x0, 3)).toThrow(
      /the memory budget of 16 bytes cannot hold one state of this loop \(32 bytes\)/,
    );
  });
});
