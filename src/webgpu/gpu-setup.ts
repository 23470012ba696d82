// The library's door to the webgpu back end's device: `useGpu` and `gpuAdapter`. Their types are written here
// structurally, so that the package's declarations (dist/index.d.ts) name no WebGPU type: a project without
// @webgpu/types type-checks against them (test/package/tarball.test.ts, under tsc --strict).

import { gpuDevice, setGpuProvider } from "./device.js";

/** A WebGPU `GPU` object (`navigator.gpu`, or the `webgpu` package's `create([...])` in Node). */
export interface WebGpu {
  requestAdapter(options?: never): Promise<unknown>;
}

/** WebGPU's adapter request options (`GPURequestAdapterOptions`). */
export interface WebGpuAdapterOptions {
  readonly featureLevel?: string;
  readonly powerPreference?: "low-power" | "high-performance";
  readonly forceFallbackAdapter?: boolean;
}

/**
 * The GPU the webgpu back end uses where the platform has no `navigator.gpu`, such as Node: e.g. `create([])` of the
 * `webgpu` package (Dawn), with the adapter options to ask for (`{ featureLevel: "compatibility" }` for a software
 * adapter through OpenGL). A device already made on another GPU is left to finish what it runs.
 */
export function useGpu(gpu: WebGpu, options: WebGpuAdapterOptions = {}): void {
  setGpuProvider(gpu as unknown as GPU, options);
}

/** The name of the adapter the webgpu back end runs on ("mesa llvmpipe ...", a GPU's vendor and architecture). */
export async function gpuAdapter(): Promise<string> {
  return (await gpuDevice()).adapter;
}
