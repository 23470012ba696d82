// Where a TypeScript function comes from: its syntax tree (parsed by the TypeScript compiler), the source file its
// spans point into, and how its free names resolve — to the declarations of its module (a .ts file given to the CLI,
// or a module text given to the library), or to the values its closure holds (a function value, read through the
// runtime's inspector where there is one).

import type * as TS from "typescript";
import { fail } from "../syntax/diagnostics.js";
import type { SourceFile, Span } from "../syntax/source.js";
import { typescript } from "./compiler.js";
import { withinCompilerStack } from "../api/compiler-stack.js";

/** A function-like declaration of the subset. */
export type FunctionNode = TS.FunctionDeclaration | TS.FunctionExpression | TS.ArrowFunction | TS.MethodDeclaration;

/** What a free name of a function is. */
export type Resolved =
  | { readonly k: "number"; readonly value: number }
  | { readonly k: "boolean"; readonly value: boolean }
  | { readonly k: "numbers"; readonly value: readonly number[] }
  | { readonly k: "function"; readonly source: () => FunctionSource; readonly value?: unknown }
  /** An object (a module namespace a bundler made, say): its properties are read as free names are. */
  | { readonly k: "object"; readonly value: object }
  | { readonly k: "other"; readonly what: string };

export interface Resolver {
  /** The value of a free name, or undefined when it is not known (then it is an error to use it). */
  lookup(name: string): Resolved | undefined;
  /** Why names cannot be resolved, for messages (e.g. "the function was given as a value, without its module"). */
  readonly limitation?: string;
}

export interface FunctionSource {
  /** The name in messages and of its Smooth definition. */
  readonly name: string;
  readonly node: FunctionNode;
  /** The file spans point into (its text holds the function at `offset`). */
  readonly file: SourceFile;
  /** Where the parsed text starts in `file.text`. */
  readonly offset: number;
  readonly scope: Resolver;
  /** The function value itself, when it was given as one (the library's plain functions). */
  readonly value?: unknown;
}

/** The span of a node of `src`'s tree in its file. */
export function spanOf(src: FunctionSource | { file: SourceFile; offset: number }, node: TS.Node): Span {
  const sf = sourceFileOf(node);
  const start = node.getStart(sf) - prefixOf(sf);
  return { file: src.file, start: src.offset + start, end: src.offset + start + (node.getEnd() - node.getStart(sf)) };
}

/**
 * `node.getSourceFile()`, remembered for the nodes on the way up: TypeScript walks up the parents each time, which
 * made spans quadratic in an expression's depth (a sum of 10⁴ terms is 10⁴ nested binary expressions).
 */
const SOURCE_FILES = new WeakMap<TS.Node, TS.SourceFile>();
function sourceFileOf(node: TS.Node): TS.SourceFile {
  const ts = typescript();
  const path: TS.Node[] = [];
  let sf: TS.SourceFile | undefined;
  for (let n: TS.Node | undefined = node; n !== undefined && sf === undefined; n = n.parent) {
    sf = SOURCE_FILES.get(n) ?? (ts.isSourceFile(n) ? n : undefined);
    if (sf === undefined) path.push(n);
  }
  if (sf === undefined) return node.getSourceFile(); // not in a tree: TypeScript's own answer
  for (const n of path) SOURCE_FILES.set(n, sf);
  return sf;
}

/** Function texts are parsed inside a short prefix (see parseFunctionText); positions exclude it. */
const PREFIXES = new WeakMap<TS.SourceFile, number>();
const prefixOf = (sf: TS.SourceFile): number => PREFIXES.get(sf) ?? 0;

/** Is this node a function of the subset? */
export function isFunctionNode(ts: typeof TS, n: TS.Node): n is FunctionNode {
  return (
    ts.isFunctionDeclaration(n) || ts.isFunctionExpression(n) || ts.isArrowFunction(n) || ts.isMethodDeclaration(n)
  );
}

/**
 * The tree of a function's text as `Function.prototype.toString` gives it: a declaration, an expression, an arrow
 * function or a method (`f(x) { ... }`). `file` holds the text (for messages), starting at `offset`.
 */
export function parseFunctionText(text: string, file: SourceFile, offset: number, what: string): FunctionNode {
  const ts = typescript();
  const attempts = [
    { prefix: "(", suffix: "\n)" },
    { prefix: "({", suffix: "\n})" },
  ];
  for (const { prefix, suffix } of attempts) {
    // (The TypeScript parser recurses on nesting: an else-if chain of 10⁴ branches exhausts the stack.)
    const sf = withinCompilerStack(
      what,
      () => ts.createSourceFile("function.ts", prefix + text + suffix, ts.ScriptTarget.Latest, true),
      { file, start: offset, end: offset + text.length },
    );
    PREFIXES.set(sf, prefix.length);
    const diagnostics = (sf as unknown as { parseDiagnostics: readonly TS.Diagnostic[] }).parseDiagnostics;
    if (diagnostics.length > 0) continue;
    const stmt = sf.statements[0];
    if (!stmt || !ts.isExpressionStatement(stmt)) continue;
    let e: TS.Expression = stmt.expression;
    while (ts.isParenthesizedExpression(e)) e = e.expression;
    if (ts.isFunctionExpression(e) || ts.isArrowFunction(e)) return e;
    if (ts.isObjectLiteralExpression(e) && e.properties.length === 1) {
      const m = e.properties[0]!;
      if (ts.isMethodDeclaration(m)) return m;
    }
  }
  if (/\{\s*\[native code\]\s*\}\s*$/.test(text))
    fail("unsupported", `${what} is a built-in or bound function: its source cannot be read`);
  if (/^\s*class\b/.test(text)) fail("unsupported", `${what} is a class, not a function`);
  return fail("unsupported", `the source of ${what} could not be read as a function`, {
    file,
    start: offset,
    end: offset + text.length,
  });
}

/** The function declarations and constants at the top level of a module text, by name. */
export interface ModuleSource {
  readonly file: SourceFile;
  readonly functions: ReadonlyMap<string, FunctionSource>;
  readonly exported: readonly string[];
}

/**
 * Reads a TypeScript or JavaScript module: its top-level functions (declared, or `const f = (...) => ...`) and
 * constants.
 */
export function parseModule(file: SourceFile): ModuleSource {
  const ts = typescript();
  const sf = withinCompilerStack(
    file.name.startsWith("<") ? "the TypeScript module" : file.name,
    () => ts.createSourceFile(file.name, file.text, ts.ScriptTarget.Latest, true),
    { file, start: 0, end: 0 },
  );
  const diagnostics = (sf as unknown as { parseDiagnostics: readonly TS.Diagnostic[] }).parseDiagnostics;
  const first = diagnostics[0];
  if (first)
    fail("syntax", ts.flattenDiagnosticMessageText(first.messageText, "\n"), {
      file,
      start: first.start ?? 0,
      end: (first.start ?? 0) + (first.length ?? 1),
    });
  const functions = new Map<string, FunctionSource>();
  const constants = new Map<string, TS.Expression>();
  const exported: string[] = [];
  const scope: Resolver = {
    lookup: (name) => {
      const f = functions.get(name);
      if (f) return { k: "function", source: () => f };
      const c = constants.get(name);
      return c ? constantValue(ts, c) : undefined;
    },
  };
  const isExported = (s: TS.Statement) =>
    (ts.getCombinedModifierFlags(s as unknown as TS.Declaration) & ts.ModifierFlags.Export) !== 0;
  for (const s of sf.statements) {
    if (ts.isFunctionDeclaration(s) && s.name && s.body) {
      functions.set(s.name.text, { name: s.name.text, node: s, file, offset: 0, scope });
      if (isExported(s)) exported.push(s.name.text);
    } else if (ts.isVariableStatement(s)) {
      for (const d of s.declarationList.declarations) {
        if (!ts.isIdentifier(d.name) || !d.initializer) continue;
        let init: TS.Expression = d.initializer;
        while (ts.isParenthesizedExpression(init) || ts.isAsExpression(init)) init = init.expression;
        const name = d.name.text;
        if (ts.isArrowFunction(init) || ts.isFunctionExpression(init)) {
          functions.set(name, { name, node: init, file, offset: 0, scope });
          if (isExported(s)) exported.push(name);
        } else if ((s.declarationList.flags & ts.NodeFlags.Const) !== 0) constants.set(name, init);
      }
    }
  }
  return { file, functions, exported };
}

/** A constant's value when it is a number, a boolean, or an array of numbers written out (else "other"). */
function constantValue(ts: typeof TS, e: TS.Expression): Resolved {
  const n = numberOf(ts, e);
  if (n !== undefined) return { k: "number", value: n };
  if (e.kind === ts.SyntaxKind.TrueKeyword || e.kind === ts.SyntaxKind.FalseKeyword)
    return { k: "boolean", value: e.kind === ts.SyntaxKind.TrueKeyword };
  let list: TS.Expression | undefined = e;
  if (ts.isNewExpression(e) && e.arguments?.length === 1) list = e.arguments[0];
  if (list && ts.isArrayLiteralExpression(list)) {
    const values = list.elements.map((x) => numberOf(ts, x));
    if (values.every((x) => x !== undefined)) return { k: "numbers", value: values };
  }
  return { k: "other", what: "a constant that is not a number, a boolean or a list of numbers" };
}

function numberOf(ts: typeof TS, e: TS.Expression): number | undefined {
  if (ts.isNumericLiteral(e)) return Number(e.text);
  if (ts.isPrefixUnaryExpression(e) && e.operator === ts.SyntaxKind.MinusToken) {
    const x = numberOf(ts, e.operand);
    return x === undefined ? undefined : -x;
  }
  if (ts.isParenthesizedExpression(e)) return numberOf(ts, e.expression);
  return undefined;
}
