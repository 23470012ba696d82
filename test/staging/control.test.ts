// Control flow: JavaScript control flow over numbers runs at trace time; build, ifold and cond stay in the program,
// their bodies traced as nested scopes that may read values from outside.

import { describe, expect, test } from "vitest";
import * as S from "../../src/staging/index.js";
import type { Tensor } from "../../src/staging/index.js";
import { DOUBLE, INT, MATRIX, VECTOR } from "../../src/types/types.js";
import { expectClose } from "../ad/harness.js";
import { occurrences, stageAndLoad } from "./harness.js";

describe("static control flow", () => {
  test("a JavaScript loop over a known length is unrolled; a JavaScript `if` on a number picks one path", () => {
    const horner = (cs: readonly number[]) => (x: Tensor) => {
      let acc: S.Scalar = 0;
      for (let k = cs.length - 1; k >= 0; k--) acc = cs[k] === 0 ? S.mul(acc, x) : S.add(S.mul(acc, x), cs[k]!);
      return acc;
    };
    const coefficients = [1, 0, -2, 0.5];
    const loaded = stageAndLoad(horner(coefficients), [DOUBLE]);
    const x = 1.7;
    expectClose(loaded.run([x]), 1 - 2 * x * x + 0.5 * x ** 3, 1e-12, "horner");
    // A multiplication by x per coefficient, an addition per nonzero one (the zero ones skip it at trace time).
    expect(occurrences(loaded.staged.source, "let") - 1).toBe(4 + 3);
    expect(loaded.staged.source).not.toMatch(/\bif\b|ifold|build/);
  });

  test("a loop over x.length when the lengths are known at trace time", () => {
    const f = (x: Tensor) => {
      const out: Tensor[] = [];
      for (let i = 0; i < (x.length as number); i++) out.push(S.mul(S.get(x, i), i + 1));
      return S.stack(out);
    };
    const loaded = stageAndLoad(f, [VECTOR], [[1, 2, 3]]);
    expect(loaded.run([[1, 2, 3]])).toEqual([1, 4, 9]);
  });

  test("recursion at trace time: a depth-3 composition", () => {
    const layer = (x: Tensor, depth: number): Tensor =>
      depth === 0 ? x : layer(S.tanh(S.add(S.mul(x, 0.5), 1)), depth - 1);
    const loaded = stageAndLoad((x: Tensor) => layer(x, 3), [VECTOR]);
    let ref = [0.3, -1];
    for (let k = 0; k < 3; k++) ref = ref.map((e) => Math.tanh(e * 0.5 + 1));
    expectClose(loaded.run([[0.3, -1]]), ref, 1e-12, "layers");
    // Each layer: a scaled vector, a shifted one, their tanh.
    expect(occurrences(loaded.staged.source, "build")).toBe(9);
  });
});

describe("build, ifold and cond stay in the program", () => {
  test("build reads outer values inside its body; nested builds", () => {
    const f = (m: Tensor, s: Tensor) =>
      S.build(S.length(m), (i) =>
        S.build(S.length(S.get(m, 0)), (j) => S.add(S.mul(S.get(m, j, i), s), S.toDouble(i))),
      );
    const loaded = stageAndLoad(f, [MATRIX, DOUBLE]);
    expect(
      loaded.run([
        [
          [1, 2],
          [3, 4],
        ],
        10,
      ]),
    ).toEqual([
      [10, 30],
      [21, 41],
    ]);
    expect(occurrences(loaded.staged.source, "build")).toBe(2);
  });

  test("ifold with a tuple state: Fibonacci", () => {
    const f = (n: Tensor) => S.ifold((s) => [s[1], S.add(s[0], s[1])], [0, 1], n)[0];
    const loaded = stageAndLoad(f, [INT]);
    expect(loaded.run([10])).toBe(55);
    expect(occurrences(loaded.staged.source, "ifold")).toBe(1);
  });

  test("ifold with an Index state from index()", () => {
    const f = (v: Tensor) =>
      S.ifold(
        (c, i) =>
          S.cond(
            S.gt(S.get(v, i), 0),
            () => S.add(c, 1),
            () => c,
          ),
        S.index(0),
        S.length(v),
      );
    const loaded = stageAndLoad(f, [VECTOR]);
    expect(loaded.run([[1, -2, 3, 0.5]])).toBe(3);
    expect(loaded.staged.resultType).toEqual({ k: "int" });
  });

  test("an ifold state that grows is traced again with its length unknown", () => {
    // The state starts as a known 1-vector and gains an element per step.
    const append = (acc: Tensor, e: Tensor) =>
      S.build(S.add(S.length(acc), 1), (j) =>
        S.cond(
          S.lt(j, S.length(acc)),
          () => S.get(acc, j),
          () => e,
        ),
      );
    const f = (x: Tensor, n: Tensor) => S.ifold((acc, i) => append(acc, S.mul(x, S.toDouble(i))), S.replicate(1, x), n);
    const loaded = stageAndLoad(f, [DOUBLE, INT]);
    expect(loaded.run([2, 4])).toEqual([2, 0, 2, 4, 6]);
  });

  test("cond: both branches traced, only the taken one runs (an out-of-range read in the other does not fail)", () => {
    const f = (v: Tensor, i: Tensor) =>
      S.cond(
        S.lt(i, S.length(v)),
        () => S.get(v, i),
        () => -1,
      );
    const loaded = stageAndLoad(f, [VECTOR, INT]);
    expect(loaded.run([[5, 6], 1])).toBe(6);
    expect(loaded.run([[5, 6], 7])).toBe(-1);
    expect(occurrences(loaded.staged.source, "if")).toBe(1);
  });

  test("cond with tuple results whose numbers adopt the other branch's types", () => {
    const f = (x: Tensor, k: Tensor) =>
      S.cond(
        S.gt(x, 0),
        () => [x, k],
        () => [0, 3],
      );
    const loaded = stageAndLoad(f, [DOUBLE, INT]);
    expect(loaded.run([2.5, 9])).toEqual([2.5, 9]);
    expect(loaded.run([-1, 9])).toEqual([0, 3]);
  });

  test("scopes nest: a cond inside an ifold inside a build, reading values of every enclosing scope", () => {
    const f = (m: Tensor, t: Tensor) =>
      S.build(S.length(m), (i) => {
        const row = S.get(m, i);
        const step = (acc: Tensor, j: Tensor) =>
          S.cond(
            S.gt(S.get(row, j), t),
            () => S.add(acc, S.get(row, j)),
            () => S.sub(acc, S.toDouble(i)),
          );
        return S.ifold(step, 0, S.length(row));
      });
    const loaded = stageAndLoad(f, [MATRIX, DOUBLE]);
    const m = [
      [1, 5, 2],
      [6, -1, 7],
    ];
    const ref = m.map((row, i) => row.reduce((acc, e) => (e > 1.5 ? acc + e : acc - i), 0));
    expect(loaded.run([m, 1.5])).toEqual(ref);
  });

  test("the shape of an array whose lengths are not known is computed when the program runs (empty arrays included)", () => {
    const loaded = stageAndLoad((m: Tensor) => S.shape(m), [MATRIX]);
    expect(
      loaded.run([
        [
          [1, 2, 3],
          [4, 5, 6],
        ],
      ]),
    ).toEqual([2, 3]);
    expect(loaded.run([[]])).toEqual([0, 0]);
  });

  test("lengths of arrays built from the same count are not checked again", () => {
    const f = (x: Tensor) => {
      const a = S.build(S.length(x), (i) => S.mul(S.get(x, i), 2));
      const b = S.build(S.length(x), (i) => S.add(S.get(x, i), 1));
      return S.add(a, b);
    };
    const loaded = stageAndLoad(f, [VECTOR]);
    expect(loaded.run([[1, 2]])).toEqual([4, 7]);
    expect(loaded.staged.source).not.toContain("sameSize");
  });

  test("arrays of different lengths known only when the program runs fail there with a shape error", () => {
    const loaded = stageAndLoad((x: Tensor, y: Tensor) => S.add(x, y), [VECTOR, VECTOR]);
    expect(
      loaded.run([
        [1, 2],
        [3, 4],
      ]),
    ).toEqual([4, 6]);
    expect(() => loaded.run([[1, 2], [3]])).toThrow(/differ/);
  });
});
