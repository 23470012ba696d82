// The bundler plugin's transform (src/plugin/): which functions it marks with an accessor of their closure's
// variables, what the accessor lists (the module's names a function reads from outside; never globals, types, its
// own locals), that lines stay the user's and the source map maps back, and that the marked module runs and gives
// the library the variables (the library's own `grad` through the accessor, in this process).

import { decode } from "@jridgewell/sourcemap-codec";
import { describe, expect, it } from "vitest";
import * as library from "../../src/index.js";
import { TRANSFORMS, transformClosures } from "../../src/plugin/index.js";
import { CLOSURE_KEY } from "../../src/tsfront/with-closure.js";

const marked = (code: string, id = "/app/src/main.js") => transformClosures(code, id, { root: "/app" })?.code;

/** The accessor lists of the marks in a transformed module, in order: `[X, y]` → "X, y". */
const accessors = (code: string): string[] => [...code.matchAll(/\(\) => \[([^\]]*)\]/g)].map((m) => m[1]!);

describe("the plugin's transform", () => {
  it("marks a function given to a transform with the module's names it reads, and its place", () => {
    const code = [
      `import { grad, vmap as batched } from "smooth-ad";`,
      `const X = [[1, 2], [3, 4]];`,
      `let scale = 2;`,
      `export const g = grad((w) => w[0] * X[0][0] * scale + Math.sin(w[1]));`,
      `export const h = batched(function (x) { const local = 3; return x * local * scale; });`,
    ].join("\n");
    const out = marked(code)!;
    expect(accessors(out)).toEqual(["X, scale", "scale"]);
    expect(out).toContain(`"src/main.js:4:22"`);
    // Lines stay where they were: the helper the marks call is appended after the module.
    expect(
      out
        .split("\n")
        .slice(0, 5)
        .map((l) => l.slice(0, 12)),
    ).toEqual(code.split("\n").map((l) => l.slice(0, 12)));
    expect(out).toMatch(/\nfunction __smooth_closure\(f, read, site\)/);
  });

  it("marks the module's top-level functions, and a local function named as a transform's argument", () => {
    const code = [
      `import * as S from "smooth-ad/browser";`,
      `import { data } from "./data.js";`,
      `function loss(w) { return helper(w) * data[0]; }`,
      `function helper(w) { return w * w; }`,
      `const pure = (x) => x * x;`,
      `export function run() {`,
      `  const k = 3;`,
      `  function inner(x) { return x * k; }`,
      `  return S.grad(inner)(1) + S.grad(loss)(2);`,
      `}`,
    ].join("\n");
    const out = marked(code)!;
    // loss reads helper and data, run reads S and loss; helper and pure read nothing from outside (not marked);
    // inner reads k.
    expect(out).toContain(`__smooth_closure(loss, () => [helper, data], "src/main.js:3:0");`);
    expect(out).toContain(`{ __smooth_closure(inner, () => [k], "src/main.js:8:2");`);
    expect(accessors(out)).toEqual(["helper, data", "S, loss", "k"]);
    expect(out).not.toContain("__smooth_closure(helper");
  });

  it("leaves alone what is not Smooth's: another module's grad, a shadowed name, globals, TypeScript's types", () => {
    expect(marked(`import { grad } from "other-ad";\nconst k = 1;\ngrad((x) => x * k);`)).toBeUndefined();
    expect(
      marked(`import { grad } from "smooth-ad";\nconst k = 1;\nfunction f(grad) { return grad((x) => x * k); }`),
    ).toBeUndefined();
    const ts = [
      `import { grad } from "smooth-ad";`,
      `import type { Model } from "./model";`,
      `interface Point { x: number }`,
      `const W: number[] = [1, 2];`,
      `export const g = grad((p: Point, m: Model): number => p.x * W[0]! * window.devicePixelRatio);`,
    ].join("\n");
    expect(accessors(transformClosures(ts, "/app/a.ts")!.code)).toEqual(["W"]);
  });

  it("finds the library imported dynamically, by require, and under an alias given in the options", () => {
    const dynamic = `const { grad } = await import("smooth-ad");\nconst k = 2;\nexport const d = grad((x) => x * k)(3);`;
    expect(accessors(marked(dynamic)!)).toEqual(["k"]);
    const cjs = `const smooth = require("smooth-ad");\nconst k = 2;\nmodule.exports = smooth.grad((x) => x * k);`;
    expect(accessors(marked(cjs, "/app/a.cjs")!)).toEqual(["k"]);
    const alias = `import { hessian } from "./smooth.mjs";\nconst k = 2;\nhessian((x) => x * x * k);`;
    expect(transformClosures(alias, "/app/a.js")).toBeUndefined();
    expect(accessors(transformClosures(alias, "/app/a.js", { modules: ["./smooth.mjs"] })!.code)).toEqual(["k"]);
  });

  it("its source map maps the marked function back to the user's line and column", () => {
    const code = `import { grad } from "smooth-ad";\nconst k = 2;\n\nexport const g =\n  grad((x) => x * k);\n`;
    const out = transformClosures(code, "/app/m.js")!;
    const lines = out.code.split("\n");
    const line = lines.findIndex((l) => l.includes("(x) => x * k"));
    const column = lines[line]!.indexOf("(x) =>");
    const segment = decode(out.map.mappings)[line]!.find((s) => s[0] === column);
    expect(segment?.slice(2, 4)).toEqual([4, 7]); // 0-based line 4, column 7 of the source: `(x) => ...`
  });

  it("knows every transform the library exports", () => {
    for (const name of TRANSFORMS) expect(typeof (library as Record<string, unknown>)[name]).toBe("function");
  });
});

describe("a module the plugin marked, run", () => {
  it("gives the library the closure's current variables through the accessor", () => {
    const code = [
      `import { grad } from "smooth-ad";`,
      `let k = 2;`,
      `const X = new Float64Array([1, 3]);`,
      `export const f = (x) => x * k * X[1];`,
      `export const g = grad((x) => x * x * k);`,
      `export function setK(v) { k = v; }`,
    ].join("\n");
    const out = transformClosures(code, "/app/run.js")!.code;
    // The module run as a function body (as a bundle runs it): imports given, exports returned.
    const body = out.replace(/import \{ grad \} from "smooth-ad";/, "").replace(/export (const|function) /g, "$1 ");
    // eslint-disable-next-line @typescript-eslint/no-implied-eval -- the plugin's output is code to run
    const { f, g, setK } = new Function("grad", `${body}\nreturn { f, g, setK };`)(library.grad) as {
      f: (x: number) => number;
      g: (x: number) => number;
      setK: (v: number) => void;
    };
    expect((f as unknown as Record<symbol, unknown>)[CLOSURE_KEY]).toBeDefined();
    expect(library.grad(f)(1)).toBe(6);
    expect(g(3)).toBe(12);
    setK(5);
    expect(library.grad(f)(1)).toBe(15);
    expect(g(3)).toBe(30);
  });
});
