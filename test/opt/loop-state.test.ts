// The loop-state rules (src/opt/rules/loop-state.ts), alone and in the pipeline: program in, program out, and the
// values of the rewritten program against the original's (the interpreter on both) and a hand-written gradient.

import { describe, expect, test } from "vitest";
import type { AnfBuilder } from "../../src/ir/builder.js";
import { runFunction } from "../../src/eval/interpreter.js";
import type { Atom } from "../../src/ir/ir.js";
import { loadProgram } from "../../src/api/program.js";
import { fission } from "../../src/opt/rules/fission.js";
import { projOfTuple } from "../../src/opt/rules/tuple.js";
import { invariantComponent, scatterBuild } from "../../src/opt/rules/loop-state.js";
import type { Value } from "../../src/runtime/value.js";
import { DOUBLE, VECTOR } from "../../src/types/types.js";
import { func } from "../ir/helpers.js";
import { params, runRules } from "./run-rules.js";

const vec = (xs: number[]): Value => ({
  tag: "dense",
  elemKind: "double",
  shape: [xs.length],
  data: Float64Array.from(xs),
});
const numbers = (v: Value) => [...(v as { data: Float64Array }).data];

/** The loop reverse mode writes for the gradient of a sum of a map: (c, zeros) with c passed on, a scatter at k. */
const gradientLoop = (zeros: (b: AnfBuilder, v: Atom) => Atom, count: (b: AnfBuilder, v: Atom) => Atom) =>
  func("g", params(["v", VECTOR], ["c", DOUBLE]), (b, v, c) => {
    const init = b.tuple([c, zeros(b, v)], "z");
    const loop = b.ifold(init, count(b, v), (a, k, bb) => {
      const d = bb.proj(0, a, "d");
      const x = bb.prim("mul", [bb.prim("get", [v, k]), d]);
      return bb.tuple([d, bb.prim("addAt", [bb.proj(1, a), k, x])]);
    });
    return b.proj(1, loop);
  });

describe("loop state", () => {
  test("invariant-component reads a passed-on component from the initial state; fission and scatter-build follow", () => {
    const fn = gradientLoop(
      (b, v) => b.prim("zerosLike", [v]),
      (b, v) => b.prim("length", [v]),
    );
    const alone = runRules(fn, [invariantComponent]);
    expect(alone.fired).toMatchObject({ "invariant-component": 1 });
    expect(alone.text).toContain("let d = fst z");
    const all = runRules(fn, [invariantComponent, fission, projOfTuple, scatterBuild]);
    expect(all.text).toBe("let g (v: Vector) (c: Double) = build (length v) (fun i -> 0. + v[i] * c)");
    for (const xs of [[], [1.5], [1, -2, 3]]) {
      const want = xs.map((x) => 0 + x * 0.25);
      expect(numbers(runFunction(all.out, [vec(xs), 0.25]))).toEqual(want);
      expect(numbers(runFunction(fn, [vec(xs), 0.25]))).toEqual(want);
    }
  });

  test("scatter-build needs zeros of the loop's length, the update at the loop index, and no other use of the state", () => {
    const shorter = gradientLoop(
      (b, v) => b.prim("zerosLike", [v]),
      (b, v) => b.prim("sub", [b.prim("length", [v]), { kind: "lit", value: 1, type: { k: "int" } }]),
    );
    const out = runRules(shorter, [invariantComponent, fission, projOfTuple, scatterBuild]);
    expect(out.fired["scatter-build"]).toBeUndefined();
    expect(numbers(runFunction(out.out, [vec([1, 2, 3]), 2]))).toEqual([2, 4, 0]);
    const readsState = func("h", params(["v", VECTOR]), (b, v) =>
      b.ifold(b.prim("zerosLike", [v]), b.prim("length", [v]), (a, k, bb) => {
        const prev = bb.prim("get", [a, bb.prim("max", [{ kind: "lit", value: 0, type: { k: "int" } }, k])]);
        return bb.prim("addAt", [a, k, bb.prim("add", [prev, bb.prim("get", [v, k])])]);
      }),
    );
    expect(runRules(readsState, [scatterBuild]).fired["scatter-build"]).toBeUndefined();
  });

  test("the gradient of logsumexp is one build (softmax), equal to a hand-written softmax", () => {
    const prog = loadProgram({ name: "lse.smooth", text: "let f = fun (v: Vector) -> logsumexp v" });
    const g = prog.derivative("f", [VECTOR], [0], "js", undefined, "gradient");
    expect(g.jsSource ?? "").not.toMatch(/addAt|zeros/);
    const xs = [0.5, -1, 3, 2.25, 0];
    const m = Math.max(...xs);
    const s = xs.reduce((t, x) => t + Math.exp(x - m), 0);
    const got = g.run([vec(xs)]);
    // The gradient with respect to the one argument: the Vector itself, or a tuple holding it.
    const gradient = typeof got === "object" && "elems" in got ? got.elems[0]! : got;
    numbers(gradient).forEach((x, i) => expect(x).toBeCloseTo(Math.exp(xs[i]! - m) / s, 15));
  });
});
