// Text output for the code generator: indented lines, and the only two ways program data becomes JavaScript text:
// numeric and boolean literals printed here from their values, and identifiers made from variable ids. Everything
// else a program carries (spans, names, messages) reaches the generated code through closure arrays, never as text.

import type { Type } from "../types/types.js";

export class CodeWriter {
  private readonly lines: string[] = [];
  private depth: number;

  constructor(depth = 0) {
    this.depth = depth;
  }

  line(text: string): void {
    this.lines.push("  ".repeat(this.depth) + text);
  }

  /** Changes whenever a block starts or ends: facts established by earlier lines hold while it stays the same. */
  blockEpoch = 0;

  /** A line ending in `{`, after which lines are indented one more level. */
  open(text: string): void {
    this.line(text);
    this.depth++;
    this.blockEpoch++;
  }

  /** Ends a block opened with `open`; `text` may continue it, as in "} else {". */
  close(text = "}"): void {
    this.depth--;
    this.blockEpoch++;
    this.line(text);
  }

  indentIn(): void {
    this.depth++;
    this.blockEpoch++;
  }

  indentOut(): void {
    this.depth--;
    this.blockEpoch++;
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
