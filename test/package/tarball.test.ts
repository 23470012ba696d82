// The package as a user gets it: `npm pack` (of the build `npm test` made), installed into temporary ESM, CommonJS
// and `tsc --strict` TypeScript projects, each computing a gradient. The install reads npm's cache first
// (--prefer-offline; `npm ci` has put the one runtime dependency there), so it needs no network. Plain functions are
// read by the package's own parser: in a project without the `typescript` package, and in projects that install
// `typescript@5` or the newest `typescript` beside it (those two installs ask the registry for what the cache lacks),
// with the programs of test/tsfront/programs.ts read by `typescriptModule` giving the numbers Node gives here.

import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import { grad, typescriptModule } from "../../src/index.js";
import { PROGRAM_CASES } from "../tsfront/programs-cases.js";
import { runPrograms } from "../tsfront/run-programs.mjs";

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
let tarball = "";

/**
 * A script computing plain functions' gradients: the sum of squares of a loop at (1, 2, 3), whose gradient is
 * (2, 4, 6), and a few functions like the corpus's against central differences of themselves. It prints whether it
 * could import `typescript`, the gradient, and the largest relative difference from central differences.
 */
const PLAIN = `import { compilations, grad } from "smooth-ad";
let typescript = true;
try { await import("typescript"); } catch { typescript = false; }
function sumOfSquares(v) { let s = 0; for (let i = 0; i < v.length; i++) s += v[i] * v[i]; return s; }
function rosenbrock(x) {
  let sum = 0;
  for (let i = 0; i < x.length - 1; i++) { const a = x[i + 1] - x[i] * x[i]; const b = 1 - x[i]; sum += 100 * a * a + b * b; }
  return sum;
}
function logistic(w, X, y) {
  let total = 0;
  for (let i = 0; i < X.length; i++) {
    let z = w[0];
    for (let j = 0; j < X[i].length; j++) z += w[j + 1] * X[i][j];
    total += (z > 0 ? z + Math.log(1 + Math.exp(-z)) : Math.log(1 + Math.exp(z))) - y[i] * z;
  }
  return total;
}
function piecewise(x) {
  let s = 0;
  for (let i = 0; i < x.length; i++) {
    switch (i % 3) { case 0: s += Math.atan2(x[i], 1 + i); break; case 1: s += x[i] ** 3; break; default: s -= Math.hypot(x[i], 2); }
  }
  return s;
}
const X = [[0.5, -1], [1.5, 0.25], [-0.75, 2]];
const cases = [
  [rosenbrock, [new Float64Array([0.5, 1.2, -0.3, 0.8])]],
  [logistic, [new Float64Array([0.1, -0.4, 0.7]), X, [1, 0, 1]]],
  [piecewise, [new Float64Array([0.3, -0.6, 1.1, 0.9, -1.4])]],
];
let worst = 0;
for (const [f, args] of cases) {
  const g = grad(f)(...args);
  const x = args[0];
  for (let i = 0; i < x.length; i++) {
    const at = (d) => { const y = Float64Array.from(x); y[i] += d; return f(y, ...args.slice(1)); };
    const fd = (at(1e-6) - at(-1e-6)) / 2e-6;
    worst = Math.max(worst, Math.abs(g[i] - fd) / (1 + Math.abs(fd)));
  }
}
// Closures over data: a loss over the module's number[][] through a helper, a captured Float64Array whose contents
// change between calls, and closures made afresh in a loop (one compilation).
const labels = new Float64Array([1, 0, 1]);
const closure = (w) => logistic(w, X, labels);
const dClosure = grad(closure);
const w0 = new Float64Array([0.1, -0.4, 0.7]);
const check = (g) => {
  for (let i = 0; i < w0.length; i++) {
    const at = (d) => { const y = Float64Array.from(w0); y[i] += d; return closure(y); };
    worst = Math.max(worst, Math.abs(g[i] - (at(1e-6) - at(-1e-6)) / 2e-6));
  }
};
check(dClosure(w0));
labels.set([0, 1, 0]);
check(dClosure(w0));
const before = compilations();
for (let k = 0; k < 50; k++) worst = Math.max(worst, Math.abs(grad((x) => x * k + Math.sin(x))(1) - k - Math.cos(1)));
const loopCompilations = compilations() - before;
const gradient = [...grad(sumOfSquares)(new Float64Array([1, 2, 3]))];
console.log(JSON.stringify({ typescript, gradient, worst, loopCompilations }));
`;

/**
 * Programs as people write them (test/tsfront/programs.ts, checked against central differences there) read by the
 * package's `typescriptModule`: the files a project gets, and what the package computes there.
 */
const PROGRAM_FILES: Record<string, string> = {
  "programs.ts": readFileSync(join(root, "test/tsfront/programs.ts"), "utf8"),
  "run-programs.mjs": readFileSync(join(root, "test/tsfront/run-programs.mjs"), "utf8"),
  "cases.json": JSON.stringify(PROGRAM_CASES),
  "programs.mjs": [
    `import { readFileSync } from "node:fs";`,
    `import { grad, typescriptModule } from "smooth-ad";`,
    `import { runPrograms } from "./run-programs.mjs";`,
    `const read = (f) => readFileSync(new URL(f, import.meta.url), "utf8");`,
    `const out = runPrograms({ grad, typescriptModule }, read("./programs.ts"), JSON.parse(read("./cases.json")));`,
    `console.log(JSON.stringify(out));`,
    "",
  ].join("\n"),
};

/** The programs' values and gradients in a project folder equal Node's here (from the sources, not the package). */
function expectProgramsIn(at: string): void {
  const there = JSON.parse(run(at, "programs.mjs").trim()) as Record<string, number[]>;
  const here = runPrograms({ grad, typescriptModule }, PROGRAM_FILES["programs.ts"]!, PROGRAM_CASES);
  expect(Object.keys(there)).toEqual(Object.keys(here));
  for (const [label, numbers] of Object.entries(here)) {
    expect(there[label]!.length, label).toBe(numbers.length);
    numbers.forEach((x, i) =>
      expect(Math.abs(there[label]![i]! - x), label).toBeLessThanOrEqual(1e-12 * (1 + Math.abs(x))),
    );
  }
}

/** What PLAIN prints in a project folder. */
const plainIn = (at: string) =>
  JSON.parse(run(at, "plain.mjs").trim()) as {
    typescript: boolean;
    gradient: number[];
    worst: number;
    loopCompilations: number;
  };

beforeAll(() => {
  const packed = JSON.parse(
    execFileSync(npm, ["pack", "--ignore-scripts", "--json", "--pack-destination", dir], {
      cwd: root,
      encoding: "utf8",
    }),
  ) as { filename: string; files: { path: string }[] }[];
  files = packed[0]!.files.map((f) => f.path);
  tarball = join(dir, packed[0]!.filename);
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
        "dist/THIRD_PARTY_LICENSES",
        "dist/bundle/plugin.js",
        "dist/bundle/plugin.cjs",
        "dist/plugin/index.d.ts",
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

  it("differentiates plain functions and closures over data in a project without the `typescript` package", () => {
    // (Before the parser was the package's own, this printed [0, 0, 0]: the function was traced without being read.)
    const at = project("plain", { type: "module" }, { "plain.mjs": PLAIN, ...PROGRAM_FILES });
    expectProgramsIn(at);
    const out = plainIn(at);
    expect(out.typescript).toBe(false);
    expect(out.gradient).toEqual([2, 4, 6]);
    expect(out.worst).toBeLessThan(1e-6);
    expect(out.loopCompilations).toBe(1);
  });

  it("exports the bundler plugin to ES modules and CommonJS", () => {
    const source = `import { grad } from "smooth-ad";\nconst k = 2;\ngrad((x) => x * k);\n`;
    const script = (load: string) =>
      `${load}\nconst out = plugin.transformClosures(${JSON.stringify(source)}, "/m.js");\n` +
      `console.log(JSON.stringify([typeof plugin.smoothEsbuild, typeof plugin.smoothVite, out.code.includes("() => [k]")]));\n`;
    const at = project(
      "plugin",
      { type: "module" },
      {
        "esm.mjs": script(`import * as plugin from "smooth-ad/plugin";`),
        "cjs.cjs": script(`const plugin = require("smooth-ad/plugin");`),
      },
    );
    for (const file of ["esm.mjs", "cjs.cjs"])
      expect(JSON.parse(run(at, file))).toEqual(["function", "function", true]);
  });
});

describe("beside the typescript package", () => {
  it.each(["typescript@5", "typescript@latest"])(
    "differentiates plain functions the same with %s installed in the project",
    (typescript) => {
      const at = project(
        `with-${typescript.replace(/\W/g, "-")}`,
        { type: "module" },
        { "plain.mjs": PLAIN, ...PROGRAM_FILES },
      );
      execFileSync(
        npm,
        ["install", "--prefer-offline", "--no-audit", "--no-fund", "--ignore-scripts", tarball, typescript],
        { cwd: at, encoding: "utf8", timeout: 300_000 },
      );
      expectProgramsIn(at);
      const out = plainIn(at);
      expect(out.typescript).toBe(true);
      expect(out.gradient).toEqual([2, 4, 6]);
      expect(out.worst).toBeLessThan(1e-6);
      expect(out.loopCompilations).toBe(1);
    },
    320_000,
  );
});
