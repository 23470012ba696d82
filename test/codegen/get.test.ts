// get and length in compiled code: views into typed arrays (no copies), arrays of tuples and of Bools, the index
// error of the interpreter, and which checks are left out.

import { describe, expect, it } from "vitest";
import { litIndex, nested } from "../../src/ir/builder.js";
import { arrayOf, BOOL, INT, MATRIX, tupleOf, VECTOR } from "../../src/types/types.js";
import { compileFunction } from "../../src/codegen/compile.js";
import type { DenseArray } from "../../src/runtime/value.js";
import { agrees, dense, fnOf, mat, spanIn, thrown, vec } from "./harness.js";

const TENSOR3 = arrayOf(MATRIX);
const cube = dense(
  "double",
  [2, 3, 4],
  Array.from({ length: 24 }, (_, q) => q * 1.5),
);

describe("get", () => {
  it("m[i][j] reads through a view, for every i and j", () => {
    const fn = fnOf(
      [
        ["m", MATRIX],
        ["i", INT],
        ["j", INT],
      ],
      (m, i, j) => nested((b) => b.prim("get", [b.prim("get", [m, i]), j])),
    );
    const m = mat([
      [1, 2, 3],
      [4, 5, 6],
    ]);
    const cases = [0, 1].flatMap((i) => [0, 1, 2].map((j) => [m, i, j]));
    const c = agrees(fn, ...cases);
    expect(c([m, 1, 2])).toBe(6);
    expect(c.source).not.toContain("subarray");
  });

  it("of a rank-3 array gives matrices and rows that are views of the same data", () => {
    const fn = fnOf(
      [
        ["t", TENSOR3],
        ["i", INT],
        ["j", INT],
      ],
      (t, i, j) =>
        nested((b) => {
          const m = b.prim("get", [t, i]);
          const row = b.prim("get", [m, j]);
          return b.tuple([m, row, b.prim("get", [row, litIndex(3)]), b.prim("length", [m]), b.prim("length", [row])]);
        }),
    );
    agrees(fn, [cube, 1, 2], [cube, 0, 0]);
    const out = compileFunction(fn)([cube, 1, 2]) as unknown as { elems: [DenseArray, DenseArray, number] };
    expect(out.elems[0].shape).toEqual([3, 4]);
    expect(out.elems[1].data.buffer).toBe(cube.data.buffer);
    expect(out.elems[2]).toBe((12 + 2 * 4 + 3) * 1.5);
  });

  it("of arrays of tuples and of Bools", () => {
    const fn = fnOf(
      [
        ["p", arrayOf(tupleOf([VECTOR, BOOL]))],
        ["i", INT],
      ],
      (p, i) =>
        nested((b) => {
          const elem = b.prim("get", [p, i]);
          return b.tuple([elem, b.prim("length", [p])]);
        }),
    );
    const p = {
      tag: "tuparr" as const,
      depth: 1,
      fields: [
        mat([
          [1, 2],
          [3, 4],
          [5, 6],
        ]),
        dense("bool", [3], [0, 1, 0]),
      ],
    };
    agrees(fn, [p, 0], [p, 1], [p, 2], [p, 3]);
    expect(compileFunction(fn)([p, 1])).toEqual({
      tag: "tuple",
      elems: [{ tag: "tuple", elems: [vec([3, 4]), true] }, 3],
    });
  });

  it("out of range: the interpreter's error, message and span", () => {
    const text = "let f (v: Vector) (k: Index) = v[k]";
    const span = spanIn(text, "v[k]");
    const fn = fnOf(
      [
        ["v", VECTOR],
        ["k", INT],
      ],
      (v, k) => nested((b) => b.prim("get", [v, k], "x", span)),
    );
    agrees(fn, [vec([1, 2, 3]), 3], [vec([1, 2, 3]), -1], [vec([]), 0], [vec([1, 2, 3]), 2147483647]);
    const err = thrown(() => compileFunction(fn)([vec([1, 2, 3]), 3]));
    expect(err.kind).toBe("index");
    expect(err.span).toBe(span);
    expect(err.message).toBe(
      "codegen.smooth:1:32: index error: index 3 is out of range for an array of length 3\n" +
        "  |\n1 | let f (v: Vector) (k: Index) = v[k]\n  |                                ^^^^",
    );
  });

  it("out of range inside a loop, on a view", () => {
    const text = "build (length m) (fun i -> m[i][i])";
    const span = spanIn(text, "m[i][i]");
    const fn = fnOf([["m", MATRIX]], (m) =>
      nested((b) => b.build(b.prim("length", [m]), (i, c) => c.prim("get", [c.prim("get", [m, i]), i], "x", span))),
    );
    agrees(
      fn,
      [
        mat([
          [1, 2],
          [3, 4],
        ]),
      ],
      [mat([[1], [2]])],
      [mat([[1, 2, 3]])],
    );
  });
});

describe("bounds checks", () => {
  const over = (sizeFrom: "v" | "u") =>
    fnOf(
      [
        ["u", VECTOR],
        ["v", VECTOR],
      ],
      (u, v) => nested((b) => b.build(b.prim("length", [sizeFrom === "v" ? v : u]), (i, c) => c.prim("get", [v, i]))),
    );

  it("are left out for the variable of a loop over the very array", () => {
    const c = agrees(over("v"), [vec([]), vec([1, 2])]);
    expect(c.source).not.toContain("indexOutOfRange");
  });

  it("check only the upper bound for the variable of another loop", () => {
    const c = agrees(over("u"), [vec([1]), vec([1, 2])], [vec([1, 2, 3]), vec([1, 2])]);
    expect(c.source).toContain("indexOutOfRange");
    expect(c.source).not.toContain(">= 0");
  });

  it("check both bounds for any other index", () => {
    const fn = fnOf(
      [
        ["v", VECTOR],
        ["k", INT],
      ],
      (v, k) => nested((b) => b.prim("get", [v, k])),
    );
    expect(compileFunction(fn).source).toContain(">= 0");
  });
});

it("length of an array of tuples and of a matrix", () => {
  const fn = fnOf([["m", MATRIX]], (m) =>
    nested((b) => b.tuple([b.prim("length", [m]), b.prim("length", [b.prim("get", [m, litIndex(0)])])])),
  );
  agrees(fn, [mat([[1, 2, 3]])], [dense("double", [0, 5], [])]);
});
