// Source files and spans: every error a user can cause points into their program through a Span.

export interface SourceFile {
  /** Name shown in messages (a path, or "<prelude>", "<input>"). */
  readonly name: string;
  readonly text: string;
  /** What in the file it is, shown after a location in it (a function value's text: "in `f`"). */
  readonly context?: string;
}

/** A half-open character range [start, end) in a source file. Line and column are 1-based. */
export interface Span {
  readonly file: SourceFile;
  readonly start: number;
  readonly end: number;
  /**
   * For a span inside the prelude: the user's call of the prelude function it belongs to (set when the call is
   * inlined, or by the interpreter as the error leaves the call). Errors are reported there, the prelude line after.
   */
  readonly caller?: Span;
}

/**
 * The text without the UTF-8 byte-order mark some editors write at the start of a file (U+FEFF), as every JavaScript
 * and TypeScript tool reads it: it is not part of the program.
 */
export const withoutByteOrderMark = (text: string): string => (text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);

/** The file without its byte-order mark (see withoutByteOrderMark); the same object when it has none. */
export const sourceWithoutByteOrderMark = (file: SourceFile): SourceFile =>
  file.text.charCodeAt(0) === 0xfeff ? { ...file, text: file.text.slice(1) } : file;

/** Whether the span is in the prelude (the library every program is loaded after). */
export const inPrelude = (span: Span): boolean => span.file.name === "<prelude>";

/** `span` with the user's call `caller` recorded, when it is in the prelude and has none yet and `caller` is not. */
export function calledFrom(span: Span, caller: Span | undefined): Span {
  if (caller === undefined || span.caller !== undefined || !inPrelude(span) || inPrelude(caller)) return span;
  return { ...span, caller };
}

export interface LineCol {
  line: number;
  col: number;
}

export function lineCol(file: SourceFile, offset: number): LineCol {
  let line = 1;
  let lineStart = 0;
  const text = file.text;
  const stop = Math.min(offset, text.length);
  for (let i = 0; i < stop; i++) {
    if (text.charCodeAt(i) === 10) {
      line++;
      lineStart = i + 1;
    }
  }
  return { line, col: offset - lineStart + 1 };
}

export function spanFrom(a: Span, b: Span): Span {
  return { file: a.file, start: Math.min(a.start, b.start), end: Math.max(a.end, b.end) };
}

/** "file:line:col" */
export function formatLocation(span: Span): string {
  const { line, col } = lineCol(span.file, span.start);
  const context = span.file.context === undefined ? "" : ` (${span.file.context})`;
  return `${span.file.name}:${line}:${col}${context}`;
}

/** The source line of the span's start with a caret line under the span (clipped to that line). */
export function excerpt(span: Span): string {
  const text = span.file.text;
  const { line, col } = lineCol(span.file, span.start);
  const lineStart = span.start - (col - 1);
  let lineEnd = text.indexOf("\n", lineStart);
  if (lineEnd < 0) lineEnd = text.length;
  const source = text.slice(lineStart, lineEnd).replace(/\t/g, " ");
  const width = Math.max(1, Math.min(span.end, lineEnd) - span.start);
  const gutter = String(line);
  const pad = " ".repeat(gutter.length);
  return `${pad} |\n${gutter} | ${source}\n${pad} | ${" ".repeat(col - 1)}${"^".repeat(width)}`;
}
