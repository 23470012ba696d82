// The lexer: source text to tokens. Each token remembers its line, column and whether it is the first token on its
// line, because the parser's layout rule (a `let` without `in`) is decided by where tokens start.

import { fail } from "./diagnostics.js";
import type { SourceFile, Span } from "./source.js";

export type TokenKind = "name" | "keyword" | "number" | "punct" | "eof";

export interface Token {
  readonly kind: TokenKind;
  /** The token's text ("" for eof). */
  readonly text: string;
  readonly start: number;
  readonly end: number;
  /** 1-based, as in messages. */
  readonly line: number;
  readonly col: number;
  /** No other token precedes it on its line: only such a token can end a layout `let`. */
  readonly firstOnLine: boolean;
  /** For numbers: the value, and whether it was written without a fraction or exponent. */
  readonly value?: number;
  readonly isInt?: boolean;
}

export const KEYWORDS: ReadonlySet<string> = new Set([
  "let",
  "in",
  "fun",
  "if",
  "then",
  "else",
  "true",
  "false",
  "not",
  "rec",
  "and",
]);

// Longest first, so `**` wins over `*`, `<=` over `<`, `->` over `-`.
const PUNCTUATION = [
  "->",
  "**",
  "<=",
  ">=",
  "<>",
  "&&",
  "||",
  "(",
  ")",
  "[",
  "]",
  ",",
  ":",
  "+",
  "-",
  "*",
  "/",
  "<",
  ">",
  "=",
];

// Characters people paste from papers or other languages, with what Smooth spells instead.
const LOOKALIKES: Readonly<Record<string, string>> = {
  "×": "multiplication is written `*`",
  "·": "multiplication is written `*`",
  "→": "the arrow is written `->`",
  "⇒": "the arrow is written `->`",
  "−": "minus is written `-`",
  "≤": "write `<=`",
  "≥": "write `>=`",
  "≠": "write `<>`",
  "!": "negation is written `not`, inequality `<>`",
  "&": "conjunction is written `&&`",
  "|": "disjunction is written `||`",
  ".": "indexing is written `v[i]`; a number needs a digit before the point (`0.5`)",
};

const isDigit = (c: string) => c >= "0" && c <= "9";
const isLetter = (c: string) => (c >= "a" && c <= "z") || (c >= "A" && c <= "Z");
const isNameStart = (c: string) => isLetter(c) || c === "_";
const isNameChar = (c: string) => isLetter(c) || isDigit(c) || c === "_" || c === "'";

export function tokenize(file: SourceFile): Token[] {
  const text = file.text;
  const tokens: Token[] = [];
  const span = (start: number, end: number): Span => ({ file, start, end });
  let i = 0;
  let line = 1;
  let lineStart = 0;
  let lastTokenLine = 0;

  const push = (kind: TokenKind, start: number, end: number, extra: Partial<Token> = {}) => {
    tokens.push({
      kind,
      text: text.slice(start, end),
      start,
      end,
      line,
      col: start - lineStart + 1,
      firstOnLine: lastTokenLine !== line,
      ...extra,
    });
    lastTokenLine = line;
  };
  const newline = (at: number) => {
    line++;
    lineStart = at + 1;
  };

  while (i < text.length) {
    const c = text[i]!;
    if (c === "\n") {
      newline(i);
      i++;
    } else if (c === " " || c === "\t" || c === "\r") {
      i++;
    } else if (c === "/" && text[i + 1] === "/") {
      while (i < text.length && text[i] !== "\n") i++;
    } else if (c === "(" && text[i + 1] === "*" && !text.startsWith("(*)", i) && !text.startsWith("(**)", i)) {
      // A block comment; `(*)` and `(**)` are the operators as values instead.
      const close = text.indexOf("*)", i + 2);
      if (close < 0) {
        fail("syntax", "unterminated comment", span(i, i + 2), {
          expected: "`*)` to close the comment",
          found: "end of input",
        });
      }
      for (let j = i; j < close; j++) if (text[j] === "\n") newline(j);
      i = close + 2;
    } else if (isDigit(c)) {
      i = lexNumber(i);
    } else if (isNameStart(c)) {
      const start = i;
      while (i < text.length && isNameChar(text[i]!)) i++;
      const word = text.slice(start, i);
      push(KEYWORDS.has(word) ? "keyword" : "name", start, i);
    } else {
      const op = PUNCTUATION.find((p) => text.startsWith(p, i));
      if (text.startsWith("==", i) || text.startsWith("!=", i)) {
        const which = text.slice(i, i + 2);
        fail("syntax", `unknown operator \`${which}\``, span(i, i + 2), {
          found: `\`${which}\``,
          hint: which === "==" ? "equality is written `=`" : "inequality is written `<>`",
        });
      }
      if (op === undefined) unknownCharacter(i);
      push("punct", i, i + op.length);
      i += op.length;
    }
  }
  push("eof", text.length, text.length);
  return tokens;

  // digits ('.' digits*)? ([eE] [+-]? digits+)?, and nothing name-like glued to it.
  function lexNumber(start: number): number {
    let j = start;
    while (isDigit(text[j] ?? "")) j++;
    let isInt = true;
    if (text[j] === ".") {
      isInt = false;
      j++;
      while (isDigit(text[j] ?? "")) j++;
    }
    let ok = true;
    if (text[j] === "e" || text[j] === "E") {
      isInt = false;
      j++;
      if (text[j] === "+" || text[j] === "-") j++;
      if (!isDigit(text[j] ?? "")) ok = false;
      while (isDigit(text[j] ?? "")) j++;
    }
    if (isNameChar(text[j] ?? "") || text[j] === ".") ok = false;
    if (!ok) {
      let end = j;
      while (end < text.length && (isNameChar(text[end]!) || text[end] === ".")) end++;
      const written = text.slice(start, end);
      fail("syntax", `bad number \`${written}\``, span(start, end), {
        expected: "a number such as `3`, `1.5`, `2.` or `1e-3`",
        found: `\`${written}\``,
      });
    }
    const value = Number(text.slice(start, j));
    push("number", start, j, { value, isInt });
    return j;
  }

  function unknownCharacter(at: number): never {
    const cp = text.codePointAt(at)!;
    const ch = String.fromCodePoint(cp);
    const code = `U+${cp.toString(16).toUpperCase().padStart(4, "0")}`;
    const hint = LOOKALIKES[ch];
    fail("syntax", `unknown character \`${ch}\` (${code})`, span(at, at + ch.length), {
      found: `\`${ch}\``,
      ...(hint !== undefined ? { hint } : {}),
    });
  }
}
