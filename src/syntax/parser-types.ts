// Type annotations: `Double`, `Array<T>`, `T1 * T2` (binds tighter than `->`), `T1 -> T2` (right associative).

import type { TypeAnn } from "./ast.js";
import { fail } from "./diagnostics.js";
import type { TokenStream } from "./token-stream.js";

export const TYPE_NAMES: readonly string[] = ["Double", "Index", "Card", "Bool", "Vector", "Matrix"];

/**
 * The deepest a type annotation or a pattern may nest: every stage walks types recursively, and a deeper one is a
 * located error here rather than a stack overflow later (no program needs more).
 */
export const MAX_ANNOTATION_NESTING = 256;

/** Fails at the next token when `depth` is past MAX_ANNOTATION_NESTING. */
export function checkNesting(s: TokenStream, depth: number, what: string): void {
  if (depth > MAX_ANNOTATION_NESTING)
    fail("syntax", `${what} nested more than ${MAX_ANNOTATION_NESTING} levels deep`, s.errorSpan(), {
      hint: "name the parts with definitions or lets instead",
    });
}

/** type ::= tuple ('->' type)? */
export function parseTypeAnn(s: TokenStream, depth = 0): TypeAnn {
  checkNesting(s, depth, "a type");
  const start = s.peek().start;
  const param = parseTupleType(s, depth);
  if (!s.is("->")) return param;
  s.next();
  const result = parseTypeAnn(s, depth + 1);
  return { kind: "tfun", param, result, span: s.spanFrom(start) };
}

/** tuple ::= atom ('*' atom)*   — `A * B * C` is one triple, as in F#. */
function parseTupleType(s: TokenStream, depth: number): TypeAnn {
  const start = s.peek().start;
  const first = parseAtomType(s, depth);
  if (!s.is("*")) return first;
  const elems = [first];
  while (s.is("*")) {
    s.next();
    elems.push(parseAtomType(s, depth));
  }
  return { kind: "ttuple", elems, span: s.spanFrom(start) };
}

function parseAtomType(s: TokenStream, depth: number): TypeAnn {
  const tok = s.peek();
  if (tok.kind === "punct" && tok.text === "(") {
    const open = s.open();
    const inner = parseTypeAnn(s, depth + 1);
    s.close(open, ")");
    return inner;
  }
  if (tok.kind !== "name") s.unexpected("a type");
  s.next();
  if (tok.text === "Array") {
    if (!s.is("<")) s.missing("missing `<` after `Array`", "`<` and an element type, as in `Array<Double>`");
    s.next();
    const elem = parseTypeAnn(s, depth + 1);
    closeAngle(s, tok.line, tok.col);
    return { kind: "tarray", elem, span: s.spanFrom(tok.start) };
  }
  if (!TYPE_NAMES.includes(tok.text)) {
    fail("name", `unknown type \`${tok.text}\``, s.tokenSpan(tok), {
      expected: `one of ${TYPE_NAMES.join(", ")}, Array<...>`,
      found: `\`${tok.text}\``,
    });
  }
  return { kind: "tname", name: tok.text, span: s.tokenSpan(tok) };
}

// `>` closes `Array<`; so does the first character of `>=` (as in `let v: Array<Double>= ...`).
function closeAngle(s: TokenStream, line: number, col: number): void {
  const tok = s.peek();
  if (tok.kind === "punct" && tok.text === ">") {
    s.next();
  } else if (tok.kind === "punct" && tok.text === ">=") {
    s.splitNext(1);
  } else {
    s.missing(`unclosed \`Array<\` at ${line}:${col}`, "`>`");
  }
}
