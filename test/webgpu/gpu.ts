// The GPU the webgpu tests run on: Dawn (the `webgpu` package, installed on demand into .on-demand/ by
// `node scripts/on-demand.mjs webgpu`) through OpenGL, so Mesa's software rasterizer serves where there is no GPU
// (EGL_PLATFORM=surfaceless: no display). Tests that need it are skipped when it is missing, unless
// SMOOTH_WEBGPU_TESTS=required (CI), which makes them fail instead. SMOOTH_DAWN_BACKEND picks another of Dawn's
// backends (vulkan, on a machine whose Vulkan driver Dawn accepts).

import { useGpu } from "../../src/webgpu/gpu-setup.js";

interface Dawn {
  create(flags: string[]): GPU;
  globals: Record<string, unknown>;
}

let ready: Promise<boolean> | undefined;

/** Installs the Dawn GPU for the back end; false when the package is not installed (and not required). */
export function useDawn(): Promise<boolean> {
  ready ??= (async () => {
    // The loader is plain JavaScript shared with the benchmarks.
    const onDemand = (await import(new URL("../../scripts/on-demand.mjs", import.meta.url).href)) as {
      importOnDemand(name: string): Promise<unknown>;
    };
    const dawn = (await onDemand.importOnDemand("webgpu")) as Dawn | undefined;
    if (dawn === undefined) {
      if (process.env.SMOOTH_WEBGPU_TESTS === "required")
        throw new Error("the webgpu tests need the `webgpu` package: node scripts/on-demand.mjs webgpu");
      return false;
    }
    Object.assign(globalThis, dawn.globals);
    process.env.EGL_PLATFORM ??= "surfaceless";
    useGpu(dawn.create([`backend=${process.env.SMOOTH_DAWN_BACKEND ?? "opengl"}`]), { featureLevel: "compatibility" });
    return true;
  })();
  return ready;
}
