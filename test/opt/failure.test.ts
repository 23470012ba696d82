// What cannot fail (src/opt/failure.ts) with the facts about shapes (src/opt/facts.ts `shapeRoot`): an adjoint
// accumulated in a loop keeps the shape of the zeros it started from, so an update at an index below that shape's
// length cannot fail; a loop whose count is known to be 0 runs nothing; a negative count still fails. A shape check
// moves in front of a loop that may run no iteration only as a precondition of the program's arguments (not on a
// value made up under a loop's guard, not when it surely fails, not in front of a loop that surely runs none): the
// fuzzer's program whose compiled code raised a shape error the interpreter did not now runs on every back end.

import { describe, expect, test } from "vitest";
import { litDouble, litIndex, mkBuild, mkIf, mkIfold, mkPrim } from "../../src/ir/builder.js";
import { loadProgram } from "../../src/api/program.js";
import { freshVar, type Atom, type Expr } from "../../src/ir/ir.js";
import { Facts } from "../../src/opt/facts.js";
import { mayFail } from "../../src/opt/failure.js";
import { DOUBLE, INT, MATRIX, VECTOR } from "../../src/types/types.js";

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

  test("a shape check moves in front of a loop that may run no iteration only as a check of the arguments", () => {
    const { facts, define } = scope();
    const w = freshVar("w", VECTOR);
    const [n, k] = [define("n", mkPrim("length", [v])), define("k", mkPrim("length", [w]))];
    const check = (a: Atom, b: Atom) => mkPrim("sameSize", [a, b]);
    // Lengths of the arguments, in front of a loop over m: a precondition, it may move.
    expect(mayFail(check(n, k), facts, [m])).toBe(false);
    // Not without a loop to move out of.
    expect(mayFail(check(n, k), facts)).toBe(true);
    // Not in front of a loop that surely runs none, nor when it surely fails.
    expect(mayFail(check(n, k), facts, [litIndex(0)])).toBe(true);
    expect(mayFail(check(litIndex(3), litIndex(0)), facts, [m])).toBe(true);
    // Not on the length of a read hoisted under its loop's guard (a made-up empty vector when the loop runs none).
    const runs = define("runs", mkPrim("lt", [litIndex(0), m]));
    const empty = mkBuild(litIndex(0), freshVar("i", INT), litDouble(0));
    const row = define("row", mkIf(runs, mkPrim("get", [freshVar("rows", MATRIX), litIndex(0)]), empty));
    const rowLength = define("len", mkPrim("length", [row]));
    expect(mayFail(check(litIndex(3), rowLength), facts, [m])).toBe(true);
  });

  test("the fuzzer's program: a build of no rows whose element compares a row's length runs on every back end", () => {
    const prog = loadProgram({
      name: "fuzz.smooth",
      text: `let main = fun (p0: Double) (p1: Matrix) (p2: Double) ->
  vectorAdd (matrixMap (build 0 (fun i3 -> build 3 (fun i4 -> p0))) (fun r5 -> vectorDot r5 p1[0])) (build 0 (fun i6 -> p0))`,
    });
    const m3 = { tag: "dense", elemKind: "double", shape: [3, 3], data: new Float64Array(9).fill(-3) } as const;
    const empty = { tag: "dense", elemKind: "double", shape: [0], data: new Float64Array(0) };
    for (const engine of ["interp", "js", "wasm"] as const)
      expect(prog.specialise("main", [DOUBLE, MATRIX, DOUBLE], engine).run([-3, m3, -3])).toEqual(empty);
  });
});
