// The webgpu back end in headless Chromium (./chromium.ts, WebGPU on SwiftShader): the browser bundle
// (dist/browser/smooth.mjs) computes the MLP's value and gradient, a conv2d layer's gradient and the GMM objective's
// gradient with `backend: "webgpu"` (navigator.gpu), and they agree with Node's wasm-f32 within float32 tolerances.

import { copyFileSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { grad, smoothModule, valueAndGrad } from "../../src/index.js";
import { CONV_SOURCE, convArgs, gmmArgs, MLP_SOURCE, mlpArgs } from "../webgpu/models.js";
import { launch, missing, type Browser } from "./chromium.js";

interface Server {
  url: string;
  close(): Promise<void>;
}

const root = fileURLToPath(new URL("../../", import.meta.url));
const GMM_SOURCE = readFileSync(join(root, "examples/adbench/gmm.smooth"), "utf8");
const skip = await missing();

/** The models, as the page computes them: [source, entry, argnums, arguments, value and gradient?]. */
const CASES = {
  mlp: [MLP_SOURCE, "mlpLoss", [0, 1, 2, 3], mlpArgs(8, 16, 4, 5), true],
  conv: [CONV_SOURCE, "conv2dLoss", [0, 1], convArgs(2, 3, 6, 7), false],
  gmm: [GMM_SOURCE, "gmmObjective", [0, 1, 2], gmmArgs(3, 4, 30), false],
} as const;

/** Every number in a (nested) result, in order. */
const flat = (x: unknown): number[] =>
  typeof x === "number" ? [x] : ArrayBuffer.isView(x) ? [...(x as Float64Array)] : (x as unknown[]).flatMap(flat);

describe.skipIf(skip !== undefined)("webgpu in headless Chromium (SwiftShader)", () => {
  let browser: Browser;
  let close: () => Promise<void>;
  let server: Server;

  beforeAll(async () => {
    ({ browser, close } = await launch({ webgpu: true }));
    const dir = mkdtempSync(join(tmpdir(), "smooth-webgpu-"));
    copyFileSync(join(root, "dist/browser/smooth.mjs"), join(dir, "smooth.mjs"));
    writeFileSync(join(dir, "cases.json"), JSON.stringify(CASES));
    writeFileSync(join(dir, "index.html"), `<!doctype html><body><script type="module" src="run.js"></script>`);
    // Each case's flattened result (or its error) in the body's data, then the adapter's name.
    writeFileSync(
      join(dir, "run.js"),
      `const { smoothModule, grad, valueAndGrad, gpuAdapter } = await import("./smooth.mjs");
const flat = (x) => typeof x === "number" ? [x] : ArrayBuffer.isView(x) ? [...x] : x.flatMap(flat);
const cases = await (await fetch("cases.json")).json();
const out = {};
for (const [name, [source, entry, argnums, args, value]] of Object.entries(cases)) {
  try {
    const m = smoothModule(source, { fileName: name + ".smooth" });
    const f = (value ? valueAndGrad : grad)(m[entry], { argnums, backend: "webgpu" });
    out[name] = flat(await f(...args));
  } catch (e) { out[name] = e.name + ": " + e.message; }
}
document.body.dataset.adapter = await gpuAdapter().catch((e) => String(e));
document.body.dataset.result = JSON.stringify(out);
document.body.dataset.done = "yes";
`,
    );
    const { serve } = (await import(new URL("../../scripts/serve.mjs", import.meta.url).href)) as {
      serve: (dir: string) => Promise<Server>;
    };
    server = await serve(dir);
  });
  afterAll(async () => {
    await close?.();
    await server?.close();
  });

  it("the MLP, conv2d and GMM gradients agree with Node's wasm-f32", async () => {
    const page = await browser.newPage();
    await page.goto(`${server.url}index.html`);
    await page.waitForFunction("document.body.dataset.done === 'yes'", { timeout: 120_000 });
    const data = await page.evaluate<{ result: string; adapter: string }>("({ ...document.body.dataset })");
    expect(data.adapter).toMatch(/swiftshader/i);
    const got = JSON.parse(data.result) as Record<string, number[] | string>;
    for (const [name, [source, entry, argnums, args, value]] of Object.entries(CASES)) {
      const m = smoothModule(source, { fileName: `${name}.smooth` });
      const f = (value ? valueAndGrad : grad)(m[entry]!, { argnums: [...argnums], dtype: "float32" });
      const want = flat(f(...args));
      const gpu = got[name]!;
      expect(gpu, name).toBeInstanceOf(Array);
      expect((gpu as number[]).length, name).toBe(want.length);
      const scale = Math.max(1, ...want.map(Math.abs));
      const worst = Math.max(...(gpu as number[]).map((x, i) => Math.abs(x - want[i]!)));
      expect(worst, `${name}: largest difference ${worst}`).toBeLessThanOrEqual(1e-4 * scale);
    }
  }, 180_000);
});
