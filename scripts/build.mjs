// The build: generated sources (scripts/generate.mjs), TypeScript to dist/ (ES modules and .d.ts; no source maps, since
// the package ships no sources), then esbuild's browser bundle dist/browser/smooth.mjs: the core library as one ES
// module with no `node:` imports. Runs on `npm run build`, `npm test`, and `prepare`/`prepack` (git and tarball
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
chmodSync(`${root}dist/cli/main.js`, 0o755);

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
