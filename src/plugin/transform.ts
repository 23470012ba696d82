// The bundler plugin's transform: the functions a module gives to Smooth's transforms, and its top-level functions,
// are marked with an accessor of the variables they read from outside (`__smooth_closure(f, () => [X, y], site)`),
// which the library calls instead of reading the closure (a browser has no way to read one: src/tsfront/closure.ts).
// The accessor lists the variables as an array of identifiers, so a bundler that renames them (two modules' `X`
// becoming `X` and `X2`) renames them there as in the function, and the library reads the names from the accessor's
// text. Edits are made with magic-string, which gives the source map: lines stay the user's (the helper the marks
// call is a function declaration appended at the end, hoisted).

import type * as A from "acorn";
import MagicString from "magic-string";
import { parseForPlugin } from "./parse.js";
import { analyse, children, declarationOf, freeNames } from "../tsfront/scopes.js";

/** The library's functions that take a function to transform (src/index.ts). */
export const TRANSFORMS: readonly string[] = [
  "grad",
  "valueAndGrad",
  "jacobian",
  "hessian",
  "jvp",
  "vjp",
  "linearize",
  "vmap",
  "compile",
  "customJvp",
  "customVjp",
  "emitModule",
];

/** The module names the library is imported by. */
export const LIBRARY_MODULES: readonly string[] = ["smooth-ad", "smooth-ad/browser", "smooth-ad/node"];

export interface TransformOptions {
  /** Further module names that import the library (an alias of it). */
  readonly modules?: readonly string[];
  /** Where paths in messages are relative to (default: the current directory). */
  readonly root?: string;
}

const HELPER = "__smooth_closure";
const HELPER_TEXT =
  `\nfunction ${HELPER}(f, read, site) { try { Object.defineProperty(f, Symbol.for("smooth-ad.closure"), ` +
  `{ value: { read, site }, configurable: true }); } catch {} return f; }\n`;

type FunctionNode = A.FunctionDeclaration | A.FunctionExpression | A.ArrowFunctionExpression;
const isFunctionValue = (n: A.Node | null | undefined): n is A.FunctionExpression | A.ArrowFunctionExpression =>
  n?.type === "FunctionExpression" || n?.type === "ArrowFunctionExpression";

/** The local names the module binds to the library's transforms, and its namespaces of the library. */
function libraryBindings(
  program: A.Program,
  modules: ReadonlySet<string>,
): { names: Set<string>; spaces: Set<string> } {
  const names = new Set<string>();
  const spaces = new Set<string>();
  const fromLibrary = (e: A.Node | null | undefined): boolean => {
    let x = e;
    if (x?.type === "AwaitExpression") x = (x as A.AwaitExpression).argument;
    const source =
      x?.type === "ImportExpression"
        ? (x as A.ImportExpression).source
        : x?.type === "CallExpression" &&
            (x as A.CallExpression).callee.type === "Identifier" &&
            ((x as A.CallExpression).callee as A.Identifier).name === "require"
          ? (x as A.CallExpression).arguments[0]
          : undefined;
    return source?.type === "Literal" && modules.has(String(source.value));
  };
  const work: A.Node[] = [program];
  while (work.length > 0) {
    const n = work.pop()!;
    if (n.type === "ImportDeclaration" && modules.has(String((n as A.ImportDeclaration).source.value))) {
      for (const s of (n as A.ImportDeclaration).specifiers) {
        if (s.type === "ImportNamespaceSpecifier") spaces.add(s.local.name);
        else if (
          s.type === "ImportSpecifier" &&
          s.imported.type === "Identifier" &&
          TRANSFORMS.includes(s.imported.name)
        )
          names.add(s.local.name);
      }
    } else if (n.type === "VariableDeclarator" && fromLibrary((n as A.VariableDeclarator).init)) {
      const id = (n as A.VariableDeclarator).id;
      if (id.type === "Identifier") spaces.add(id.name);
      else if (id.type === "ObjectPattern")
        for (const p of id.properties)
          if (p.type === "Property" && p.key.type === "Identifier" && TRANSFORMS.includes(p.key.name))
            if (p.value.type === "Identifier") names.add(p.value.name);
    }
    work.push(...children(n));
  }
  return { names, spaces };
}

/** Line (1-based) and column of an offset. */
function lineColumn(code: string, offset: number): string {
  let line = 1;
  let last = -1;
  for (let i = code.indexOf("\n"); i >= 0 && i < offset; i = code.indexOf("\n", i + 1)) {
    line++;
    last = i;
  }
  return `${line}:${offset - last - 1}`;
}

/**
 * The module with closures marked, and its source map; undefined when nothing needs marking (or the module cannot be
 * parsed: then `warn` says why).
 */
export function transformClosures(
  code: string,
  id: string,
  options: TransformOptions = {},
  warn: (message: string) => void = () => {},
): { code: string; map: ReturnType<MagicString["generateMap"]> } | undefined {
  if (code.includes(HELPER)) return undefined; // marked already
  let program: A.Program;
  try {
    program = parseForPlugin(code, id);
  } catch (e) {
    warn(`smooth-ad/plugin: ${id} was not read (${(e as Error).message}); its closures are not marked`);
    return undefined;
  }
  const scopes = analyse(program);
  const { names, spaces } = libraryBindings(program, new Set([...LIBRARY_MODULES, ...(options.modules ?? [])]));
  const file = relativeName(id, options.root);
  const s = new MagicString(code);
  const marked = new Set<A.Node>();
  /** Statements put at the start of the module (on its first line: lines stay the user's). */
  const registrations: string[] = [];

  const accessor = (f: FunctionNode): string | undefined => {
    const free = freeNames(f, scopes);
    if (free.length === 0) return undefined;
    return `() => [${free.join(", ")}], ${JSON.stringify(`${file}:${lineColumn(code, f.start)}`)}`;
  };
  const wrap = (f: A.FunctionExpression | A.ArrowFunctionExpression): void => {
    if (marked.has(f)) return;
    marked.add(f);
    const read = accessor(f);
    if (read === undefined) return;
    s.appendLeft(f.start, `${HELPER}(`);
    s.prependRight(f.end, `, ${read})`);
  };
  const register = (f: A.FunctionDeclaration, at: number): void => {
    if (marked.has(f) || !f.id) return;
    marked.add(f);
    const read = accessor(f);
    if (read === undefined) return;
    if (at === 0) registrations.push(`${HELPER}(${f.id.name}, ${read});`);
    else s.appendLeft(at, ` ${HELPER}(${f.id.name}, ${read});`);
  };

  // The module's top-level functions (helpers a marked function may call, from this module or another).
  for (const top of program.body) {
    const d =
      top.type === "ExportNamedDeclaration" || top.type === "ExportDefaultDeclaration" ? declarationOf(top) : top;
    if (d?.type === "FunctionDeclaration") register(d as A.FunctionDeclaration, 0);
    else if (d?.type === "VariableDeclaration")
      for (const v of (d as A.VariableDeclaration).declarations) if (isFunctionValue(v.init)) wrap(v.init);
  }

  // The functions given to transforms: written there, or a function of the module named there.
  const isTransform = (callee: A.Node): boolean => {
    if (callee.type === "Identifier") {
      const name = (callee as A.Identifier).name;
      return names.has(name) && scopes.module.names.get(name) !== undefined;
    }
    if (callee.type !== "MemberExpression") return false;
    const m = callee as A.MemberExpression;
    return (
      m.object.type === "Identifier" &&
      spaces.has(m.object.name) &&
      !m.computed &&
      m.property.type === "Identifier" &&
      TRANSFORMS.includes(m.property.name)
    );
  };
  for (const r of scopes.references) {
    if (!names.has(r.node.name) && !spaces.has(r.node.name)) continue;
    if (r.scope.lookup(r.node.name)?.scope !== scopes.module) continue; // shadowed
    const call = callOf(program, r.node);
    if (!call || !isTransform(call.callee)) continue;
    for (const arg of call.arguments) {
      if (isFunctionValue(arg)) wrap(arg);
      else if (arg.type === "Identifier") {
        const d = r.scope.lookup(arg.name) ?? scopes.module.lookup(arg.name);
        const node = d?.node;
        if (node?.type === "FunctionDeclaration" && d!.scope !== scopes.module) {
          const body = (d!.scope.owner as { body?: A.Node }).body ?? d!.scope.owner;
          const at = body.type === "BlockStatement" ? body.start + 1 : d!.scope.owner.start;
          register(node as A.FunctionDeclaration, at);
        } else if (node?.type === "VariableDeclarator" && isFunctionValue((node as A.VariableDeclarator).init))
          wrap((node as A.VariableDeclarator).init as A.ArrowFunctionExpression);
      }
    }
  }

  if (marked.size === 0 || !s.hasChanged()) return undefined;
  if (registrations.length > 0) s.appendLeft(startOfCode(program), registrations.join(" ") + " ");
  s.append(HELPER_TEXT);
  return { code: s.toString(), map: s.generateMap({ hires: true, source: id, includeContent: true }) };
}

/** Where the module's statements start: after its directives ("use strict") and a hashbang. */
function startOfCode(program: A.Program): number {
  for (const st of program.body)
    if (!(st.type === "ExpressionStatement" && (st as { directive?: string }).directive !== undefined)) return st.start;
  return program.end;
}

/** The call whose callee is `id` itself or `id.member`, found by position. */
function callOf(program: A.Program, id: A.Identifier): A.CallExpression | undefined {
  let found: A.CallExpression | undefined;
  const work: A.Node[] = [program];
  while (work.length > 0 && !found) {
    const n = work.pop()!;
    if (n.end < id.start || n.start > id.end) continue;
    if (n.type === "CallExpression") {
      const callee = (n as A.CallExpression).callee;
      if (callee.start === id.start && (callee === id || (callee.type === "MemberExpression" && callee.object === id)))
        found = n as A.CallExpression;
    }
    work.push(...children(n));
  }
  return found;
}

function relativeName(id: string, root: string | undefined): string {
  const base = (root ?? (globalThis as { process?: { cwd(): string } }).process?.cwd() ?? "").replace(/\/?$/, "/");
  const clean = id.split("?")[0]!;
  return base !== "/" && clean.startsWith(base) ? clean.slice(base.length) : clean;
}
