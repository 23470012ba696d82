// Range facts (src/opt/facts.ts) and the rules that use them: what enclosing loops and conditions decide.

import { describe, expect, test } from "vitest";
import { litBool, litDouble, litIndex, mkPrim } from "../../src/ir/builder.js";
import { freshVar, type Atom, type Expr } from "../../src/ir/ir.js";
import { Facts } from "../../src/opt/facts.js";
import { checkIndexInRange, compareByFacts, getChecked, lengthOfRow } from "../../src/opt/rules/range.js";
import { constantFold } from "../../src/opt/rules/fold.js";
import { logicUnit } from "../../src/opt/rules/conditional.js";
import { BOOL, DOUBLE, INT, MATRIX, VECTOR } from "../../src/types/types.js";
import { func } from "../ir/helpers.js";
import { params, runRules } from "./run-rules.js";

describe("compare-by-facts", () => {
  test("inside a loop over i < n: 0 <= i and i < n, however written, and n is the same size computed again", () => {
    const fn = func("f", params(["v", VECTOR]), (b, v) =>
      b.build(b.prim("length", [v], "n"), (i, bb) => {
        const n2 = bb.prim("length", [v], "n2"); // another `length v`: the same value
        return bb.tuple([
          bb.prim("le", [litIndex(0), i]),
          bb.prim("lt", [i, n2]),
          bb.prim("gt", [n2, i]),
          bb.prim("ge", [i, n2]),
          bb.prim("lt", [i, litIndex(0)]),
          bb.prim("eq", [i, i]),
          bb.prim("lt", [litIndex(0), n2]), // the loop runs, so n >= 1
        ]);
      }),
    );
    expect(runRules(fn, [compareByFacts]).text).toBe(
      "let f (v: Vector) =\n  build (length v) (fun i -> (true, true, true, false, false, true, true))",
    );
  });

  test("under `if i = j`: equal there, different in the other branch; and a Double condition repeated", () => {
    const fn = func("f", params(["i", INT], ["j", INT], ["x", DOUBLE]), (b, i, j, x) => {
      const c = b.prim("eq", [i, j], "c");
      const inner = b.if(
        c,
        (bt) => bt.tuple([bt.prim("eq", [j, i]), bt.prim("ne", [i, j])]),
        (be) => be.tuple([be.prim("eq", [j, i]), litBool(true)]),
      );
      const pos = b.prim("gt", [x, litDouble(0)], "pos");
      const again = b.if(
        pos,
        (bt) => bt.prim("gt", [x, litDouble(0)]),
        () => litBool(true),
      );
      return b.tuple([inner, again]);
    });
    expect(runRules(fn, [compareByFacts]).text).toBe(
      "let f (i: Index) (j: Index) (x: Double) =\n  ((if i = j then (true, false) else (false, true)), (if x > 0. then true else true))",
    );
  });

  test("conjunctions and negations of conditions: `0 <= j && j < n` makes j < n and j >= 0 known", () => {
    const fn = func("f", params(["j", INT], ["n", INT]), (b, j, n) => {
      const ok = b.prim("and", [b.prim("le", [litIndex(0), j]), b.prim("lt", [j, n])], "ok");
      const notBig = b.prim("not", [b.prim("ge", [j, n])], "small");
      return b.tuple([
        b.if(
          ok,
          (bt) => bt.tuple([bt.prim("checkIndex", [j, n]), bt.prim("ge", [j, litIndex(0)])]),
          () => b.tuple([j, litBool(false)]),
        ),
        b.if(
          notBig,
          (bt) => bt.prim("lt", [j, n]),
          () => litBool(false),
        ),
      ]);
    });
    expect(runRules(fn, [compareByFacts, checkIndexInRange]).text).toBe(
      "let f (j: Index) (n: Index) =\n  let t = (j, false) in\n  ((if 0 <= j && j < n then (j, true) else t), (if not (j >= n) then true else false))",
    );
  });

  test("nothing is decided without facts", () => {
    const fn = func("f", params(["i", INT], ["n", INT]), (b, i, n) =>
      b.tuple([b.prim("lt", [i, n]), b.prim("checkIndex", [i, n])]),
    );
    const { fired } = runRules(fn, [compareByFacts, checkIndexInRange]);
    expect(fired["compare-by-facts"] ?? fired["check-index-in-range"]).toBeUndefined();
  });
});

describe("checks and lengths", () => {
  test("check-index-in-range: checkIndex i n -> i in a loop over n; get-checked: a[checkIndex j (length a)] -> a[j]", () => {
    const fn = func("f", params(["v", VECTOR], ["j", INT]), (b, v, j) => {
      const n = b.prim("length", [v], "n");
      const xs = b.build(n, (i, bb) => bb.prim("get", [v, bb.prim("checkIndex", [i, n])]));
      return b.tuple([xs, b.prim("get", [v, b.prim("checkIndex", [j, n], "c")])]);
    });
    const { text, fired } = runRules(fn, [checkIndexInRange, getChecked]);
    expect(text).toBe("let f (v: Vector) (j: Index) = (build (length v) (fun i -> v[i]), v[j])");
    expect(fired).toMatchObject({ "check-index-in-range": 1, "get-checked": 1 });
  });

  test("length-of-row: length m[i] -> length m[0] where m is known not to be empty, not elsewhere", () => {
    const fn = func("f", params(["m", MATRIX], ["k", INT]), (b, m, k) => {
      const rows = b.build(b.prim("length", [m]), (i, bb) => bb.prim("length", [bb.prim("get", [m, i])]));
      return b.tuple([rows, b.prim("length", [b.prim("get", [m, k])])]);
    });
    expect(runRules(fn, [lengthOfRow]).text).toBe(
      "let f (m: Matrix) (k: Index) =\n  (build (length m) (fun i -> length m[0]), length m[k])",
    );
  });

  test("the guard of a single access folds away where j indexes a loop over the same size", () => {
    const fn = func("f", params(["v", VECTOR]), (b, v) =>
      b.build(b.prim("length", [v]), (i, bb) => {
        const ok = bb.prim("and", [bb.prim("le", [litIndex(0), i]), bb.prim("lt", [i, bb.prim("length", [v])])]);
        return bb.if(
          ok,
          (bt) => bt.prim("get", [v, i]),
          () => litDouble(0),
        );
      }),
    );
    expect(runRules(fn, [compareByFacts, constantFold, logicUnit]).text).toBe(
      "let f (v: Vector) = build (length v) (fun i -> if true then v[i] else 0.)",
    );
  });
});

describe("Facts", () => {
  const defs = new Map<number, Expr>();
  const bind = (name: string, rhs: Expr): Atom => {
    const v = freshVar(name, rhs.kind === "prim" ? rhs.type : INT);
    defs.set(v.id, rhs);
    return v;
  };
  const facts = () => new Facts((a) => (a.kind === "var" ? defs.get(a.id) : undefined));
  const m = freshVar("m", MATRIX);
  const i = freshVar("i", INT);
  const j = freshVar("j", INT);

  test("rows of a regular array have one length: length m[i] and length m[j] are the same value", () => {
    const a = bind("a", mkPrim("length", [bind("r", mkPrim("get", [m, i]))]));
    const b = bind("b", mkPrim("length", [bind("s", mkPrim("get", [m, j]))]));
    const f = facts();
    expect(f.sameValue(a, b)).toBe(true);
    expect(f.sameValue(a, i)).toBe(false);
  });

  test("scoped: what a loop or condition teaches is forgotten after reset", () => {
    const f = facts();
    const n = bind("n", mkPrim("length", [m]));
    const mark = f.mark();
    f.enterLoop(i, n);
    const c = bind("c", mkPrim("eq", [j, i]));
    f.assume(c, true);
    expect(f.inRange(j, n)).toBe(true); // j = i and i < n
    expect(f.known(c)).toBe(true);
    f.reset(mark);
    expect(f.inRange(j, n)).toBe(false);
    expect(f.known(c)).toBeUndefined();
    expect(f.known(freshVar("b", BOOL))).toBeUndefined();
  });
});
