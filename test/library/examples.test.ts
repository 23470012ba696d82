// Every example in examples/*.mjs runs with node against the built package (`npm test` builds first; the examples
// import "smooth", which resolves to dist/ through package.json's exports) and prints what it promises.

import { execFileSync } from "node:child_process";
import { readdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { blocksOf, runSnippet, typeErrors } from "../docs/snippets.js";

const dir = fileURLToPath(new URL("../../examples/", import.meta.url));
const examples = readdirSync(dir).filter((f) => f.endsWith(".mjs"));

/**
 * A line each of the library's examples must print (its result), so an example that runs but computes nonsense fails.
 */
const EXPECTED: Record<string, RegExp> = {
  "logistic_regression.mjs": /accuracy (99|100)\.\d%/,
  "mlp.mjs": /training accuracy (9[5-9]|100)\.\d% on 200 points/,
  "rosenbrock_hessian.mjs": /Newton step 6: x = \(1\.000000, 1\.000000\)/,
  "plain_typescript.mjs": /loss 0\.5320 -> 0\.00\d+ after 2000 steps \(the gradient compiled 1 time\)/,
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

/** The library pages' TypeScript and JavaScript blocks, in order: plain TypeScript, then the library's page. */
function snippets(): { lang: string; code: string }[] {
  return [...blocksOf("docs/guide/typescript.md"), ...blocksOf("docs/guide/library.md")].filter(
    (b) => b.lang === "js" || b.lang === "ts",
  );
}

const run = runSnippet;

describe("the library pages' snippets", () => {
  const blocks = snippets();

  it("has its snippets: plain TypeScript, Smooth source, composition, types, traced functions", () => {
    expect(blocks.map((b) => b.lang)).toEqual(["ts", "js", "js", "ts", "js"]);
  });

  it("plain TypeScript: a projectile's gradient, as pasted (and its types check)", () => {
    expect(typeErrors(blocks[0]!.code)).toEqual([]);
    // The same numbers as central differences of the function (the corpus test checks this function that way).
    expect(run(blocks[0]!)).toMatch(/^Float64Array\(2\) \[ 42\.699\d*, -313\.634\d* \]/);
  });

  it("Smooth source", () => {
    const out = run(blocks[1]!);
    expect(out).toMatch(/^0\.6443966/);
    expect(out).toContain("let loss' (p: Vector * Double) (x: Vector) (y: Double) =");
  });

  it("composition", () => {
    const out = run(blocks[2]!);
    const lines = out.split("\n");
    expect(Number(lines[0])).toBeCloseTo(6 - Math.cos(1), 12);
    expect(out).toMatch(/b: Float64Array\(3\)/);
    expect(Number(lines.at(-3))).toBeCloseTo(6 * 2 - Math.sin(2), 12); // jacobian(grad(cube))(2)
    expect(lines.at(-2)).toBe("[ [ 6, { diff: -1 } ], [ 3, 2 ] ]");
  });

  it("types: the snippet type-checks and runs", () => {
    expect(typeErrors(blocks[3]!.code)).toEqual([]);
    expect(run(blocks[3]!)).toMatch(/^-0\.475\d* 2 2 2 2 2\n2\n$/);
  });

  it("a traced function", () => {
    expect(run(blocks[4]!)).toMatch(
      /w: Float64Array\(2\) \[ -0\.47502081252106\d*, -0\.9500416250421\d* \],\s+b: -0\.4750208125210\d*/,
    );
  });
});
