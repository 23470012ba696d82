// The build: generated sources (scripts/generate.mjs), TypeScript to dist/ (ES modules and .d.ts; no source maps, since
// the package ships no sources), then esbuild's bundles: dist/browser/smooth.mjs, the core library as one ES module
// with no `node:` imports, and dist/bundle/, what Node runs: the whole compiler (the library, its Node entry, the
// `smooth` command and the GradBench tool) as one CommonJS file, core.cjs, which loader.js loads through V8's code
// cache (src/node-entry/loader.ts), and the package's entry points index.js, node.js, cli.js and gradbench.js, small
// ES modules written here that take their exports from it. Node loads a bundle in a fraction of the time it takes to
// resolve and load the 200-odd modules tsc writes (about 25 ms against 90 ms, 11 ms with the code cache), which every
// command and every process that imports Smooth pays; the modules stay for the type declarations and the tests.
// Runs on `npm run build`, `npm test`, and `prepare`/`prepack` (git and tarball installs get a built package).
// Incremental: when no input changed since the last complete build (the fingerprint of every input's path, size and
// modification time, kept in dist/.build-inputs, as make decides), it does nothing; `--force` builds anyway.
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { chmodSync, existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { generate } from "./generate.mjs";

const root = fileURLToPath(new URL("../", import.meta.url));
const require = createRequire(import.meta.url);

generate();

/** A hash of the path, size and modification time of everything the build reads (generated sources included). */
function inputsFingerprint() {
  const hash = createHash("sha256");
  const visit = (path) => {
    const stat = statSync(`${root}${path}`);
    if (stat.isDirectory()) for (const name of readdirSync(`${root}${path}`).sort()) visit(`${path}/${name}`);
    else hash.update(`${path}\0${stat.size}\0${stat.mtimeMs}\n`);
  };
  const inputs = ["src", "prelude", "scripts/build.mjs", "scripts/generate.mjs", "package.json", "tsconfig.json"];
  for (const path of [...inputs, "package-lock.json"].filter((p) => existsSync(`${root}${p}`))) visit(path);
  return hash.digest("hex");
}
const fingerprint = inputsFingerprint();
const stampFile = `${root}dist/.build-inputs`;
const upToDate =
  !process.argv.includes("--force") &&
  existsSync(stampFile) &&
  readFileSync(stampFile, "utf8") === fingerprint &&
  existsSync(`${root}dist/bundle/cli.js`);
if (upToDate) {
  console.log("build: dist/ is up to date (npm run build -- --force rebuilds)");
  process.exit(0);
}
rmSync(`${root}dist`, { recursive: true, force: true });
execFileSync(process.execPath, [require.resolve("typescript/bin/tsc"), "-p", `${root}tsconfig.json`], {
  stdio: "inherit",
});

// The packages bundled into both builds (the parser that reads plain functions): their licenses ship beside them.
const BUNDLED = ["acorn", "@sveltejs/acorn-typescript", "magic-string", "@jridgewell/sourcemap-codec"];
const licenseOf = (name) => {
  const dir = `${root}node_modules/${name}/`;
  const file = ["LICENSE", "LICENSE.md"].find((f) => existsSync(dir + f));
  const { version } = JSON.parse(readFileSync(`${dir}package.json`, "utf8"));
  return `${name} ${version}\n\n${readFileSync(dir + file, "utf8").trim()}\n`;
};
const notice =
  "/* Includes acorn and @sveltejs/acorn-typescript (MIT): their licenses are in dist/THIRD_PARTY_LICENSES. */";

const browser = await build({
  entryPoints: [`${root}src/index.ts`],
  outfile: `${root}dist/browser/smooth.mjs`,
  bundle: true,
  format: "esm",
  platform: "browser",
  target: "es2022",
  legalComments: "none",
  logLevel: "warning",
  metafile: true,
  banner: { js: notice },
});
// The library's exports (those of src/index.ts), as esbuild found them.
const libraryExports = Object.values(browser.metafile.outputs)[0].exports;

// What both Node builds share: bundled for Node 20, the parser's packages included (V8's code cache of core.cjs then
// covers them: loading acorn from node_modules instead cost some 13 ms of CPU per process that imports the library).
const forNode = {
  bundle: true,
  platform: "node",
  target: "node20",
  legalComments: "none",
  logLevel: "warning",
};

// The compiler for Node. `import.meta.url` (the GradBench tool finds examples/ two folders up from its code; the
// TypeScript front end resolves the optional `typescript` package from it) is core.cjs's own URL.
await build({
  entryPoints: [`${root}src/node-entry/core.ts`],
  outfile: `${root}dist/bundle/core.cjs`,
  ...forNode,
  format: "cjs",
  define: { "import.meta.url": "__smoothCoreUrl" },
  banner: { js: `${notice}\nvar __smoothCoreUrl = require("node:url").pathToFileURL(__filename).href;` },
});
writeFileSync(`${root}dist/THIRD_PARTY_LICENSES`, BUNDLED.map(licenseOf).join("\n\n"));
await build({
  entryPoints: [`${root}src/node-entry/loader.ts`],
  outfile: `${root}dist/bundle/loader.js`,
  ...forNode,
  format: "esm",
});

// The bundler plugin (`smooth-ad/plugin`), for the build tools' Node processes, ESM and CommonJS: acorn, its TypeScript
// plugin and magic-string (which makes the plugin's edits and their source maps) bundled in, so that it needs nothing
// installed beside it.
const pluginNotice =
  "/* Includes acorn, @sveltejs/acorn-typescript, magic-string and @jridgewell/sourcemap-codec (MIT): their licenses " +
  "are in dist/THIRD_PARTY_LICENSES. */";
for (const [format, file] of [
  ["esm", "plugin.js"],
  ["cjs", "plugin.cjs"],
])
  await build({
    entryPoints: [`${root}src/plugin/index.ts`],
    outfile: `${root}dist/bundle/${file}`,
    ...forNode,
    format,
    banner: { js: pluginNotice },
  });

// The package's entry points: each takes what it exports (or runs) from the one compiler loader.js loaded.
const generated = "// Written by scripts/build.mjs: the compiler itself is ./core.cjs, loaded by ./loader.js.\n";
const exportsOf = (names) => `export const {\n${names.map((n) => `  ${n},\n`).join("")}} = core;\n`;
const entries = {
  "index.js": `${generated}import { core } from "./loader.js";\n${exportsOf(libraryExports)}`,
  "node.js": `${generated}import { core } from "./loader.js";\n${exportsOf([...libraryExports, "loadModule", "configureCompileCache"])}`,
  "cli.js":
    `#!/usr/bin/env node\n${generated}import * as commander from "commander";\nimport { core } from "./loader.js";\n` +
    "await core.runCli(process.argv, commander);\n",
  "gradbench.js": `#!/usr/bin/env node\n${generated}import { core } from "./loader.js";\ncore.runGradbenchTool();\n`,
};
for (const [name, text] of Object.entries(entries)) writeFileSync(`${root}dist/bundle/${name}`, text);
for (const command of ["dist/cli/main.js", "dist/bundle/cli.js", "dist/bundle/gradbench.js"])
  chmodSync(`${root}${command}`, 0o755);
// Written last, so an interrupted build is never taken as complete.
writeFileSync(stampFile, fingerprint);
