// The IR printer: core IR as Smooth source text (the F-smooth syntax of src/syntax), so optimised and differentiated
// programs can be read, and parsed back.
//
// Layout. Every let is written `let x = e in` (never the layout form) and continuation lines are indented relative to
// the line where their construct starts. A let's right-hand side that would put a line at the let's own column outside
// brackets (a multi-line `if`) goes on its own, deeper-indented line, so the parser's layout rule never ends it early.

import type { PrimName } from "../prims/names.js";
import { PRIMS } from "../prims/table.js";
import { BINOP_PRECEDENCE, COMPARISON_LEVEL, POWER_LEVEL } from "../syntax/parser.js";
import { showType, type Type } from "../types/types.js";
import { typeOf, type Atom, type Expr, type IrFunction, type Lit, type Var } from "./ir.js";
import { Namer, PrintAnalysis } from "./print-names.js";

export interface PrintOptions {
  /** Print let-bound variables used once inline at their use (default true). */
  readonly sugar?: boolean;
}

/**
 * Smooth source for a function (`let name (x: T) ... = body`) or an expression. A function with first-order functions
 * (`IrFunction.functions`) prints as a program: one `let rec` group of them (parameters and results annotated), then
 * the function itself.
 */
export function printIr(x: IrFunction | Expr, opts: PrintOptions = {}): string {
  const sugar = opts.sugar ?? true;
  if (!("params" in x)) return new Printer(new PrintAnalysis(x, sugar)).expr(x).text;
  const functions = x.functions ?? [];
  if (functions.length === 0) return printFunction(new PrintAnalysis(x, sugar), x, "let");
  // Printed names for the functions, never the entry's own (the program is read back by that name).
  const namer = new Namer([x.name]);
  const names = new Map(functions.map((f) => [f.name, namer.fresh(f.name)]));
  const group = functions.map((f, i) =>
    printFunction(new PrintAnalysis(f, sugar, names, names.get(f.name)), f, i === 0 ? "let rec" : "and", true),
  );
  const entry = printFunction(new PrintAnalysis(x, sugar, names, x.name), x, "let");
  return `${group.join("\n")}\n\n${entry}`;
}

function printFunction(analysis: PrintAnalysis, f: IrFunction, keyword: string, withResult = false): string {
  const p = new Printer(analysis);
  const params = f.params.map((v) => ` (${analysis.namer.nameOf(v)}: ${showType(v.type)})`).join("");
  const result = withResult ? ` : ${showType(typeOf(f.body))}` : "";
  const head = `${keyword} ${analysis.functionName!}${params}${result} =`;
  const body = p.expr(f.body).text;
  return fitsOnLine(body) && head.length + body.length < WIDTH ? `${head} ${body}` : `${head}\n${indent(body)}`;
}

/** Smooth syntax for a type (the annotation syntax). */
export function printType(t: Type): string {
  return showType(t);
}

// Precedence levels, loosest to tightest: the binary operators' levels are the parser's own (BINOP_PRECEDENCE);
// let/if/fun (OPEN) extend as far right as they can.
const OPEN = 0;
const OR = BINOP_PRECEDENCE["||"];
const UNARY = POWER_LEVEL + 1;
const APP = UNARY + 1;
const INDEX = APP + 1;
const ATOM = INDEX + 1;

type Assoc = "left" | "right" | "none";
/** Each infix operator's level and how it associates when printed (`&&`, `||` and comparisons get parentheses). */
const INFIX: Readonly<Record<string, { prec: number; assoc: Assoc }>> = Object.fromEntries(
  Object.entries(BINOP_PRECEDENCE).map(([op, prec]) => [
    op,
    { prec, assoc: prec === POWER_LEVEL ? "right" : prec <= COMPARISON_LEVEL ? "none" : "left" },
  ]),
);

const WIDTH = 80;

/** Printed text with its precedence. `flushLeft`: a later line starts at the text's own column, outside brackets. */
interface Frag {
  readonly text: string;
  readonly prec: number;
  readonly flushLeft: boolean;
}

const frag = (text: string, prec: number, flushLeft = false): Frag => ({ text, prec, flushLeft });
const parens = (f: Frag): Frag => frag(`(${f.text})`, ATOM);
/** `f` where an expression of precedence at least `prec` is needed. */
const at = (f: Frag, prec: number): Frag => (f.prec >= prec ? f : parens(f));
const fitsOnLine = (text: string) => !text.includes("\n") && text.length <= WIDTH;
const indent = (text: string, by = 2): string => {
  const pad = " ".repeat(by);
  return pad + text.replace(/\n/g, `\n${pad}`);
};

/** Literal text that reads back as the same value: Doubles always with `.` or an exponent; no NaN/Infinity tokens. */
export function printLiteral(l: Lit): string {
  if (typeof l.value === "boolean") return l.value ? "true" : "false";
  const x = l.value;
  if (l.type.k === "int") return x < 0 ? `(${String(x)})` : String(x);
  if (Number.isNaN(x)) return "(0. / 0.)";
  if (x === Infinity) return "(1. / 0.)";
  if (x === -Infinity) return "(-1. / 0.)";
  if (x < 0 || Object.is(x, -0)) return `(-${positiveDouble(-x)})`;
  return positiveDouble(x);
}

function positiveDouble(x: number): string {
  const s = String(x);
  return /[.e]/.test(s) ? s : `${s}.`;
}

class Printer {
  constructor(private readonly a: PrintAnalysis) {}

  private name(v: Var): string {
    return this.a.namer.nameOf(v);
  }

  /**
   * An atom in a position where nothing around it fixes its type (a result, a tuple element, an argument, an ifold's
   * initial state): an Index literal is written `(3: Index)`, since a bare `3` would read back as a Double.
   */
  private value(x: Atom): Frag {
    if (x.kind === "lit" && x.type.k === "int") return frag(`(${printLiteral(x)}: Index)`, ATOM);
    return this.atom(x);
  }

  private atom(x: Atom): Frag {
    if (x.kind === "lit") return frag(printLiteral(x), ATOM);
    const rhs = this.a.inlined.get(x.id);
    if (rhs === undefined) return frag(this.name(x), ATOM);
    return rhs.kind === "proj" ? this.proj(rhs.index, rhs.arg, this.name(x)) : this.expr(rhs);
  }

  expr(e: Expr): Frag {
    switch (e.kind) {
      case "var":
      case "lit":
        return this.value(e);
      case "let":
        return this.letChain(e);
      case "prim":
        // What a tape pop returns only its type says: `(tapePop t : T * Tape)`.
        if (PRIMS[e.op].resultFromNode !== undefined)
          return frag(`(${this.prim(e.op, e.args).text} : ${showType(e.type)})`, ATOM);
        return this.prim(e.op, e.args);
      case "tuple":
        return frag(`(${e.elems.map((x) => at(this.value(x), OR).text).join(", ")})`, ATOM);
      case "proj":
        return this.proj(e.index, e.arg, undefined);
      case "app":
        return frag(`${at(this.atom(e.fn), APP).text} ${this.arg(this.value(e.arg))}`, APP);
      case "jvp":
        return frag(`${e.reverse ? "vjp" : "jvp"} ${this.arg(this.atom(e.fn))}`, APP);
      case "call": {
        const name = this.a.functions.get(e.fn) ?? e.fn;
        return frag([name, ...e.args.map((x) => this.arg(this.value(x)))].join(" "), APP);
      }
      case "lam": {
        // `fun x -> fun y -> e` prints as `fun x y -> e`, also when the inner lambda is a let printed inline.
        const params: Var[] = [e.param];
        let body = this.skipInlined(e.body);
        while (body.kind === "lam") {
          params.push(body.param);
          body = this.skipInlined(body.body);
        }
        return this.fun(params, body);
      }
      case "if":
        return this.ifExpr(e.cond, e.then, e.else);
      case "build":
        return frag(`build ${this.arg(this.atom(e.size))} ${parens(this.fun([e.index], e.body)).text}`, APP);
      case "ifold": {
        const f = parens(this.fun([e.acc, e.index], e.body)).text;
        return frag(`ifold ${f} ${this.arg(this.value(e.init))} ${this.arg(this.atom(e.count))}`, APP);
      }
      case "while": {
        const [c, f] = [parens(this.fun([e.acc], e.cond)).text, parens(this.fun([e.acc], e.body)).text];
        return frag(`while ${c} ${f} ${this.arg(this.value(e.init))}`, APP);
      }
      case "custom": {
        const parts = [e.fn, ...e.rules].map((a) => this.arg(this.atom(a)));
        return frag(`${CUSTOM_NAMES[e.mode]} ${parts.join(" ")}`, APP);
      }
    }
  }

  /**
   * What `e` prints as when its lets are all printed inline: the expression at the end of the chain, or the
   * right-hand side of an inlined variable.
   */
  private skipInlined(e: Expr): Expr {
    for (;;) {
      if (e.kind === "let" && this.a.inlined.has(e.v.id)) e = e.body;
      else if (e.kind === "var" && this.a.inlined.has(e.id)) e = this.a.inlined.get(e.id)!;
      else return e;
    }
  }

  /** An application argument: tighter than application (`f -x` would be a subtraction, so `f (-x)`). */
  private arg(f: Frag): string {
    return at(f, INDEX).text;
  }

  private letChain(e: Expr): Frag {
    const lines: string[] = [];
    while (e.kind === "let") {
      if (!this.a.inlined.has(e.v.id)) lines.push(this.letLine(e.v, e.rhs));
      e = e.body;
    }
    const tail = this.expr(e);
    if (lines.length === 0) return tail;
    return frag(`${lines.join("\n")}\n${tail.text}`, OPEN, true);
  }

  private letLine(v: Var, rhs: Expr): string {
    let pattern = this.name(v);
    let value: Frag;
    const arity = rhs.kind === "proj" && rhs.arg.type.k === "tuple" ? rhs.arg.type.elems.length : 0;
    if (rhs.kind === "proj" && arity > 2) {
      // `let (_, x, _) = t in`: the surface language projects from larger tuples with a pattern.
      pattern = tuplePattern(arity, rhs.index, pattern);
      value = this.atom(rhs.arg);
    } else {
      value = this.expr(rhs);
    }
    if (value.flushLeft && value.text.includes("\n")) return `let ${pattern} =\n${indent(value.text)} in`;
    return `let ${pattern} = ${value.text} in`;
  }

  private proj(index: number, arg: Atom, name: string | undefined): Frag {
    const t = arg.type;
    const arity = t.k === "tuple" ? t.elems.length : 0;
    if (arity === 2) return frag(`${index === 0 ? "fst" : "snd"} ${this.arg(this.atom(arg))}`, APP);
    const x = name ?? this.a.namer.fresh("p");
    return frag(`(let ${tuplePattern(arity, index, x)} = ${this.atom(arg).text} in ${x})`, ATOM);
  }

  private fun(params: readonly Var[], body: Expr): Frag {
    const head = `fun ${params.map((p) => this.name(p)).join(" ")} ->`;
    const b = this.expr(body).text;
    return frag(fitsOnLine(b) && head.length + b.length < WIDTH ? `${head} ${b}` : `${head}\n${indent(b)}`, OPEN);
  }

  private ifExpr(cond: Atom, then: Expr, els: Expr): Frag {
    const c = at(this.atom(cond), OR).text;
    const t = this.expr(then).text;
    const f = this.expr(els).text;
    const oneLine = `if ${c} then ${t} else ${f}`;
    if (fitsOnLine(oneLine)) return frag(oneLine, OPEN);
    const elsePart = els.kind === "if" ? `else ${f}` : `else\n${indent(f)}`;
    return frag(`if ${c} then\n${indent(t)}\n${elsePart}`, OPEN, true);
  }

  private prim(op: PrimName, args: readonly Atom[]): Frag {
    const syntax = PRIMS[op].syntax;
    // Operands that are all Index literals (`0 / 0` kept because folding it would raise an error) say nothing of
    // their type: the first is written `(0: Index)` so that the program reads back the same.
    const allIndexLiterals = args.every((x) => x.kind === "lit" && x.type.k === "int");
    const xs = args.map((x, i) => (i === 0 && allIndexLiterals ? this.value(x) : this.atom(x)));
    if (op === "get") return frag(`${at(xs[0]!, INDEX).text}[${xs[1]!.text}]`, INDEX);
    if (op === "neg") return frag(`-${at(xs[0]!, APP).text}`, UNARY);
    if (op === "not") return frag(`not ${at(xs[0]!, APP).text}`, UNARY);
    if ("infix" in syntax) {
      const { prec, assoc } = INFIX[syntax.infix]!;
      // `-x ** 2.` would parse as `(-x) ** 2.` but read as `-(x ** 2.)`: parenthesise a negated base.
      const left = at(xs[0]!, op === "pow" ? APP : assoc === "left" ? prec : prec + 1);
      let right = at(xs[1]!, assoc === "right" ? prec : prec + 1);
      if (right.text.startsWith("-")) right = parens(right); // `a - -b` parses, but `a - (-b)` reads better
      return frag(`${left.text} ${syntax.infix} ${right.text}`, prec);
    }
    return frag(`${syntax.prefix} ${xs.map((x) => this.arg(x)).join(" ")}`, APP);
  }
}

function tuplePattern(arity: number, index: number, name: string): string {
  return `(${Array.from({ length: arity }, (_, i) => (i === index ? name : "_")).join(", ")})`;
}

/** The builtin that makes a custom node of each mode. */
const CUSTOM_NAMES = { jvp: "customJvp", vjp: "customVjp", checkpoint: "checkpoint" } as const;
