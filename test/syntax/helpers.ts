// Test helpers: source files, a compact S-expression view of ASTs (independent of the printer under test), and
// access to a SmoothError's headline and caret.

import type { Expr, Pattern, TypeAnn } from "../../src/syntax/ast.js";
import type { SmoothError } from "../../src/syntax/diagnostics.js";
import type { SourceFile } from "../../src/syntax/source.js";

export const src = (text: string, name = "t"): SourceFile => ({ name, text });

export function typeSexp(t: TypeAnn): string {
  switch (t.kind) {
    case "tname":
      return t.name;
    case "tarray":
      return `Array<${typeSexp(t.elem)}>`;
    case "ttuple":
      return `(* ${t.elems.map(typeSexp).join(" ")})`;
    case "tfun":
      return `(-> ${typeSexp(t.param)} ${typeSexp(t.result)})`;
  }
}

function patternSexp(p: Pattern): string {
  return p.kind === "pvar" ? p.name : `(${p.elems.map(patternSexp).join(" ")})`;
}

/** `a + b * c` is "(+ a (* b c))"; doubles show a fraction ("2.0"), integers do not ("2"). */
export function sexp(e: Expr): string {
  switch (e.kind) {
    case "var":
      return e.name;
    case "num":
      return e.isInt ? String(e.value) : Number.isInteger(e.value) ? `${e.value}.0` : String(e.value);
    case "bool":
      return String(e.value);
    case "opfun":
      return `(op ${e.op})`;
    case "typed":
      return `(: ${sexp(e.expr)} ${typeSexp(e.annot)})`;
    case "lam": {
      const params = e.params.map((p) => (p.annot ? `${p.name}:${typeSexp(p.annot)}` : p.name));
      return `(fun ${params.join(" ")} -> ${sexp(e.body)})`;
    }
    case "app":
      return `(${sexp(e.fn)} ${sexp(e.arg)})`;
    case "let": {
      const annot = e.annot ? `:${typeSexp(e.annot)}` : "";
      return `(let ${patternSexp(e.pattern)}${annot} = ${sexp(e.value)} in ${sexp(e.body)})`;
    }
    case "if":
      return `(if ${sexp(e.cond)} ${sexp(e.then)} ${sexp(e.else)})`;
    case "tuple":
      return `(tuple ${e.elems.map(sexp).join(" ")})`;
    case "binop":
      return `(${e.op} ${sexp(e.left)} ${sexp(e.right)})`;
    case "unop":
      return `(${e.op === "-" ? "neg" : "not"} ${sexp(e.arg)})`;
    case "index":
      return `${sexp(e.array)}[${sexp(e.index)}]`;
    case "letrec": {
      const bindings = e.bindings.map(
        (bd) => `${bd.name}${bd.annot ? `:${typeSexp(bd.annot)}` : ""} = ${sexp(bd.value)}`,
      );
      return `(letrec ${bindings.join(" and ")} in ${sexp(e.body)})`;
    }
  }
}

export { thrown } from "../helpers.js";

/** The 1-based column and width of the caret run under the excerpt. */
export function caret(err: SmoothError): { col: number; width: number } {
  const lines = err.message.split("\n");
  const caretLine = lines.find((l) => /^\s*\| *\^+$/.test(l));
  if (caretLine === undefined) throw new Error(`no caret line in:\n${err.message}`);
  const body = caretLine.slice(caretLine.indexOf("|") + 2);
  const col = body.indexOf("^") + 1;
  return { col, width: body.length - col + 1 };
}

/** The source line the excerpt shows (without its gutter). */
export function excerptLine(err: SmoothError): string {
  const lines = err.message.split("\n");
  const i = lines.findIndex((l) => /^\s*\| *\^+$/.test(l));
  const shown = lines[i - 1]!;
  return shown.slice(shown.indexOf("|") + 2);
}
