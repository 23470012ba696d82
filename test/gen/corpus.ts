// Reading the hand-written programs of test/programs: each file starts with `// args: <JSON array>` (the arguments
// of `main`); error programs also say `// error: <kind>` on the next line.

import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { ErrorKind } from "../../src/syntax/diagnostics.js";

export interface CorpusProgram {
  /** The file name, e.g. "softmax.smooth". */
  readonly file: string;
  readonly text: string;
  readonly args: readonly unknown[];
  /** For error programs: the kind of error both back ends must report. */
  readonly error?: ErrorKind;
}

export const CORPUS_DIR = fileURLToPath(new URL("../programs/corpus/", import.meta.url));
export const ERRORS_DIR = fileURLToPath(new URL("../programs/errors/", import.meta.url));

const ARGS_LINE = /^\/\/ args: (.*)$/;
const ERROR_LINE = /^\/\/ error: (\w+)$/;

export function readProgram(dir: string, file: string): CorpusProgram {
  const text = readFileSync(dir + file, "utf8");
  const lines = text.split("\n");
  const args = ARGS_LINE.exec(lines[0] ?? "");
  if (!args) throw new Error(`${file}: the first line must be \`// args: <JSON array>\``);
  const parsed: unknown = JSON.parse(args[1]!);
  if (!Array.isArray(parsed)) throw new Error(`${file}: the arguments must be a JSON array`);
  const error = ERROR_LINE.exec(lines[1] ?? "");
  return error ? { file, text, args: parsed, error: error[1] as ErrorKind } : { file, text, args: parsed };
}

/** The `.smooth` files of a directory whose names pass `keep`, sorted by name. */
export function readPrograms(dir: string, keep: (file: string) => boolean = () => true): CorpusProgram[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith(".smooth") && keep(f))
    .sort()
    .map((f) => readProgram(dir, f));
}

/**
 * The program text without line comments (for checking which names a program uses; the corpus has no block comments).
 */
export function withoutComments(text: string): string {
  return text.replace(/\/\/.*$/gm, "");
}
