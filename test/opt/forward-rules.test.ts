// The rules that make vectorised forward derivatives O(n) (paper 000 §5), each alone: program in, program out, and
// the same values as the program before (the interpreter on both).

import { describe, expect, test } from "vitest";
import { runFunction } from "../../src/eval/interpreter.js";
import { typeOf, type IrFunction } from "../../src/ir/ir.js";
import { printIr } from "../../src/ir/print.js";
import { lowerEntry } from "../../src/ir/lower.js";
import { verify } from "../../src/ir/verify.js";
import { hoistInvariants } from "../../src/opt/licm.js";
import { PASSES } from "../../src/opt/pipeline.js";
import { caseSplitBuild } from "../../src/opt/rules/case-split.js";
import { ifKnown, ifLiteral } from "../../src/opt/rules/conditional.js";
import { projConstant } from "../../src/opt/rules/constant-component.js";
import { constantFold } from "../../src/opt/rules/fold.js";
import { onehotState } from "../../src/opt/rules/onehot-state.js";
import { projOfTuple } from "../../src/opt/rules/tuple.js";
import { unswitchNested } from "../../src/opt/rules/unswitch-nested.js";
import { valuesEqual } from "../../src/runtime/equal.js";
import type { DenseArray, Value } from "../../src/runtime/value.js";
import { parseProgram } from "../../src/syntax/parser.js";
import { checkProgram } from "../../src/types/infer.js";
import { BOOL, INT, VECTOR, type Type } from "../../src/types/types.js";
import { runRules } from "./run-rules.js";

/** `f` of `text`, lowered at `types` and inlined (first-order IR, as the optimiser sees it). */
function lowered(text: string, types: readonly Type[]): IrFunction {
  const fn = PASSES.inline!.run(lowerEntry(checkProgram([parseProgram({ name: "rules.smooth", text })]), "f", types));
  verify(fn);
  return fn;
}

const vec = (...xs: number[]): DenseArray => ({
  tag: "dense",
  elemKind: "double",
  shape: [xs.length],
  data: Float64Array.from(xs),
});

/** Both programs give the same value on each argument list. */
function sameValues(a: IrFunction, b: IrFunction, argLists: readonly (readonly Value[])[]): void {
  for (const args of argLists)
    expect(valuesEqual(runFunction(b, args), runFunction(a, args), typeOf(a.body))).toBe(true);
}

describe("onehot-state", () => {
  const text = [
    "let f = fun (v: Vector) (p: Index) ->",
    "  snd (ifold (fun s i -> (max (fst s) v[i], if fst s >= v[i] then snd s else if i = p then 1. else 0.))",
    "    (v[0], if 0 = p then 1. else 0.) (length v))",
  ].join("\n");

  test("a one-hot Double state carries its Index; the Double is rebuilt after the loop", () => {
    const fn = lowered(text, [VECTOR, INT]);
    const { text: out, fired, out: after } = runRules(fn, [onehotState, projOfTuple]);
    expect(fired["onehot-state"]).toBe(1);
    expect(out).toMatchInlineSnapshot(`
      "let f (v: Vector) (p: Index) =
        if snd (ifold (fun s i ->
          let k_2 = snd s in
          (max (fst s) v[i], (if fst s >= v[i] then k_2 else i))) (v[0], (0: Index)) (length v)) = p then
          1.
        else
          0."
    `);
    const v = vec(0.5, 3, -1, 3, 7, 2);
    sameValues(
      fn,
      after,
      [-1, 0, 1, 3, 4, 5, 6].map((p) => [v, p]),
    );
  });

  test("a literal 0. becomes the sentinel -1, only where p is known not to be negative", () => {
    const zeroStart = [
      "let f = fun (v: Vector) (q: Index) ->",
      "  build (length v) (fun p -> snd (ifold (fun s i -> (fst s + v[i], if v[i] > fst s then (if i = p then 1. else 0.) else snd s)) (0., 0.) (length v)))",
    ].join("\n");
    const fn = lowered(zeroStart, [VECTOR, INT]);
    const { fired, out: after, text: out } = runRules(fn, [onehotState, projOfTuple]);
    expect(fired["onehot-state"]).toBe(1);
    expect(out).toContain("-1");
    sameValues(fn, after, [
      [vec(1, -2, 5, 0.5), 0],
      [vec(-1, -2), 0],
    ]);
    // p a parameter (maybe -1): the rule does not apply.
    const param = lowered(text.replace("(v[0], if 0 = p then 1. else 0.)", "(v[0], 0.)"), [VECTOR, INT]);
    expect(runRules(param, [onehotState]).fired["onehot-state"]).toBeUndefined();
  });

  test("not when the component is also used otherwise (here added to the other one)", () => {
    const used = [
      "let f = fun (v: Vector) (p: Index) ->",
      "  ifold (fun s i -> (fst s + snd s, if i = p then 1. else 0.)) (0., if 0 = p then 1. else 0.) (length v)",
    ].join("\n");
    expect(runRules(lowered(used, [VECTOR, INT]), [onehotState]).fired["onehot-state"]).toBeUndefined();
  });
});

describe("unswitch-nested", () => {
  test("an invariant condition deep in a loop body: one loop per case, each without the test", () => {
    const text =
      "let f = fun (v: Vector) (c: Bool) -> ifold (fun s i -> if i = 0 then s else if c then s + v[i] else s - v[i]) 0. (length v)";
    const fn = lowered(text, [VECTOR, BOOL]);
    const { text: out, fired, out: after } = runRules(fn, [unswitchNested, ifKnown]);
    expect(fired["unswitch-nested"]).toBe(1);
    expect(out).toMatchInlineSnapshot(`
      "let f (v: Vector) (c: Bool) =
        let t = length v in
        if c then
          ifold (fun s i -> if i = 0 then s else s + v[i]) 0. t
        else
          ifold (fun s_2 i_2 -> if i_2 = 0 then s_2 else s_2 - v[i_2]) 0. t"
    `);
    sameValues(fn, after, [
      [vec(1, 2, 4), true],
      [vec(1, 2, 4), false],
      [vec(), true],
    ]);
  });

  test("not with a tuple state (left to fission), nor a condition computed in the loop", () => {
    const tuple =
      "let f = fun (v: Vector) (c: Bool) -> ifold (fun s i -> (fst s + 1., if c then snd s + v[i] else snd s)) (0., 0.) (length v)";
    expect(runRules(lowered(tuple, [VECTOR, BOOL]), [unswitchNested]).fired["unswitch-nested"]).toBeUndefined();
    const inner = "let f = fun (v: Vector) -> ifold (fun s i -> if v[i] > 0. then s + v[i] else s) 0. (length v)";
    expect(runRules(lowered(inner, [VECTOR]), [unswitchNested]).fired["unswitch-nested"]).toBeUndefined();
  });
});

describe("case-split-build", () => {
  // A body large enough to be worth copying, using `j = q` twice (a tangent seeded at element q, twice).
  const text = [
    "let f = fun (v: Vector) (q: Index) -> build (length v) (fun j ->",
    "  let x = v[j] in",
    "  let hit = j = q in",
    "  let a = sin x * cos x + exp x / (1. + x * x) in",
    "  let b = a * a + sin a * exp (a - x) in",
    "  let da = if hit then cos x * a + exp x else 0. in",
    "  let db = if hit then da * b + sin b * a else 0. in",
    "  a * da + b * db + (a - b) * (da - db))",
  ].join("\n");

  test("the rest of the body is copied under c and not c; if-known decides the copies", () => {
    const fn = lowered(text, [VECTOR, INT]);
    const rules = [caseSplitBuild, ifKnown, ifLiteral, constantFold];
    const { text: out, fired, out: after } = runRules(fn, rules);
    expect(fired["case-split-build"]).toBe(1);
    expect(out).toMatchInlineSnapshot(`
      "let f (v: Vector) (q: Index) =
        build (length v) (fun j ->
          let x = v[j] in
          if j = q then
            let a = sin x * cos x + exp x / (1. + x * x) in
            let b = a * a + sin a * exp (a - x) in
            let da = cos x * a + exp x in
            let db = da * b + sin b * a in
            a * da + b * db + (a - b) * (da - db)
          else
            let a_2 = sin x * cos x + exp x / (1. + x * x) in
            let b_2 = a_2 * a_2 + sin a_2 * exp (a_2 - x) in
            a_2 * 0. + b_2 * 0. + (a_2 - b_2) * 0.)"
    `);
    const v = vec(0.5, -1, 2);
    sameValues(
      fn,
      after,
      [-1, 0, 1, 2, 3].map((q) => [v, q]),
    );
  });

  test("not for a small element (a one-hot seed), nor for a condition on a computed value", () => {
    const seed =
      "let f = fun (v: Vector) (q: Index) -> build (length v) (fun j -> let a = if j = q then 1. else 0. in let b = if j = q then v[j] else 0. in a + b)";
    expect(runRules(lowered(seed, [VECTOR, INT]), [caseSplitBuild]).fired["case-split-build"]).toBeUndefined();
    const computed = text
      .replace("(q: Index) -> build", "(q: Index) -> let k = q + 1 in build")
      .replace("j = q", "j = k");
    expect(runRules(lowered(computed, [VECTOR, INT]), [caseSplitBuild]).fired["case-split-build"]).toBeUndefined();
  });
});

describe("proj-constant", () => {
  const text = [
    "let f = fun (v: Vector) (c: Bool) ->",
    "  let t = if c then (v[0], 0.) else (v[1], 0.) in",
    "  let xs = build (length v) (fun i -> if c then (v[i], 2.) else (1., 2.)) in",
    "  fst t + snd t + fst xs[0] * snd xs[1]",
  ].join("\n");

  test("a component that is the same literal in every branch and element", () => {
    const fn = lowered(text, [VECTOR, BOOL]);
    const { text: out, out: after } = runRules(fn, [projConstant]);
    expect(out).toMatchInlineSnapshot(`
      "let f (v: Vector) (c: Bool) =
        fst (if c then (v[0], 0.) else (v[1], 0.)) + 0. + fst (build (length v) (fun i -> if c then (v[i], 2.) else (1., 2.)))[0] * 2."
    `);
    sameValues(fn, after, [
      [vec(1, 2), true],
      [vec(1, 2), false],
    ]);
  });

  test("0. and -0. are different literals: a component is not known to be a tangent", () => {
    const fn = lowered("let f = fun (v: Vector) (c: Bool) -> let t = if c then (v[0], 0.) else (v[1], -0.) in snd t", [
      VECTOR,
      BOOL,
    ]);
    // constant-fold makes `-0.` (a negation) the literal.
    expect(runRules(fn, [constantFold, projConstant]).fired["proj-constant"]).toBeUndefined();
  });
});

describe("licm of a read a hoisted loop starts from", () => {
  test("v[0] feeding an invariant loop moves under the loop's guard, and the loop with it", () => {
    const text =
      "let f = fun (v: Vector) -> build (length v) (fun p -> let x = v[0] in ifold (fun s i -> max s v[i]) x (length v) + v[p])";
    const fn = lowered(text, [VECTOR]);
    const { fn: out, hoisted } = hoistInvariants(fn);
    verify(out);
    expect(hoisted).toBe(3); // length v, v[0] under the guard, the loop
    expect(printIr(out)).toMatchInlineSnapshot(`
      "let f (v: Vector) =
        let t = length v in
        let t_2 = ifold (fun s i -> max s v[i]) (if 0 < t then v[0] else 0.) (length v) in
        build t (fun p -> t_2 + v[p])"
    `);
    sameValues(fn, out, [[vec(1, 5, 2)], [vec()]]);
  });

  test("a read that feeds no loop stays", () => {
    const fn = lowered("let f = fun (v: Vector) (w: Vector) -> build (length v) (fun p -> w[0] + v[p])", [
      VECTOR,
      VECTOR,
    ]);
    expect(hoistInvariants(fn).hoisted).toBe(0);
  });
});
