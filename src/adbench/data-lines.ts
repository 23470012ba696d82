// Reading the ADBench text formats: whitespace-separated numbers, one record per line, blank lines between sections
// (ignored). A malformed file is the caller's error, so it is a SmoothError located in the data file.

import { readFileSync } from "node:fs";
import { fail } from "../syntax/diagnostics.js";
import type { SourceFile, Span } from "../syntax/source.js";

/** One non-blank line: its numbers, and the span of each token and of the line. */
interface Line {
  readonly numbers: readonly number[];
  readonly tokens: readonly Span[];
  readonly span: Span;
}

export function readDataFile(path: string): SourceFile {
  return { name: path, text: readFileSync(path, "utf8") };
}

/** The non-blank lines of a data file, consumed in order by the format readers. */
export class DataLines {
  private readonly lines: Line[] = [];
  private next = 0;

  constructor(readonly file: SourceFile) {
    let start = 0;
    const text = file.text;
    while (start <= text.length) {
      let end = text.indexOf("\n", start);
      if (end < 0) end = text.length;
      const line = this.tokenise(start, end);
      if (line) this.lines.push(line);
      start = end + 1;
    }
  }

  /** The next line, which must hold exactly `count` numbers (`what` names the record in messages). */
  row(count: number, what: string): number[] {
    const line = this.take(what);
    if (line.numbers.length !== count)
      fail("argument", `${this.file.name}: ${what} should have ${count} values`, line.span, {
        expected: `${count} numbers`,
        found: `${line.numbers.length}`,
      });
    return [...line.numbers];
  }

  /** `rows` lines of `count` numbers each. */
  rows(rows: number, count: number, what: string): number[][] {
    return Array.from({ length: rows }, (_, i) => this.row(count, `${what} (row ${i + 1} of ${rows})`));
  }

  /** The next line as `count` non-negative integers (a header). */
  integers(count: number, what: string): number[] {
    const at = this.next;
    const values = this.row(count, what);
    values.forEach((v, i) => {
      if (!Number.isInteger(v) || v < 0)
        fail("argument", `${this.file.name}: ${what} should be non-negative integers`, this.lines[at]!.tokens[i], {
          expected: "a non-negative integer",
          found: String(v),
        });
    });
    return values;
  }

  /** Fails if any non-blank line is left. */
  end(what: string): void {
    const line = this.lines[this.next];
    if (line) fail("argument", `${this.file.name}: unexpected data after ${what}`, line.span);
  }

  private take(what: string): Line {
    const line = this.lines[this.next++];
    if (!line) {
      const at = this.file.text.length;
      fail("argument", `${this.file.name}: the file ends before ${what}`, { file: this.file, start: at, end: at });
    }
    return line;
  }

  private tokenise(start: number, end: number): Line | undefined {
    const numbers: number[] = [];
    const tokens: Span[] = [];
    const pattern = /\S+/g;
    const text = this.file.text.slice(start, end);
    for (let m = pattern.exec(text); m; m = pattern.exec(text)) {
      const span: Span = { file: this.file, start: start + m.index, end: start + m.index + m[0].length };
      const value = Number(m[0]);
      if (!Number.isFinite(value))
        fail("argument", `${this.file.name}: \`${m[0]}\` is not a number`, span, { expected: "a finite number" });
      numbers.push(value);
      tokens.push(span);
    }
    if (numbers.length === 0) return undefined;
    return { numbers, tokens, span: { file: this.file, start, end: Math.max(start + 1, end) } };
  }
}
