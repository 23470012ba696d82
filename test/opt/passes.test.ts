// The passes around the rules: CSE, LICM and let sinking, each alone; and the strategy that runs them with the
// simplifier to a bounded fixpoint.

import { describe, expect, test } from "vitest";
import { litDouble, litIndex, mkPrim } from "../../src/ir/builder.js";
import { runFunction } from "../../src/eval/interpreter.js";
import type { IrFunction } from "../../src/ir/ir.js";
import { printIr } from "../../src/ir/print.js";
import { verify } from "../../src/ir/verify.js";
import { eliminateCommonSubexpressions } from "../../src/opt/cse.js";
import { hoistInvariants } from "../../src/opt/licm.js";
import { pipelineFromNames, PASSES } from "../../src/opt/pipeline.js";
import { sinkLets } from "../../src/opt/sink.js";
import { optimise } from "../../src/opt/strategy.js";
import { BOOL, DOUBLE, INT, VECTOR } from "../../src/types/types.js";
import { func } from "../ir/helpers.js";
import { params } from "./run-rules.js";

const show = (fn: IrFunction) => {
  verify(fn);
  return printIr(fn);
};
const vec = (xs: number[]) => ({
  tag: "dense" as const,
  elemKind: "double" as const,
  shape: [xs.length],
  data: Float64Array.from(xs),
});

describe("cse", () => {
  test("an equal right-hand side in scope is reused (commutative operands in either order, loops up to bound names)", () => {
    const fn = func("f", params(["v", VECTOR], ["x", DOUBLE], ["y", DOUBLE]), (b, v, x, y) => {
      const a = b.prim("mul", [x, y], "a");
      const c = b.prim("mul", [y, x], "c");
      const s1 = b.ifold(
        litDouble(0),
        b.prim("length", [v]),
        (s, i, bb) => bb.prim("add", [s, bb.prim("get", [v, i])]),
        "s1",
      );
      const s2 = b.ifold(
        litDouble(0),
        b.prim("length", [v]),
        (s, i, bb) => bb.prim("add", [s, bb.prim("get", [v, i])]),
        "s2",
      );
      return b.tuple([a, c, s1, s2]);
    });
    const { fn: out, replaced } = eliminateCommonSubexpressions(fn);
    expect(replaced).toBe(3); // c, the second `length v`, s2
    expect(show(out)).toBe(
      "let f (v: Vector) (x: Double) (y: Double) =\n  let a = x * y in\n  let s1 = ifold (fun acc i -> acc + v[i]) 0. (length v) in\n  (a, a, s1, s1)",
    );
  });

  test("inner scopes see outer bindings, sibling branches do not see each other's", () => {
    const fn = func("f", params(["c", BOOL], ["x", DOUBLE]), (b, c, x) => {
      const e = b.prim("exp", [x], "e");
      const t = b.if(
        c,
        (bt) => bt.prim("add", [bt.prim("exp", [x]), bt.prim("sin", [x])]),
        (be) => be.prim("sin", [x]),
      );
      return b.tuple([e, t]);
    });
    expect(show(eliminateCommonSubexpressions(fn).fn)).toBe(
      "let f (c: Bool) (x: Double) =\n  let e = exp x in\n  (e, (if c then e + sin x else sin x))",
    );
  });
});

describe("cse and tangent arithmetic", () => {
  // A primal `x * c` and forward mode's `c * ẋ` with ẋ = x (`jvp (fun y -> y * c) (x, x)`): the same operation on the
  // same operands, but at x = 0, c = ∞ the primal is NaN and the tangent a symbolic zero.
  const program = () =>
    func("f", params(["x", DOUBLE], ["c", DOUBLE]), (b, x, c) => {
      const primal = b.prim("mul", [x, c], "r");
      const tangent = b.bind("dr", { ...mkPrim("mul", [c, x]), tangent: 1 });
      return b.tuple([primal, tangent, b.prim("mul", [c, x], "r2")]);
    });

  test("a product of tangent arithmetic and a primal one stay apart; each is shared with its own kind", () => {
    const { fn: out, replaced } = eliminateCommonSubexpressions(program());
    expect(replaced).toBe(1);
    expect(show(out)).toBe("let f (x: Double) (c: Double) =\n  let r = x * c in\n  (r, c * x, r)");
    for (const f of [program(), out])
      expect(runFunction(f, [0, Infinity])).toEqual({ tag: "tuple", elems: [NaN, 0, NaN] });
  });

  test("the strategy keeps them apart in a loop too (alpha-equal bodies compare the marks)", () => {
    const loop = (tangent: boolean) =>
      func("f", params(["v", VECTOR], ["c", DOUBLE]), (b, v, c) => {
        const sum = (name: string, marked: boolean) =>
          b.ifold(
            litDouble(0),
            b.prim("length", [v]),
            (s, i, bb) => {
              const x = bb.prim("get", [v, i]);
              const p = marked ? bb.bind("p", { ...mkPrim("mul", [c, x]), tangent: 1 }) : bb.prim("mul", [c, x]);
              return bb.prim("add", [s, p]);
            },
            name,
          );
        return b.tuple([sum("s1", false), sum("s2", tangent)]);
      });
    expect(eliminateCommonSubexpressions(loop(true)).replaced).toBe(1); // only `length v`
    expect(eliminateCommonSubexpressions(loop(false)).replaced).toBe(2);
    expect(runFunction(optimise(loop(true)).fn, [vec([0, 1]), Infinity])).toEqual({
      tag: "tuple",
      elems: [NaN, Infinity],
    });
  });
});

describe("licm", () => {
  test("invariants climb out of a loop nest, one loop at a time", () => {
    const fn = func("f", params(["v", VECTOR], ["x", DOUBLE]), (b, v, x) =>
      b.build(b.prim("length", [v]), (i, bb) =>
        bb.build(bb.prim("length", [v]), (j, b3) => {
          const e = b3.prim("exp", [x], "e");
          const d = b3.prim("mul", [e, b3.prim("get", [v, i], "vi")], "d");
          return b3.prim("add", [d, b3.prim("get", [v, j])]);
        }),
      ),
    );
    const { fn: out, hoisted } = hoistInvariants(fn);
    expect(hoisted).toBe(5); // e leaves both loops (2 moves), vi and d the inner one, the inner size the outer one
    expect(show(out)).toBe(
      [
        "let f (v: Vector) (x: Double) =",
        "  let length_2 = length v in",
        "  let e = exp x in",
        "  build (length v) (fun i ->",
        "    let d = e * v[i] in",
        "    build length_2 (fun i_2 -> d + v[i_2]))",
      ].join("\n"),
    );
  });

  test("what may fail stays: a get with an unknown index, and anything after something that may fail", () => {
    const fn = func("f", params(["v", VECTOR], ["k", INT]), (b, v, k) =>
      b.build(b.prim("length", [v]), (i, bb) => {
        const bad = bb.prim("get", [v, k], "bad");
        return bb.prim("add", [bad, bb.prim("get", [v, i])]);
      }),
    );
    expect(hoistInvariants(fn).hoisted).toBe(0);
  });

  test("a loop that can fail only when the enclosing loop runs leaves it (the primal of a vectorised derivative)", () => {
    const fn = func("f", params(["v", VECTOR], ["w", VECTOR]), (b, v, w) => {
      const n = b.prim("length", [v], "n");
      return b.build(n, (p, bb) => {
        const dot = bb.ifold(
          litDouble(0),
          n,
          (s, i, b3) => b3.prim("add", [s, b3.prim("mul", [b3.prim("get", [v, i]), b3.prim("get", [w, i])])]),
          "dot",
        );
        return bb.prim("mul", [dot, bb.prim("get", [w, p])]);
      });
    });
    const { fn: out } = hoistInvariants(fn);
    expect(show(out)).toBe(
      "let f (v: Vector) (w: Vector) =\n  let n = length v in\n  let dot = ifold (fun acc i -> acc + v[i] * w[i]) 0. n in\n  build n (fun i_2 -> dot * w[i_2])",
    );
    // w shorter than v: both fail, and both succeed on an empty v.
    expect(() => runFunction(out, [vec([1, 2]), vec([1])])).toThrow(/index/);
    expect(runFunction(out, [vec([]), vec([])])).toEqual(runFunction(fn, [vec([]), vec([])]));
  });

  test("an invariant loop that may fail anyway moves under the loop's guard", () => {
    const fn = func("f", params(["v", VECTOR], ["w", VECTOR]), (b, v, w) =>
      b.build(b.prim("length", [w], "m"), (p, bb) => {
        const s = bb.ifold(
          litDouble(0),
          bb.prim("length", [v]),
          (acc, i, b3) => b3.prim("add", [acc, b3.prim("get", [w, i])]),
          "s",
        );
        return bb.prim("add", [s, bb.prim("get", [w, p])]);
      }),
    );
    const { fn: out } = hoistInvariants(fn);
    expect(show(out)).toBe(
      [
        "let f (v: Vector) (w: Vector) =",
        "  let m = length w in",
        "  let length_2 = length v in",
        "  let s = if 0 < m then ifold (fun acc i -> acc + w[i]) 0. length_2 else 0. in",
        "  build m (fun i_2 -> s + w[i_2])",
      ].join("\n"),
    );
    // no error: no iteration
    expect(runFunction(out, [vec([1, 2, 3]), vec([])])).toEqual(runFunction(fn, [vec([1, 2, 3]), vec([])]));
  });

  test("nothing leaves a conditional's branch: a loop inside one hoists to the start of the branch", () => {
    const fn = func("f", params(["c", BOOL], ["v", VECTOR], ["x", DOUBLE]), (b, c, v, x) =>
      b.if(
        c,
        (bt) =>
          bt.build(bt.prim("length", [v]), (i, bb) => bb.prim("add", [bb.prim("exp", [x]), bb.prim("get", [v, i])])),
        (be) => be.build(litIndex(0), () => x),
      ),
    );
    expect(show(hoistInvariants(fn).fn)).toBe(
      "let f (c: Bool) (v: Vector) (x: Double) =\n  if c then\n    let exp_2 = exp x in\n    build (length v) (fun i -> exp_2 + v[i])\n  else\n    build 0 (fun i_2 -> x)",
    );
  });
});

describe("sink", () => {
  test("lets used in one branch only move into it, with the lets that feed them; shared ones stay", () => {
    const fn = func("f", params(["c", BOOL], ["v", VECTOR], ["k", INT]), (b, c, v, k) => {
      const j = b.prim("add", [k, litIndex(1)], "j");
      const x = b.prim("get", [v, j], "x");
      const y = b.prim("get", [v, k], "y");
      return b.if(
        c,
        (bt) => bt.prim("add", [x, y]),
        () => y,
      );
    });
    const { fn: out, sunk } = sinkLets(fn);
    expect(sunk).toBe(2);
    expect(printIr(out)).toBe(
      "let f (c: Bool) (v: Vector) (k: Index) =\n  let y = v[k] in\n  if c then v[k + 1] + y else y",
    );
    verify(out);
  });

  test("nothing moves into a loop", () => {
    const fn = func("f", params(["v", VECTOR], ["x", DOUBLE]), (b, v, x) => {
      const e = b.prim("exp", [x], "e");
      return b.build(b.prim("length", [v]), (i, bb) => bb.prim("mul", [e, bb.prim("get", [v, i])]));
    });
    expect(sinkLets(fn).sunk).toBe(0);
  });
});

describe("the strategy", () => {
  /** A one-hot sum over the elements of `exp v`; its sum forward mode's tangent arithmetic, or a primal one. */
  const program = (tangent = true) =>
    func("f", params(["v", VECTOR]), (b, v) => {
      const xs = b.build(b.prim("length", [v]), (i, bb) => bb.prim("exp", [bb.prim("get", [v, i])]), "xs");
      return b.build(b.prim("length", [v]), (p, bb) =>
        bb.ifold(litDouble(0), bb.prim("length", [xs]), (s, i, b3) =>
          b3.if(
            b3.prim("eq", [i, p]),
            // A tangent sum (as forward mode writes it): the assumption applies to tangent arithmetic only.
            (bt) => {
              const sum = mkPrim("add", [s, bt.prim("get", [xs, i])]);
              return bt.bind("s", tangent ? { ...sum, tangent: 0 } : sum);
            },
            () => s,
          ),
        ),
      );
    });

  test("runs simplify, CSE, LICM and sinking until a round changes nothing, and says so", () => {
    const { fn, report } = optimise(program(), { verify: true });
    expect(printIr(fn)).toBe("let f (v: Vector) = build (length v) (fun i -> exp v[i])");
    // Exactly: `0. + x` is +0 where x is -0, so a primal sum stays.
    expect(printIr(optimise(program(false)).fn)).toBe("let f (v: Vector) = build (length v) (fun i -> 0. + exp v[i])");
    expect(report.reason).toBe("fixpoint");
    // The loop over p reads xs at p only: single access, then the build of xs[p] over its length is xs.
    expect(report.fired).toMatchObject({ "single-access": 1, "build-copy": 1 });
  });

  test("stops at the round limit or the size limit", () => {
    expect(optimise(program(), { maxRounds: 1 }).report).toMatchObject({ reason: "iteration-limit", rounds: 1 });
    expect(optimise(program(), { maxSize: 3 }).report).toMatchObject({ reason: "size-limit", rounds: 1 });
  });

  test("its passes are named, so `smooth dev --passes` can run any of them", () => {
    expect(Object.keys(PASSES)).toEqual(
      expect.arrayContaining(["inline", "simplify", "cse", "licm", "sink", "dce", "optimise", "chunk-accumulations"]),
    );
    expect(pipelineFromNames(["inline", "cse", "licm", "sink", "dce"]).map((p) => p.name)).toEqual([
      "inline",
      "cse",
      "licm",
      "sink",
      "dce",
    ]);
    const fn = func("f", params(["x", INT]), (b, x) => b.prim("add", [b.prim("mul", [x, x], "dead"), x]));
    const unused = func("g", params(["x", INT]), (b, x) => {
      b.prim("mul", [x, x], "dead");
      return x;
    });
    expect(printIr(PASSES.dce!.run(unused))).toBe("let g (x: Index) = x");
    expect(printIr(PASSES.optimise!.run(fn))).toBe("let f (x: Index) = x * x + x");
  });
});
