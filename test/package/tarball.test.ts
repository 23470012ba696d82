// The package as a user gets it: `npm pack` (of the build `npm test` made), installed into temporary ESM, CommonJS
// and `tsc --strict` TypeScript projects, each computing a gradient. The install reads npm's cache first
// (--prefer-offline; `npm ci` has put the one runtime dependency there), so it needs no network.

import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("../../", import.meta.url));
const npm = process.platform === "win32" ? "npm.cmd" : "npm";
const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc");
const dir = mkdtempSync(join(tmpdir(), "smooth-pack-"));

/** The gradient of v ↦ v·v + sin v₀ at (1, 2, 3), written by hand: (2 + cos 1, 4, 6). */
const EXPECTED = [2 + Math.cos(1), 4, 6];
const SOURCE = "let f = fun (v: Vector) -> vectorDot v v + sin v[0]";

const run = (cwd: string, file: string, args: string[] = []) =>
  execFileSync(process.execPath, [...args, file], { cwd, encoding: "utf8", timeout: 60_000 });
const numbers = (out: string) => JSON.parse(out.trim()) as number[];

function project(name: string, pkg: object, files: Record<string, string>): string {
  const at = join(dir, name);
  mkdirSync(at, { recursive: true });
  writeFileSync(join(at, "package.json"), JSON.stringify({ name: `consumer-${name}`, private: true, ...pkg }));
  for (const [file, text] of Object.entries(files)) writeFileSync(join(at, file), text);
  return at;
}

let files: string[] = [];

beforeAll(() => {
  const packed = JSON.parse(
    execFileSync(npm, ["pack", "--ignore-scripts", "--json", "--pack-destination", dir], {
      cwd: root,
      encoding: "utf8",
    }),
  ) as { filename: string; files: { path: string }[] }[];
  files = packed[0]!.files.map((f) => f.path);
  // One install at the top; the consumers below are folders inside it (Node looks up node_modules in parents).
  writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "consumers", private: true }));
  execFileSync(
    npm,
    ["install", "--prefer-offline", "--no-audit", "--no-fund", "--ignore-scripts", join(dir, packed[0]!.filename)],
    { cwd: dir, encoding: "utf8", timeout: 120_000 },
  );
}, 180_000);

describe("the packed tarball", () => {
  it("ships the bundles, the type declarations and the LICENSE, and no sources, source maps or loose modules", () => {
    expect(files).toEqual(
      expect.arrayContaining(["LICENSE", "README.md", "package.json", "dist/bundle/index.js", "dist/index.d.ts"]),
    );
    expect(files).toEqual(
      expect.arrayContaining([
        "dist/bundle/node.js",
        "dist/bundle/cli.js",
        "dist/node.d.ts",
        "dist/browser/smooth.mjs",
      ]),
    );
    expect(files.filter((f) => f.endsWith(".map") || f.startsWith("src/") || f.startsWith("test/"))).toEqual([]);
    // tsc's one-file-per-module output is for the declarations and the tests; the package runs from the bundles.
    const looseModules = files.filter((f) => f.endsWith(".js") && !/^dist\/(bundle|browser)\//.test(f));
    expect(looseModules).toEqual([]);
  });

  it("installs the `smooth` command, which runs", () => {
    expect(readdirSync(join(dir, "node_modules/.bin"))).toContain("smooth");
    const version = execFileSync(join(dir, "node_modules/.bin/smooth"), ["--version"], { encoding: "utf8" });
    expect(version.trim()).toBe("0.1.0");
  });

  it("imports as an ES module", () => {
    const at = project(
      "esm",
      { type: "module" },
      {
        "main.js": `import { smooth, grad } from "smooth-ad";\nconst m = smooth\`${SOURCE}\`;\nconsole.log(JSON.stringify([...grad(m.f)(new Float64Array([1, 2, 3]))]));\n`,
      },
    );
    expect(numbers(run(at, "main.js"))).toEqual(EXPECTED);
  });

  it("is required from CommonJS, with the Node entry's loadModule", () => {
    const at = project(
      "cjs",
      { type: "commonjs" },
      {
        "f.smooth": SOURCE,
        "main.js": `const { loadModule, grad } = require("smooth-ad/node");\nconst m = loadModule(__dirname + "/f.smooth");\nconsole.log(JSON.stringify([...grad(m.f)([1, 2, 3])]));\n`,
      },
    );
    expect(numbers(run(at, "main.js"))).toEqual(EXPECTED);
  });

  it.each(["module", "commonjs"])("type-checks under tsc --strict (a %s project) and runs", (type) => {
    const at = project(
      `ts-${type}`,
      { type },
      {
        "tsconfig.json": JSON.stringify({
          compilerOptions: {
            strict: true,
            // nodenext: a CommonJS project's `import` becomes require(esm), which TypeScript accepts from 5.8.
            module: "nodenext",
            moduleResolution: "nodenext",
            target: "es2022",
            lib: ["es2022", "dom"],
            types: [],
            outDir: "out",
          },
          files: ["main.ts"],
        }),
        "main.ts": [
          `import { smooth, grad, type SmoothModule } from "smooth-ad";`,
          `import { loadModule } from "smooth-ad/node";`,
          `const m: SmoothModule = smooth\`${SOURCE}\`;`,
          `const g: Float64Array = grad(m.f!)(new Float64Array([1, 2, 3])) as Float64Array;`,
          `const type: string = m.f!.definitionType;`,
          `console.log(JSON.stringify([...g]) + "\\t" + type + "\\t" + typeof loadModule);`,
          "",
        ].join("\n"),
      },
    );
    execFileSync(process.execPath, [tsc, "-p", "tsconfig.json"], { cwd: at, encoding: "utf8" });
    const [gradient, definitionType, loader] = run(at, "out/main.js").trim().split("\t");
    expect(numbers(gradient!)).toEqual(EXPECTED);
    expect(definitionType).toBe("Vector -> Double");
    expect(loader).toBe("function");
  });
});
