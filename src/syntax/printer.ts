// The surface printer: AST to Smooth source that parses back to the same AST (up to spans).
//
// Parentheses: every node has a precedence (OPEN for let/fun/if, the operator levels, then unary, application,
// postfix, atom). A child is parenthesised when its precedence is below what its position needs, and an open form
// (let/fun/if, which extend as far right as possible) also when something follows it ("not in tail position").
//
// Layout: lets are printed with `in`, but the parser's layout rule still applies to their right-hand sides, so the
// printer tracks the column where each construct starts and never starts a line at or left of the column of a `let`
// whose right-hand side it is inside (the "limit"); brackets lift the limit, as in the parser.

import type { Definition, Expr, Param, Pattern, Program, TypeAnn } from "./ast.js";
import { BINOP_PRECEDENCE, COMPARISON_LEVEL, POWER_LEVEL } from "./parser.js";

export { BINOP_PRECEDENCE } from "./parser.js";

export const OPEN_PRECEDENCE = 0;
export const UNARY_PRECEDENCE = 7;
export const APP_PRECEDENCE = 8;
export const POSTFIX_PRECEDENCE = 9;
export const ATOM_PRECEDENCE = 10;

/** Lines longer than this are broken where a construct allows it (fun bodies, if branches, let values, tuples). */
const WIDTH = 80;
/** A fun body this short is never moved to a line of its own. */
const SHORT = 12;

export function exprPrecedence(e: Expr): number {
  switch (e.kind) {
    case "let":
    case "letrec":
    case "lam":
    case "if":
      return OPEN_PRECEDENCE;
    case "binop":
      return BINOP_PRECEDENCE[e.op];
    case "unop":
      return UNARY_PRECEDENCE;
    case "app":
      return APP_PRECEDENCE;
    case "index":
      return POSTFIX_PRECEDENCE;
    default:
      return ATOM_PRECEDENCE; // var, num, bool, opfun, and tuples (always printed in their own parentheses)
  }
}

/**
 * Whether `e` needs parentheses where the context requires precedence `prec`; `tail` says nothing follows `e` in its
 * enclosing construct, which lets an open form (let/fun/if) stand unparenthesised in any operand position.
 */
export function needsParens(e: Expr, prec: number, tail: boolean): boolean {
  const own = exprPrecedence(e);
  if (own === OPEN_PRECEDENCE) return !(tail && prec <= UNARY_PRECEDENCE);
  return own < prec;
}

/** A literal: isInt as digits; otherwise always with `.` or an exponent so it reads back as a Double. */
export function formatNumber(value: number, isInt: boolean): string {
  if (!Number.isFinite(value)) throw new Error(`internal: ${value} has no literal syntax`);
  if (isInt) {
    if (!Number.isInteger(value)) throw new Error(`internal: integer literal ${value} is not an integer`);
    return BigInt(value).toString();
  }
  const text = Object.is(value, -0) ? "-0" : String(value);
  return /[.e]/.test(text) ? text : `${text}.`;
}

// prec: 0 top, 1 tuple element, 2 function parameter
export function printType(t: TypeAnn, prec = 0): string {
  switch (t.kind) {
    case "tname":
      return t.name;
    case "tarray":
      return `Array<${printType(t.elem, 0)}>`;
    case "ttuple": {
      const text = t.elems.map((e) => printType(e, 1)).join(" * ");
      return prec >= 1 ? `(${text})` : text;
    }
    case "tfun": {
      const text = `${printType(t.param, 2)} -> ${printType(t.result, 0)}`;
      return prec >= 1 ? `(${text})` : text;
    }
  }
}

export function printPattern(p: Pattern): string {
  return p.kind === "pvar" ? p.name : `(${p.elems.map(printPattern).join(", ")})`;
}

export function printParam(p: Param): string {
  return p.annot === undefined ? p.name : `(${p.name}: ${printType(p.annot)})`;
}

export function printExpr(e: Expr): string {
  return render(e, 0, { indent: 0, limit: NO_LIMIT }, OPEN_PRECEDENCE, true);
}

export function printProgram(p: Program): string {
  return p.defs.map(printDefinition).join("\n");
}

export function printDefinition(d: Definition): string {
  const keyword = d.rec === "rec" ? "let rec" : d.rec === "and" ? "and" : "let";
  const head = `${keyword} ${d.name}${d.annot === undefined ? "" : `: ${printType(d.annot)}`} =`;
  // The definition's `let` is at column 0: every further line must start right of it.
  return `${head}${renderBoundValue(d.value, 0, head.length, { indent: 0, limit: 0 })}\n`;
}

// ---------------------------------------------------------------------------------------------------------------

/** Where continuation lines go: `indent` is the current block's column; lines must start right of `limit`. */
interface Ctx {
  readonly indent: number;
  readonly limit: number;
}
const NO_LIMIT = -1;

const spaces = (n: number) => " ".repeat(n);
/** The first column a new line may start at, at least `wanted`. */
const lineStart = (ctx: Ctx, wanted: number) => Math.max(wanted, ctx.limit + 1);

/** The column just after `text` when it was printed starting at column `col`. */
function columnAfter(text: string, col: number): number {
  const nl = text.lastIndexOf("\n");
  return nl < 0 ? col + text.length : text.length - nl - 1;
}

function render(e: Expr, col: number, ctx: Ctx, prec: number, tail: boolean): string {
  if (needsParens(e, prec, tail)) {
    return `(${render(e, col + 1, { indent: ctx.indent, limit: NO_LIMIT }, OPEN_PRECEDENCE, true)})`;
  }
  switch (e.kind) {
    case "var":
      return e.name;
    case "num":
      if (e.value < 0 || Object.is(e.value, -0)) throw new Error(`internal: negative literal ${e.value} in the AST`);
      return formatNumber(e.value, e.isInt);
    case "bool":
      return e.value ? "true" : "false";
    case "opfun":
      return `(${e.op})`;
    case "typed":
      return `(${render(e.expr, col + 1, ctx, 0, false)}: ${printType(e.annot)})`;
    case "tuple":
      return renderTuple(e.elems, col, ctx.indent, col + flatSize(e) > WIDTH);
    case "binop": {
      // A left-nested chain (`x + x + ... + x`, 10⁴ terms) in a loop: the left operands printed without parentheses.
      const spine = [e];
      for (let node = e; ;) {
        const left = node.left;
        if (clarifies(node) || left.kind !== "binop" || needsParens(left, leftPrecedence(node), false)) break;
        spine.push(left);
        node = left;
      }
      const innermost = spine[spine.length - 1]!;
      // `-x ** 2` means `(-x) ** 2` here, unlike in mathematics: say so with parentheses.
      let text = clarifies(innermost)
        ? `(${render(innermost.left, col + 1, { indent: ctx.indent, limit: NO_LIMIT }, OPEN_PRECEDENCE, true)})`
        : render(innermost.left, col, ctx, leftPrecedence(innermost), false);
      for (let k = spine.length - 1; k >= 0; k--) {
        const node = spine[k]!;
        const level = BINOP_PRECEDENCE[node.op];
        const rightPrec = level === POWER_LEVEL ? level : level + 1;
        text += ` ${node.op} `;
        text += render(node.right, columnAfter(text, col), ctx, rightPrec, k === 0 ? tail : false);
      }
      return text;
    }
    case "unop": {
      const op = e.op === "-" ? "-" : "not ";
      const arg = render(e.arg, col + op.length, ctx, UNARY_PRECEDENCE, tail);
      return op === "-" && arg.startsWith("-") ? `- ${arg}` : op + arg; // `- -x` reads better than `--x`
    }
    case "app": {
      const fn = render(e.fn, col, ctx, APP_PRECEDENCE, false);
      return `${fn} ${render(e.arg, columnAfter(fn, col) + 1, ctx, POSTFIX_PRECEDENCE, false)}`;
    }
    case "index": {
      const array = render(e.array, col, ctx, POSTFIX_PRECEDENCE, false);
      const inner = { indent: ctx.indent, limit: NO_LIMIT };
      return `${array}[${render(e.index, columnAfter(array, col) + 1, inner, OPEN_PRECEDENCE, true)}]`;
    }
    case "lam": {
      const head = `fun ${e.params.map(printParam).join(" ")} ->`;
      // A short body stays on the line even past the width: a lone `v))` on the next line reads worse.
      const bodySize = flatSize(e.body);
      if (col + head.length + 1 + bodySize <= WIDTH || bodySize <= SHORT) {
        return `${head} ${render(e.body, col + head.length + 1, ctx, OPEN_PRECEDENCE, true)}`;
      }
      const bodyCol = lineStart(ctx, ctx.indent + 2);
      const body = render(e.body, bodyCol, { indent: bodyCol, limit: ctx.limit }, OPEN_PRECEDENCE, true);
      return `${head}\n${spaces(bodyCol)}${body}`;
    }
    case "if":
      return renderIf(e, col, ctx);
    case "letrec":
    case "let":
      return renderLets(e, col, ctx);
  }
}

/** Left associative: the left operand may be at the same level; `**` is right associative; comparisons neither. */
function leftPrecedence(e: Expr & { kind: "binop" }): number {
  const level = BINOP_PRECEDENCE[e.op];
  return level === POWER_LEVEL || level === COMPARISON_LEVEL ? level + 1 : level;
}

const clarifies = (e: Expr & { kind: "binop" }) => BINOP_PRECEDENCE[e.op] === POWER_LEVEL && e.left.kind === "unop";

/**
 * A chain of lets (and `let rec` groups), each with `in`, its body on its own line at the first let's column. The
 * chain is walked with a loop: a program may have 10⁵ lets in a row.
 */
function renderLets(first: Expr & { kind: "let" | "letrec" }, col: number, ctx: Ctx): string {
  const parts: string[] = [];
  let e: Expr = first;
  // With `in`, a body is free of its let's limit; the enclosing one still holds.
  let letCtx = ctx;
  for (; e.kind === "let" || e.kind === "letrec"; e = e.body, letCtx = { indent: col, limit: ctx.limit }) {
    if (e.kind === "letrec") {
      // Each binding starts its own line at the `let`'s column (`and` ends the previous right-hand side by layout).
      const bindings = e.bindings.map((bd, i) => {
        const annot = bd.annot === undefined ? "" : `: ${printType(bd.annot)}`;
        const head = `${i === 0 ? "let rec" : "and"} ${bd.name}${annot} =`;
        return head + renderBoundValue(bd.value, col, col + head.length, { indent: letCtx.indent, limit: col });
      });
      parts.push(`${bindings.join(`\n${spaces(col)}`)} in\n${spaces(col)}`);
      continue;
    }
    const annot = e.annot === undefined ? "" : `: ${printType(e.annot)}`;
    const head = `let ${printPattern(e.pattern)}${annot} =`;
    const value = renderBoundValue(e.value, col, col + head.length, { indent: letCtx.indent, limit: col });
    parts.push(`${head}${value} in\n${spaces(col)}`);
  }
  parts.push(render(e, col, { indent: col, limit: ctx.limit }, OPEN_PRECEDENCE, true));
  return parts.join("");
}

/**
 * The right-hand side of a `let` at column `letCol` whose head ends at `headEnd`: on the same line when short (or a
 * lambda, whose body then goes below), else on the next line, indented past the `let`.
 */
function renderBoundValue(value: Expr, letCol: number, headEnd: number, ctx: Ctx): string {
  if (value.kind === "lam" || headEnd + 1 + flatSize(value) <= WIDTH) {
    return ` ${render(value, headEnd + 1, ctx, OPEN_PRECEDENCE, true)}`;
  }
  const valueCol = lineStart(ctx, letCol + 2);
  return `\n${spaces(valueCol)}${render(value, valueCol, { indent: valueCol, limit: ctx.limit }, OPEN_PRECEDENCE, true)}`;
}

function renderIf(e: Expr & { kind: "if" }, col: number, ctx: Ctx): string {
  if (col + flatSize(e) <= WIDTH) {
    const cond = render(e.cond, col + 3, ctx, OPEN_PRECEDENCE, true);
    let text = `if ${cond} then `;
    text += render(e.then, columnAfter(text, col), ctx, OPEN_PRECEDENCE, true);
    text += " else ";
    return text + render(e.else, columnAfter(text, col), ctx, OPEN_PRECEDENCE, true);
  }
  const elseCol = lineStart(ctx, ctx.indent);
  const branchCol = elseCol + 2;
  const branchCtx = { indent: branchCol, limit: ctx.limit };
  const cond = render(e.cond, col + 3, ctx, OPEN_PRECEDENCE, true);
  const then = render(e.then, branchCol, branchCtx, OPEN_PRECEDENCE, true);
  const head = `if ${cond} then\n${spaces(branchCol)}${then}\n${spaces(elseCol)}else`;
  if (e.else.kind === "if") {
    // `else if` chains stay flat instead of drifting right.
    return `${head} ${renderIf(e.else, elseCol + 5, { indent: elseCol, limit: ctx.limit })}`;
  }
  return `${head}\n${spaces(branchCol)}${render(e.else, branchCol, branchCtx, OPEN_PRECEDENCE, true)}`;
}

/**
 * `(a, b, c)`, or one element per line aligned after the `(` when too wide (inside the parentheses layout ends
 * nothing). Every element but the last is followed by a comma, so only the last may be an open form.
 */
function renderTuple(elems: Expr[], col: number, indent: number, broken: boolean): string {
  const ctx = { indent, limit: NO_LIMIT };
  let text = "(";
  elems.forEach((elem, i) => {
    if (i > 0) text += broken ? `,\n${spaces(col + 1)}` : ", ";
    const last = i === elems.length - 1;
    text += render(elem, columnAfter(text, col), ctx, OPEN_PRECEDENCE, last);
  });
  return `${text})`;
}

// An estimate of an expression's width on one line (Infinity when it contains a let, which always takes lines);
// memoised so that deciding where to break stays linear in the size of the tree.
const flatSizes = new WeakMap<Expr, number>();

function flatSize(e: Expr): number {
  const known = flatSizes.get(e);
  if (known !== undefined) return known;
  // The left operands of a left-nested chain first, innermost first, so that none recurses down the chain.
  const spine: Expr[] = [];
  for (let x = e; x.kind === "binop" && !flatSizes.has(x.left); x = x.left) spine.push(x.left);
  for (let k = spine.length - 1; k >= 0; k--) flatSizes.set(spine[k]!, computeFlatSize(spine[k]!));
  const size = computeFlatSize(e);
  flatSizes.set(e, size);
  return size;
}

function computeFlatSize(e: Expr): number {
  switch (e.kind) {
    case "var":
      return e.name.length;
    case "num":
      return formatNumber(Math.abs(e.value), e.isInt).length;
    case "bool":
      return 5;
    case "opfun":
      return e.op.length + 2;
    case "typed":
      return flatSize(e.expr) + printType(e.annot).length + 4;
    case "tuple":
      return e.elems.reduce((n, x) => n + flatSize(x) + 2, 0);
    case "binop":
      return flatSize(e.left) + flatSize(e.right) + e.op.length + 2;
    case "unop":
      return flatSize(e.arg) + 4;
    case "app":
      return flatSize(e.fn) + flatSize(e.arg) + 3;
    case "index":
      return flatSize(e.array) + flatSize(e.index) + 2;
    case "lam":
      return e.params.reduce((n, p) => n + printParam(p).length + 1, 7) + flatSize(e.body);
    case "if":
      return flatSize(e.cond) + flatSize(e.then) + flatSize(e.else) + 15;
    case "let":
    case "letrec":
      return Infinity;
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Comparing trees without their source locations (round-trip tests; also handy for comparing printed programs).

const SPAN_KEYS = new Set(["span", "opSpan", "nameSpan"]);

/** A copy of an AST (or any part of one) without spans. */
export function stripSpans<T>(node: T): T {
  if (Array.isArray(node)) return node.map(stripSpans) as T;
  if (node === null || typeof node !== "object") return node;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    if (!SPAN_KEYS.has(key) && value !== undefined) out[key] = stripSpans(value);
  }
  return out as T;
}

/** Structural equality of two ASTs, ignoring spans. */
export function astEqual(a: unknown, b: unknown): boolean {
  return deepEqual(stripSpans(a), stripSpans(b));
}

// Plain data only (what stripSpans returns): no node:util, so the syntax folder runs in browsers too.
function deepEqual(a: unknown, b: unknown): boolean {
  if (Object.is(a, b)) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  if (ka.length !== kb.length) return false;
  const ra = a as Record<string, unknown>;
  const rb = b as Record<string, unknown>;
  return ka.every((k) => Object.hasOwn(rb, k) && deepEqual(ra[k], rb[k]));
}
