// What cannot fail (src/opt/failure.ts) with the facts about shapes (src/opt/facts.ts `shapeRoot`): an adjoint
// accumulated in a loop keeps the shape of the zeros it started from, so an update at an index below that shape's
// length cannot fail; a loop whose count is known to be 0 runs nothing; a negative count still fails.

import { describe, expect, test } from "vitest";
import { litDouble, litIndex, mkIfold, mkPrim } from "../../src/ir/builder.js";
import { freshVar, type Atom, type Expr } from "../../src/ir/ir.js";
import { Facts } from "../../src/opt/facts.js";
import { mayFail } from "../../src/opt/failure.js";
import { INT, VECTOR } from "../../src/types/types.js";

function scope() {
  const defs = new Map<number, Expr>();
  const facts = new Facts((a: Atom) => (a.kind === "var" ? defs.get(a.id) : undefined));
  const define = (name: string, rhs: Expr) => {
    const v = freshVar(name, "type" in rhs && rhs.type !== undefined ? rhs.type : INT);
    defs.set(v.id, rhs);
    return v;
  };
  return { facts, define };
}

/** `ifold (fun a i -> addAt a i 1.) start count`. */
function accumulate(start: Atom, count: Atom) {
  const acc = freshVar("a", VECTOR);
  const i = freshVar("i", INT);
  return mkIfold(start, count, acc, i, mkPrim("addAt", [acc, i, litDouble(1)]));
}

describe("what cannot fail, with shapes", () => {
  const v = freshVar("v", VECTOR);
  const m = freshVar("m", INT);

  test("an update of zeros like v at an index below length v cannot fail; below another count it may", () => {
    const { facts, define } = scope();
    const n = define("n", mkPrim("length", [v]));
    const zeros = define("zeros", mkPrim("zerosLike", [v]));
    expect(mayFail(accumulate(zeros, n), facts)).toBe(false);
    expect(mayFail(accumulate(zeros, m), facts)).toBe(true);
    // Through a loop that keeps the shape: the zeros updated once, then accumulated again.
    const once = define("once", accumulate(zeros, n));
    expect(mayFail(accumulate(once, n), facts)).toBe(false);
    // An update of v itself at its length: out of range.
    const vAt = (k: number) => mkPrim("addAt", [v, litIndex(k), litDouble(1)]);
    expect(mayFail(vAt(0), facts)).toBe(true);
  });

  test("a loop whose count is 0 here runs nothing; a count that may be negative still fails", () => {
    const { facts, define } = scope();
    const n = define("n", mkPrim("length", [v]));
    const reads = (count: Atom) => {
      const acc = freshVar("s", v.type.k === "array" ? v.type.elem : VECTOR);
      const i = freshVar("i", INT);
      return mkIfold(litDouble(0), count, acc, i, mkPrim("get", [v, litIndex(5)]));
    };
    const nPositive = define("c", mkPrim("lt", [litIndex(0), n]));
    const mPositive = define("d", mkPrim("lt", [litIndex(0), m]));
    expect(mayFail(reads(n), facts)).toBe(true);
    facts.within(
      () => facts.assume(nPositive, false),
      () => expect(mayFail(reads(n), facts)).toBe(false),
    );
    facts.within(
      () => facts.assume(mPositive, false),
      () => expect(mayFail(reads(m), facts)).toBe(true),
    );
  });
});
