// A definition's parameters as the playground shows them: their names and types, read from the program (Smooth) or
// from the function's annotations (TypeScript), and example arguments made from the types, so that choosing another
// function fills in arguments it accepts and "with respect to" the parameters that have derivatives.

import { loadProgram } from "../src/api/program.js";
import { parseModule } from "../src/tsfront/source.js";
import { TypeNamer } from "../src/types/mtype.js";

export type Language = "smooth" | "typescript";

export interface Parameter {
  readonly name: string;
  /** The type as written or inferred: "Vector", "number[][]"; "" when not known. */
  readonly type: string;
}

/** The parameters of `fn` in `source`, or undefined when the program does not read or has no such function. */
export function parametersOf(source: string, language: Language, fn: string): Parameter[] | undefined {
  try {
    return language === "smooth" ? smoothParameters(source, fn) : typescriptParameters(source, fn);
  } catch {
    return undefined;
  }
}

function smoothParameters(source: string, fn: string): Parameter[] {
  const def = loadProgram({ name: "playground", text: source }).definition(fn);
  const types = splitArrows(new TypeNamer().showScheme(def.scheme.type));
  return def.paramNames.map((name, i) => ({ name, type: types[i] ?? "" }));
}

/** "Vector -> (Double -> Double) -> Double" as its parameter types (arrows inside parentheses kept). */
function splitArrows(type: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < type.length; i++) {
    const c = type[i];
    if (c === "(" || c === "[" || c === "<") depth++;
    else if (c === ")" || c === "]" || c === ">") depth--;
    else if (depth === 0 && type.startsWith(" -> ", i)) {
      parts.push(type.slice(start, i));
      start = i + 4;
      i += 3; // past the arrow, whose ">" is not a bracket
    }
  }
  return parts; // the last part is the result's type
}

interface ParamNode {
  readonly type: string;
  readonly name?: string;
  readonly left?: ParamNode;
  readonly typeAnnotation?: { readonly typeAnnotation: { readonly start: number; readonly end: number } };
}

function typescriptParameters(source: string, fn: string): Parameter[] | undefined {
  const module = parseModule({ name: "playground", text: source });
  const f = module.functions.get(fn);
  if (!f) return undefined;
  return (f.node.params as unknown as ParamNode[]).map((p, i) => {
    const id = p.type === "AssignmentPattern" && p.left ? p.left : p;
    const annotation = id.typeAnnotation?.typeAnnotation;
    const type = annotation ? f.file.text.slice(annotation.start + f.offset, annotation.end + f.offset) : "";
    return { name: id.name ?? `argument ${i}`, type };
  });
}

/** An example value of a type, as JSON text; undefined for a type with no obvious example. */
export function exampleValue(type: string): string | undefined {
  const t = type.replace(/\s+/g, "").replace(/^readonly/, "");
  if (t === "Double" || t === "number" || t === "") return "1";
  if (t === "Index") return "2";
  if (t === "Bool" || t === "boolean") return "true";
  if (t === "Vector" || t === "number[]" || t === "Float64Array" || t === "Array<Double>") return "[1, 2, 3]";
  if (t === "Matrix" || t === "number[][]" || t === "Float64Array[]" || t === "Array<Vector>")
    return "[[1, 2, 3], [4, 5, 6]]";
  return undefined;
}

/** Whether a parameter of this type has a derivative (numbers and arrays of them, not indexes or booleans). */
export const differentiable = (type: string): boolean => !/^(Index|Bool|boolean)$/.test(type.trim());

/** Arguments and "with respect to" for a function's parameters, or undefined when a type has no example. */
export function defaultsFor(params: readonly Parameter[]): { args: string; wrt: string } | undefined {
  const values = params.map((p) => exampleValue(p.type));
  if (values.some((v) => v === undefined)) return undefined;
  const wrt = params.flatMap((p, i) => (differentiable(p.type) ? [String(i)] : []));
  return { args: `[${values.join(", ")}]`, wrt: wrt.join(", ") || "0" };
}
