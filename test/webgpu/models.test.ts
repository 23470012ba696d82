// Models on the webgpu back end through the library (`backend: "webgpu"`: the function returns a promise): an MLP's
// value and gradient, a conv2d layer's gradient and the GMM objective's gradient agree with wasm-f32's (float32 both);
// kernel counts and the threads each kernel ran are asserted so that fusion and parallelism do not silently regress;
// float64 is refused by name.

import { readFileSync } from "node:fs";
import { beforeAll, describe, expect, it } from "vitest";
import { compile, grad, inspect, smooth, smoothModule, valueAndGrad } from "../../src/index.js";
import { libraryFunction } from "../../src/library/target.js";
import { kernelCount, lastRun } from "../../src/webgpu/backend.js";
import type { AnyFunction } from "../../src/library/compile.js";
import { CONV_SOURCE, convArgs, gmmArgs, MLP_SOURCE, mlpArgs } from "./models.js";
import { useDawn } from "./gpu.js";

let ready = false;
beforeAll(async () => {
  ready = await useDawn();
});

/** Every number in a (nested) result, in order. */
function flat(x: unknown): number[] {
  if (typeof x === "number") return [x];
  if (ArrayBuffer.isView(x)) return [...(x as Float64Array)];
  if (Array.isArray(x)) return x.flatMap(flat);
  if (typeof x === "object" && x !== null && "data" in x) return flat(x.data);
  throw new Error(`unexpected result ${String(x)}`);
}

/** The two results agree within float32 tolerances relative to the largest magnitude in them. */
function expectClose(gpu: unknown, cpu: unknown, tol: number): void {
  const [a, b] = [flat(gpu), flat(cpu)];
  expect(a.length).toBe(b.length);
  const scale = Math.max(1, ...b.map(Math.abs));
  const worst = Math.max(0, ...a.map((x, i) => Math.abs(x - b[i]!)));
  expect(worst, `largest difference ${worst} (scale ${scale})`).toBeLessThanOrEqual(tol * scale);
}

/** What the webgpu program of `fn` for these arguments is and did: its kernels, and the last call's dispatches. */
function kernels(
  fn: AnyFunction,
  args: readonly unknown[],
): { planned: number; dispatched: number; sequential: boolean } {
  const spec = libraryFunction(fn)!.program(args);
  const last = lastRun(spec)!;
  return { planned: kernelCount(spec)!, dispatched: last.dispatches, sequential: last.sequential };
}

/** The threads each dispatch of the last call ran (workgroups x workgroup size), in order. */
function threads(fn: AnyFunction, args: readonly unknown[]): number[] {
  return lastRun(libraryFunction(fn)!.program(args))!.launches.map((l) => l.threads);
}

describe("models on webgpu, through the library", () => {
  // The reverse sweeps run across threads, each adding into the shared adjoints atomically; the kernel counts and the
  // threads dispatched (lastRun's launches) are asserted so that neither regresses silently.
  it("an MLP's value and gradient (8 → 16 → 4, batch 40) agree with wasm-f32, a thread per example", async () => {
    if (!ready) return;
    const m = smoothModule(MLP_SOURCE, { fileName: "mlp.smooth" });
    const args = mlpArgs(8, 16, 4, 40);
    const options = { argnums: [0, 1, 2, 3] } as const;
    const gpu = valueAndGrad(m.mlpLoss!, { ...options, backend: "webgpu" });
    const pending = gpu(...args);
    expect(pending).toBeInstanceOf(Promise);
    const cpu = valueAndGrad(m.mlpLoss!, { ...options, dtype: "float32" })(...args);
    expectClose(await pending, cpu, 1e-4);
    // The training step, forward and backward, is one scatter kernel with a thread per example of the batch (the
    // sweep's nested tuple state flattened, ../../src/webgpu/flat-state.ts), then the mean on one thread.
    expect(kernels(gpu, args)).toEqual({ planned: 2, dispatched: 2, sequential: false });
    const [sweep, mean] = threads(gpu, args);
    expect(sweep).toBeGreaterThanOrEqual(40);
    expect(mean).toBe(1);
    const shown = inspect(gpu, ...args).webgpu!.wgsl;
    expect(shown).toMatch(/kernel 0: a thread per iteration of an accumulation/);
    expect(shown).toMatch(/kernel 1: 1 lets on one thread/);
  });

  it("a conv2d layer's gradient (4 filters, 3 channels, 12 x 12) agrees with wasm-f32, a thread per output pixel", async () => {
    if (!ready) return;
    const m = smoothModule(CONV_SOURCE, { fileName: "conv.smooth" });
    const args = convArgs(4, 3, 12, 12);
    const gpu = grad(m.conv2dLoss!, { argnums: [0, 1], backend: "webgpu" });
    const cpu = grad(m.conv2dLoss!, { argnums: [0, 1], dtype: "float32" })(...args);
    expectClose(await gpu(...args), cpu, 1e-4);
    // The chunked sweep over filters is one loop again (../../src/webgpu/unchunk.ts), and its loops over output rows
    // and columns are flattened into it (nest.ts): one kernel, a thread per (filter, row, column), 4 x 10 x 10.
    expect(kernels(gpu, args)).toEqual({ planned: 1, dispatched: 1, sequential: false });
    expect(threads(gpu, args)[0]).toBeGreaterThanOrEqual(400);
    expect(inspect(gpu, ...args).webgpu!.wgsl).toMatch(
      /kernel 0: a thread per iteration of 3 nested accumulation loops/,
    );
  });

  it("a conv2d gradient with no output pixels (a 2 x 2 image) runs on the sequential plan, and agrees", async () => {
    if (!ready) return;
    const m = smoothModule(CONV_SOURCE, { fileName: "conv.smooth" });
    const args = convArgs(2, 3, 2, 2);
    const gpu = grad(m.conv2dLoss!, { argnums: [0, 1], backend: "webgpu" });
    const cpu = grad(m.conv2dLoss!, { argnums: [0, 1], dtype: "float32" })(...args);
    expectClose(await gpu(...args), cpu, 1e-6);
    // The loops over rows and columns are empty under a loop over filters that is not: the lets before them would
    // run on no thread of the flattened kernel (a check there unreported), so the call goes to the sequential plan.
    expect(kernels(gpu, args).sequential).toBe(true);
  });

  it("the GMM objective's gradient (d = 3, K = 4, n = 300) agrees with wasm-f32, a thread per point", async () => {
    if (!ready) return;
    const text = readFileSync(new URL("../../examples/adbench/gmm.smooth", import.meta.url), "utf8");
    const m = smoothModule(text, { fileName: "gmm.smooth" });
    const args = gmmArgs(3, 4, 300);
    const gpu = grad(m.gmmObjective!, { argnums: [0, 1, 2], backend: "webgpu" });
    const cpu = grad(m.gmmObjective!, { argnums: [0, 1, 2], dtype: "float32" })(...args);
    expectClose(await gpu(...args), cpu, 1e-4);
    const k = kernels(gpu, args);
    expect(k.sequential).toBe(false);
    // The sweep over points (chunked for the CPU's threads) is one kernel with a thread per point; the rest are the
    // model's small K x d loops, at most 17 kernels in all.
    expect(k.planned).toBeLessThanOrEqual(17);
    expect(Math.max(...threads(gpu, args))).toBeGreaterThanOrEqual(300);
  });

  it("runs a fused elementwise chain of a gradient as one kernel, and inspect shows it", async () => {
    if (!ready) return;
    const m = smooth`let f = fun (v: Vector) -> vectorSum (build (length v) (fun i -> sin v[i] * exp v[i] + v[i] * v[i]))`;
    const v = Float64Array.from({ length: 1000 }, (_, i) => Math.sin(i) * 2);
    const g = grad(m.f!, { backend: "webgpu" });
    const got = (await g(v)) as Float64Array;
    expect(got).toBeInstanceOf(Float64Array);
    // d/dv: cos v e^v + sin v e^v + 2 v, computed here in float64.
    const want = Array.from(v, (x) => Math.cos(x) * Math.exp(x) + Math.sin(x) * Math.exp(x) + 2 * x);
    expectClose(got, want, 1e-5);
    expect(kernels(g, [v])).toEqual({ planned: 1, dispatched: 1, sequential: false });
    const shown = inspect(g, v).webgpu!;
    expect(shown.kernels).toBe(1);
    expect(shown.wgsl).toMatch(/kernel 0: a thread per element of a build/);
    expect(shown.lastCall).toEqual({ dispatches: 1, bytesUp: expect.any(Number), bytesDown: expect.any(Number) });
    // 1000 floats each way, and a few words of parameters and control.
    expect(shown.lastCall!.bytesUp).toBeGreaterThanOrEqual(4000);
    expect(shown.lastCall!.bytesDown).toBeGreaterThanOrEqual(4000);
  });

  it("refuses float64 by name, and recursive functions", async () => {
    const m = smooth`let f = fun (x: Double) -> x * x
let rec fact = fun (n: Index) -> if n = 0 then 1 else n * fact (n - 1)
let g = fun (n: Index) -> fact n`;
    expect(() => compile(m.f!, { backend: "webgpu", dtype: "float64" })).toThrow(
      /the webgpu back end computes in float32, not float64/,
    );
    if (!ready) return;
    await expect(compile(m.g!, { backend: "webgpu" })(3)).rejects.toThrow(
      /the webgpu back end cannot compile .*recursive functions/,
    );
  });
});
