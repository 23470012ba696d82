// The API reference (TypeDoc's pages in docs/api/, written by `npm run docs`, which `npm test` runs first) has a
// page for every export of the package's entry points, as the TypeScript compiler lists them.

import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { root } from "./snippets.js";

/** The names `file` exports (values and types), as tsc sees them. */
function exportsOf(file: string): string[] {
  const program = ts.createProgram([join(root, file)], { module: ts.ModuleKind.NodeNext, noEmit: true });
  const checker = program.getTypeChecker();
  const module = checker.getSymbolAtLocation(program.getSourceFile(join(root, file))!)!;
  return checker.getExportsOfModule(module).map((s) => s.name);
}

/** The pages TypeDoc wrote for an entry point: name -> kind folder ("functions", "classes", ...). */
function pagesOf(entry: string): Map<string, string> {
  const dir = join(root, "docs/api", entry);
  const pages = new Map<string, string>();
  for (const kind of readdirSync(dir, { withFileTypes: true }).filter((d) => d.isDirectory()))
    for (const f of readdirSync(join(dir, kind.name))) pages.set(f.replace(/\.md$/, ""), kind.name);
  return pages;
}

describe("the API reference", () => {
  it.each([
    ["src/index.ts", "index"],
    ["src/node.ts", "node"],
  ])("has a page for every export of %s", (file, entry) => {
    expect(existsSync(join(root, "docs/api", entry)), "docs/api is not built: run `npm run docs`").toBe(true);
    const pages = pagesOf(entry);
    // smooth-ad/node re-exports the library (its pages are the library's): its own exports have pages of their own.
    const library = new Set(entry === "index" ? [] : exportsOf("src/index.ts"));
    const names = exportsOf(file).filter((n) => !library.has(n));
    expect(names.length).toBeGreaterThanOrEqual(entry === "index" ? 40 : 1);
    expect(names.filter((n) => !pages.has(n))).toEqual([]);
  });
});
