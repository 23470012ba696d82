// What a TypeScript expression of the subset is while it is translated: a Smooth expression that is an atom (a variable
// or a literal, so it can be used twice) with its type, or an object or JS-array tuple kept as its parts (so `p.w` is
// the variable of w itself). Computed values are let-bound as they are made (`Lets`), in evaluation order.

import type { Expr, Pattern } from "../syntax/ast.js";
import type { Span } from "../syntax/source.js";
import type { ClassInfo } from "./classes.js";
import type { FnRef } from "./function-refs.js";
import { app, letIn, pvar, tuple } from "./smooth-ast.js";
import type { Capture, TsType } from "./ts-types.js";

export type Val =
  | { readonly kind: "atom"; readonly expr: Expr; readonly type: TsType }
  | {
      readonly kind: "record";
      readonly keys: readonly string[];
      readonly fields: readonly Val[];
      /** The class of an object made by `new` (./classes.ts). */
      readonly cls?: ClassInfo;
    }
  | { readonly kind: "tuple"; readonly elems: readonly Val[] }
  | FnVal;

/** A function value (./function-values.ts): which function, and the values it holds (its type's parts). */
export interface FnVal {
  readonly kind: "fn";
  readonly ref: FnRef;
  readonly captures: readonly (Capture | undefined)[];
  readonly parts: readonly Val[];
}

/** A value that is one Smooth atom (a variable or a literal). */
export type AtomVal = Extract<Val, { kind: "atom" }>;

export const atom = (expr: Expr, type: TsType): AtomVal => ({ kind: "atom", expr, type });

export function typeOfVal(x: Val): TsType {
  switch (x.kind) {
    case "atom":
      return x.type;
    case "record":
      return { k: "record", keys: x.keys, fields: x.fields.map(typeOfVal), ...(x.cls ? { cls: x.cls } : {}) };
    case "tuple":
      return { k: "tuple", elems: x.elems.map(typeOfVal) };
    case "fn":
      return { k: "fn", ref: x.ref, captures: x.captures, parts: x.parts.map(typeOfVal) };
  }
}

/** The parts of a value that is made of others (a record's fields, a tuple's elements, a function value's parts). */
const partsOf = (x: Exclude<Val, { kind: "atom" }>): readonly Val[] =>
  x.kind === "record" ? x.fields : x.kind === "tuple" ? x.elems : x.parts;

/** The atoms of a value, depth first. */
export function leaves(x: Val): Extract<Val, { kind: "atom" }>[] {
  return x.kind === "atom" ? [x] : partsOf(x).flatMap(leaves);
}

/** A value of the structure of type t whose atoms are `atoms` in order. */
export function fromLeaves(t: TsType, atoms: readonly Val[]): Val {
  let next = 0;
  const rec = (u: TsType): Val => {
    if (u.k === "record")
      return { kind: "record", keys: u.keys, fields: u.fields.map(rec), ...(u.cls ? { cls: u.cls } : {}) };
    if (u.k === "tuple") return { kind: "tuple", elems: u.elems.map(rec) };
    if (u.k === "fn") return { kind: "fn", ref: u.ref, captures: u.captures, parts: u.parts.map(rec) };
    return atoms[next++]!;
  };
  return rec(t);
}

/** The leaf types of a type (records and tuples taken apart). */
export function leafTypes(t: TsType): TsType[] {
  const parts = partTypes(t);
  return parts ? parts.flatMap(leafTypes) : [t];
}

/** The parts of a type made of others (records, tuples, function values), or undefined. */
export const partTypes = (t: TsType): readonly TsType[] | undefined =>
  t.k === "record" ? t.fields : t.k === "tuple" ? t.elems : t.k === "fn" ? t.parts : undefined;

/** The value as one Smooth expression (records and tuples as Smooth tuples). */
export function pack(x: Val, span: Span): Expr {
  if (x.kind === "atom") return x.expr;
  return tuple(
    partsOf(x).map((e) => pack(e, span)),
    span,
  );
}

/** Generated Smooth names, unique in a definition; a user's name is kept where possible. */
export class Names {
  private readonly used = new Set<string>();
  private readonly lastNumber = new Map<string, number>();

  constructor(private readonly reserved: (name: string) => boolean) {}

  /**
   * A fresh name based on `base`: the user's own name when it is free and is not a name the generated code uses
   * (a builtin or a prelude definition); otherwise with a prime and a number (primes are not TypeScript, so a user's
   * name never meets a generated one).
   */
  fresh(base: string): string {
    const clean = /^[A-Za-z_][A-Za-z0-9_]*$/.test(base) ? base : "t";
    if (!this.used.has(clean) && !this.reserved(clean)) {
      this.used.add(clean);
      return clean;
    }
    // Numbering continues from the last number given for this base: searching from 1 each time was quadratic in the
    // number of assignments to one variable (10⁴ statements `a = ...`).
    for (let i = (this.lastNumber.get(clean) ?? 0) + 1; ; i++) {
      const name = `${clean}'${i}`;
      if (!this.used.has(name)) {
        this.used.add(name);
        this.lastNumber.set(clean, i);
        return name;
      }
    }
  }
}

/** Lets in order, wrapped around an expression at the end. */
export class Lets {
  private readonly items: { pattern: Pattern; value: Expr; span: Span }[] = [];

  constructor(readonly names: Names) {}

  /** Binds an expression of type t to a fresh name: an atom, or for an object or a tuple its parts. */
  bind(value: Expr, type: TsType, base: string, span: Span): Val {
    if (value.kind === "var" || value.kind === "num" || value.kind === "bool")
      return this.unpack(value, type, base, span);
    const name = this.names.fresh(base);
    this.items.push({ pattern: pvar(name, span), value, span });
    return this.unpack({ kind: "var", name, span }, type, base, span);
  }

  /** An atom of a record or tuple type taken apart into its fields (`let (w, b) = p`). */
  private unpack(expr: Expr, type: TsType, base: string, span: Span): Val {
    const parts = partTypes(type);
    if (!parts) return atom(expr, type);
    const labels =
      type.k === "record"
        ? type.keys
        : type.k === "fn"
          ? type.captures.map((c) => c?.name ?? "f")
          : parts.map((_, i) => String(i));
    const names = parts.map((_, i) => this.names.fresh(`${base}_${labels[i]}`));
    this.items.push({ pattern: { kind: "ptuple", elems: names.map((n) => pvar(n, span)), span }, value: expr, span });
    const fields = parts.map((t, i) => this.unpack({ kind: "var", name: names[i]!, span }, t, names[i]!, span));
    if (type.k === "record") return { kind: "record", keys: type.keys, fields, ...(type.cls ? { cls: type.cls } : {}) };
    if (type.k === "fn") return { kind: "fn", ref: type.ref, captures: type.captures, parts: fields };
    return { kind: "tuple", elems: fields };
  }

  /** `let pattern = value` as it is (a tuple pattern binding a loop's or a branch's results). */
  bindPattern(pattern: Pattern, value: Expr, span: Span): void {
    this.items.push({ pattern, value, span });
  }

  wrap(body: Expr): Expr {
    let e = body;
    for (let i = this.items.length - 1; i >= 0; i--) {
      const { pattern, value, span } = this.items[i]!;
      e = letIn(pattern, value, e, span);
    }
    return e;
  }
}

/** `double x` for an Index atom (where a Double is needed in a tuple or a state). */
export const toDouble = (x: Expr, span: Span): Expr => app("double", [x], span);
