// Test-only helpers: IR functions built by hand (the type checker is written elsewhere), runtime values written by
// hand, and the differential check "compiled code = reference interpreter", exact to the bit and the representation.

import { expect } from "vitest";
import { freshVar, type Expr, type IrFunction, type Var } from "../../src/ir/ir.js";
import { runFunction } from "../../src/eval/interpreter.js";
import { compileFunction, type CompiledFunction } from "../../src/codegen/compile.js";
import { SmoothError } from "../../src/syntax/diagnostics.js";
import type { SourceFile, Span } from "../../src/syntax/source.js";
import type { Type } from "../../src/types/types.js";
import type { DenseArray, ScalarKind, Value } from "../../src/runtime/value.js";

/** An IR function of fresh parameters; `body` receives them. */
export function fnOf(params: readonly (readonly [string, Type])[], body: (...ps: Var[]) => Expr): IrFunction {
  const vars = params.map(([name, t]) => freshVar(name, t));
  return { name: "test", params: vars, body: body(...vars) };
}

/** Exact equality of runtime values: same representation (typed array class, shapes, tags) and bit-equal numbers. */
export function sameValue(a: Value, b: Value): boolean {
  if (typeof a === "number" || typeof a === "boolean") return Object.is(a, b);
  if (typeof b !== "object") return false;
  switch (a.tag) {
    case "dense":
      return (
        b.tag === "dense" &&
        a.elemKind === b.elemKind &&
        a.shape.length === b.shape.length &&
        a.shape.every((d, i) => d === b.shape[i]) &&
        a.data.constructor === b.data.constructor &&
        a.data.length === b.data.length &&
        Array.prototype.every.call(a.data, (x: number, i: number) => Object.is(x, b.data[i]))
      );
    case "tuparr":
      return (
        b.tag === "tuparr" &&
        a.depth === b.depth &&
        a.fields.length === b.fields.length &&
        a.fields.every((f, i) => sameValue(f, b.fields[i]!))
      );
    case "tuple":
      return (
        b.tag === "tuple" && a.elems.length === b.elems.length && a.elems.every((e, i) => sameValue(e, b.elems[i]!))
      );
    case "fun":
      return a === b;
  }
}

function outcome(run: () => Value): { value: Value } | { error: SmoothError } {
  try {
    return { value: run() };
  } catch (e) {
    if (e instanceof SmoothError) return { error: e };
    throw e;
  }
}

/**
 * Runs `fn` compiled and in the interpreter on each argument list: both give the same value (exactly), or both throw
 * a SmoothError of the same kind, message and span. Returns the compiled function (for looking at its source).
 */
export function agrees(fn: IrFunction, ...argLists: (readonly Value[])[]): CompiledFunction {
  const compiled = compileFunction(fn);
  for (const args of argLists) {
    const want = outcome(() => runFunction(fn, args));
    const got = outcome(() => compiled(args));
    if ("error" in want) {
      if (!("error" in got)) throw new Error(`expected error ${want.error.message}\ngot a value\n${compiled.source}`);
      expect(got.error.kind).toBe(want.error.kind);
      expect(got.error.message).toBe(want.error.message);
      expect(got.error.span).toBe(want.error.span);
    } else {
      if ("error" in got) throw new Error(`unexpected error ${got.error.message}\n${compiled.source}`);
      if (!sameValue(got.value, want.value)) {
        expect.fail(`compiled ${show(got.value)} but interpreter ${show(want.value)}\n${compiled.source}`);
      }
    }
  }
  return compiled;
}

export { thrown } from "../helpers.js";

export function show(v: Value): string {
  if (typeof v !== "object") return Object.is(v, -0) ? "-0" : String(v);
  switch (v.tag) {
    case "dense":
      return `${v.elemKind}${JSON.stringify(v.shape)}(${v.data.constructor.name})[${Array.from(v.data).join(", ")}]`;
    case "tuparr":
      return `tuparr${v.depth}{${v.fields.map(show).join("; ")}}`;
    case "tuple":
      return `(${v.elems.map(show).join(", ")})`;
    case "fun":
      return "<fun>";
  }
}

export function dense(kind: ScalarKind, shape: readonly number[], xs: readonly number[]): DenseArray {
  const data = kind === "double" ? Float64Array.from(xs) : kind === "int" ? Int32Array.from(xs) : Uint8Array.from(xs);
  if (data.length !== shape.reduce((a, b) => a * b, 1)) throw new Error("dense: data does not fit the shape");
  return { tag: "dense", elemKind: kind, shape, data };
}
export const vec = (xs: readonly number[]): DenseArray => dense("double", [xs.length], xs);
export const mat = (rows: readonly (readonly number[])[]): DenseArray =>
  dense("double", [rows.length, rows[0]?.length ?? 0], rows.flat());

/** A source file and the span of the first occurrence of `fragment` in it. */
export function spanIn(text: string, fragment: string): Span {
  const file: SourceFile = { name: "codegen.smooth", text };
  const start = text.indexOf(fragment);
  if (start < 0) throw new Error(`${fragment} is not in ${text}`);
  return { file, start, end: start + fragment.length };
}
