// Every example in examples/*.mjs runs with node against the built package (`npm test` builds first; the examples
// import "smooth", which resolves to dist/ through package.json's exports) and prints what it promises.

import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const dir = fileURLToPath(new URL("../../examples/", import.meta.url));
const examples = readdirSync(dir).filter((f) => f.endsWith(".mjs"));

/**
 * A line each of the library's examples must print (its result), so an example that runs but computes nonsense fails.
 */
const EXPECTED: Record<string, RegExp> = {
  "logistic_regression.mjs": /accuracy (99|100)\.\d%/,
  "mlp.mjs": /training accuracy (9[5-9]|100)\.\d% on 200 points/,
  "rosenbrock_hessian.mjs": /Newton step 6: x = \(1\.000000, 1\.000000\)/,
  "ba_project_jacobian.mjs": /largest difference from central differences in column f: \d\.\d+e-(\d\d|[6-9])/,
};

describe("examples", () => {
  it("the library's examples are all there", () => {
    expect(examples).toEqual(expect.arrayContaining(Object.keys(EXPECTED)));
  });

  it.each(examples)("%s runs and prints its result", (name) => {
    const out = execFileSync(process.execPath, [name], { cwd: dir, encoding: "utf8", timeout: 60_000 });
    if (EXPECTED[name]) expect(out).toMatch(EXPECTED[name]);
  });
});

describe("the README", () => {
  it("its library snippets run as pasted", () => {
    const readme = readFileSync(new URL("../../README.md", import.meta.url), "utf8");
    const section = readme.slice(readme.indexOf("## The library"), readme.indexOf("## The command line"));
    const snippets = [...section.matchAll(/```js\n([\s\S]*?)```/g)].map((match) => match[1]!);
    expect(snippets).toHaveLength(2);
    const root = fileURLToPath(new URL("../../", import.meta.url));
    const run = (code: string) =>
      execFileSync(process.execPath, ["--input-type=module", "-e", code], {
        cwd: root,
        encoding: "utf8",
        timeout: 60_000,
      });
    const source = run(snippets[0]!);
    expect(source).toMatch(/^0\.6443966/);
    expect(source).toContain("let loss' (p: Vector * Double) (x: Vector) (y: Double) =");
    expect(run(snippets[1]!)).toMatch(
      /w: Float64Array\(2\) \[ -0\.47502081252106\d*, -0\.9500416250421\d* \],\s+b: -0\.4750208125210\d*/,
    );
  });
});
