// The GPU device the webgpu back end runs on: the browser's `navigator.gpu`, or a GPU object handed to `useGpu` (in
// Node, the `webgpu` package's `create([...])`, an optional dependency the user installs). One device is shared by
// every compiled program; when it is lost (a driver reset, an out-of-memory kill) the next call asks for a new one,
// so a computation that failed with a lost device can simply be run again.

import { fail } from "../syntax/diagnostics.js";

/** Where the device comes from when the platform has no `navigator.gpu` (set by `useGpu`). */
let provider: { gpu: GPU; options: GPURequestAdapterOptions } | undefined;

export interface GpuDevice {
  readonly device: GPUDevice;
  /** What the adapter says it is ("llvmpipe", a vendor and architecture), for benchmarks and `inspect`. */
  readonly adapter: string;
  /** Set once the device is lost, with the reason the driver gave. */
  lost?: string;
  /** Kernels compiled on this device, by WGSL text. */
  readonly pipelines: Map<string, GPUComputePipeline>;
}

let current: Promise<GpuDevice> | undefined;

/** Sets the GPU where the platform has none (the library's `useGpu`, ./gpu-setup.ts). */
export function setGpuProvider(gpu: GPU, options: GPURequestAdapterOptions = {}): void {
  provider = { gpu, options };
  current = undefined;
}

function platformGpu(): { gpu: GPU; options: GPURequestAdapterOptions } | undefined {
  if (provider !== undefined) return provider;
  const nav = (globalThis as { navigator?: { gpu?: GPU } }).navigator;
  return nav?.gpu === undefined ? undefined : { gpu: nav.gpu, options: {} };
}

/** Whether a GPU is available to ask for a device (without asking). */
export const hasGpu = (): boolean => platformGpu() !== undefined;

/** The shared device, asked for on first use and again after a loss. */
export function gpuDevice(): Promise<GpuDevice> {
  if (current === undefined) {
    const pending = requestDevice();
    current = pending;
    // A failed request is not kept: the next call asks again.
    pending.catch(() => {
      if (current === pending) current = undefined;
    });
  }
  return current;
}

async function requestDevice(): Promise<GpuDevice> {
  const source = platformGpu();
  if (source === undefined)
    return fail("unsupported", "the webgpu back end needs a GPU: this platform has no navigator.gpu", undefined, {
      hint: 'in Node, install the `webgpu` package and call useGpu(create([])) with its `create` (a software adapter: create(["backend=opengl"]) and { featureLevel: "compatibility" }, with EGL_PLATFORM=surfaceless)',
    });
  const adapter = await source.gpu.requestAdapter(source.options);
  if (adapter === null)
    return fail("unsupported", "the webgpu back end found no GPU adapter", undefined, {
      hint: "check that WebGPU is enabled (in Chromium: --enable-unsafe-webgpu) and that a driver is installed",
    });
  // The largest buffers the adapter allows: the heap of a program is one storage buffer.
  const requiredLimits: Record<string, number> = {
    maxStorageBufferBindingSize: adapter.limits.maxStorageBufferBindingSize,
    maxBufferSize: adapter.limits.maxBufferSize,
    maxStorageBuffersPerShaderStage: Math.min(adapter.limits.maxStorageBuffersPerShaderStage, 8),
  };
  const device = await adapter.requestDevice({ requiredLimits });
  const info = adapter.info;
  const name = [info.vendor, info.architecture, info.device, info.description].filter((s) => s !== "").join(" ");
  const made: GpuDevice = { device, adapter: name === "" ? "unknown adapter" : name, pipelines: new Map() };
  void device.lost.then((why) => {
    made.lost = why.message === "" ? why.reason : why.message;
    if (current !== undefined) void current.then((d) => (d === made ? (current = undefined) : undefined));
  });
  return made;
}
