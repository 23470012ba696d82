// The rules that finish a selection fold's forward derivative (src/ad/selection-folds.ts): `if-select-atom`
// (src/opt/rules/select-atom.ts), `constant-state-leaf` (src/opt/rules/constant-leaf.ts) and the range fact of an
// argmin-like index (src/opt/facts.ts, indexLeafBelow). Programs in, programs out; values against the interpreter
// on the original program and against hand-computed one-hot gradients.

import { describe, expect, test } from "vitest";
import { loadProgram } from "../../src/api/program.js";
import { runFunction } from "../../src/eval/interpreter.js";
import { lit } from "../../src/ir/ir.js";
import { printIr } from "../../src/ir/print.js";
import { ifSelectAtom } from "../../src/opt/rules/select-atom.js";
import { constantStateLeaf } from "../../src/opt/rules/constant-leaf.js";
import type { Value } from "../../src/runtime/value.js";
import { BOOL, DOUBLE, INT, VECTOR } from "../../src/types/types.js";
import { func } from "../ir/helpers.js";
import { params, runRules } from "./run-rules.js";

const vec = (xs: number[]): Value => ({
  tag: "dense",
  elemKind: "double",
  shape: [xs.length],
  data: Float64Array.from(xs),
});
const data = (v: unknown) => Array.from((v as { data: Float64Array }).data);

describe("the forward gradient of vectorMax", () => {
  const prog = loadProgram({ name: "<t>", text: "let vmax = fun (v: Vector) -> vectorMax v" });
  const d = prog.derivative("vmax", [VECTOR], [0], "js");

  test("is one comparison per element against an index chosen once, outside the build", () => {
    const text = printIr(d.optimised);
    expect(text).toMatch(
      /let k = if at < 0 then \(0: Index\) else at in\s+build n \(fun p0 -> if k = p0 then 1\. else 0\.\)/,
    );
    expect(text).not.toMatch(/checkIndex|none/);
  });

  test("is one-hot at the first maximum (hand-computed), and empty for an empty vector", () => {
    expect(data(d.run([vec([1, 5, 2, 5])]))).toEqual([0, 1, 0, 0]);
    expect(data(d.run([vec([7, -1, 3])]))).toEqual([1, 0, 0]);
    expect(data(d.run([vec([-3])]))).toEqual([1]);
    expect(data(d.run([vec([])]))).toEqual([]);
  });
});

describe("if-select-atom", () => {
  // build n (fun p -> if c then (if a = p then 1 else 0) else (if b = p then 1 else 0))
  const oneHot = (sameInBoth: boolean) =>
    func("h", params(["n", INT], ["c", BOOL], ["a", INT], ["b", INT]), (bl, n, c, a, b) =>
      bl.build(n, (p, bb) =>
        bb.if(
          c,
          (bt) =>
            bt.if(
              bt.prim("eq", [a, p]),
              () => lit(1, DOUBLE),
              () => lit(0, DOUBLE),
            ),
          (be) =>
            be.if(
              be.prim("eq", [b, p]),
              () => lit(sameInBoth ? 1 : 2, DOUBLE),
              () => lit(0, DOUBLE),
            ),
        ),
      ),
    );

  test("chooses the compared index before the loop when the branches differ only there", () => {
    const fn = oneHot(true);
    const { text, fired, out } = runRules(fn, [ifSelectAtom]);
    expect(fired["if-select-atom"]).toBe(1);
    // (licm, not run here, then takes the choice out of the build)
    expect(text).toMatch(/build n \(fun i -> if \(if c then a else b\) = i then 1\. else 0\.\)/);
    for (const c of [true, false]) expect(runFunction(out, [4, c, 1, 3])).toEqual(runFunction(fn, [4, c, 1, 3]));
  });

  test("leaves branches that differ elsewhere (a value, not only the compared atom) alone", () => {
    expect(runRules(oneHot(false), [ifSelectAtom]).fired["if-select-atom"]).toBeUndefined();
  });

  test("leaves an arithmetic difference alone (distribute-over-if would move it back) and a choice outside loops", () => {
    const scaled = func("s", params(["n", INT], ["c", BOOL], ["x", DOUBLE]), (bl, n, c, x) =>
      bl.build(n, (_p, bb) =>
        bb.if(
          c,
          (bt) => bt.prim("mul", [x, lit(2, DOUBLE)]),
          (be) => be.prim("mul", [x, lit(3, DOUBLE)]),
        ),
      ),
    );
    expect(runRules(scaled, [ifSelectAtom]).fired["if-select-atom"]).toBeUndefined();
    const outside = func("o", params(["c", BOOL], ["a", INT], ["b", INT], ["p", INT]), (bl, c, a, b, p) =>
      bl.if(
        c,
        (bt) => bt.prim("lt", [a, p]),
        (be) => be.prim("lt", [b, p]),
      ),
    );
    expect(runRules(outside, [ifSelectAtom]).fired["if-select-atom"]).toBeUndefined();
  });
});

describe("constant-state-leaf", () => {
  const program = (reset: string) =>
    loadProgram({
      name: "<t>",
      text: `let f = fun (v: Vector) ->
  ifold (fun s i -> let t = snd s in let m = max (fst s) v[i] in
    (m + t, if m > 1. then ${reset} else t)) (0., 0.) (length v)`,
    });

  test("a leaf that starts as 0 and is only set to 0 or passed on is read as 0", () => {
    const p = program("0.");
    const spec = p.specialise("f", [VECTOR], "js");
    expect(printIr(spec.optimised)).not.toMatch(/\+ t\b|snd s/);
    const out = spec.run([vec([0.5, 2, 3])]) as unknown as { elems: number[] };
    expect(out.elems).toEqual([3, 0]);
  });

  test("a leaf that can be set to another value keeps its reads", () => {
    const spec = program("1.").specialise("f", [VECTOR], "js");
    // 0.5: m 0.5, t 0; 2: m 2 + 0, t 1; 3: m 3 + 1 = 4 ... the running max plus the previous flag.
    const out = spec.run([vec([0.5, 2, 3])]) as unknown as { elems: number[] };
    expect(out.elems).toEqual([4, 1]);
  });

  test("applied alone: the reads become the literal, the values do not change", () => {
    const fn = func("g", params(["n", INT]), (bl, n) => {
      const z = bl.tuple([lit(0, DOUBLE), lit(0, DOUBLE)]);
      return bl.ifold(z, n, (s, i, bb) => {
        const t = bb.proj(1, s, "t");
        const a = bb.prim("add", [bb.proj(0, s), t]);
        const x = bb.prim("toDouble", [i]);
        return bb.tuple([bb.prim("add", [a, x]), lit(0, DOUBLE)]);
      });
    });
    const { text, fired, out } = runRules(fn, [constantStateLeaf]);
    expect(fired["constant-state-leaf"]).toBe(1);
    expect(text).not.toMatch(/snd/);
    expect(runFunction(out, [5])).toEqual(runFunction(fn, [5]));
  });
});
