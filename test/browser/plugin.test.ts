// Closures in the browser (issue 28, item 2): a page bundled with Smooth's plugin (dist/bundle/plugin.js) — by esbuild,
// and by Vite — differentiates closures over `number[][]` data in headless Chromium, matching central differences
// computed in the page from the same JavaScript functions; the same page bundled without the plugin gives the error
// that names the plugin for the closure cases, while a function that reads nothing from outside still works.

import { copyFileSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launch, missing, type Browser } from "./chromium.js";

const root = fileURLToPath(new URL("../../", import.meta.url));
const library = join(root, "dist/browser/smooth.mjs");
const skip = await missing();

// The page's module: each case's gradient, and central differences of the function itself, or the error.
const APP = `
import { grad, valueAndGrad } from "smooth-ad";

const X = [[1, 2, 0.5], [-1, 0.5, 2], [0.3, -0.2, 1], [2, 1, -1]];
const y = [1, 0, 1, 0];

// A helper of the module reading its constants.
function loss(w) {
  let total = 0;
  for (let i = 0; i < X.length; i++) {
    let z = 0;
    for (let j = 0; j < w.length; j++) z += X[i][j] * w[j];
    total += Math.log(1 + Math.exp(z)) - y[i] * z;
  }
  return total;
}

function sumOfSquares(v) { let s = 0; for (let i = 0; i < v.length; i++) s += v[i] * v[i]; return s; }

let scale = 2;
const w = new Float64Array([0.2, -0.4, 0.3]);

function central(f, x) {
  return Array.from(x, (_, i) => {
    const h = 1e-6, up = Float64Array.from(x), down = Float64Array.from(x);
    up[i] += h; down[i] -= h;
    return (f(up) - f(down)) / (2 * h);
  });
}

const cases = {
  helper: () => [grad(loss), loss],
  arrow: () => { const f = (v) => scale * loss(v) + X[0][0] * v[0]; return [grad(f), f]; },
  letChanged: () => { const f = (v) => scale * sumOfSquares(v); const g = grad(f); g(w); scale = 3; return [g, f]; },
  valueAndGrad: () => { const f = (v) => X[1][1] * sumOfSquares(v); const g = valueAndGrad(f); return [(x) => g(x)[1], f]; },
  plain: () => [grad(sumOfSquares), sumOfSquares],
};
const out = {};
for (const [name, make] of Object.entries(cases)) {
  try {
    const [g, f] = make();
    out[name] = { gradient: Array.from(g(w)), central: central(f, w) };
  } catch (e) {
    out[name] = { error: e.name + ": " + e.message };
  }
}
document.body.dataset.result = JSON.stringify(out);
`;

interface Outcome {
  gradient?: number[];
  central?: number[];
  error?: string;
}

describe.skipIf(skip !== undefined)("closures in a page bundled with Smooth's plugin", () => {
  let browser: Browser;
  let close: () => Promise<void>;
  let dir: string;
  let server: { url: string; close(): Promise<void> };

  beforeAll(async () => {
    ({ browser, close } = await launch());
    dir = mkdtempSync(join(tmpdir(), "smooth-plugin-"));
    writeFileSync(join(dir, "app.js"), APP);
    const { build } = await import("esbuild");
    const { smoothEsbuild, smoothVite } = (await import(
      join(root, "dist/bundle/plugin.js")
    )) as typeof import("../../src/plugin/index.js");
    const bundle = async (name: string, plugins: unknown[]) => {
      await build({
        entryPoints: [join(dir, "app.js")],
        outfile: join(dir, `${name}.js`),
        bundle: true,
        format: "esm",
        alias: { "smooth-ad": library },
        sourcemap: "inline",
        logLevel: "error",
        plugins: plugins as never[],
      });
      writeFileSync(join(dir, `${name}.html`), `<!doctype html><body><script type="module" src="${name}.js"></script>`);
    };
    await bundle("with-plugin", [smoothEsbuild()]);
    await bundle("without-plugin", []);
    // Vite's build (Rollup) of the same page, with the plugin, minified; the library is the page's own module
    // (kept out of the build, which would otherwise minify its 2 MB again on every run).
    const vite = await import("vite");
    copyFileSync(library, join(dir, "smooth.mjs"));
    writeFileSync(join(dir, "index.html"), `<!doctype html><body><script type="module" src="./app.js"></script>`);
    await vite.build({
      root: dir,
      base: "./",
      logLevel: "error",
      configFile: false,
      plugins: [smoothVite()],
      build: {
        outDir: join(dir, "vite"),
        minify: true,
        target: "es2022",
        rollupOptions: { external: ["smooth-ad"], output: { paths: { "smooth-ad": "/smooth.mjs" } } },
      },
    });
    const { serve } = (await import(new URL("../../scripts/serve.mjs", import.meta.url).href)) as {
      serve: (root: string) => Promise<{ url: string; close(): Promise<void> }>;
    };
    server = await serve(dir);
  }, 120_000);
  afterAll(async () => {
    await close?.();
    await server?.close();
  });

  async function outcomes(page: string): Promise<Record<string, Outcome>> {
    const p = await browser.newPage();
    const errors: string[] = [];
    p.on("pageerror", (e) => errors.push(e.message ?? "a page error"));
    await p.goto(`${server.url}${page}`);
    await p.waitForFunction("document.body.dataset.result !== undefined", { timeout: 60_000 });
    expect(errors).toEqual([]);
    return JSON.parse(await p.evaluate<string>("document.body.dataset.result")) as Record<string, Outcome>;
  }

  const expectGradients = (results: Record<string, Outcome>) => {
    for (const [name, r] of Object.entries(results)) {
      expect(r.error, name).toBeUndefined();
      expect(r.gradient!.length, name).toBe(3);
      r.gradient!.forEach((g, i) => expect(Math.abs(g - r.central![i]!), name).toBeLessThan(1e-6 * (1 + Math.abs(g))));
    }
  };

  it("esbuild with the plugin: every case equals central differences", async () => {
    expectGradients(await outcomes("with-plugin.html"));
  });

  it("Vite (minified) with the plugin: every case equals central differences", async () => {
    expectGradients(await outcomes("vite/index.html"));
  });

  it("without the plugin: the closures are an error naming the plugin; the plain function still works", async () => {
    const results = await outcomes("without-plugin.html");
    const { plain, ...closures } = results;
    expectGradients({ plain: plain! });
    for (const [name, r] of Object.entries(closures)) {
      expect(r.gradient, name).toBeUndefined();
      expect(r.error, name).toMatch(/^SmoothError: .*is not defined here: this JavaScript runtime does not let/);
      expect(r.error, name).toContain("smooth-ad/plugin");
    }
  });
});
