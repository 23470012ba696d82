// TypeScript declarations for a Smooth module (`smooth types FILE`): one interface whose members are the module's
// definitions, typed from their inferred types, so that
//   const m = loadModule<ModelDefinitions>("model.smooth");   // import type { ModelDefinitions } from
// "./model.smooth.js"
// gives `m.loss(...)` (and grad(m.loss), ...) real types. Arrays are declared in their canonical form (a Vector is a
// Float64Array, a Matrix an array of Float64Array rows, an Array<Index> an Int32Array), a tuple as a JS array or an
// object of its parts; the library also accepts nested JS arrays, Float32Arrays and NDArrays at run time.

import type { SmoothProgram } from "../api/program.js";
import type { CheckedDef } from "../types/infer.js";
import { fail } from "../syntax/diagnostics.js";
import { prune, TypeNamer, type MType } from "../types/mtype.js";

/** How a value of type t may be passed in. */
function input(t: MType): string {
  t = prune(t);
  switch (t.k) {
    case "double":
    case "int":
      return "number";
    case "bool":
      return "boolean";
    case "tvar":
      return "any";
    case "fun":
    case "tape": // internal to reverse mode: never a definition's parameter or result
      return "never";
    case "tuple": {
      const parts = t.elems.map(input);
      return `readonly [${parts.join(", ")}] | { readonly [key: string]: ${[...new Set(parts)].join(" | ")} }`;
    }
    case "array": {
      const e = prune(t.elem);
      if (e.k === "double") return "Float64Array";
      if (e.k === "int") return "Int32Array";
      if (e.k === "bool") return "readonly boolean[]";
      return `readonly ${paren(input(e))}[]`;
    }
  }
}

/** What a result of type t is given back as (the default forms). */
function output(t: MType): string {
  t = prune(t);
  switch (t.k) {
    case "double":
    case "int":
      return "number";
    case "bool":
      return "boolean";
    case "tvar":
      return "any";
    case "fun":
    case "tape": // internal to reverse mode: never a definition's parameter or result
      return "never";
    case "tuple":
      return `[${t.elems.map(output).join(", ")}]`;
    case "array": {
      const e = prune(t.elem);
      if (e.k === "double") return "Float64Array";
      if (e.k === "int") return "Int32Array";
      if (e.k === "bool") return "boolean[]";
      return `${paren(output(e))}[]`;
    }
  }
}

const paren = (s: string): string => (/^[\w[\]]+$/.test(s) ? s : `(${s})`);

/** The member of one definition: its parameters (named as in the source) and result. */
function member(def: CheckedDef): string {
  const params: MType[] = [];
  let t = prune(def.scheme.type);
  for (; t.k === "fun"; t = prune(t.result)) params.push(t.param);
  const names = parameterNames(params.map((_, i) => def.paramNames[i]));
  const signature = `(${params.map((p, i) => `${names[i]}: ${input(p)}`).join(", ")}) => ${output(t)}`;
  const doc = `  /** ${blockCommentText(`${def.name} : ${new TypeNamer().showScheme(def.scheme.type)}`)} */`;
  const key = IDENTIFIER.test(def.name) && !RESERVED.has(def.name) ? def.name : stringLiteral(def.name);
  return `${doc}\n  readonly ${key}: (${signature}) & { readonly definitionType: string };`;
}

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/**
 * Words a declaration cannot use as a parameter or interface name: JavaScript's reserved words (also in strict mode
 * and modules, which a declaration file is), `eval` and `arguments` (no binding may take them in strict code), and the
 * names of TypeScript's own types (no interface may take them). A parameter named `this` would declare the type of
 * `this` instead of a parameter; `new` does not parse.
 */
const RESERVED: ReadonlySet<string> = new Set(
  (
    "break case catch class const continue debugger default delete do else enum export extends false finally for " +
    "function if import in instanceof new null return super switch this throw true try typeof var void while with " +
    "implements interface let package private protected public static yield await eval arguments " +
    "any boolean bigint never number object string symbol undefined unknown"
  ).split(" "),
);

/**
 * The parameters' names as distinct TypeScript identifiers: the source's where they can be (a prime becomes `_`, a
 * reserved word gets `_` after it), else `argK`.
 */
function parameterNames(names: readonly (string | undefined)[]): string[] {
  const used = new Set<string>();
  return names.map((name, i) => {
    const base = name === undefined ? `arg${i}` : name.replace(/'/g, "_");
    const start = IDENTIFIER.test(base) ? (RESERVED.has(base) ? `${base}_` : base) : `arg${i}`;
    let chosen = start;
    for (let k = 2; used.has(chosen) || RESERVED.has(chosen); k++) chosen = `${start}${k}`;
    used.add(chosen);
    return chosen;
  });
}

/**
 * A string as a TypeScript string literal: JSON's escapes, and U+2028 / U+2029 escaped too (JSON leaves them; tools
 * that read a file line by line take them for line ends).
 */
const stringLiteral = (s: string): string => escapeLineSeparators(JSON.stringify(s));

const escapeLineSeparators = (s: string): string =>
  s.replace(/[\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16)}`);

/**
 * Text for a comment, which must not end it: control characters (line breaks among them), U+2028 / U+2029 and lone
 * surrogates as `\uXXXX` escapes, so a `//` comment stays on its line. (Text written after the comment's end would be
 * declarations.)
 */
const commentText = (s: string): string =>
  s.replace(
    // eslint-disable-next-line no-control-regex -- control characters are what is escaped
    /[\u0000-\u001f\u007f-\u009f\u2028\u2029]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );

/** Text for a block comment: as commentText, with the comment's end (a star, then a slash) broken. */
const blockCommentText = (s: string): string => commentText(s).replace(/\*\//g, "*\\/");

/** Fails unless `name` can name the declarations' interface. */
export function checkInterfaceName(name: string, what = "the interface name"): void {
  if (!IDENTIFIER.test(name) || RESERVED.has(name))
    fail("argument", `${what} ${stringLiteral(name)} is not a TypeScript identifier`, undefined, {
      expected: "letters, digits, _ and $, not starting with a digit, and not a reserved word (e.g. ModelDefinitions)",
    });
}

/** The declaration file of a module's definitions, with the interface named `name`. */
export function declarations(program: SmoothProgram, name: string): string {
  checkInterfaceName(name);
  // A later definition of a name shadows an earlier one (the module has the later one).
  const last = new Map(program.userDefs.map((d) => [d.name, d]));
  const members = program.userDefs.filter((d) => last.get(d.name) === d).map(member);
  return [
    `// The definitions of ${commentText(baseName(program.file.name))}, as the Smooth library types them (written by \`smooth types\`;`,
    "// write it again when the file changes). Use: loadModule<" + name + ">(path).",
    "",
    `export interface ${name} {`,
    members.join("\n"),
    "}",
    "",
  ].join("\n");
}

const baseName = (path: string): string => path.split(/[\\/]/).pop() ?? path;

/** The interface name for a file: `model.smooth` → `ModelDefinitions`. */
export function interfaceName(path: string): string {
  const base = baseName(path).replace(/\.smooth$/, "");
  const words = base.split(/[^A-Za-z0-9]+/).filter((w) => w.length > 0);
  const camel = words.map((w) => w[0]!.toUpperCase() + w.slice(1)).join("");
  return `${/^[A-Za-z]/.test(camel) ? camel : `M${camel}`}Definitions`;
}
