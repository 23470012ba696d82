// The type test: tsc checks test/ts-types/transforms.ts, whose `@ts-expect-error` lines must each be an error (tsc
// reports
// an unused one) and whose other lines must not. Also checked with each `@ts-expect-error` removed: then every one of
// those lines is reported, so an assignment of grad(f)'s result to a wrong type fails the test.

import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { loadProgram } from "../../src/api/program.js";
import { declarations, interfaceName } from "../../src/library/dts.js";
import { describe, expect, it } from "vitest";

const file = fileURLToPath(new URL("./transforms.ts", import.meta.url));
const root = fileURLToPath(new URL("../../", import.meta.url));

let previous: ts.Program | undefined;

/** tsc's diagnostics of `file` with this text (only that file is checked; the others are read as it needs them). */
function diagnostics(text: string): { line: number; message: string }[] {
  const config = ts.getParsedCommandLineOfConfigFile(
    `${root}tsconfig.json`,
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (d) => {
        throw new Error(ts.flattenDiagnosticMessageText(d.messageText, "\n"));
      },
    },
  )!;
  const host = ts.createCompilerHost({ ...config.options, noEmit: true });
  const read = host.readFile.bind(host);
  host.readFile = (name) => (name === file ? text : read(name));
  const program = ts.createProgram([file], { ...config.options, noEmit: true, rootDir: root }, host, previous);
  previous = program;
  const source = program.getSourceFile(file)!;
  return [...program.getSyntacticDiagnostics(source), ...program.getSemanticDiagnostics(source)].map((d) => ({
    line: d.file!.getLineAndCharacterOfPosition(d.start!).line + 1,
    message: ts.flattenDiagnosticMessageText(d.messageText, "\n"),
  }));
}

describe("declarations of a Smooth module", () => {
  it("`smooth types` writes what test/ts-types/model.smooth.d.ts holds", () => {
    const path = fileURLToPath(new URL("./model.smooth", import.meta.url));
    const program = loadProgram({ name: path, text: readFileSync(path, "utf8") });
    expect(declarations(program, interfaceName(path))).toBe(readFileSync(`${path}.d.ts`, "utf8"));
  });
});

describe("the transforms' types", () => {
  const text = readFileSync(file, "utf8");
  const lines = text.split("\n");
  const expected = lines.flatMap((l, i) => (l.includes("// @ts-expect-error") ? [i + 2] : []));

  it("accept the correct uses and reject each wrong one (every line marked @ts-expect-error)", () => {
    expect(expected.length).toBeGreaterThanOrEqual(8);
    expect(diagnostics(text)).toEqual([]);
    // Without the markers, exactly the marked lines are errors (the line numbers do not move: the markers become
    // blank).
    const unmarked = lines.map((l) => (l.includes("// @ts-expect-error") ? "" : l)).join("\n");
    const reported = [...new Set(diagnostics(unmarked).map((d) => d.line))];
    expect(reported).toEqual(expected);
  });
});
