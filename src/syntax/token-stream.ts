// A cursor over tokens that applies the layout rule: while the right-hand side of a `let` is parsed, a token that
// starts a new line at a column <= the `let`'s column is invisible (reads as the end of input), unless a bracket was
// opened since. The parser pushes a limit for each `let` right-hand side and a "no limit" for each open bracket.

import { fail } from "./diagnostics.js";
import type { Token } from "./lexer.js";
import type { SourceFile, Span } from "./source.js";

/** The `let` whose right-hand side is being parsed; null inside a bracket opened after it. */
type LayoutLimit = { readonly letToken: Token } | null;

export class TokenStream {
  private pos = 0;
  /** End offset of the last consumed token: node spans end here, and errors at "end of input" point here. */
  lastEnd = 0;
  private readonly limits: LayoutLimit[] = [];

  constructor(
    readonly file: SourceFile,
    private readonly tokens: Token[],
  ) {}

  /** The next token, ignoring layout. */
  get raw(): Token {
    return this.tokens[this.pos]!;
  }

  /** The token `ahead` places after the next one, ignoring layout (for the `(+)` lookahead). */
  rawAhead(ahead: number): Token {
    return this.tokens[Math.min(this.pos + ahead, this.tokens.length - 1)]!;
  }

  /** The `let` that hides the next token, if the layout rule hides it. */
  private hiddenBy(): Token | undefined {
    const limit = this.limits[this.limits.length - 1];
    const tok = this.raw;
    if (limit && tok.kind !== "eof" && tok.firstOnLine && tok.col <= limit.letToken.col) return limit.letToken;
    return undefined;
  }

  /** The next visible token: a hidden token reads as an eof token at the same place. */
  peek(): Token {
    const tok = this.raw;
    if (this.hiddenBy() === undefined) return tok;
    return { ...tok, kind: "eof", text: "" };
  }

  /** True when the next visible token is this punctuation or keyword. */
  is(text: string): boolean {
    const tok = this.peek();
    return (tok.kind === "punct" || tok.kind === "keyword") && tok.text === text;
  }

  /** True when the visible input is exhausted (real end, or a token hidden by layout). */
  atEnd(): boolean {
    return this.peek().kind === "eof";
  }

  next(): Token {
    const tok = this.raw;
    // A parser path that takes a token without looking first meets the end here: the user's syntax error (the fuzzer
    // found one: a tuple cut off by a `let` at the start of the next line).
    if (tok.kind === "eof" || this.hiddenBy() !== undefined) this.unexpected("more of the expression");
    this.pos++;
    this.lastEnd = tok.end;
    return tok;
  }

  /**
   * Consumes the first `length` characters of the next token and leaves the rest as a token: `>=` after
   * `Array<Double` is a closing angle bracket followed by `=`.
   */
  splitNext(length: number): void {
    const tok = this.raw;
    const rest: Token = {
      ...tok,
      text: tok.text.slice(length),
      start: tok.start + length,
      col: tok.col + length,
      firstOnLine: false,
    };
    this.tokens[this.pos] = rest;
    this.lastEnd = rest.start;
  }

  spanFrom(start: number): Span {
    return { file: this.file, start, end: this.lastEnd };
  }

  tokenSpan(tok: Token): Span {
    return { file: this.file, start: tok.start, end: tok.end };
  }

  /** A `let` right-hand side starts: until `endLetLimit`, layout ends it at a line not indented past the `let`. */
  beginLetLimit(letToken: Token): void {
    this.limits.push({ letToken });
  }

  /** The right-hand side begun by the last `beginLetLimit` has been parsed. */
  endLetLimit(): void {
    this.limits.pop();
  }

  /** Consumes an opening bracket; until `close`, layout ends nothing. */
  open(): Token {
    const tok = this.next();
    this.limits.push(null);
    return tok;
  }

  /** Consumes the bracket closing `opening`, or reports the bracket as unclosed. */
  close(opening: Token, closing: string): Token {
    if (!this.is(closing)) {
      if (this.raw.kind === "eof") {
        fail("syntax", `unclosed \`${opening.text}\``, this.tokenSpan(opening), {
          expected: `\`${closing}\``,
          found: "end of input",
        });
      }
      this.unexpected(`\`${closing}\` to close the \`${opening.text}\` at ${opening.line}:${opening.col}`);
    }
    this.limits.pop();
    return this.next();
  }

  /** What the next token is, for "found:" in messages. */
  describeNext(): string {
    const tok = this.raw;
    if (tok.kind === "eof") return "end of input";
    const hider = this.hiddenBy();
    if (hider !== undefined) {
      return `\`${tok.text}\` at ${tok.line}:${tok.col}, on a new line not indented past the \`let\` at ${hider.line}:${hider.col}`;
    }
    return `\`${tok.text}\``;
  }

  /** Where to point when something is missing: at the next token, or just after the last one at an end. */
  errorSpan(): Span {
    const tok = this.peek();
    if (tok.kind === "eof") return { file: this.file, start: this.lastEnd, end: this.lastEnd };
    return this.tokenSpan(tok);
  }

  /** "unexpected X", expected `expected`. */
  unexpected(expected: string): never {
    const tok = this.raw;
    const hider = this.hiddenBy();
    let summary: string;
    if (tok.kind === "eof") summary = "unexpected end of input";
    else if (hider !== undefined) summary = `unexpected end of the \`let\` at ${hider.line}:${hider.col}`;
    else summary = `unexpected \`${tok.text}\``;
    fail("syntax", summary, this.errorSpan(), { expected, found: this.describeNext() });
  }

  /** A specific missing piece ("missing `then` in `if`"), pointing where it should be. */
  missing(summary: string, expected: string): never {
    fail("syntax", summary, this.errorSpan(), { expected, found: this.describeNext() });
  }
}
