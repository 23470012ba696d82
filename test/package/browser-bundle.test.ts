// The browser bundle (dist/browser/smooth.mjs, built by `npm test`): one self-contained ES module with no `node:`
// import (esbuild's browser platform refuses them; this checks the file itself), which computes what the Node build
// does.
// test/browser/ runs it in headless Chromium.

import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";

const bundleUrl = new URL("../../dist/browser/smooth.mjs", import.meta.url);
const bundle = readFileSync(bundleUrl, "utf8");

describe("the browser bundle", () => {
  it("imports nothing: no `node:` module, no bare package, no require", () => {
    expect(bundle).not.toMatch(/(\bfrom|\bimport|\brequire)\s*\(?\s*["'`]node:/);
    // The only mentions of Node modules: the plain-TypeScript reader asks `process.getBuiltinModule` for the inspector
    // (to read closures) where the host has it, and does without it in a browser; the wasm back end asks for
    // worker_threads and os (parallel builds, src/wasm/parallel-run.ts) and runs single-threaded without them, and for
    // v8 (its modules compiled by the optimising compiler at once, src/wasm/compile-tier.ts) and leaves the engine's
    // tiering as it is without it.
    expect([...new Set(bundle.match(/["'`]node:[\w/]+["'`]/g))].sort()).toEqual([
      '"node:inspector"',
      '"node:os"',
      '"node:v8"',
      '"node:worker_threads"',
    ]);
    expect(bundle.match(/getBuiltin\?\.\("node:inspector"\)/g)).toHaveLength(1);
    // (Code only: the bundled parser's messages and comments mention `import()` and `import type = require("a")`.)
    const code = bundle.replace(/\/\/[^\n]*/g, "").replace(/"(?:[^"\\\n]|\\.)*"/g, '""');
    expect(code).not.toMatch(/^\s*import[\s{*]/m);
    expect(code).not.toMatch(/\bimport\s*\(/);
    expect(code).not.toMatch(/\brequire\s*\(/);
    expect(bundle).not.toMatch(/\bprocess\.(env|argv|cwd)/);
  });

  it("embeds the prelude and computes a gradient", async () => {
    type Lib = typeof import("../../src/index.js");
    const lib = (await import(bundleUrl.href)) as Lib;
    const m = lib.smooth`let f = fun (v: Vector) -> logsumexp v`;
    const v = new Float64Array([1, 2, 3]);
    const g = lib.grad(m.f!)(v) as Float64Array;
    const z = Math.exp(1) + Math.exp(2) + Math.exp(3);
    [1, 2, 3].forEach((x, i) => expect(g[i]).toBeCloseTo(Math.exp(x) / z, 14));
  });
});
