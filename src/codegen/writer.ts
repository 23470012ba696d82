// Text output for the code generator: indented lines, and the only two ways program data becomes JavaScript text:
// numeric and boolean literals printed here from their values, and identifiers made from variable ids. Everything
// else a program carries (spans, names, messages) reaches the generated code through closure arrays, never as text.

import type { Type } from "../types/types.js";
import { leavesOf } from "../lowering/leaves.js";

export class CodeWriter {
  private readonly lines: string[] = [];
  private depth: number;

  constructor(depth = 0) {
    this.depth = depth;
  }

  line(text: string): void {
    this.lines.push("  ".repeat(this.depth) + text);
  }

  /**
   * The blocks open at the current line (innermost last), each with its own id. A fact established by a line holds
   * for the rest of its block, nested blocks included, while that block stays open (names are assigned once, or
   * only at the end of the loop body that declares them, so a later line of the same run sees the same values).
   */
  private readonly scopes: number[] = [0];
  private readonly open_ = new Set<number>([0]);
  private nextScope = 1;

  /** The innermost open block. */
  get scope(): number {
    return this.scopes[this.scopes.length - 1]!;
  }

  /** Whether block `id` is still open (facts established in it hold here). */
  isOpen(id: number): boolean {
    return this.open_.has(id);
  }

  private push(): void {
    const id = this.nextScope++;
    this.scopes.push(id);
    this.open_.add(id);
  }

  private pop(): void {
    this.open_.delete(this.scopes.pop()!);
  }

  /** A line ending in `{`, after which lines are indented one more level. */
  open(text: string): void {
    this.line(text);
    this.depth++;
    this.push();
  }

  /** Ends a block opened with `open`; `text` may continue it, as in "} else {" (then followed by `indentIn`). */
  close(text = "}"): void {
    this.depth--;
    this.pop();
    this.line(text);
  }

  indentIn(): void {
    this.depth++;
    this.push();
  }

  indentOut(): void {
    this.depth--;
    this.pop();
  }

  /** Runs `write`, returning the lines it wrote instead of keeping them (for code that must be placed later). */
  capture(write: () => void): string[] {
    const mark = this.lines.length;
    write();
    return this.lines.splice(mark);
  }

  /** Re-emits captured lines (they keep the indentation they were written with). */
  append(lines: readonly string[]): void {
    this.lines.push(...lines);
  }

  text(): string {
    return this.lines.join("\n");
  }
}

/** A JavaScript identifier for a variable id. Ids are numbers, so no program text can get through. */
export function varName(id: number): string {
  if (!Number.isSafeInteger(id) || id < 0) throw new Error(`codegen: bad variable id ${String(id)}`);
  return `v${id}`;
}

/**
 * The JavaScript names for the slots (src/lowering/leaves.ts) of a value of type `t` held in locals named after `base`
 * (e.g. "v12").
 */
export function slotNames(base: string, t: Type): string[] {
  const leaves = leavesOf(t);
  const names: string[] = [];
  leaves.forEach((l, k) => {
    const p = leaves.length === 1 ? base : `${base}_${k}`;
    if (l.rank === 0) names.push(p);
    else names.push(p, `${p}_o`, ...Array.from({ length: l.rank }, (_, d) => `${p}_n${d}`));
  });
  return names;
}

/** A JavaScript literal with exactly the value of a Double, Index or Bool literal (NaN, infinities and -0 included). */
export function jsLiteral(value: number | boolean, t: Type): string {
  if (t.k === "bool") {
    if (typeof value !== "boolean") throw new Error(`codegen: Bool literal ${String(value)}`);
    return value ? "true" : "false";
  }
  if (typeof value !== "number" || (t.k !== "double" && t.k !== "int")) {
    throw new Error(`codegen: literal of type ${t.k} with value ${String(value)}`);
  }
  if (t.k === "int" && (!Number.isInteger(value) || (value | 0) !== value)) {
    throw new Error(`codegen: Index literal ${value} is not an int32`);
  }
  return numberLiteral(value);
}

export function numberLiteral(x: number): string {
  if (Number.isNaN(x)) return "NaN";
  if (x === Infinity) return "Infinity";
  if (x === -Infinity) return "(-Infinity)";
  if (Object.is(x, -0)) return "(-0)";
  // String(x) is the shortest text that reads back as exactly x; negative literals are parenthesised so that
  // operators can be put in front of them (`-(-1)`, not `--1`).
  return x < 0 ? `(${String(x)})` : String(x);
}

/** True for the text of an integer literal >= 0 (sizes and offsets known at compile time). */
export function isNonNegativeIntLiteral(s: string): boolean {
  return /^[0-9]+$/.test(s);
}

/** The value of a slot that is the text of an integer literal >= 0, else undefined (for src/lowering/bounds.ts). */
export function nonNegativeIndexLiteral(s: string): number | undefined {
  return isNonNegativeIntLiteral(s) ? Number(s) : undefined;
}
