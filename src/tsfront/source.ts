// Where a TypeScript function comes from: its syntax tree (parsed by acorn: ./parse.ts), the source file its spans
// point into, and how its free names resolve — to the declarations of its module (a .ts file given to the CLI, or a
// module text given to the library), or to the values its closure holds (a function value, read through the
// runtime's inspector where there is one: ./closure.ts).

import type * as A from "acorn";
import type { SourceFile, Span } from "../syntax/source.js";
import { parseModuleText } from "./parse.js";
import { classInfo, type ClassInfo } from "./classes.js";
import { bare, numberLiteral, type FunctionNode, type Node } from "./syntax.js";

/**
 * How data a closure holds is reached from the function given to the library: through functions it calls by free
 * name (`hops`: each a name of the previous function's closure and properties of its value, `ns.helper`), then a
 * name of the last one's closure and properties of its value (`data.X`). The library reads it again at each call.
 */
export interface Hop {
  readonly name: string;
  readonly props: readonly string[];
}
export interface Route extends Hop {
  readonly hops: readonly Hop[];
}

/** What a free name of a function is. */
export type Resolved =
  /** A constant of a module's text (`const n = 3`, `const w = [1, 2]`): part of the program. */
  | { readonly k: "number"; readonly value: number }
  | { readonly k: "boolean"; readonly value: boolean }
  | { readonly k: "numbers"; readonly value: readonly number[] }
  /**
   * A value a closure holds that is not a function — a number, a boolean, an array, a typed array, an object — read
   * at each call (`route`, where the translation is for the library) and passed to the compiled code; its
   * properties are read by `member`.
   */
  | {
      readonly k: "data";
      readonly value: unknown;
      readonly route?: Route;
      readonly member?: (name: string) => Resolved | undefined;
    }
  | { readonly k: "function"; readonly source: () => FunctionSource; readonly value?: unknown }
  /** A class (./classes.ts). */
  | { readonly k: "class"; readonly info: () => ClassInfo }
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
  /** The file spans point into. */
  readonly file: SourceFile;
  /** What to add to a node's position for its position in `file.text`. */
  readonly offset: number;
  readonly scope: Resolver;
  /** The function value itself, when it was given as one (the library's plain functions). */
  readonly value?: unknown;
  /** The names its text mentions that its closure may hold (a function value's). */
  readonly freeNames?: readonly string[];
  /** Where it is defined, when known ("script:line:column", or the plugin's "file:line:column"). */
  readonly site?: string;
}

/** The span of a node of `src`'s tree in its file. */
export function spanOf(src: { readonly file: SourceFile; readonly offset: number }, node: Node): Span {
  return { file: src.file, start: src.offset + node.start, end: src.offset + node.end };
}

/** The function declarations and constants at the top level of a module text, by name. */
export interface ModuleSource {
  readonly file: SourceFile;
  readonly functions: ReadonlyMap<string, FunctionSource>;
  readonly exported: readonly string[];
}

/**
 * Reads a TypeScript or JavaScript module: its top-level functions (declared, or `const f = (...) => ...`) and
 * constants, exported or not.
 */
export function parseModule(file: SourceFile): ModuleSource {
  const program = parseModuleText(file);
  const functions = new Map<string, FunctionSource>();
  const constants = new Map<string, A.Expression>();
  const classes = new Map<string, ClassInfo>();
  const exported: string[] = [];
  const scope: Resolver = {
    lookup: (name) => {
      const f = functions.get(name);
      if (f) return { k: "function", source: () => f };
      const cls = classes.get(name);
      if (cls) return { k: "class", info: () => cls };
      const c = constants.get(name);
      return c ? constantValue(c) : undefined;
    },
  };
  for (const top of program.body) {
    const isExported = top.type === "ExportNamedDeclaration" || top.type === "ExportDefaultDeclaration";
    const s = isExported ? top.declaration : top;
    if (!s) continue;
    if (s.type === "ClassDeclaration" && s.id) classes.set(s.id.name, classInfo(s, s.id.name, file, 0, scope));
    else if (s.type === "FunctionDeclaration" && s.id && s.body) {
      functions.set(s.id.name, { name: s.id.name, node: s, file, offset: 0, scope });
      if (isExported) exported.push(s.id.name);
    } else if (s.type === "VariableDeclaration") {
      for (const d of s.declarations) {
        if (d.id.type !== "Identifier" || !d.init) continue;
        const init = bare(d.init);
        const name = d.id.name;
        if (init.type === "ArrowFunctionExpression" || init.type === "FunctionExpression") {
          functions.set(name, { name, node: init, file, offset: 0, scope });
          if (isExported) exported.push(name);
        } else if (s.kind === "const") constants.set(name, init);
      }
    }
  }
  return { file, functions, exported };
}

/** A constant's value when it is a number, a boolean, or an array of numbers written out (else "other"). */
function constantValue(e: A.Expression): Resolved {
  const n = numberOf(e);
  if (n !== undefined) return { k: "number", value: n };
  if (e.type === "Literal" && typeof e.value === "boolean") return { k: "boolean", value: e.value };
  let list: A.Expression | A.SpreadElement | undefined = e;
  if (e.type === "NewExpression" && e.arguments.length === 1) list = e.arguments[0];
  if (list?.type === "ArrayExpression") {
    const values = list.elements.map((x) => (x && x.type !== "SpreadElement" ? numberOf(x) : undefined));
    if (values.every((x) => x !== undefined)) return { k: "numbers", value: values };
  }
  return { k: "other", what: "a constant that is not a number, a boolean or a list of numbers" };
}

function numberOf(e0: A.Expression): number | undefined {
  const e = bare(e0);
  const n = numberLiteral(e);
  if (n !== undefined) return n;
  if (e.type === "UnaryExpression" && (e.operator === "-" || e.operator === "+")) {
    const x = numberOf(e.argument);
    return x === undefined ? undefined : e.operator === "-" ? -x : x;
  }
  return undefined;
}
