// Parsing with acorn: a function's text as `Function.prototype.toString` gives it (always JavaScript: types are erased
// before a function exists) with acorn alone, and a module's text — TypeScript, the CLI's `model.ts` or the text given
// to `typescriptModule` — with acorn and its TypeScript plugin, which reads the annotations into nodes of their own.
// acorn runs anywhere (no dependencies, no `node:` modules), so the browser bundle reads functions as Node does.

import { Parser, tokTypes, type Class, type Node, type Options, type Program, type TokenType } from "acorn";
import { tsPlugin } from "@sveltejs/acorn-typescript";
import { withinCompilerStack } from "../api/compiler-stack.js";
import { fail } from "../syntax/diagnostics.js";
import type { SourceFile, Span } from "../syntax/source.js";
import type { FunctionNode } from "./syntax.js";

const OPTIONS: Options = { ecmaVersion: "latest", sourceType: "module", allowHashBang: true };

/** What the operator loop below uses of acorn's parser (its internals, untyped in acorn's declarations). */
/** A token type as acorn has it: with its precedence when it is a binary operator. */
type Token = TokenType & { readonly binop?: number | null };

interface ParserState {
  type: Token;
  value: unknown;
  start: number;
  startLoc: unknown;
  next(): void;
  parseMaybeUnary(refs: null, sawUnary: boolean, incDec: boolean, forInit: unknown): Node;
  parseExprOp(left: Node, startPos: number, startLoc: unknown, minPrec: number, forInit: unknown): Node;
  buildBinary(startPos: number, startLoc: unknown, left: Node, right: Node, op: unknown, logical: boolean): Node;
  raiseRecoverable(pos: number, message: string): void;
}

/**
 * acorn reads `a + b + c + ...` by calling itself once per operator (a tail call), so a sum of 10⁴ terms exhausts the
 * stack. This reads the operators of one precedence level in a loop; a further operator of another kind (or
 * TypeScript's `as`, which its plugin reads in its own override) goes back through the parser's method as before.
 */
function operatorLoop(Base: typeof Parser): typeof Parser {
  return class extends Base {
    parseExprOp(left: Node, startPos: number, startLoc: unknown, minPrec: number, forInit: unknown): Node {
      const p = this as unknown as ParserState;
      const binaryAhead = (min: number): number | undefined => {
        const prec = p.type.binop;
        return prec !== null && prec !== undefined && (!forInit || p.type !== tokTypes._in) && prec > min
          ? prec
          : undefined;
      };
      for (let prec: number | undefined; (prec = binaryAhead(minPrec)) !== undefined;) {
        const logical = p.type === tokTypes.logicalOR || p.type === tokTypes.logicalAND;
        const coalesce = p.type === tokTypes.coalesce;
        // `??` binds like the logical operators (so that `a ?? b || c` is the error below).
        if (coalesce) prec = (tokTypes.logicalAND as Token).binop!;
        const op = p.value;
        p.next();
        const [rightPos, rightLoc] = [p.start, p.startLoc];
        const right = p.parseExprOp(p.parseMaybeUnary(null, false, false, forInit), rightPos, rightLoc, prec, forInit);
        left = p.buildBinary(startPos, startLoc, left, right, op, logical || coalesce);
        if (
          (logical && p.type === tokTypes.coalesce) ||
          (coalesce && (p.type === tokTypes.logicalOR || p.type === tokTypes.logicalAND))
        )
          p.raiseRecoverable(
            p.start,
            "Logical expressions and coalesce expressions cannot be mixed. Wrap either by parentheses",
          );
        if (binaryAhead(minPrec) === undefined) return p.parseExprOp(left, startPos, startLoc, minPrec, forInit);
      }
      return left;
    }
  };
}

const jsParser = Parser.extend(operatorLoop);
let typescriptParser: typeof Parser | undefined;

/** acorn with the TypeScript plugin, made on first use. */
const tsParser = (): typeof Parser => (typescriptParser ??= Parser.extend(operatorLoop, tsPlugin()));

/** A parse error's position, when acorn gives one. */
const positionOf = (e: unknown): number | undefined =>
  e instanceof SyntaxError ? (e as SyntaxError & { pos?: number }).pos : undefined;

/** Parses `text` (a module, script or wrapped function text): the tree, or the error's message and position. */
function tryParse(
  text: string,
  typescript: boolean,
  what: string,
  span: Span,
): { program: Program } | { message: string; pos: number } {
  try {
    // (acorn's parser recurses on nesting: about 10³ nested parentheses exhaust the stack.)
    const parse = () =>
      typescript ? tsParser().parse(text, { ...OPTIONS, locations: true }) : jsParser.parse(text, OPTIONS);
    const program = withinCompilerStack(what, parse, span);
    return { program };
  } catch (e) {
    const pos = positionOf(e);
    if (pos === undefined) throw e;
    const message = (e as Error).message.replace(/ \(\d+:\d+\)$/, "");
    // acorn reports its own stack overflow as a syntax error: it is the program's nesting, reported as such.
    if (/^Not enough stack space/.test(message))
      return withinCompilerStack(
        what,
        () => {
          throw new RangeError("Maximum call stack size exceeded");
        },
        span,
      );
    return { message, pos };
  }
}

/**
 * The tree of a function's text as `Function.prototype.toString` gives it: a declaration, an expression, an arrow
 * function or a method (`f(x) { ... }`), parsed inside a prefix that makes it an expression. `file` holds the text
 * (for messages), starting at `offset`; positions of the tree are relative to the prefixed text, and `shift` is what
 * to add to them for positions in `file`.
 */
export function parseFunctionText(
  text: string,
  file: SourceFile,
  offset: number,
  what: string,
): { node: FunctionNode; shift: number; methodName?: string } {
  const span = { file, start: offset, end: offset + text.length };
  const attempts = [
    { prefix: "(", suffix: "\n)" },
    { prefix: "({", suffix: "\n})" },
  ];
  for (const { prefix, suffix } of attempts) {
    const parsed = tryParse(prefix + text + suffix, false, what, span);
    if (!("program" in parsed)) continue;
    const stmt = parsed.program.body[0];
    if (parsed.program.body.length !== 1 || stmt?.type !== "ExpressionStatement") continue;
    const e = stmt.expression;
    const shift = offset - prefix.length;
    if (e.type === "FunctionExpression" || e.type === "ArrowFunctionExpression") return { node: e, shift };
    if (e.type === "ObjectExpression" && e.properties.length === 1) {
      const m = e.properties[0]!;
      if (m.type === "Property" && m.value.type === "FunctionExpression") {
        const methodName = m.key.type === "Identifier" ? m.key.name : undefined;
        return { node: m.value, shift, ...(methodName ? { methodName } : {}) };
      }
    }
  }
  if (/\{\s*\[native code\]\s*\}\s*$/.test(text))
    fail("unsupported", `${what} is a built-in or bound function: its source cannot be read`, undefined, {
      hint: "give the library the function itself (not f.bind(...)): pass the bound values as arguments",
    });
  if (/^\s*class\b/.test(text)) fail("unsupported", `${what} is a class, not a function`, span);
  return fail("unsupported", `the source of ${what} could not be read as a function`, span);
}

/** The tree of a class's text as `Function.prototype.toString` gives it (`class C { ... }`), as parseFunctionText. */
export function parseClassText(
  text: string,
  file: SourceFile,
  offset: number,
  what: string,
): { node: Class; shift: number } {
  const span = { file, start: offset, end: offset + text.length };
  const parsed = tryParse(`(${text}\n)`, false, what, span);
  const stmt = "program" in parsed ? parsed.program.body[0] : undefined;
  if (stmt?.type === "ExpressionStatement" && stmt.expression.type === "ClassExpression")
    return { node: stmt.expression, shift: offset - 1 };
  return fail("unsupported", `the source of ${what} could not be read as a class`, span);
}

/** Is a module of this file name JavaScript (parsed without the TypeScript plugin)? */
const isJavaScript = (name: string): boolean => /\.(js|mjs|cjs)$/.test(name);

/** A module's text parsed (TypeScript unless the file name says JavaScript); a syntax error is located in it. */
export function parseModuleText(file: SourceFile): Program {
  const what = file.name.startsWith("<") ? "the TypeScript module" : file.name;
  const parsed = tryParse(file.text, !isJavaScript(file.name), what, { file, start: 0, end: 0 });
  if ("program" in parsed) return parsed.program;
  return fail("syntax", parsed.message, { file, start: parsed.pos, end: parsed.pos + 1 });
}
