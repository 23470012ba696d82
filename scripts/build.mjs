// The build: generated sources (scripts/generate.mjs), TypeScript to dist/ (ES modules and .d.ts; no source maps, since
// the package ships no sources), then esbuild's bundles: dist/browser/smooth.mjs, the core library as one ES module
// with no `node:` imports, and dist/bundle/, the package's Node entry points (the library, its Node entry, the `smooth`
// command and the GradBench tool) with their shared code in chunks beside them. Node loads a bundle in a quarter of
// the time it takes to resolve and load the 200-odd modules tsc writes (about 25 ms against 90 ms), which every
// command and every process that imports Smooth pays; the modules stay for the type declarations and the tests. Runs on `npm run build`, `npm test`, and `prepare`/`prepack` (git and tarball
// installs get a built package).
import { execFileSync } from "node:child_process";
import { chmodSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { generate } from "./generate.mjs";

const root = fileURLToPath(new URL("../", import.meta.url));
const require = createRequire(import.meta.url);

generate();
rmSync(`${root}dist`, { recursive: true, force: true });
execFileSync(process.execPath, [require.resolve("typescript/bin/tsc"), "-p", `${root}tsconfig.json`], {
  stdio: "inherit",
});

await build({
  entryPoints: [`${root}src/index.ts`],
  outfile: `${root}dist/browser/smooth.mjs`,
  bundle: true,
  format: "esm",
  platform: "browser",
  target: "es2022",
  legalComments: "none",
  logLevel: "warning",
});

// Chunks sit in the same folder as the entries: the GradBench tool finds examples/ two folders up from its code.
await build({
  entryPoints: {
    index: `${root}src/index.ts`,
    node: `${root}src/node.ts`,
    cli: `${root}src/cli/main.ts`,
    gradbench: `${root}src/gradbench/main.ts`,
  },
  outdir: `${root}dist/bundle`,
  entryNames: "[name]",
  chunkNames: "[name]-[hash]",
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20",
  packages: "external",
  legalComments: "none",
  logLevel: "warning",
});
for (const command of ["dist/cli/main.js", "dist/bundle/cli.js", "dist/bundle/gradbench.js"])
  chmodSync(`${root}${command}`, 0o755);
