// A tiny test-only builder for core IR (the checker and lowering are written elsewhere): blocks collect let bindings in
// A-normal form, and build/ifold/lam take callbacks that receive their bound variables.

import {
  freshVar,
  mkLam,
  mkLet,
  mkTuple,
  typeOf,
  type Atom,
  type Build,
  type Expr,
  type Ifold,
  type Lam,
  type Tuple,
  type Var,
} from "../../src/ir/ir.js";
import type { SourceFile, Span } from "../../src/syntax/source.js";
import { arrayOf, INT, type Type } from "../../src/types/types.js";
import type { DenseArray } from "../../src/runtime/value.js";

// The node constructors are the compiler's own (src/ir/builder.ts), under short names.
export {
  litDouble as num,
  litIndex as idx,
  litBool as bool,
  mkPrim as prim,
  mkProj as proj,
  mkApp as app,
  mkIf as iff,
} from "../../src/ir/builder.js";
export const tup = (elems: readonly Atom[]): Tuple => mkTuple(elems);

/** Collects let bindings; `end(body)` nests them around the body. */
export class Block {
  private readonly bindings: [Var, Expr][] = [];
  bind(name: string, rhs: Expr): Var {
    const x = freshVar(name, typeOf(rhs));
    this.bindings.push([x, rhs]);
    return x;
  }
  end(body: Expr): Expr {
    return this.bindings.reduceRight<Expr>((acc, [x, rhs]) => mkLet(x, rhs, acc), body);
  }
}

export function lam(name: string, type: Type, body: (x: Var, b: Block) => Expr): Lam {
  const x = freshVar(name, type);
  const b = new Block();
  return mkLam(x, body(x, b));
}

export function buildOf(size: Atom, body: (i: Var, b: Block) => Expr, span?: Span): Build {
  const index = freshVar("i", INT);
  const b = new Block();
  const e = body(index, b);
  const node: Build = { kind: "build", size, index, body: e, type: arrayOf(typeOf(e)) };
  return span ? { ...node, span } : node;
}

export function ifoldOf(init: Atom, count: Atom, body: (acc: Var, i: Var, b: Block) => Expr, span?: Span): Ifold {
  const acc = freshVar("acc", init.type);
  const index = freshVar("i", INT);
  const b = new Block();
  const e = body(acc, index, b);
  const node: Ifold = { kind: "ifold", init, count, acc, index, body: e, type: init.type };
  return span ? { ...node, span } : node;
}

/** A source file and the span of the first occurrence of `fragment` in it. */
export function spanOf(text: string, fragment: string, name = "test.smooth"): Span {
  const file: SourceFile = { name, text };
  const start = text.indexOf(fragment);
  if (start < 0) throw new Error(`fragment ${fragment} not in ${text}`);
  return { file, start, end: start + fragment.length };
}

/** Dense array values written by hand, independent of the stacking and JSON code under test. */
export function vector(xs: readonly number[]): DenseArray {
  return { tag: "dense", elemKind: "double", shape: [xs.length], data: Float64Array.from(xs) };
}
export function matrix(rows: readonly (readonly number[])[]): DenseArray {
  const cols = rows[0]?.length ?? 0;
  return { tag: "dense", elemKind: "double", shape: [rows.length, cols], data: Float64Array.from(rows.flat()) };
}
