// The forms of `build` that compiled back ends write in their own way (destination-passing style, paper 000 §4.2),
// recognised here on the IR so that every back end finds the same ones:
//
//   - a chain: a build whose body ends in another build (after some lets), and so on, B0 ⊃ B1 ⊃ ... ⊃ Bk, written as
//     nested loops storing the terminal values straight into B0's buffers;
//   - terminals that leave most elements zero (a one-hot vector, a branch whose other side is a vector of zeros),
//     written into zeroed memory where they are not zero only;
//   - `build n (fun _ -> 0)` (an allocation) and `build n (fun i -> xs[i])` (a copy).

import { isFreeIn } from "../ir/free.js";
import { typeOf, type Atom, type Build, type Expr, type Let, type Prim } from "../ir/ir.js";
import type { ScalarKind } from "../runtime/value.js";

/** The chain starting at `outer`: its builds, outermost first, with the lets between them. */
export function buildChain(outer: Build): Level[] {
  const levels: Level[] = [];
  for (let b = outer; ;) {
    const split = tailBuild(b.body);
    levels.push({ build: b, lets: split ? split.lets : [] });
    if (!split) return levels;
    b = split.inner;
  }
}

/**
 * Whether the chain leaves some elements unwritten (a one-hot terminal, or a terminal branch that leaves zeros): only
 * then must its buffers start as zeros.
 */
export function leavesZeros(levels: readonly Level[]): boolean {
  const last = levels[levels.length - 1]!.build;
  let tail = last.body;
  while (tail.kind === "let") tail = tail.body;
  return oneHotTerminal(last) !== undefined || zeroBranch(tail) !== undefined;
}

/** `build n (fun _ -> 0)` (+0, 0 or false) of scalars: the element kind (typed arrays start as those zeros). */
export function zeroFilled(b: Build): ScalarKind | undefined {
  const body = b.body;
  const zero =
    body.kind === "lit" &&
    (Object.is(body.value, 0) || body.value === false) &&
    b.type.k === "array" &&
    b.type.elem.k === body.type.k;
  return zero ? (body.type.k as ScalarKind) : undefined;
}

/** One build of a chain. */
export interface Level {
  readonly build: Build;
  /** The lets of this build's body that precede the next level's build (none for the last level). */
  readonly lets: readonly Let[];
}

/**
 * The lets and the build in tail position of a build body: `let ... in build ...` or `let ... let x = build ... in x`.
 */
function tailBuild(body: Expr): { lets: Let[]; inner: Build } | undefined {
  const lets: Let[] = [];
  let e = body;
  while (e.kind === "let") {
    lets.push(e);
    e = e.body;
  }
  if (e.kind === "build") return { lets, inner: e };
  const last = lets[lets.length - 1];
  if (e.kind === "var" && last !== undefined && last.v.id === e.id && last.rhs.kind === "build") {
    return { lets: lets.slice(0, -1), inner: last.rhs };
  }
  return undefined;
}

/**
 * A terminal build `build n (fun j -> let c = (j = e) in if c then A else 0.)` (or `e = j`) with a Double element: the
 * hot index e (bound outside) and A. Its array is zero except at e, so a back end writes that element alone.
 */
export function oneHotTerminal(b: Build): { at: Atom; value: Expr } | undefined {
  const body = b.body;
  if (body.kind !== "let" || body.rhs.kind !== "prim" || body.rhs.op !== "eq" || typeOf(body).k !== "double")
    return undefined;
  const tail = body.body;
  if (tail.kind !== "if" || tail.cond.kind !== "var" || tail.cond.id !== body.v.id) return undefined;
  if (tail.else.kind !== "lit" || !Object.is(tail.else.value, 0)) return undefined;
  const [x, y] = body.rhs.args as [Atom, Atom];
  const isIndex = (a: Atom) => a.kind === "var" && a.id === b.index.id;
  const at = isIndex(x) ? y : isIndex(y) ? x : undefined;
  if (at === undefined || isIndex(at) || at.type.k !== "int" || isFreeIn(body.v, tail.then)) return undefined;
  return { at, value: tail.then };
}

/** `build m (fun _ -> 0.)` (also as `let x = build ... in x`), a vector of literal zeros. */
function zeroBuild(e: Expr): Build | undefined {
  if (e.kind === "let" && e.body.kind === "var" && e.body.id === e.v.id) e = e.rhs;
  const zero =
    e.kind === "build" &&
    e.body.kind === "lit" &&
    Object.is(e.body.value, 0) &&
    e.type.k === "array" &&
    e.type.elem.k === "double";
  return zero ? (e as Build) : undefined;
}

/** A conditional element that is all zeros on one side: the other side's value, and when the zeros are taken. */
export interface ZeroBranch {
  readonly cond: Atom;
  readonly value: Expr;
  readonly zero: Build;
  readonly zeroWhen: boolean;
}

/** A terminal `if c then A else build m (fun _ -> 0.)` (or the zeros first) with a vector of Doubles as its value. */
export function zeroBranch(e: Expr): ZeroBranch | undefined {
  if (e.kind !== "if" || e.type.k !== "array" || e.type.elem.k !== "double") return undefined;
  const [zt, ze] = [zeroBuild(e.then), zeroBuild(e.else)];
  if (ze !== undefined && zt === undefined) return { cond: e.cond, value: e.then, zero: ze, zeroWhen: false };
  if (zt !== undefined && ze === undefined) return { cond: e.cond, value: e.else, zero: zt, zeroWhen: true };
  return undefined;
}

/** `build n (fun i -> xs[i])` with xs a vector of Doubles: the get (a copy of the first n elements of xs). */
export function copyOf(b: Build): Prim | undefined {
  let body = b.body;
  // `let x = xs[i] in x`, as a builder writes it.
  if (body.kind === "let" && body.body.kind === "var" && body.body.id === body.v.id) body = body.rhs;
  if (body.kind !== "prim" || body.op !== "get" || body.type.k !== "double") return undefined;
  const [xs, i] = body.args as [Atom, Atom];
  return i.kind === "var" && i.id === b.index.id && xs.type.k === "array" && xs.type.elem.k === "double"
    ? body
    : undefined;
}
