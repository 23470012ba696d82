// The surface printer: AST to Smooth source that parses back to the same AST (up to spans).
//
// Parentheses: every node has a precedence (OPEN for let/fun/if, the operator levels, then unary, application,
// postfix, atom). A child is parenthesised when its precedence is below what its position needs, and an open form
// (let/fun/if, which extend as far right as possible) also when something follows it ("not in tail position").
//
// Layout: lets are printed with `in`, but the parser's layout rule still applies to their right-hand sides, so the
// printer tracks the column where each construct starts and never starts a line at or left of the column of a `let`
// whose right-hand side it is inside (the "limit"); brackets lift the limit, as in the parser.

import {
  surfaceChildren,
  type Definition,
  type Expr,
  type Param,
  type Pattern,
  type Program,
  type TypeAnn,
} from "./ast.js";
import { BINOP_PRECEDENCE, COMPARISON_LEVEL, POWER_LEVEL } from "./parser.js";
import { runNested, type Nested } from "./trampoline.js";

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
  const out = new Output();
  runNested(render(out, e, { indent: 0, limit: NO_LIMIT }, OPEN_PRECEDENCE, true));
  return out.text();
}

export function printProgram(p: Program): string {
  return p.defs.map(printDefinition).join("\n");
}

export function printDefinition(d: Definition): string {
  const keyword = d.rec === "rec" ? "let rec" : d.rec === "and" ? "and" : "let";
  const out = new Output();
  out.write(`${keyword} ${d.name}${d.annot === undefined ? "" : `: ${printType(d.annot)}`} =`);
  // The definition's `let` is at column 0: every further line must start right of it.
  runNested(renderBoundValue(out, d.value, 0, { indent: 0, limit: 0 }));
  out.write("\n");
  return out.text();
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

/** The text printed so far, in pieces, and the column where the next piece starts. */
class Output {
  private readonly pieces: string[] = [];
  col = 0;

  write(text: string): void {
    this.pieces.push(text);
    const nl = text.lastIndexOf("\n");
    this.col = nl < 0 ? this.col + text.length : text.length - nl - 1;
  }

  text(): string {
    return this.pieces.join("");
  }
}

/**
 * Printing an expression writes it to `out` from the current column. A child is printed by yielding its printing,
 * which `runNested` runs on a stack of its own (./trampoline.ts): programs nest 10⁴ deep.
 */
type Print = Nested<void, void>;

function* render(out: Output, e: Expr, ctx: Ctx, prec: number, tail: boolean): Print {
  if (needsParens(e, prec, tail)) {
    out.write("(");
    yield render(out, e, { indent: ctx.indent, limit: NO_LIMIT }, OPEN_PRECEDENCE, true);
    out.write(")");
    return;
  }
  switch (e.kind) {
    case "var":
      return out.write(e.name);
    case "num":
      if (e.value < 0 || Object.is(e.value, -0)) throw new Error(`internal: negative literal ${e.value} in the AST`);
      return out.write(formatNumber(e.value, e.isInt));
    case "bool":
      return out.write(e.value ? "true" : "false");
    case "opfun":
      return out.write(`(${e.op})`);
    case "typed":
      out.write("(");
      yield render(out, e.expr, ctx, 0, false);
      return out.write(`: ${printType(e.annot)})`);
    case "tuple":
      return yield* renderTuple(out, e.elems, ctx.indent, out.col + flatSize(e) > WIDTH);
    case "binop": {
      const level = BINOP_PRECEDENCE[e.op];
      // `-x ** 2` means `(-x) ** 2` here, unlike in mathematics: say so with parentheses.
      if (clarifies(e)) {
        out.write("(");
        yield render(out, e.left, { indent: ctx.indent, limit: NO_LIMIT }, OPEN_PRECEDENCE, true);
        out.write(")");
      } else {
        yield render(out, e.left, ctx, leftPrecedence(e), false);
      }
      out.write(` ${e.op} `);
      return yield render(out, e.right, ctx, level === POWER_LEVEL ? level : level + 1, tail);
    }
    case "unop":
      // `- -x` reads better than `--x` (the argument starts with `-` exactly when it is a negation itself).
      out.write(e.op === "not" ? "not " : e.arg.kind === "unop" && e.arg.op === "-" ? "- " : "-");
      return yield render(out, e.arg, ctx, UNARY_PRECEDENCE, tail);
    case "app":
      yield render(out, e.fn, ctx, APP_PRECEDENCE, false);
      out.write(" ");
      return yield render(out, e.arg, ctx, POSTFIX_PRECEDENCE, false);
    case "index":
      yield render(out, e.array, ctx, POSTFIX_PRECEDENCE, false);
      out.write("[");
      yield render(out, e.index, { indent: ctx.indent, limit: NO_LIMIT }, OPEN_PRECEDENCE, true);
      return out.write("]");
    case "lam": {
      const head = `fun ${e.params.map(printParam).join(" ")} ->`;
      // A short body stays on the line even past the width: a lone `v))` on the next line reads worse.
      const bodySize = flatSize(e.body);
      if (out.col + head.length + 1 + bodySize <= WIDTH || bodySize <= SHORT) {
        out.write(`${head} `);
        return yield render(out, e.body, ctx, OPEN_PRECEDENCE, true);
      }
      const bodyCol = lineStart(ctx, ctx.indent + 2);
      out.write(`${head}\n${spaces(bodyCol)}`);
      return yield render(out, e.body, { indent: bodyCol, limit: ctx.limit }, OPEN_PRECEDENCE, true);
    }
    case "if":
      return yield* renderIf(out, e, ctx);
    case "letrec":
    case "let":
      return yield* renderLets(out, e, ctx);
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
function* renderLets(out: Output, first: Expr & { kind: "let" | "letrec" }, ctx: Ctx): Print {
  const col = out.col;
  let e: Expr = first;
  // With `in`, a body is free of its let's limit; the enclosing one still holds.
  let letCtx = ctx;
  for (; e.kind === "let" || e.kind === "letrec"; e = e.body, letCtx = { indent: col, limit: ctx.limit }) {
    if (e.kind === "letrec") {
      // Each binding starts its own line at the `let`'s column (`and` ends the previous right-hand side by layout).
      for (const [i, bd] of e.bindings.entries()) {
        if (i > 0) out.write(`\n${spaces(col)}`);
        out.write(
          `${i === 0 ? "let rec" : "and"} ${bd.name}${bd.annot === undefined ? "" : `: ${printType(bd.annot)}`} =`,
        );
        yield* renderBoundValue(out, bd.value, col, { indent: letCtx.indent, limit: col });
      }
    } else {
      out.write(`let ${printPattern(e.pattern)}${e.annot === undefined ? "" : `: ${printType(e.annot)}`} =`);
      yield* renderBoundValue(out, e.value, col, { indent: letCtx.indent, limit: col });
    }
    out.write(` in\n${spaces(col)}`);
  }
  yield render(out, e, { indent: col, limit: ctx.limit }, OPEN_PRECEDENCE, true);
}

/**
 * The right-hand side of a `let` at column `letCol`, after its head: on the same line when short (or a lambda, whose
 * body then goes below), else on the next line, indented past the `let`.
 */
function* renderBoundValue(out: Output, value: Expr, letCol: number, ctx: Ctx): Print {
  if (value.kind === "lam" || out.col + 1 + flatSize(value) <= WIDTH) {
    out.write(" ");
    return yield render(out, value, ctx, OPEN_PRECEDENCE, true);
  }
  const valueCol = lineStart(ctx, letCol + 2);
  out.write(`\n${spaces(valueCol)}`);
  yield render(out, value, { indent: valueCol, limit: ctx.limit }, OPEN_PRECEDENCE, true);
}

/** `if`, on one line when it fits; else its branches on lines of their own, and an `else if` chain kept flat. */
function* renderIf(out: Output, first: Expr & { kind: "if" }, outer: Ctx): Print {
  let [e, ctx] = [first, outer];
  for (;;) {
    if (out.col + flatSize(e) <= WIDTH) {
      out.write("if ");
      yield render(out, e.cond, ctx, OPEN_PRECEDENCE, true);
      out.write(" then ");
      yield render(out, e.then, ctx, OPEN_PRECEDENCE, true);
      out.write(" else ");
      return yield render(out, e.else, ctx, OPEN_PRECEDENCE, true);
    }
    const elseCol = lineStart(ctx, ctx.indent);
    const branchCol = elseCol + 2;
    const branchCtx = { indent: branchCol, limit: ctx.limit };
    out.write("if ");
    yield render(out, e.cond, ctx, OPEN_PRECEDENCE, true);
    out.write(` then\n${spaces(branchCol)}`);
    yield render(out, e.then, branchCtx, OPEN_PRECEDENCE, true);
    out.write(`\n${spaces(elseCol)}else`);
    if (e.else.kind !== "if") {
      out.write(`\n${spaces(branchCol)}`);
      return yield render(out, e.else, branchCtx, OPEN_PRECEDENCE, true);
    }
    // `else if` chains stay flat instead of drifting right.
    out.write(" ");
    [e, ctx] = [e.else, { indent: elseCol, limit: ctx.limit }];
  }
}

/**
 * `(a, b, c)`, or one element per line aligned after the `(` when too wide (inside the parentheses layout ends
 * nothing). Every element but the last is followed by a comma, so only the last may be an open form.
 */
function* renderTuple(out: Output, elems: Expr[], indent: number, broken: boolean): Print {
  const ctx = { indent, limit: NO_LIMIT };
  const col = out.col;
  out.write("(");
  for (const [i, elem] of elems.entries()) {
    if (i > 0) out.write(broken ? `,\n${spaces(col + 1)}` : ", ");
    yield render(out, elem, ctx, OPEN_PRECEDENCE, i === elems.length - 1);
  }
  out.write(")");
}

// An estimate of an expression's width on one line (Infinity when it contains a let, which always takes lines);
// memoised so that deciding where to break stays linear in the size of the tree, and computed children first from an
// explicit stack, so that no chain or nesting recurses.
const flatSizes = new WeakMap<Expr, number>();

function flatSize(e: Expr): number {
  const work: { e: Expr; ready: boolean }[] = [{ e, ready: false }];
  while (work.length > 0) {
    const item = work.pop()!;
    if (flatSizes.has(item.e)) continue;
    if (item.ready) {
      flatSizes.set(item.e, computeFlatSize(item.e));
      continue;
    }
    work.push({ e: item.e, ready: true });
    for (const child of flatChildren(item.e)) if (!flatSizes.has(child)) work.push({ e: child, ready: false });
  }
  return flatSizes.get(e)!;
}

/** The children whose sizes `computeFlatSize` reads (none for a let: it always takes lines). */
const flatChildren = (e: Expr): readonly Expr[] => (e.kind === "let" || e.kind === "letrec" ? [] : surfaceChildren(e));

/** `e`'s flat size from its children's (already known). */
function computeFlatSize(e: Expr): number {
  const size = (x: Expr) => flatSizes.get(x)!;
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
      return size(e.expr) + printType(e.annot).length + 4;
    case "tuple":
      return e.elems.reduce((n, x) => n + size(x) + 2, 0);
    case "binop":
      return size(e.left) + size(e.right) + e.op.length + 2;
    case "unop":
      return size(e.arg) + 4;
    case "app":
      return size(e.fn) + size(e.arg) + 3;
    case "index":
      return size(e.array) + size(e.index) + 2;
    case "lam":
      return e.params.reduce((n, p) => n + printParam(p).length + 1, 7) + size(e.body);
    case "if":
      return size(e.cond) + size(e.then) + size(e.else) + 15;
    case "let":
    case "letrec":
      return Infinity;
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Comparing trees without their source locations (round-trip tests; also handy for comparing printed programs).

const SPAN_KEYS = new Set(["span", "opSpan", "nameSpan"]);

/** A copy of an AST (or any part of one) without spans; copied from an explicit stack (trees nest 10⁴ deep). */
export function stripSpans<T>(node: T): T {
  const shell = (value: unknown): unknown =>
    value === null || typeof value !== "object" ? value : Array.isArray(value) ? [] : {};
  const root = shell(node);
  const work: [unknown, unknown][] = [[node, root]];
  while (work.length > 0) {
    const [from, to] = work.pop()!;
    if (from === null || typeof from !== "object") continue;
    for (const [key, value] of Object.entries(from)) {
      if (SPAN_KEYS.has(key) || value === undefined) continue;
      const copy = shell(value);
      (to as Record<string, unknown>)[key] = copy;
      work.push([value, copy]);
    }
  }
  return root as T;
}

/** Structural equality of two ASTs, ignoring spans. */
export function astEqual(a: unknown, b: unknown): boolean {
  return deepEqual(stripSpans(a), stripSpans(b));
}

// Plain data only (what stripSpans returns): no node:util, so the syntax folder runs in browsers too.
function deepEqual(x: unknown, y: unknown): boolean {
  const work: [unknown, unknown][] = [[x, y]];
  while (work.length > 0) {
    const [a, b] = work.pop()!;
    if (Object.is(a, b)) continue;
    if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
    if (Array.isArray(a) !== Array.isArray(b)) return false;
    const ka = Object.keys(a);
    if (ka.length !== Object.keys(b).length) return false;
    const ra = a as Record<string, unknown>;
    const rb = b as Record<string, unknown>;
    for (const k of ka) {
      if (!Object.hasOwn(rb, k)) return false;
      work.push([ra[k], rb[k]]);
    }
  }
  return true;
}
