// The parser: tokens to the surface AST (ast.ts). Recursive descent over this grammar:
//
//   expr     ::= operand (',' operand)*                         a tuple when there are commas (as in F#)
//   operand  ::= unary (binop unary)*   levels:  ||  <  &&  <  comparisons (non-associative)  <  + -  <  * /  <  **
//   unary    ::= '-' unary | 'not' unary | let | fun | if | app  let/fun/if extend as far right as possible
//   app      ::= postfix postfix*                               application by juxtaposition
//   postfix  ::= atom ('[' expr ']')*                           `f v[i]` is `f (v[i])`
//   atom     ::= name | number | true | false | '(' op ')' | '(' expr ')'
//
// Nothing recurses on the JavaScript stack as deeply as the program nests or as long as it is: a nested expression
// (inside parentheses, brackets, an `if`, a `fun`, a `let`) is parsed by a generator that `runNested` keeps on a
// stack of its own (./trampoline.ts); operators by precedence climbing over an explicit stack of pending operators;
// a chain of lets, unary operators and applications in loops. So 10⁵ lets, 10⁴ nested parentheses or an else-if
// chain of 10⁴ branches parse within Node's default stack.
//
// The layout rule for `let` without `in` lives in TokenStream; here a `let` parses its right-hand side under its own
// limit and then expects `in` or a body starting on a new line at its column. `let rec f ... = e and g ... = e'`
// (top level or local) binds functions that see each other; each `and` limits its own right-hand side like a `let`.

import type { BinaryOp, Definition, Expr, Param, Pattern, Program, RecBinding, TypeAnn } from "./ast.js";
import { fail } from "./diagnostics.js";
import { tokenize, type Token } from "./lexer.js";
import { checkNesting, parseTypeAnn } from "./parser-types.js";
import type { SourceFile, Span } from "./source.js";
import { TokenStream } from "./token-stream.js";
import { runNested, type Nested } from "./trampoline.js";

/** Binding strength of each binary operator (higher binds tighter); shared with the printer. */
export const BINOP_PRECEDENCE: Readonly<Record<BinaryOp, number>> = {
  "||": 1,
  "&&": 2,
  "<": 3,
  ">": 3,
  "<=": 3,
  ">=": 3,
  "=": 3,
  "<>": 3,
  "+": 4,
  "-": 4,
  "*": 5,
  "/": 5,
  "**": 6,
};
/** The level of comparisons, which do not associate: `a < b < c` is an error. */
export const COMPARISON_LEVEL = 3;
/** `**` is the only right-associative operator. */
export const POWER_LEVEL = 6;

const isBinaryOp = (tok: Token): tok is Token & { text: BinaryOp } =>
  tok.kind === "punct" && Object.hasOwn(BINOP_PRECEDENCE, tok.text);

/**
 * A parse that needs nested expressions: it yields `parseExpression(s)` for each and is resumed with the expression
 * (see the file comment).
 */
type Parse<T> = Nested<T, Expr>;

export function parseProgram(file: SourceFile): Program {
  const s = new TokenStream(file, tokenize(file));
  const defs: Definition[] = [];
  while (!s.atEnd()) {
    if (!s.is("let")) s.unexpected("a top-level definition `let name = ...`");
    for (const def of runNested(parseDefinitions(s))) defs.push(def);
  }
  return { defs };
}

export function parseExpr(file: SourceFile): Expr {
  const s = new TokenStream(file, tokenize(file));
  const e = runNested(parseExpression(s));
  if (!s.atEnd()) s.unexpected("an operator or the end of the expression");
  return e;
}

export function parseType(file: SourceFile): TypeAnn {
  const s = new TokenStream(file, tokenize(file));
  const t = parseTypeAnn(s);
  if (!s.atEnd()) s.unexpected("`->`, `*` or the end of the type");
  return t;
}

// ---------------------------------------------------------------------------------------------------------------
// let: shared by top-level definitions and expressions

interface Binding {
  letToken: Token;
  pattern: Pattern;
  annot?: TypeAnn;
  value: Expr;
}

/** `let pattern (: T)? = value` or `let name params (: T)? = body` (a lambda); the right-hand side obeys layout. */
function parseBinding(s: TokenStream, topLevel: boolean): Parse<Binding> {
  return parseBindingAfter(s, s.next(), topLevel);
}

/** A binding after its `let` (or `and`) token, which sets the layout limit of the right-hand side. */
function* parseBindingAfter(s: TokenStream, letToken: Token, topLevel: boolean): Parse<Binding> {
  const head = s.peek();
  let pattern: Pattern;
  const params: Param[] = [];
  if (head.kind === "name") {
    s.next();
    pattern = { kind: "pvar", name: head.text, span: s.tokenSpan(head) };
    while (startsParam(s)) params.push(parseParam(s));
  } else if (head.kind === "punct" && head.text === "(") {
    if (!topLevel) pattern = parsePattern(s);
    else
      fail("syntax", "a top-level definition must bind a single name", s.tokenSpan(head), {
        expected: "a name, as in `let f = ...`",
        found: "a tuple pattern",
        hint: "take tuples apart inside a function body with `let (a, b) = ... in ...`",
      });
  } else {
    s.unexpected(topLevel ? "the name being defined" : "a name or a tuple pattern `(a, b)`");
  }

  let annot: TypeAnn | undefined;
  if (s.is(":")) {
    s.next();
    annot = parseTypeAnn(s);
  }
  if (!s.is("=")) s.missing("missing `=` in `let`", "`=`");
  s.next();
  s.beginLetLimit(letToken);
  let value = yield parseExpression(s);
  s.endLetLimit();

  if (params.length > 0) {
    const lamStart = params[0]!.span.start;
    // `let f (x: A) : B = e` annotates the result; the whole function then has type A -> B.
    if (annot !== undefined) annot = functionTypeOf(params, annot);
    value = { kind: "lam", params, body: value, span: s.spanFrom(lamStart) };
  }
  return annot === undefined ? { letToken, pattern, value } : { letToken, pattern, annot, value };
}

function functionTypeOf(params: Param[], result: TypeAnn): TypeAnn {
  let type = result;
  for (let i = params.length - 1; i >= 0; i--) {
    const p = params[i]!;
    if (p.annot === undefined) {
      fail("syntax", "a result type needs every parameter annotated", p.span, {
        expected: `\`(${p.name}: T)\``,
        found: `\`${p.name}\` without a type`,
        hint: "or annotate the whole function: `let f: A -> B = fun x -> ...`",
      });
    }
    const span: Span = { file: p.span.file, start: p.span.start, end: result.span.end };
    type = { kind: "tfun", param: p.annot, result: type, span };
  }
  return type;
}

function* parseDefinitions(s: TokenStream): Parse<Definition[]> {
  if (s.rawAhead(1).kind === "keyword" && s.rawAhead(1).text === "rec") {
    const group = yield* parseRecGroup(s, true);
    const defs = group.map((b, i): Definition => ({
      name: b.name,
      nameSpan: b.nameSpan,
      value: b.value,
      span: b.span,
      rec: i === 0 ? "rec" : "and",
      ...(b.annot === undefined ? {} : { annot: b.annot }),
    }));
    noTopLevelIn(s);
    return defs;
  }
  return [yield* parseDefinition(s)];
}

function noTopLevelIn(s: TokenStream): void {
  if (s.is("in")) {
    fail("syntax", "a top-level definition has no `in`", s.errorSpan(), {
      expected: "the next definition `let name = ...` or the end of the file",
      found: "`in`",
      hint: "`let ... in ...` is an expression; write it inside a definition: `let main = let x = 1 in x`",
    });
  }
}

/**
 * `let rec f ... = e1 and g ... = e2 ...`: each binding names a function (its value must be a lambda); an `and`
 * sets the layout limit of its own right-hand side, as a `let` does.
 */
function* parseRecGroup(s: TokenStream, topLevel: boolean): Parse<RecBinding[]> {
  const bindings: RecBinding[] = [];
  let head = s.next(); // `let`, then each `and`
  s.next(); // `rec`
  for (;;) {
    const start = head.start;
    const nameToken = s.peek();
    if (nameToken.kind !== "name" || nameToken.text === "_") s.unexpected("the name of a recursive function");
    const { pattern, annot, value } = yield* parseBindingAfter(s, head, topLevel);
    if (pattern.kind !== "pvar") throw new Error("internal: let rec pattern");
    if (value.kind !== "lam") {
      fail("syntax", "`let rec` defines functions", value.span, {
        expected: `a function: \`let rec ${pattern.name} x = ...\` or \`let rec ${pattern.name} = fun x -> ...\``,
        found: "a value that is not a `fun`",
      });
    }
    const binding: RecBinding = { name: pattern.name, nameSpan: pattern.span, value, span: s.spanFrom(start) };
    if (annot !== undefined) binding.annot = annot;
    bindings.push(binding);
    if (!s.is("and")) return bindings;
    head = s.next();
  }
}

function* parseDefinition(s: TokenStream): Parse<Definition> {
  const start = s.peek().start;
  const { pattern, annot, value } = yield* parseBinding(s, true);
  if (pattern.kind !== "pvar") throw new Error("internal: top-level pattern");
  noTopLevelIn(s);
  const def: Definition = { name: pattern.name, nameSpan: pattern.span, value, span: s.spanFrom(start) };
  if (annot !== undefined) def.annot = annot;
  return def;
}

/**
 * `let ... in body` (or the layout form). A body that is itself a `let` is parsed by this loop: such a body extends
 * as far right as possible, exactly as this let's body would, so every let of the chain ends where the last body ends.
 */
function* parseLet(s: TokenStream): Parse<Expr> {
  const heads: { letToken: Token; head: Omit<Expr & { kind: "let" }, "body" | "span"> | RecBinding[] }[] = [];
  do {
    const letToken = s.raw;
    if (s.rawAhead(1).kind === "keyword" && s.rawAhead(1).text === "rec") {
      const bindings = yield* parseRecGroup(s, false);
      letBody(s, letToken);
      heads.push({ letToken, head: bindings });
      continue;
    }
    const binding = yield* parseBinding(s, false);
    letBody(s, binding.letToken);
    const head: Omit<Expr & { kind: "let" }, "body" | "span"> = {
      kind: "let",
      pattern: binding.pattern,
      value: binding.value,
    };
    if (binding.annot !== undefined) head.annot = binding.annot;
    heads.push({ letToken: binding.letToken, head });
  } while (s.is("let"));
  let body = yield parseExpression(s);
  for (let k = heads.length - 1; k >= 0; k--) {
    const { letToken, head } = heads[k]!;
    const span = s.spanFrom(letToken.start);
    body = Array.isArray(head) ? { kind: "letrec", bindings: head, body, span } : { ...head, body, span };
  }
  return body;
}

/** Consumes the `in` of a local `let`, or checks that the body starts a new line at the `let`'s column. */
function letBody(s: TokenStream, letToken: Token): void {
  if (s.is("in")) {
    s.next();
    return;
  }
  const next = s.peek();
  // The layout form: the body starts a new line exactly at the `let`'s column.
  if (next.kind === "eof" || !next.firstOnLine || next.col !== letToken.col) {
    fail("syntax", "`let` has no body", s.tokenSpan(letToken), {
      expected: `\`in\`, or the body on the next line at column ${letToken.col}`,
      found: s.describeNext(),
    });
  }
}

/** `x`, `(a, b)`, `((a, b), _)`: names, `_` and parenthesised tuples of patterns. */
function parsePattern(s: TokenStream, depth = 0): Pattern {
  checkNesting(s, depth, "a pattern");
  const tok = s.peek();
  if (tok.kind === "name") {
    s.next();
    return { kind: "pvar", name: tok.text, span: s.tokenSpan(tok) };
  }
  if (!(tok.kind === "punct" && tok.text === "(")) s.unexpected("a name or a tuple pattern");
  const open = s.open();
  const first = parsePattern(s, depth + 1);
  if (!s.is(",")) {
    s.close(open, ")");
    return first;
  }
  const elems = [first];
  while (s.is(",")) {
    s.next();
    elems.push(parsePattern(s, depth + 1));
  }
  s.close(open, ")");
  return { kind: "ptuple", elems, span: s.spanFrom(open.start) };
}

// ---------------------------------------------------------------------------------------------------------------
// fun and its parameters, if

function startsParam(s: TokenStream): boolean {
  const tok = s.peek();
  return tok.kind === "name" || (tok.kind === "punct" && tok.text === "(");
}

/** `x`, `_`, `(x)` or `(x: T)`. */
function parseParam(s: TokenStream): Param {
  const tok = s.peek();
  if (tok.kind === "name") {
    s.next();
    return { name: tok.text, span: s.tokenSpan(tok) };
  }
  const open = s.open();
  const name = s.peek();
  if (name.kind !== "name") s.unexpected("a parameter name");
  s.next();
  let annot: TypeAnn | undefined;
  if (s.is(":")) {
    s.next();
    annot = parseTypeAnn(s);
  } else if (s.is(",")) {
    fail("syntax", "a parameter is a single name", s.errorSpan(), {
      expected: "`)` or `: Type`",
      found: "`,`",
      hint: "take a tuple apart in the body: `fun p -> let (a, b) = p in ...`",
    });
  }
  s.close(open, ")");
  const span = s.spanFrom(open.start);
  return annot === undefined ? { name: name.text, span } : { name: name.text, annot, span };
}

function* parseFun(s: TokenStream): Parse<Expr> {
  const funToken = s.next();
  const params: Param[] = [];
  while (startsParam(s)) params.push(parseParam(s));
  if (params.length === 0) s.unexpected("a parameter name after `fun`");
  if (!s.is("->")) s.missing("missing `->` in `fun`", "`->` after the parameters");
  s.next();
  const body = yield parseExpression(s);
  return { kind: "lam", params, body, span: s.spanFrom(funToken.start) };
}

function* parseIf(s: TokenStream): Parse<Expr> {
  const ifToken = s.next();
  const cond = yield parseExpression(s);
  if (!s.is("then")) s.missing("missing `then` in `if`", `\`then\` (for the \`if\` at ${ifToken.line}:${ifToken.col})`);
  s.next();
  const then = yield parseExpression(s);
  if (!s.is("else")) s.missing("missing `else` in `if`", `\`else\` (every \`if\` needs both branches)`);
  s.next();
  const otherwise = yield parseExpression(s);
  return { kind: "if", cond, then, else: otherwise, span: s.spanFrom(ifToken.start) };
}

// ---------------------------------------------------------------------------------------------------------------
// Operators, application, indexing, atoms

/** An expression, to be run by `runNested` (or yielded by the parse that needs it). */
function* parseExpression(s: TokenStream): Parse<Expr> {
  const start = s.peek().start;
  const first = yield* parseOperators(s);
  if (!s.is(",")) return first;
  const elems = [first];
  while (s.is(",")) {
    s.next();
    elems.push(yield* parseOperators(s));
  }
  return { kind: "tuple", elems, span: s.spanFrom(start) };
}

/** A binary operator read, waiting for its right operand: its left operand, and where that started. */
interface PendingOperator {
  readonly op: BinaryOp;
  readonly level: number;
  readonly opSpan: Span;
  readonly left: Expr;
  readonly start: number;
}

/**
 * Unary operands joined by binary operators, by precedence climbing in a loop: an operator waits on a stack until
 * the next operator binds less tightly (or as tightly: all associate to the left but `**`), then takes the operand
 * parsed last as its right operand. A chain of 10⁴ terms (`x + x + ... + x`, `x ** x ** ... ** x`) needs no stack.
 */
function* parseOperators(s: TokenStream): Parse<Expr> {
  const pending: PendingOperator[] = [];
  for (;;) {
    let start = s.peek().start;
    let operand = yield* parseUnary(s);
    const tok = s.peek();
    const op = isBinaryOp(tok) ? tok.text : undefined;
    const level = op === undefined ? 0 : BINOP_PRECEDENCE[op];
    for (let top = pending.at(-1); top !== undefined; top = pending.at(-1)) {
      if (top.level < level || (top.level === level && level === POWER_LEVEL)) break;
      if (top.level === COMPARISON_LEVEL && level === COMPARISON_LEVEL) {
        fail("syntax", "comparisons do not chain", s.tokenSpan(tok), {
          expected: "an operator other than a comparison, or the end of the expression",
          found: `\`${tok.text}\``,
          hint: "use parentheses, or `&&`: `a < b && b < c`",
        });
      }
      pending.pop();
      const span = s.spanFrom(top.start);
      operand = { kind: "binop", op: top.op, left: top.left, right: operand, span, opSpan: top.opSpan };
      start = top.start;
    }
    if (op === undefined) return operand;
    s.next();
    pending.push({ op, level, opSpan: s.tokenSpan(tok), left: operand, start });
  }
}

const isPrefixOperator = (tok: Token) =>
  (tok.kind === "punct" && tok.text === "-") || (tok.kind === "keyword" && tok.text === "not");

/** Unary operators (read in a loop), then a let, fun, if or application. */
function* parseUnary(s: TokenStream): Parse<Expr> {
  const prefixes: Token[] = [];
  while (isPrefixOperator(s.peek())) prefixes.push(s.next());
  const tok = s.peek();
  let e: Expr;
  if (tok.kind === "keyword" && tok.text === "let") e = yield* parseLet(s);
  else if (tok.kind === "keyword" && tok.text === "fun") e = yield* parseFun(s);
  else if (tok.kind === "keyword" && tok.text === "if") e = yield* parseIf(s);
  else e = yield* parseApplication(s);
  for (let k = prefixes.length - 1; k >= 0; k--) {
    const prefix = prefixes[k]!;
    e = { kind: "unop", op: prefix.text === "-" ? "-" : "not", arg: e, span: s.spanFrom(prefix.start) };
  }
  return e;
}

function startsAtom(tok: Token): boolean {
  return (
    tok.kind === "name" ||
    tok.kind === "number" ||
    (tok.kind === "keyword" && (tok.text === "true" || tok.text === "false")) ||
    (tok.kind === "punct" && tok.text === "(")
  );
}

function* parseApplication(s: TokenStream): Parse<Expr> {
  const start = s.peek().start;
  let fn = yield* parsePostfix(s);
  while (startsAtom(s.peek())) {
    const arg = yield* parsePostfix(s);
    fn = { kind: "app", fn, arg, span: s.spanFrom(start) };
  }
  return fn;
}

function* parsePostfix(s: TokenStream): Parse<Expr> {
  const start = s.peek().start;
  let e = s.is("(") ? yield* parseParenthesised(s) : parseAtom(s);
  while (s.is("[")) {
    const open = s.open();
    const index = yield parseExpression(s);
    s.close(open, "]");
    e = { kind: "index", array: e, index, span: s.spanFrom(start) };
  }
  return e;
}

/** An atom other than a parenthesised one. */
function parseAtom(s: TokenStream): Expr {
  const tok = s.peek();
  switch (tok.kind) {
    case "name":
      if (tok.text === "_") {
        fail("syntax", "`_` is not a value", s.tokenSpan(tok), {
          expected: "an expression",
          found: "`_`",
          hint: "`_` can only be a parameter or pattern that ignores its value",
        });
      }
      s.next();
      return { kind: "var", name: tok.text, span: s.tokenSpan(tok) };
    case "number":
      s.next();
      return { kind: "num", value: tok.value!, isInt: tok.isInt!, span: s.tokenSpan(tok) };
    case "keyword":
      if (tok.text === "true" || tok.text === "false") {
        s.next();
        return { kind: "bool", value: tok.text === "true", span: s.tokenSpan(tok) };
      }
      break;
  }
  return s.unexpected("an expression");
}

/** `(op)`, `(e)`, `(e : T)` or a tuple `(a, b)` (whose span then includes the parentheses). */
function* parseParenthesised(s: TokenStream): Parse<Expr> {
  const after = s.rawAhead(1);
  const closing = s.rawAhead(2);
  if (isBinaryOp(after) && closing.kind === "punct" && closing.text === ")") {
    const open = s.next();
    s.next();
    s.next();
    return { kind: "opfun", op: after.text, span: s.spanFrom(open.start) };
  }
  const open = s.open();
  if (s.is(")")) {
    s.next();
    fail("syntax", "`()` is not a value in Smooth", s.spanFrom(open.start), {
      expected: "an expression inside the parentheses",
      found: "`)`",
    });
  }
  const inner = yield parseExpression(s);
  if (s.is(":")) {
    s.next();
    const annot = parseTypeAnn(s);
    s.close(open, ")");
    return { kind: "typed", expr: inner, annot, span: s.spanFrom(open.start) };
  }
  s.close(open, ")");
  return inner.kind === "tuple" ? { ...inner, span: s.spanFrom(open.start) } : inner;
}
