// Sharing written by the user is kept (one let per traced operation), unused operations are dropped, and the emitted
// source contains only generated names and printed numbers.

import { describe, expect, test } from "vitest";
import * as S from "../../src/staging/index.js";
import type { Tensor } from "../../src/staging/index.js";
import { BUILTINS } from "../../src/types/builtins.js";
import { KEYWORDS } from "../../src/syntax/lexer.js";
import { arrayOf, DOUBLE, INT, tupleOf, VECTOR } from "../../src/types/types.js";
import { expectClose } from "../ad/harness.js";
import { occurrences, stageAndLoad } from "./harness.js";

describe("sharing", () => {
  test("a value used twice is computed once", () => {
    const expensive = (x: Tensor) => S.logsumexp(S.build(S.length(x), (i) => S.exp(S.get(x, i))));
    const f = (x: Tensor) => {
      const y = expensive(x);
      return S.add(S.mul(y, y), S.sin(y));
    };
    const loaded = stageAndLoad(f, [VECTOR]);
    expect(occurrences(loaded.staged.source, "logsumexp")).toBe(1);
    expect(occurrences(loaded.staged.source, "build")).toBe(1);
    const x = [0.1, -0.4, 0.3];
    const y = Math.log(x.reduce((s, e) => s + Math.exp(Math.exp(e)), 0));
    expectClose(loaded.run([x]), y * y + Math.sin(y), 1e-12, "shared");
  });

  test("calling an operation twice computes it twice (sharing is what the user writes)", () => {
    const f = (x: Tensor) => S.add(S.logsumexp(x), S.logsumexp(x));
    expect(occurrences(stageAndLoad(f, [VECTOR]).staged.source, "logsumexp")).toBe(2);
  });

  test("a value shared between a loop body and the code after it is computed once, outside the loop", () => {
    const f = (x: Tensor) => {
      const norm = S.vectorNorm(x);
      const scaled = S.build(S.length(x), (i) => S.div(S.get(x, i), norm));
      return S.add(S.sum(scaled), norm);
    };
    const loaded = stageAndLoad(f, [VECTOR]);
    expect(occurrences(loaded.staged.source, "vectorNorm")).toBe(1);
    expectClose(loaded.run([[3, 4]]), 7 / 5 + 5, 1e-12, "norm");
  });

  test("operations whose values are not used are not emitted; unread tuple components are `_`", () => {
    const f = (x: Tensor, p: [Tensor, Tensor]) => {
      S.exp(x);
      S.build(3, (i) => S.cos(S.toDouble(i)));
      const [a] = S.ifold((s) => [S.add(s[0], 1), S.mul(s[1], 2)], [x, 1], 3);
      return S.add(a, p[1]);
    };
    const loaded = stageAndLoad(f, [DOUBLE, tupleOf([DOUBLE, DOUBLE])]);
    const source = loaded.staged.source;
    expect(source).not.toMatch(/\bexp\b|\bcos\b|\bbuild\b/);
    expect(source).toMatch(/let \(_, x1_1\) = x1 in/);
    expect(source).toMatch(/let \(t\d+, _\) = ifold/);
    expect(loaded.run([1, [5, 6]])).toBe(10);
  });
});

describe("the emitted source", () => {
  // Every name in the source: a keyword, a type, a builtin or prelude function, or a name the tracer generated.
  const PRELUDE_USED = new Set([
    "sum",
    "vectorDot",
    "replicate",
    "map2",
    "reduce",
    "scanl",
    "gather",
    "transpose",
    "matrixMult",
  ]);
  const GENERATED = /^(f|[xtiae]\d+(_\d+)*)$/;
  const TYPES = new Set(["Double", "Index", "Bool", "Vector", "Matrix", "Array"]);

  test("contains only generated names, builtins, prelude names and printed numbers", () => {
    const userName = "totallyUserChosenName";
    const fns: Record<string, (x: Tensor, k: Tensor, t: [Tensor, Tensor]) => S.Staged> = {
      [userName]: (x, k, t) => {
        const label = "injected `text` (* comment *)";
        const scaled = S.mul(x, label.length + 0.25);
        const folded = S.reduce((acc, e) => S.add(acc, e), 0, scaled);
        const pairs = S.map2((a, b) => [a, S.mul(a, b)], scaled, x);
        const g = S.gather(
          S.replicate(4, folded),
          S.build(k, (i) => S.sub(3, i)),
        );
        return [
          S.cond(
            S.gt(folded, t[0]),
            () => S.dot(x, x),
            () => S.sum(g),
          ),
          pairs,
          S.scanl((a, e) => S.max(a, e), -1e300, x),
          S.matrixMult(S.transpose(S.replicate(2, x)), S.replicate(2, x)),
        ];
      },
    };
    const loaded = stageAndLoad(fns[userName]!, [VECTOR, INT, tupleOf([DOUBLE, arrayOf(INT)])]);
    const source = loaded.staged.source;
    expect(source).not.toContain(userName);
    expect(source).not.toContain("injected");
    const names = source.replace(/\b\d+(\.\d*)?(e[+-]?\d+)?/g, "").match(/[A-Za-z_][A-Za-z0-9_']*/g)!;
    for (const name of names) {
      const known =
        KEYWORDS.has(name) || TYPES.has(name) || BUILTINS.has(name) || PRELUDE_USED.has(name) || name === "_";
      if (!known && !GENERATED.test(name)) throw new Error(`unexpected name ${name} in\n${source}`);
    }
    const out = loaded.run([[1, 2], 2, [0, [1, 2]]]) as unknown[];
    expect(out[0]).toBe(5);
  });

  test("numbers are printed so they read back exactly, including non-finite ones", () => {
    const constants = [0.1, -2.5e-300, 1e21, Infinity, -Infinity, -0];
    const loaded = stageAndLoad((x: Tensor) => S.stack(constants.map((c) => S.add(S.mul(x, 0), c))), [DOUBLE]);
    expect(loaded.run([1])).toEqual([0.1, -2.5e-300, 1e21, "Infinity", "-Infinity", 0]);
    const nan = stageAndLoad((x: Tensor) => S.add(x, NaN), [DOUBLE]);
    expect(nan.run([1])).toBe("NaN");
  });

  test("a user can name the definition; names that are not Smooth names are refused", () => {
    expect(S.stageFunction((x: Tensor) => x, [DOUBLE], "myLoss").source).toMatch(/^let myLoss = fun \(x0: Double\) ->/);
    for (const bad of ["let", "two words", "x]", "", "1x", "f'"]) {
      expect(() => S.stageFunction((x: Tensor) => x, [DOUBLE], bad)).toThrow(S.StagingError);
    }
  });
});
