// The back-end registry: every engine is reachable by its name, runs a program through SmoothProgram to the value
// computed here by hand, and says what code it generated; an unknown name is one argument error listing the others.

import { describe, expect, it } from "vitest";
import { loadProgram } from "../../src/api/program.js";
import {
  backendOf,
  DEFAULT_ENGINE,
  describeEngines,
  ENGINES,
  isEngine,
  parseEngine,
} from "../../src/backends/registry.js";
import { SmoothError } from "../../src/syntax/diagnostics.js";
import { useDawn } from "../webgpu/gpu.js";

const SOURCE = `let f = fun (v: Vector) (s: Double) -> vectorSum (build (length v) (fun i -> s * v[i] * v[i]))`;

describe("back-end registry", () => {
  it("lists interp, js, wasm, wasm-f32 and webgpu, wasm (the fastest, bench:backends) first and the default", () => {
    expect([...ENGINES].sort()).toEqual(["interp", "js", "wasm", "wasm-f32", "webgpu"]);
    expect(DEFAULT_ENGINE).toBe("wasm");
    expect(describeEngines()).toBe(
      "wasm (compiled to WebAssembly) or js (compiled) or interp (reference interpreter) or wasm-f32 (WebAssembly in float32) or webgpu (WebGPU compute kernels in float32, asynchronous)",
    );
  });

  it.each(ENGINES)("%s: named by its key, runs a program to the hand-computed value", async (engine) => {
    expect(backendOf(engine).name).toBe(engine);
    const prog = loadProgram({ name: "r.smooth", text: SOURCE });
    const spec = prog.specialise("f", prog.argTypesFromJson("f", [[1, 2, 3], 2]), engine);
    const v = { tag: "dense", elemKind: "double", shape: [3], data: Float64Array.from([1, 2, 3]) } as const;
    // 2 * (1 + 4 + 9) = 28, synchronously where the back end is synchronous; the webgpu back end's results arrive
    // asynchronously (and it needs a GPU: Dawn's software adapter here).
    if (engine === "webgpu") {
      expect(() => spec.run([v, 2])).toThrow(/computes asynchronously/);
      if (await useDawn()) expect(await spec.runAsync([v, 2])).toBe(28);
    } else {
      expect(prog.runJson("f", [[1, 2, 3], 2], engine)).toBe(28);
      expect(await spec.runAsync([v, 2])).toBe(28);
    }
    if (backendOf(engine).input === "optimised") {
      expect(spec.code?.text.length ?? 0).toBeGreaterThan(0);
    } else expect(spec.code).toBeUndefined();
    expect(spec.jsSource === undefined).toBe(spec.code?.language !== "javascript");
  });

  it("refuses an unknown engine with the names it knows", () => {
    expect(isEngine("wasm-not-yet")).toBe(false);
    let error: unknown;
    try {
      parseEngine("wasm-not-yet");
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(SmoothError);
    const e = error as SmoothError;
    expect(e.kind).toBe("argument");
    expect(e.summary).toBe("unknown engine `wasm-not-yet`");
    expect(e.details.expected).toBe("wasm or js or interp or wasm-f32 or webgpu");
  });
});
