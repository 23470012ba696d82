// Which expressions may raise a run-time error: a get whose index is not known to be in range, checkIndex likewise,
// Index division by anything but a non-zero literal, a loop whose count may be negative, a build whose elements may
// differ in shape, applications (unknown code) and calls (which may also not terminate). Code motion (../licm.ts) moves
// only what cannot fail, so that
// moving it never makes a program fail that did not.
//
// `zero` lists loop counts assumed to be 0: a loop counted by one of them runs no iteration, so its body cannot fail.
// With the count of the loop being hoisted from, this finds what can fail only when that loop runs (and lets a
// `sameSize` shape check move too: see below).

import { splitLets } from "../ir/builder.js";
import { invariantShapes } from "../ir/invariant-shapes.js";
import { lit, typeOf, type Atom, type Expr, type Prim } from "../ir/ir.js";
import { INT, type Type } from "../types/types.js";
import type { Facts } from "./facts.js";
import { PRIMS, primMayFail } from "../prims/table.js";

/**
 * Whether `sameSize a b`, in front of a loop over a count in `zero` that may run no iteration, is still a precondition
 * of the program's arguments (what lets it move there): not when the loop surely runs none (its count is 0: the call
 * it comes from never happens), not when it surely fails (two different literals), and not when an operand is
 * computed through a branch, such as the made-up value a read hoisted under its loop's guard takes when the loop does
 * not run (../licm.ts: `if 0 < n then xs[0] else build 0 ...`; a random program's `build 0` of rows read `p[0]` and
 * compared its length with 3). Found by the fuzzer: the compiled code raised a shape error the interpreter did not.
 */
function argumentCheck(a: Atom, b: Atom, facts: Facts, zero: readonly Atom[]): boolean {
  if (zero.some((z) => facts.lessOrEqual(z, lit(0, INT)))) return false;
  if (a.kind === "lit" && b.kind === "lit") return false;
  return !throughBranch(a, facts, 0) && !throughBranch(b, facts, 0);
}

/** Whether `a`'s value may come from a branch (a conditional, or a loop's state) on the way from its definition. */
function throughBranch(a: Atom, facts: Facts, depth: number): boolean {
  if (a.kind === "lit") return false;
  const d = facts.definitionOf(a);
  if (d === undefined) return false;
  if (depth > 16) return true;
  switch (d.kind) {
    case "var":
    case "lit":
      return throughBranch(d, facts, depth + 1);
    case "prim":
    case "tuple":
      return (d.kind === "prim" ? d.args : d.elems).some((x) => throughBranch(x, facts, depth + 1));
    case "proj":
      return throughBranch(d.arg, facts, depth + 1);
    case "build":
      return throughBranch(d.size, facts, depth + 1);
    default:
      return true;
  }
}

/**
 * An update of one Double (or Index) element whose path is provably in range of its array's first one or two
 * dimensions, the array's shape known through ./facts.ts `shapeRoot` (an adjoint accumulated in a loop keeps the shape
 * of the zeros it started from): it cannot fail. Anything else (a row replaced, a deeper path) may.
 */
function updateInRange(e: Prim, facts: Facts): boolean {
  const [target, path, value] = e.args as [Atom, Atom, Atom];
  let rank = 0;
  for (let t = target.type; t.k === "array"; t = t.elem) rank++;
  if (value.type.k === "array" || value.type.k === "tuple") return false;
  if (path.type.k === "int") return rank === 1 && facts.inRangeOf(path, target);
  const d = path.kind === "var" ? facts.definitionOf(path) : undefined;
  if (d?.kind !== "tuple" || d.elems.length !== rank || rank !== 2) return false;
  return facts.inRangeOf(d.elems[0]!, target) && facts.inRangeOfRows(d.elems[1]!, target);
}

export function mayFail(e: Expr, facts: Facts, zero: readonly Atom[] = []): boolean {
  const { bindings, tail } = splitLets(e);
  return bindings.some((b) => nodeMayFail(b.rhs, facts, zero)) || nodeMayFail(tail, facts, zero);
}

function nodeMayFail(e: Expr, facts: Facts, zero: readonly Atom[]): boolean {
  switch (e.kind) {
    case "var":
    case "lit":
    case "tuple":
    case "proj":
    case "lam":
      return false;
    case "app":
    case "jvp":
    case "call": // may raise an error, or not terminate
      return true;
    case "custom":
      return false;
    case "while":
      // It may not end: never moved where it would not have run.
      return true;
    case "let":
      return mayFail(e, facts, zero);
    case "prim": {
      const [a, b] = e.args;
      if (e.op === "get") return !facts.inRangeOf(b!, a!);
      if (e.op === "checkIndex") return !facts.inRange(a!, b!);
      // An Index division fails only when its divisor is zero.
      if (PRIMS[e.op].fails === "index-division" && e.type.k === "int") return !(b!.kind === "lit" && b!.value !== 0);
      // A prelude shape check is a precondition on the arguments of the whole computation it guards: it may move in
      // front of a loop (`zero` given) even one that would run no iteration — the call it comes from fails on such
      // arguments anyway. This keeps a vectorised derivative's primal out of its loop over positions.
      if (e.op === "sameSize")
        return !facts.sameValue(a!, b!) && (zero.length === 0 || !argumentCheck(a!, b!, facts, zero));
      if (e.op === "addAt" || e.op === "setAt") return !updateInRange(e, facts);
      return primMayFail(e.op, e.type);
    }
    case "if":
      return (
        inside(
          facts,
          () => facts.assume(e.cond, true),
          () => mayFail(e.then, facts, zero),
        ) ||
        inside(
          facts,
          () => facts.assume(e.cond, false),
          () => mayFail(e.else, facts, zero),
        )
      );
    case "build":
    case "ifold": {
      const count = e.kind === "build" ? e.size : e.count;
      if (zero.some((z) => facts.sameValue(z, count))) return false;
      if (!facts.isNonNegative(count)) return true;
      // A loop known to run no iteration (its count is 0 here, e.g. in the branch where `0 < length a` is false).
      if (facts.lessOrEqual(count, lit(0, INT))) return false;
      if (e.kind === "build" && !regularElements(e.body, new Set([e.index.id]))) return true;
      return inside(
        facts,
        () => {
          facts.enterLoop(e.index, count);
          if (e.kind === "ifold") facts.enterState(e.acc, e.init, invariantShapes(e));
        },
        () => mayFail(e.body, facts, zero),
      );
    }
  }
}

function inside(facts: Facts, learn: () => void, test: () => boolean): boolean {
  const m = facts.mark();
  learn();
  const r = test();
  facts.reset(m);
  return r;
}

/**
 * The elements a build body produces all have the same shape: scalars, or arrays whose sizes are bound outside the
 * body (`boundInside` holds the index and the body's own lets), or rows of one array (arrays are regular).
 */
function regularElements(body: Expr, boundInside: Set<number>): boolean {
  const { bindings, tail } = splitLets(body);
  for (const b of bindings) boundInside.add(b.v.id);
  const defs = new Map<number, Expr>(bindings.map((b) => [b.v.id, b.rhs]));
  const outside = (a: Atom) => a.kind === "lit" || !boundInside.has(a.id);
  const shapeFixed = (x: Expr): boolean => {
    if (!hasArray(typeOf(x))) return true;
    switch (x.kind) {
      case "build":
        return outside(x.size) && regularElements(x.body, new Set([...boundInside, x.index.id]));
      case "tuple":
        return x.elems.every((a) => shapeFixed(a));
      case "var": {
        if (!boundInside.has(x.id)) return true; // one value for every element
        const d = defs.get(x.id);
        if (d === undefined) return false;
        // A row of an array bound outside: every row of a regular array has the same shape.
        if (d.kind === "prim" && d.op === "get") return outside(d.args[0]!);
        return shapeFixed(d);
      }
      default:
        return false;
    }
  };
  return shapeFixed(tail);
}

function hasArray(t: Type): boolean {
  return t.k === "array" || (t.k === "tuple" && t.elems.some(hasArray));
}
