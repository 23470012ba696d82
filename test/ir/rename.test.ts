import { describe, expect, test } from "vitest";
import { AnfBuilder, litDouble, litIndex, mkPrim, splitLets } from "../../src/ir/builder.js";
import { alphaEqual } from "../../src/ir/equal.js";
import { exprSize, freeVars, useCounts } from "../../src/ir/free.js";
import { freshVar, lit, mkLet, typeOf, type Atom, type Expr } from "../../src/ir/ir.js";
import { printIr } from "../../src/ir/print.js";
import { copyFresh, substitute } from "../../src/ir/rename.js";
import { verify } from "../../src/ir/verify.js";
import { DOUBLE, INT, VECTOR } from "../../src/types/types.js";

const v = freshVar("v", VECTOR);
const a = freshVar("a", DOUBLE);

/** `build (length v) (fun i -> let t = v[i] * a in t + t)` */
function sample(): Expr {
  const b = new AnfBuilder();
  const n = b.prim("length", [v], "n");
  return b.finish(
    b.build(n, (i, bb) => {
      const t = bb.prim("mul", [bb.prim("get", [v, i]), a], "t");
      return bb.prim("add", [t, t]);
    }),
  );
}

describe("free variables, use counts, size", () => {
  test("binders are not free; every operand use counts", () => {
    const e = sample();
    expect([...freeVars(e).values()].map((x) => x.name).sort()).toEqual(["a", "v"]);
    const counts = useCounts(e);
    expect(counts.get(v.id)).toBe(2);
    expect(counts.get(a.id)).toBe(1);
    // 5 lets, length, build, get, mul, add, and the two tail variables; atoms in operand position are not nodes
    expect(exprSize(e)).toBe(12);
    expect(exprSize(a)).toBe(1);
  });
});

describe("substitution and fresh copies", () => {
  test("substitute replaces free uses and keeps binders", () => {
    const b2 = freshVar("b", DOUBLE);
    const e = sample();
    const s = substitute(e, new Map<number, Atom>([[a.id, b2]]));
    expect(printIr(s, { sugar: false })).toBe(printIr(e, { sugar: false }).replace(/\* a/, "* b"));
    expect(splitLets(s).bindings[0]!.v).toBe(splitLets(e).bindings[0]!.v);
  });

  test("copyFresh renames every binder, so a copy can sit next to the original", () => {
    const e = sample();
    const c = copyFresh(e, new Map<number, Atom>([[a.id, litDouble(2)]]));
    const x = freshVar("x", typeOf(e));
    const y = freshVar("y", typeOf(e));
    const both = mkLet(x, e, mkLet(y, c, mkPrim("length", [y])));
    // the original twice would bind its variables twice
    expect(() => verify(flatten(mkLet(x, e, mkLet(y, e, x))), [v, a])).toThrow(/bound more than once/);
    expect(() => verify(flatten(both), [v, a])).not.toThrow();
    expect(alphaEqual(c, substitute(e, new Map<number, Atom>([[a.id, litDouble(2)]])))).toBe(true);
  });
});

describe("alpha-equivalence", () => {
  test("equal up to bound names, not up to free ones or literals", () => {
    const e = sample();
    expect(alphaEqual(e, copyFresh(e))).toBe(true);
    const other = freshVar("a", DOUBLE);
    expect(alphaEqual(e, substitute(e, new Map<number, Atom>([[a.id, other]])))).toBe(false);
    expect(alphaEqual(lit(0, DOUBLE), lit(-0, DOUBLE))).toBe(false);
    expect(alphaEqual(lit(NaN, DOUBLE), lit(NaN, DOUBLE))).toBe(true);
    expect(alphaEqual(lit(1, DOUBLE), lit(1, INT))).toBe(false);
    expect(alphaEqual(mkPrim("sub", [a, litDouble(1)]), mkPrim("sub", [litDouble(1), a]))).toBe(false);
  });

  test("binders must correspond consistently", () => {
    // let x = a in let y = a in x   vs   let x = a in let y = a in y
    const mk = (pickFirst: boolean) => {
      const x = freshVar("x", DOUBLE);
      const y = freshVar("y", DOUBLE);
      return mkLet(x, mkPrim("neg", [a]), mkLet(y, mkPrim("neg", [a]), pickFirst ? x : y));
    };
    expect(alphaEqual(mk(true), mk(true))).toBe(true);
    expect(alphaEqual(mk(true), mk(false))).toBe(false);
  });
});

describe("the ANF builder", () => {
  test("binds non-atoms, passes atoms through, flattens let chains", () => {
    const b = new AnfBuilder();
    expect(b.bind("x", a)).toBe(a);
    const inner = freshVar("t", DOUBLE);
    const y = b.bind("y", mkLet(inner, mkPrim("neg", [a]), mkPrim("sin", [inner])));
    const e = b.finish(y);
    expect(printIr(e, { sugar: false })).toBe("let t = -a in\nlet y = sin t in\ny");
    expect(() => b.finish(y)).toThrow(/used after finish/);
  });

  test("typed constructors reject ill-typed nodes", () => {
    const b = new AnfBuilder();
    expect(() => b.prim("add", [a, litIndex(1)])).toThrow(/mkPrim add: argument types Double, Index/);
    expect(() => b.proj(0, a)).toThrow(/mkProj 0/);
    expect(() => b.app(a, a)).toThrow(/cannot apply Double/);
  });

  test("rebindLast gives the last binding a new binder", () => {
    const b = new AnfBuilder();
    const t = b.prim("exp", [a], "t");
    const m = freshVar("m", DOUBLE);
    expect(b.rebindLast(t, m)).toBe(true);
    expect(b.rebindLast(a, m)).toBe(false);
    expect(printIr(b.finish(m), { sugar: false })).toBe("let m = exp a in\nm");
  });
});

/** Flattens `let x = (let ... in e) in body` as the builder does. */
function flatten(e: Expr): Expr {
  const b = new AnfBuilder();
  let cur = e;
  while (cur.kind === "let") {
    b.bindVar(cur.v, cur.rhs);
    cur = cur.body;
  }
  return b.finish(cur);
}
