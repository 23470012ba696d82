// TypeScript declarations for a Smooth module (`smooth types FILE`): one interface whose members are the module's
// definitions, typed from their inferred types, so that
//   const m = loadModule<ModelDefinitions>("model.smooth");   // import type { ModelDefinitions } from
// "./model.smooth.js"
// gives `m.loss(...)` (and grad(m.loss), ...) real types. Arrays are declared in their canonical form (a Vector is a
// Float64Array, a Matrix an array of Float64Array rows, an Array<Index> an Int32Array), a tuple as a JS array or an
// object of its parts; the library also accepts nested JS arrays, Float32Arrays and NDArrays at run time.

import type { SmoothProgram } from "../api/program.js";
import type { CheckedDef } from "../types/infer.js";
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
  const names = params.map((_, i) => safeName(def.paramNames[i], i));
  const signature = `(${params.map((p, i) => `${names[i]}: ${input(p)}`).join(", ")}) => ${output(t)}`;
  const doc = `  /** ${def.name} : ${new TypeNamer().showScheme(def.scheme.type)} */`;
  const key = /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(def.name) ? def.name : JSON.stringify(def.name);
  return `${doc}\n  readonly ${key}: (${signature}) & { readonly definitionType: string };`;
}

/** A parameter name as a TypeScript identifier (Smooth names are, except for primes). */
const safeName = (name: string | undefined, i: number): string =>
  name && /^[A-Za-z_][A-Za-z0-9_]*$/.test(name) ? name : `arg${i}`;

/** The declaration file of a module's definitions, with the interface named `name`. */
export function declarations(program: SmoothProgram, name: string): string {
  const members = program.userDefs.map(member);
  return [
    `// The definitions of ${baseName(program.file.name)}, as the Smooth library types them (written by \`smooth types\`;`,
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
