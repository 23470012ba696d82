// Which free names of a function can never change: a `const`, or a variable, parameter or function declaration that
// nothing in its script ever assigns. Node's inspector reads a closure at each call of a compiled function (about
// 0.1 to 1 ms a read, ./closure.ts); a function whose free names are all constant is read once, its arrays' contents
// still read at each call. Found from the function's script (its source, as V8 runs it) by ./scopes.ts; anything
// unclear (a function the script's text does not show as it is, `eval` or `with` in the script, an import, which its
// module may assign) counts as changing.

import type * as A from "acorn";
import { Parser, type Options } from "acorn";
import { analyse, type Declaration, type Scopes } from "./scopes.js";

interface Script {
  readonly text: string;
  readonly program: A.Program;
  readonly scopes: Scopes;
  readonly lineStarts: readonly number[];
  /** The declarations something assigns, or whose parameters `arguments` may alias. */
  readonly assigned: ReadonlySet<Declaration>;
  readonly functions: readonly A.Function[];
}

const OPTIONS: Options = {
  ecmaVersion: "latest",
  allowHashBang: true,
  allowReturnOutsideFunction: true,
  allowAwaitOutsideFunction: true,
  allowImportExportEverywhere: true,
};

/** Scripts read, by id (a few: each holds its syntax tree). */
const SCRIPTS = new Map<string, Script | null>();
const MAX_SCRIPTS = 16;

/** The constant names found per function place ("script:line:column") and text. */
const FOUND = new Map<string, ReadonlySet<string>>();
const MAX_FOUND = 1024;

const NONE: ReadonlySet<string> = new Set();

function remember<K, V>(map: Map<K, V>, max: number, key: K, value: V): V {
  map.set(key, value);
  if (map.size > max) map.delete(map.keys().next().value as K);
  return value;
}

function scriptOf(id: string, source: (id: string) => string | undefined): Script | null {
  const known = SCRIPTS.get(id);
  if (known !== undefined) return known;
  let script: Script | null = null;
  try {
    const text = source(id);
    if (text !== undefined && !/\beval\s*\(|\bwith\s*\(/.test(text)) script = read(text);
  } catch {
    script = null;
  }
  return remember(SCRIPTS, MAX_SCRIPTS, id, script);
}

function read(text: string): Script {
  let program: A.Program;
  try {
    program = Parser.parse(text, { ...OPTIONS, sourceType: "module" });
  } catch {
    program = Parser.parse(text, { ...OPTIONS, sourceType: "script" });
  }
  const scopes = analyse(program);
  const assigned = new Set<Declaration>();
  for (const r of scopes.references) {
    const d = r.scope.lookup(r.node.name);
    if (!d) continue;
    if (r.write) assigned.add(d);
    // (In a function that reads `arguments`, writing `arguments[0]` may assign its first parameter.)
    if (r.node.name === "arguments") for (const p of d.scope.names.values()) if (p.kind === "param") assigned.add(p);
  }
  const lineStarts = [0];
  for (let i = text.indexOf("\n"); i >= 0; i = text.indexOf("\n", i + 1)) lineStarts.push(i + 1);
  return { text, program, scopes, lineStarts, assigned, functions: [...scopes.ofFunction.keys()] as A.Function[] };
}

const constant = (d: Declaration, script: Script): boolean =>
  d.kind === "const" ||
  ((d.kind === "let" || d.kind === "var" || d.kind === "function" || d.kind === "param" || d.kind === "class") &&
    !d.again &&
    !script.assigned.has(d));

/**
 * The names of `names` whose values in the closure of the function of text `text`, defined at `line` and `column`
 * (0-based) of script `id`, never change or are never read: declarations outside it that never change, and names it
 * declares itself. `source` gives a script's text.
 */
export function constantNames(
  id: string,
  line: number,
  column: number,
  text: string,
  names: readonly string[],
  source: (id: string) => string | undefined,
): ReadonlySet<string> {
  const key = `${id}:${line}:${column}:${text}`;
  const known = FOUND.get(key);
  if (known) return known;
  const script = scriptOf(id, source);
  if (!script) return remember(FOUND, MAX_FOUND, key, NONE);
  const at = (script.lineStarts[line] ?? 0) + column;
  // The function whose text is the function's, nearest its place (V8 places a function at its start or its name).
  let best: A.Function | undefined;
  for (const f of script.functions)
    if (script.text.slice(f.start, f.end) === text && (!best || Math.abs(f.start - at) < Math.abs(best.start - at)))
      best = f;
  const own = best && script.scopes.ofFunction.get(best);
  if (!own) return remember(FOUND, MAX_FOUND, key, NONE);
  const found = new Set<string>();
  for (const n of names) {
    const d: Declaration | undefined = own.lookup(n);
    // A name the function declares itself (a parameter, a top-level local) shadows the closure's in all of its body:
    // the closure's variable of that name, which the inspector still finds, is never read.
    if (d && (d.scope.within(own) || constant(d, script))) found.add(n);
  }
  return remember(FOUND, MAX_FOUND, key, found);
}
