// The playground as a static site in site/ (not committed): playground/index.html and style.css, and
// playground/main.ts bundled by esbuild with CodeMirror and the Smooth library into site/playground.js (examples'
// .smooth files are read as text). Everything runs in the page. `npm run build:site`; `npm run playground` serves it.
import { copyFileSync, mkdirSync, rmSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { generate } from "./generate.mjs";

const root = fileURLToPath(new URL("../", import.meta.url));
const out = `${root}site/`;

generate();
rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });
await build({
  entryPoints: [`${root}playground/main.ts`],
  outfile: `${out}playground.js`,
  bundle: true,
  format: "esm",
  platform: "browser",
  target: "es2022",
  minify: true,
  loader: { ".smooth": "text" },
  legalComments: "none",
  logLevel: "warning",
});
for (const f of ["index.html", "style.css"]) copyFileSync(`${root}playground/${f}`, `${out}${f}`);
