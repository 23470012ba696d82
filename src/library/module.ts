// Smooth source as a module: the `smooth` tagged template (and loadModule in src/node.ts, for a file) gives an object
// whose properties are the file's definitions, each a compiled function that every transform accepts.

import { loadProgram } from "../api/program.js";
import { fail } from "../syntax/diagnostics.js";
import { TypeNamer } from "../types/mtype.js";
import { compiledFunction, type AnyFunction } from "./compile.js";
import { SourceTarget } from "./source-target.js";
import { checkOptions, checkText } from "./check.js";

/** A definition of a Smooth module: call it to run compiled code; give it to any transform. */
export type SmoothFunction = AnyFunction & {
  /** The definition's inferred type, e.g. `Vector -> Double`. */
  readonly definitionType: string;
};

/** The definitions of a Smooth source text, by name. */
export type SmoothModule = { readonly [name: string]: SmoothFunction };

/**
 * Smooth source as a module of compiled functions. Interpolations must be finite numbers (printed as literals).
 * Errors in the source are SmoothErrors located at `<smooth>:line:column` of the template's text.
 *
 * @example
 * const m = smooth`
 *   let loss = fun (w: Vector) (x: Vector) -> log (1 + exp (-(vectorDot w x)))
 * `;
 * const g = grad(m.loss)(w, x);
 */
export function smooth<M = SmoothModule>(strings: TemplateStringsArray, ...values: unknown[]): M {
  if (!isTemplate(strings, values.length))
    fail("argument", "`smooth` is a template tag: write smooth`...` around the source", undefined, {
      hint: "for source text in a string, call smoothModule(text)",
    });
  let text = strings[0]!;
  values.forEach((v, i) => {
    if (typeof v !== "number" || !Number.isFinite(v))
      fail(
        "argument",
        `interpolation ${i} of a smooth\`...\` template is ${typeof v === "number" ? String(v) : `a ${typeof v}`}`,
        undefined,
        {
          expected: "a finite number (write anything else in the Smooth source itself)",
        },
      );
    text += numberLiteral(v) + strings[i + 1]!;
  });
  return smoothModule<M>(text);
}

/** Whether `strings` are a template's strings (one more than the values), as a tag is called. */
const isTemplate = (strings: unknown, values: number): strings is TemplateStringsArray =>
  Array.isArray(strings) && strings.length === values + 1 && strings.every((s) => typeof s === "string");

/** An integer stays an integer literal (it adapts to Index or Double); anything else is a Double literal. */
function numberLiteral(x: number): string {
  // -0 is the Double -0. (a negated literal), not the integer 0.
  if (Object.is(x, -0)) return "(-0.)";
  const s = Number.isInteger(x) && Math.abs(x) < 2 ** 31 ? String(x) : /[.e]/.test(String(x)) ? String(x) : `${x}.`;
  return x < 0 ? `(${s})` : s;
}

/**
 * The definitions of Smooth source `text` (messages name it `fileName`, by default `<smooth>`). `M` types them: the
 * interface `smooth types FILE` writes for a file.
 */
export function smoothModule<M = SmoothModule>(text: string, options: { fileName?: string } = {}): M {
  checkSourceArguments(text, options, "smoothModule", "Smooth source");
  const program = loadProgram({ name: options.fileName ?? "<smooth>", text });
  const module: Record<string, SmoothFunction> = {};
  for (const def of program.userDefs) {
    const target = new SourceTarget(program, def);
    const fn = compiledFunction(target, target.label, def.name);
    module[def.name] = Object.assign(fn, { definitionType: new TypeNamer().showScheme(def.scheme.type) });
  }
  return Object.freeze(module) as M;
}

/** The checks of a module's text and options (`what` names the function, `language` the text). */
export function checkSourceArguments(text: unknown, options: unknown, what: string, language: string): void {
  checkText(text, `${what}: the source`, `a string of ${language}`);
  checkOptions(options, what, ["fileName"]);
  const fileName = (options as { fileName?: unknown } | undefined)?.fileName;
  if (fileName !== undefined) checkText(fileName, `${what}: fileName`, "a string (the name messages give the text)");
}
