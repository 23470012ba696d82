// Every code block of the README and the docs site runs, or is checked against what it describes: TypeScript and
// JavaScript run against the built package (TypeScript type-checks too); Smooth programs load; `$ smooth` lines print
// what the page shows (test/cli/cli.test.ts runs those); a command synopsis names only commands and options the CLI
// has; an npm command names a script package.json has. (test/library/examples.test.ts checks chosen snippets' output.)

import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { smoothModule } from "../../src/index.js";
import { allBlocks, root, runSnippet, typeErrors, where, type Block } from "./snippets.js";

const blocks = allBlocks();
const KNOWN = new Set(["ts", "js", "fsharp", "sh", "text", "json"]);
const cli = `${root}dist/bundle/cli.js`;
const scripts = (JSON.parse(readFileSync(`${root}package.json`, "utf8")) as { scripts: Record<string, string> })
  .scripts;

const help = new Map<string, string>();
/** `smooth COMMAND --help` (cached). */
function helpOf(command: string): string {
  if (!help.has(command))
    help.set(command, execFileSync(process.execPath, [cli, command, "--help"], { encoding: "utf8" }));
  return help.get(command)!;
}

/**
 * A line `console.log(...); // → TEXT` promises that the output has a line TEXT (a TEXT ending in "…" is the start
 * of the line); the promised lines appear in the block's order.
 */
function expectPrinted(b: Block, out: string): void {
  const promised = [...b.code.matchAll(/console\.log\(.*\);? *\/\/ → (.*)$/gm)].map((m) => m[1]!.trim());
  const lines = out.split("\n").map((l) => l.trim());
  let at = 0;
  for (const text of promised) {
    const matches = (line: string) => (text.endsWith("…") ? line.startsWith(text.slice(0, -1)) : line === text);
    const found = lines.findIndex((line, i) => i >= at && matches(line));
    expect(found, `${where(b)} prints "${text}"; it printed:\n${out}`).toBeGreaterThanOrEqual(0);
    at = found + 1;
  }
}

const named = (lang: string) => blocks.filter((b) => b.lang === lang).map((b) => [where(b), b] as const);

describe("the docs' code blocks", () => {
  it("are all of a kind this test checks", () => {
    expect(blocks.length).toBeGreaterThan(20);
    expect(blocks.filter((b) => !KNOWN.has(b.lang)).map(where)).toEqual([]);
  });

  it.each(named("ts"))("%s: TypeScript type-checks, runs and prints what its `// →` comments say", (_, b) => {
    expect(typeErrors(b.code)).toEqual([]);
    expectPrinted(b, runSnippet(b));
  });

  it.each(named("js"))("%s: JavaScript runs and prints what its `// →` comments say", (_, b) => {
    // A block that only imports (the install page's) runs too: the imports resolve.
    expectPrinted(b, runSnippet(b));
  });

  it.each(named("fsharp"))("%s: the Smooth program loads (parses and type-checks)", (_, b) => {
    expect(Object.keys(smoothModule(b.code)).length).toBeGreaterThan(0);
  });

  it.each(named("sh"))("%s: commands name what exists", (_, b: Block) => {
    for (const raw of b.code.split("\n")) {
      const line = raw.replace(/#.*$/, "").trim();
      if (line.startsWith("$ smooth ")) continue; // run by test/cli/cli.test.ts, output compared
      for (const part of line.split("&&").map((p) => p.trim())) {
        const npm = /^npm (?:run )?([\w:-]+)/.exec(part);
        if (npm && !["install", "pack", "ci"].includes(npm[1]!)) expect(scripts, part).toHaveProperty([npm[1]!]);
        const tarball = /smooth-ad-([\d.]+)\.tgz/.exec(part);
        if (tarball) {
          const { version } = JSON.parse(readFileSync(`${root}package.json`, "utf8")) as { version: string };
          expect(tarball[1], part).toBe(version);
        }
        const command = /^smooth ([\w-]+)/.exec(part);
        if (!command) continue;
        // `grad | jacobian | hessian`: each alternative is a command.
        const names = /^smooth ([\w-]+(?: \| [\w-]+)*)/.exec(part)![1]!.split(" | ");
        for (const name of names) {
          const text = helpOf(name);
          for (const option of part.match(/--[\w-]+/g) ?? []) expect(text, `${part}: ${option}`).toContain(option);
        }
      }
    }
  });
});
