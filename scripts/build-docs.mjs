// The documentation site: TypeDoc writes the API reference (markdown, from the TSDoc comments of the package's entry
// points) into docs/api/, the benchmark figures are copied into docs/public/figures/, VitePress builds docs/ into
// docs/.vitepress/dist/, and the playground (scripts/build-site.mjs's site/) goes in as /playground/. `npm run docs`;
// `npm run docs:serve` serves the result. Generated folders are not committed.
import { execFileSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, readdirSync, rmSync } from "node:fs";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../", import.meta.url));
const node = (script, ...args) => execFileSync(process.execPath, [script, ...args], { cwd: root, stdio: "inherit" });

rmSync(`${root}docs/api`, { recursive: true, force: true });
node(`${root}node_modules/typedoc/bin/typedoc`, "--logLevel", "Warn");

const figures = `${root}docs/public/figures/`;
rmSync(figures, { recursive: true, force: true });
mkdirSync(figures, { recursive: true });
for (const f of readdirSync(`${root}bench/results`).filter((f) => f.endsWith(".svg")))
  cpSync(`${root}bench/results/${f}`, figures + f);

node(`${root}node_modules/vitepress/bin/vitepress.js`, "build", "docs");

if (!existsSync(`${root}site/index.html`)) node(`${root}scripts/build-site.mjs`);
cpSync(`${root}site`, `${root}docs/.vitepress/dist/playground`, { recursive: true });
console.log("docs: docs/.vitepress/dist (npm run docs:serve)");
