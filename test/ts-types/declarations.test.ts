// `smooth types` writes user text into TypeScript: the file's name (in a comment), definition names (as keys) and
// parameter names. Whatever they are — line breaks, U+2028, quotes, `*/`, backslashes, reserved words, non-ASCII —
// the declarations pass `tsc --strict` and, read back, declare exactly the interface with one member per definition
// and the parameters it has: no declaration the user did not define. (A file name with a line break used to end the
// header comment, so the rest of the name became live declarations; a parameter named `this` declared the type of
// `this`, one named `new` did not parse.) SMOOTH_FUZZ_SCALE multiplies the 100 modules; SMOOTH_RANDOM_SEED draws
// others.

import { readFileSync } from "node:fs";
import fc from "fast-check";
import ts from "typescript";
import { describe, expect, test } from "vitest";
import { loadProgram } from "../../src/api/program.js";
import { declarations, interfaceName } from "../../src/library/dts.js";
import { SmoothError } from "../../src/syntax/diagnostics.js";
import { file, smooth as smoothCli } from "../cli/run.js";

/** Every keyword TypeScript knows (reserved, strict-mode, contextual, type names). */
const TS_KEYWORDS: readonly string[] = Array.from(
  { length: ts.SyntaxKind.LastKeyword - ts.SyntaxKind.FirstKeyword + 1 },
  (_, i) => ts.tokenToString(ts.SyntaxKind.FirstKeyword + i)!,
);
/** Smooth's own keywords cannot name anything. */
const SMOOTH_KEYWORDS = new Set(["let", "in", "fun", "if", "then", "else", "true", "false", "not", "rec", "and"]);

const arbName: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(...TS_KEYWORDS.filter((w) => !SMOOTH_KEYWORDS.has(w)), "eval", "arguments", "arg0", "arg1", "x_"),
  fc.stringMatching(/^[a-z][a-z0-9_]{0,4}'{0,2}$/).filter((w) => !SMOOTH_KEYWORDS.has(w)),
);

/** Pieces of hostile file names: line ends of every kind, comment and string delimiters, escapes, non-ASCII. */
const NAME_PIECES = [
  "\n",
  "\r",
  "\r\n",
  "\u2028",
  "\u2029",
  "\u0085",
  "\u0000",
  '"',
  "'",
  "`",
  "${x}",
  "*/",
  "/*",
  "\\",
  "\\u2028",
  "é",
  "漢字",
  "😀",
  "\ud800",
  "\udc00",
  " ",
  "}",
  "export const injected: number;",
  "declare global { interface Array<T> { injected: T } }",
  "model",
  ".smooth",
];
const arbFileName = fc
  .array(fc.oneof(fc.constantFrom(...NAME_PIECES), fc.string({ maxLength: 3, unit: "binary" })), { maxLength: 8 })
  .map((parts) => `${parts.join("")}.smooth`);

interface Definition {
  readonly name: string;
  readonly params: readonly string[];
}

const arbModule = fc.record({
  path: arbFileName,
  defs: fc.array(fc.record({ name: arbName, params: fc.array(arbName, { maxLength: 3 }) }), {
    minLength: 1,
    maxLength: 4,
  }),
});

const sourceOf = (defs: readonly Definition[]): string =>
  defs
    .map((d) =>
      d.params.length === 0
        ? `let ${d.name} = 1.`
        : `let ${d.name} = fun ${d.params.map((p) => `(${p}: Double)`).join(" ")} -> ${d.params[0]!}`,
    )
    .join("\n");

/** The definitions the module has: the last of each name, in the order of their first definition. */
function moduleDefinitions(defs: readonly Definition[]): Definition[] {
  const last = new Map(defs.map((d) => [d.name, d]));
  return defs.filter((d) => last.get(d.name) === d);
}

/** tsc --strict's diagnostics of each declaration file (all checked in one program). */
function strictDiagnostics(texts: readonly string[]): string[][] {
  const names = texts.map((_, i) => `/virtual/sample${i}.d.ts`);
  const options: ts.CompilerOptions = {
    strict: true,
    noEmit: true,
    skipLibCheck: false,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    types: [],
  };
  const host = ts.createCompilerHost(options);
  const byName = new Map(names.map((n, i) => [n, texts[i]!]));
  const getSourceFile = host.getSourceFile.bind(host);
  host.getSourceFile = (name, language, ...rest) =>
    byName.has(name) ? ts.createSourceFile(name, byName.get(name)!, language) : getSourceFile(name, language, ...rest);
  host.fileExists = (
    (exists) => (name: string) =>
      byName.has(name) || exists(name)
  )(host.fileExists.bind(host));
  const program = ts.createProgram(names, options, host);
  return names.map((n) => {
    const source = program.getSourceFile(n)!;
    return [...program.getSyntacticDiagnostics(source), ...program.getSemanticDiagnostics(source)].map((d) =>
      ts.flattenDiagnosticMessageText(d.messageText, "\n"),
    );
  });
}

/** What a declaration file declares, read back: its statements, the interface's members and their parameters. */
function declared(text: string): { statements: string[]; members: { name: string; params: number }[] } {
  const source = ts.createSourceFile("read.d.ts", text, ts.ScriptTarget.ES2022, true);
  const statements = source.statements.map((s) =>
    ts.isInterfaceDeclaration(s) ? `interface ${s.name.text}` : ts.SyntaxKind[s.kind],
  );
  const first = source.statements[0];
  const members = (first && ts.isInterfaceDeclaration(first) ? first.members : []).map((m) => {
    const name = m.name && (ts.isIdentifier(m.name) || ts.isStringLiteral(m.name)) ? m.name.text : "?";
    const type = ts.isPropertySignature(m) ? m.type : undefined;
    const fn =
      type && ts.isIntersectionTypeNode(type) && ts.isParenthesizedTypeNode(type.types[0]!)
        ? type.types[0].type
        : undefined;
    return { name, params: fn && ts.isFunctionTypeNode(fn) ? fn.parameters.length : -1 };
  });
  return { statements, members };
}

describe("smooth types: user text in the declarations", () => {
  test("any file, definition and parameter names: tsc --strict accepts the file, which declares only the module", () => {
    const runs = Math.round(100 * Number(process.env.SMOOTH_FUZZ_SCALE ?? 1));
    const samples = fc.sample(arbModule, { numRuns: runs, seed: fc.readConfigureGlobal().seed });
    const texts = samples.map(({ path, defs }) =>
      declarations(loadProgram({ name: path, text: sourceOf(defs) }), interfaceName(path)),
    );
    const diagnostics = strictDiagnostics(texts);
    samples.forEach(({ path, defs }, i) => {
      const text = texts[i]!;
      const context = `file name ${JSON.stringify(path)}, source:\n${sourceOf(defs)}\ndeclarations:\n${text}`;
      expect(diagnostics[i], context).toEqual([]);
      // Comments stay on their lines: nothing a tool could take for a line end but \n.
      expect(text, context).not.toMatch(/[\r\u2028\u2029\u0085]/);
      const expected = moduleDefinitions(defs);
      expect(declared(text), context).toEqual({
        statements: [`interface ${interfaceName(path)}`],
        members: expected.map((d) => ({ name: d.name, params: d.params.length })),
      });
    });
  });

  test("reserved parameter names become distinct identifiers, not `this` parameters", () => {
    const text = declarations(
      loadProgram({
        name: "m.smooth",
        text: "let new = fun (this: Double) (arguments: Double) (x': Double) (x_: Double) (new: Double) -> this",
      }),
      "M",
    );
    expect(text).toContain(
      'readonly "new": ((this_: number, arguments_: number, x_: number, x_2: number, new_: number) => number)',
    );
  });

  test("an interface name that is not an identifier, or is reserved, is an argument error", () => {
    const program = loadProgram({ name: "m.smooth", text: "let f = 1." });
    for (const name of ["class", "string", "a-b", "x\ny", ""]) {
      let error: unknown;
      try {
        declarations(program, name);
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(SmoothError);
      expect((error as SmoothError).message).toMatch(/is not a TypeScript identifier/);
    }
  });

  test("the command: a file name with a line break and a declaration in it stays in the comment", () => {
    const path = file(
      "evil\nexport declare const injected: number;\u2028x.smooth",
      "let f = fun (this: Double) -> this",
    );
    const out = file("evil.d.ts", "");
    const r = smoothCli("types", path, "--out", out);
    expect(r.code, r.stderr).toBe(0);
    const written = readFileSync(out, "utf8");
    expect(declared(written)).toEqual({
      statements: [`interface ${interfaceName(path)}`],
      members: [{ name: "f", params: 1 }],
    });
    expect(strictDiagnostics([written])).toEqual([[]]);
  });

  test("the command: --name class and an unwritable --out are argument errors, without a stack trace", () => {
    const path = file("m.smooth", "let f = 1.");
    const named = smoothCli("types", path, "--name", "class");
    expect(named.code).toBe(1);
    expect(named.stderr).toMatch(/argument error: --name "class" is not a TypeScript identifier/);
    const unwritable = smoothCli("types", path, "--out", "/nonexistent-dir/m.d.ts");
    expect(unwritable.code).toBe(1);
    expect(unwritable.stderr).toMatch(/argument error: cannot write \/nonexistent-dir\/m.d.ts/);
    expect(unwritable.stderr).not.toMatch(/\n\s+at /);
  });
});
