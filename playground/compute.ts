// What the playground computes, apart from the page: a program (Smooth, or TypeScript functions), a definition,
// arguments and a transform give the result (labelled by the parameters it is a derivative in), the optimised program
// that ran (Smooth text), its generated JavaScript, and for a function of Doubles the points of f and f' around the
// first argument. Everything goes through the library (src/index.ts), in the page.

import {
  compile,
  grad,
  hessian,
  inspect,
  jacobian,
  SmoothError,
  smoothModule,
  typescriptModule,
  type AnyFunction,
} from "../src/index.js";
import { parseArgumentsJson } from "../src/runtime/json.js";
import { parametersOf, type Language, type Parameter } from "./signature.js";

export type Transform = "value" | "gradient" | "jacobian" | "hessian";

export interface Request {
  readonly language: Language;
  readonly source: string;
  readonly fn: string;
  /** The arguments as a JSON array. */
  readonly args: string;
  readonly transform: Transform;
  /** The arguments to differentiate: "0", or "0, 2" (then results are lists). */
  readonly wrt: string;
}

export interface Curve {
  readonly xs: number[];
  readonly f: number[];
  readonly df: number[];
}

export interface Outcome {
  readonly result: string;
  readonly program: string;
  readonly javascript: string;
  readonly curve?: Curve;
}

/** A located error: 1-based line and column, and the character range in the editor's text. */
export interface Located {
  readonly message: string;
  readonly line?: number;
  readonly from?: number;
  readonly to?: number;
}

export const FILE_NAME = "playground";

const moduleOf = (source: string, language: Language): Record<string, AnyFunction> =>
  language === "smooth"
    ? smoothModule(source, { fileName: FILE_NAME })
    : typescriptModule(source, { fileName: FILE_NAME });

/** The definitions of the program, in order (for the function menu); an error in the program gives none. */
export function definitionNames(source: string, language: Language): string[] {
  try {
    return Object.keys(moduleOf(source, language));
  } catch {
    return [];
  }
}

function parseWrt(text: string): number | number[] {
  const parts = text.split(",").map((s) => s.trim());
  const numbers = parts.map(Number);
  if (parts.some((p) => p === "") || numbers.some((n) => !Number.isInteger(n) || n < 0))
    throw new SmoothError("argument", `"with respect to" must be argument positions such as 0 or 0, 2, got "${text}"`);
  return numbers.length === 1 ? numbers[0]! : numbers;
}

function transformed(f: AnyFunction, transform: Transform, argnums: number | number[]): AnyFunction {
  switch (transform) {
    case "value":
      return compile(f);
    case "gradient":
      return grad(f, { argnums });
    case "jacobian":
      return jacobian(f, { argnums });
    case "hessian":
      return hessian(f, { argnums });
  }
}

/** A result as text: typed arrays as lists, numbers in full. */
export function show(value: unknown, indent = ""): string {
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  if (value === null || value === undefined) return "null";
  if (ArrayBuffer.isView(value)) return show(Array.from(value as unknown as ArrayLike<number>), indent);
  if (Array.isArray(value)) {
    const items = value.map((v) => show(v, indent + "  "));
    const flat = `[${items.join(", ")}]`;
    return flat.length <= 80 && !flat.includes("\n")
      ? flat
      : `[\n${indent}  ${items.join(`,\n${indent}  `)}\n${indent}]`;
  }
  if (typeof value === "object") {
    const entries = Object.entries(value).map(([k, v]) => `${k}: ${show(v, indent + "  ")}`);
    return `{ ${entries.join(", ")} }`;
  }
  return typeof value === "string" ? value : typeof value;
}

/** f and f' at 121 points around the first argument, when every argument is a number and f returns one. */
function curve(f: AnyFunction, args: unknown[]): Curve | undefined {
  if (args.length === 0 || !args.every((a) => typeof a === "number")) return undefined;
  const at = args;
  const x0 = at[0] ?? 0;
  const fc = compile(f);
  if (typeof fc(...at) !== "number") return undefined;
  const df = grad(f, { argnums: 0 });
  const half = Math.max(3, Math.abs(x0));
  const xs = Array.from({ length: 121 }, (_, i) => x0 - half + (2 * half * i) / 120);
  const point = (x: number): number[] => [x, ...at.slice(1)];
  return { xs, f: xs.map((x) => fc(...point(x)) as number), df: xs.map((x) => df(...point(x)) as number) };
}

/**
 * A derivative's text labelled by the parameters it is taken in: `∂f/∂u = ...` per line for a gradient or Jacobian
 * in several parameters (one result each), `∂²f/∂u∂v = ...` per block of a Hessian; a value as it is.
 */
export function labelled(
  value: unknown,
  transform: Transform,
  fn: string,
  wrt: number | number[],
  params: readonly Parameter[] | undefined,
): string {
  if (transform === "value") return show(value);
  const name = (i: number) => params?.[i]?.name ?? `arg${i}`;
  const positions = Array.isArray(wrt) ? wrt : [wrt];
  const several = Array.isArray(wrt) && Array.isArray(value) && value.length === wrt.length;
  if (transform !== "hessian") {
    const parts = several ? (value as unknown[]) : [value];
    return parts.map((part, k) => `∂${fn}/∂${name(positions[k]!)} = ${show(part, "  ")}`).join("\n");
  }
  if (!several) return `∂²${fn}/∂${name(positions[0]!)}² = ${show(value, "  ")}`;
  const lines: string[] = [];
  (value as unknown[][]).forEach((row, a) =>
    row.forEach((block, b) => {
      const pair = a === b ? `∂${name(positions[a]!)}²` : `∂${name(positions[a]!)}∂${name(positions[b]!)}`;
      lines.push(`∂²${fn}/${pair} = ${show(block, "  ")}`);
    }),
  );
  return lines.join("\n");
}

export function evaluate(req: Request): Outcome {
  const module = moduleOf(req.source, req.language);
  const f = module[req.fn];
  if (!f)
    throw new SmoothError("name", `there is no definition named \`${req.fn}\``, undefined, {
      hint: `definitions: ${Object.keys(module).join(", ") || "none"}`,
    });
  const args = parseArgumentsJson(req.args, "the arguments");
  const wrt = req.transform === "value" ? 0 : parseWrt(req.wrt);
  const g = transformed(f, req.transform, wrt);
  const params = parametersOf(req.source, req.language, req.fn);
  const result = labelled(g(...args), req.transform, req.fn, wrt, params);
  const { smooth, javascript } = inspect(g, ...args);
  const plot = req.transform === "value" || req.transform === "gradient" ? curve(f, args) : undefined;
  return { result, program: smooth, javascript, ...(plot ? { curve: plot } : {}) };
}

/** The error as the page shows it: the message, and where in the editor's text when it points there. */
export function locate(e: unknown, source: string): Located {
  if (!(e instanceof SmoothError)) return { message: `internal error: ${e instanceof Error ? e.message : String(e)}` };
  const span = e.span;
  if (!span || span.file.name !== FILE_NAME || span.file.text !== source) return { message: e.message };
  const line = source.slice(0, span.start).split("\n").length;
  return { message: e.message, line, from: span.start, to: Math.max(span.end, span.start + 1) };
}
