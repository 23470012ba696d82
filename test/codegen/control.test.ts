// if and ifold in compiled code: lazy branches with tuple and array results, loops with tuple and array state.

import { describe, expect, it } from "vitest";
import { litBool, litDouble, litIndex, nested } from "../../src/ir/builder.js";
import { mkTuple } from "../../src/ir/ir.js";
import { BOOL, DOUBLE, INT, MATRIX, VECTOR } from "../../src/types/types.js";
import { compileFunction } from "../../src/codegen/compile.js";
import { agrees, fnOf, mat, spanIn, thrown, vec } from "./harness.js";

describe("if", () => {
  it("runs only the taken branch, with a tuple result", () => {
    // if i < length v then (v[i], i) else (0.0, -1): the then branch would index out of range.
    const fn = fnOf(
      [
        ["v", VECTOR],
        ["i", INT],
      ],
      (v, i) =>
        nested((b) => {
          const inRange = b.prim("lt", [i, b.prim("length", [v])]);
          return b.if(
            inRange,
            (c) => c.tuple([c.prim("get", [v, i], "x", spanIn("v[i]", "v[i]")), i]),
            () => mkTuple([litDouble(0), litIndex(-1)]),
          );
        }),
    );
    const c = agrees(fn, [vec([1, 2, 3]), 1], [vec([1, 2, 3]), 3], [vec([]), 0]);
    expect(c([vec([1, 2, 3]), 7])).toEqual({ tag: "tuple", elems: [0, -1] });
    expect(c([vec([1, 2, 3]), 2])).toEqual({ tag: "tuple", elems: [3, 2] });
  });

  it("gives arrays: views of an argument or new ones", () => {
    const fn = fnOf(
      [
        ["m", MATRIX],
        ["c", BOOL],
      ],
      (m, cond) =>
        nested((b) => {
          const row = b.if(
            cond,
            (c) => c.prim("get", [m, litIndex(1)]),
            (c) => c.build(c.prim("length", [c.prim("get", [m, litIndex(0)])]), (j, d) => d.prim("toDouble", [j])),
          );
          const either = b.if(
            cond,
            () => m,
            (c) => c.build(litIndex(1), () => row),
          );
          return b.tuple([row, either, b.prim("get", [row, litIndex(0)])]);
        }),
    );
    const m = mat([
      [1, 2],
      [3, 4],
      [5, 6],
    ]);
    const c = agrees(fn, [m, true], [m, false]);
    const out = c([m, true]) as unknown as { elems: [{ data: Float64Array }, unknown, number] };
    expect(Array.from(out.elems[0].data)).toEqual([3, 4]);
    expect(out.elems[2]).toBe(3);
  });

  it("nested, with Bool results", () => {
    const fn = fnOf([["x", DOUBLE]], (x) =>
      nested((b) =>
        b.if(
          b.prim("gt", [x, litDouble(0)]),
          (c) =>
            c.if(
              c.prim("gt", [x, litDouble(10)]),
              () => litBool(true),
              () => litBool(false),
            ),
          () => litBool(true),
        ),
      ),
    );
    agrees(fn, [-1], [5], [11], [NaN]);
  });
});

describe("ifold", () => {
  it("keeps a tuple state in locals, swapping components (Fibonacci in Index arithmetic)", () => {
    const fn = fnOf([["n", INT]], (n) =>
      nested((b) => {
        const init = b.tuple([litIndex(0), litIndex(1)]);
        return b.ifold(init, n, (acc, _i, c) => {
          const a = c.proj(0, acc);
          const bb = c.proj(1, acc);
          return c.tuple([bb, c.prim("add", [a, bb])]);
        });
      }),
    );
    const c = agrees(fn, [0], [1], [10], [50]);
    expect(c([10])).toEqual({ tag: "tuple", elems: [55, 89] });
    // fib(50) = 12586269025 wraps to int32
    expect((c([50]) as unknown as { elems: number[] }).elems[0]).toBe(12586269025 | 0);
  });

  it("rotates a tuple state (every component is another's next value)", () => {
    const fn = fnOf([["n", INT]], (n) =>
      nested((b) =>
        b.ifold(b.tuple([litDouble(1), litDouble(2), litDouble(3)]), n, (acc, _i, c) =>
          c.tuple([c.proj(1, acc), c.proj(2, acc), c.proj(0, acc)]),
        ),
      ),
    );
    const c = agrees(fn, [0], [1], [2], [3], [4]);
    expect(c([1])).toEqual({ tag: "tuple", elems: [2, 3, 1] });
    expect(c([2])).toEqual({ tag: "tuple", elems: [3, 1, 2] });
  });

  it("with a mixed state of Double, Bool and Index", () => {
    const fn = fnOf([["v", VECTOR]], (v) =>
      nested((b) => {
        const init = b.tuple([litDouble(-Infinity), litBool(false), litIndex(-1)]);
        return b.ifold(init, b.prim("length", [v]), (acc, i, c) => {
          const best = c.proj(0, acc);
          const x = c.prim("get", [v, i]);
          const better = c.prim("gt", [x, best]);
          return c.if(
            better,
            (d) => d.tuple([x, litBool(true), i]),
            () => acc,
          );
        });
      }),
    );
    agrees(fn, [vec([])], [vec([3, 1, 4, 1, 5, 9, 2, 6])], [vec([NaN, 2])]);
  });

  it("with an array state replaced by a new array each iteration (neighbour sums, n times)", () => {
    const fn = fnOf(
      [
        ["v", VECTOR],
        ["times", INT],
      ],
      (v, times) =>
        nested((b) =>
          b.ifold(v, times, (acc, _t, c) => {
            const n = c.prim("length", [acc]);
            return c.build(n, (j, d) => {
              const here = d.prim("get", [acc, j]);
              const first = d.prim("eq", [j, litIndex(0)]);
              return d.if(
                first,
                () => here,
                (e) => e.prim("add", [here, e.prim("get", [acc, e.prim("sub", [j, litIndex(1)])])]),
              );
            });
          }),
        ),
    );
    const c = agrees(fn, [vec([1, 1, 1, 1]), 0], [vec([1, 1, 1, 1]), 2], [vec([]), 3]);
    expect(c([vec([1, 1, 1, 1]), 2])).toEqual(vec([1, 3, 4, 4]));
  });

  it("with a view as state (the last row)", () => {
    const fn = fnOf([["m", MATRIX]], (m) =>
      nested((b) =>
        b.ifold(b.prim("get", [m, litIndex(0)]), b.prim("length", [m]), (_acc, i, c) => c.prim("get", [m, i])),
      ),
    );
    const c = agrees(fn, [
      mat([
        [1, 2],
        [3, 4],
        [5, 6],
      ]),
    ]);
    expect(
      c([
        mat([
          [1, 2],
          [3, 4],
          [5, 6],
        ]),
      ]),
    ).toEqual(vec([5, 6]));
  });

  it("rejects a negative count like the interpreter, and runs zero times for 0", () => {
    const text = "ifold f 0.0 n";
    const span = spanIn(text, text);
    const fn = fnOf([["n", INT]], (n) =>
      nested((b) =>
        b.ifold(litDouble(1), n, (acc, i, c) => c.prim("add", [acc, c.prim("toDouble", [i])]), "s", "acc", "i", span),
      ),
    );
    agrees(fn, [-2], [0], [4]);
    const err = thrown(() => compileFunction(fn)([-2]));
    expect(err.summary).toBe("ifold count must not be negative, got -2");
    expect(err.span).toBe(span);
  });
});
