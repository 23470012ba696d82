// The code blocks of the README and the docs site's pages (docs/**/*.md, not the generated API reference), and how a
// block is run: as pasted into a project that has the package installed (the built package, by its own name), its
// TypeScript transpiled first or type-checked against the library's sources under the project's settings.

import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";

export const root = fileURLToPath(new URL("../../", import.meta.url));
const packageName = (JSON.parse(readFileSync(`${root}package.json`, "utf8")) as { name: string }).name;

export interface Block {
  /** The page, relative to the repository ("docs/guide/install.md"). */
  readonly page: string;
  /** The 1-based line of the opening fence. */
  readonly line: number;
  readonly lang: string;
  readonly code: string;
}

/** The pages: README.md and docs/**\/*.md, without generated folders. */
export function pages(): string[] {
  const found = ["README.md"];
  const visit = (dir: string) => {
    for (const entry of readdirSync(join(root, dir), { withFileTypes: true })) {
      const path = `${dir}/${entry.name}`;
      if (entry.isDirectory() && !["api", ".vitepress", "public"].includes(entry.name)) visit(path);
      else if (entry.isFile() && entry.name.endsWith(".md")) found.push(path);
    }
  };
  visit("docs");
  return found;
}

/** The fenced code blocks of a page, in order. */
export function blocksOf(page: string): Block[] {
  const text = readFileSync(join(root, page), "utf8");
  const blocks: Block[] = [];
  for (const m of text.matchAll(/^```(\w*)\n([^]*?)^```$/gm))
    blocks.push({ page, line: text.slice(0, m.index).split("\n").length, lang: m[1]!, code: m[2]! });
  return blocks;
}

export const allBlocks = (): Block[] => pages().flatMap(blocksOf);

/** The text of every page, one after another (for the searches that find a file a page shows, then its commands). */
export const allText = (): string =>
  pages()
    .map((p) => readFileSync(join(root, p), "utf8"))
    .join("\n");

export const where = (b: Block): string => `${relative(root, join(root, b.page))}:${b.line}`;

/** Runs a js or ts snippet with node against the built package; its standard output. */
export function runSnippet(snippet: { lang: string; code: string }): string {
  let code = snippet.code.replaceAll(
    /from "smooth-ad(\/[\w-]+)?"/g,
    (_, sub: string | undefined) => `from "${packageName}${sub ?? ""}"`,
  );
  if (snippet.lang === "ts")
    code = ts.transpileModule(code, {
      compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
    }).outputText;
  return execFileSync(process.execPath, ["--input-type=module", "-e", code], {
    cwd: root,
    encoding: "utf8",
    timeout: 60_000,
  });
}

/** tsc's diagnostics of a TypeScript snippet (importing the library's sources), under the project's settings. */
export function typeErrors(code: string): string[] {
  const file = `${root}test/ts-types/__docs_snippet.ts`;
  const text = code
    .replaceAll('from "smooth-ad"', 'from "../../src/index.js"')
    .replaceAll('from "smooth-ad/node"', 'from "../../src/node.js"');
  const config = ts.getParsedCommandLineOfConfigFile(
    `${root}tsconfig.json`,
    {},
    { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => undefined },
  )!;
  // As users write TypeScript: `a[i]` is an element, not possibly undefined (the project itself checks that strictly).
  const options = {
    ...config.options,
    noEmit: true,
    rootDir: root,
    noUnusedLocals: false,
    noUncheckedIndexedAccess: false,
  };
  const host = ts.createCompilerHost(options);
  const read = host.readFile.bind(host);
  host.readFile = (name) => (name === file ? text : read(name));
  const exists = host.fileExists.bind(host);
  host.fileExists = (name) => name === file || exists(name);
  const program = ts.createProgram([file], options, host);
  const source = program.getSourceFile(file)!;
  return [...program.getSyntacticDiagnostics(source), ...program.getSemanticDiagnostics(source)].map((d) =>
    ts.flattenDiagnosticMessageText(d.messageText, "\n"),
  );
}
