import { describe, expect, it } from "vitest";
import { SmoothError } from "../../src/syntax/diagnostics.js";
import { arrayOf, BOOL, DOUBLE, INT, MATRIX, tupleOf, VECTOR } from "../../src/types/types.js";
import { shapeOf, showShape, stackValues, zeroSizeArray } from "../../src/runtime/stack.js";
import { arrayGet, tuple, type TupleArray } from "../../src/runtime/value.js";
import { matrix, spanOf, vector } from "./ir-builder.js";

describe("stackValues", () => {
  it("stacks scalars into typed arrays (Bool as 1/0, read back as booleans)", () => {
    expect(stackValues(DOUBLE, [1.5, -2])).toEqual(vector([1.5, -2]));
    const ints = stackValues(INT, [3, -4]);
    expect(ints).toEqual({ tag: "dense", elemKind: "int", shape: [2], data: Int32Array.from([3, -4]) });
    const flags = stackValues(BOOL, [true, false, true]);
    expect(flags).toEqual({ tag: "dense", elemKind: "bool", shape: [3], data: Uint8Array.from([1, 0, 1]) });
    expect([0, 1, 2].map((i) => arrayGet(flags, i))).toEqual([true, false, true]);
  });

  it("stacks matrices into one rank-3 array", () => {
    const r = stackValues(MATRIX, [
      matrix([
        [1, 2],
        [3, 4],
      ]),
      matrix([
        [5, 6],
        [7, 8],
      ]),
    ]);
    expect(r).toEqual({
      tag: "dense",
      elemKind: "double",
      shape: [2, 2, 2],
      data: Float64Array.from([1, 2, 3, 4, 5, 6, 7, 8]),
    });
  });

  it("stacks tuples into a TupleArray, and arrays of tuples into a deeper one", () => {
    const pairType = tupleOf([INT, VECTOR]);
    const row0 = stackValues(pairType, [tuple([1, vector([1, 2])]), tuple([2, vector([3, 4])])]) as TupleArray;
    const row1 = stackValues(pairType, [tuple([3, vector([5, 6])]), tuple([4, vector([7, 8])])]) as TupleArray;
    expect(row0.depth).toBe(1);
    const grid = stackValues(arrayOf(pairType), [row0, row1]) as TupleArray;
    expect(grid).toEqual({
      tag: "tuparr",
      depth: 2,
      fields: [
        { tag: "dense", elemKind: "int", shape: [2, 2], data: Int32Array.from([1, 2, 3, 4]) },
        { tag: "dense", elemKind: "double", shape: [2, 2, 2], data: Float64Array.from([1, 2, 3, 4, 5, 6, 7, 8]) },
      ],
    });
    expect(arrayGet(arrayGet(grid, 1) as TupleArray, 0)).toEqual(tuple([3, vector([5, 6])]));
    expect(showShape(shapeOf(grid))).toBe("[2, 2] of (scalar, [2])");
  });

  it("stacks tuples nested in tuples", () => {
    const t = tupleOf([DOUBLE, tupleOf([BOOL, DOUBLE])]);
    const r = stackValues(t, [tuple([1, tuple([true, 2])]), tuple([3, tuple([false, 4])])]);
    expect(r).toEqual({
      tag: "tuparr",
      depth: 1,
      fields: [
        vector([1, 3]),
        {
          tag: "tuparr",
          depth: 1,
          fields: [{ tag: "dense", elemKind: "bool", shape: [2], data: Uint8Array.from([1, 0]) }, vector([2, 4])],
        },
      ],
    });
  });

  // No element exists to tell the inner dimensions, so they are 0.
  it("gives an empty stack zero inner dimensions", () => {
    expect(stackValues(VECTOR, [])).toEqual({
      tag: "dense",
      elemKind: "double",
      shape: [0, 0],
      data: new Float64Array(0),
    });
    expect(stackValues(tupleOf([INT, MATRIX]), [])).toEqual({
      tag: "tuparr",
      depth: 1,
      fields: [
        { tag: "dense", elemKind: "int", shape: [0], data: new Int32Array(0) },
        { tag: "dense", elemKind: "double", shape: [0, 0, 0], data: new Float64Array(0) },
      ],
    });
    expect(zeroSizeArray(arrayOf(arrayOf(tupleOf([BOOL, DOUBLE]))))).toMatchObject({ tag: "tuparr", depth: 2 });
  });

  it("names the first two elements whose shapes differ", () => {
    const span = spanOf("build 3 f", "build 3 f");
    const err = (() => {
      try {
        stackValues(VECTOR, [vector([1, 2, 3]), vector([4, 5, 6]), vector([1, 2, 3, 4])], span);
      } catch (e) {
        return e as SmoothError;
      }
      throw new Error("no error");
    })();
    expect(err).toBeInstanceOf(SmoothError);
    expect(err.kind).toBe("shape");
    expect(err.span).toBe(span);
    expect(err.summary).toBe(
      "build produced elements of different shapes: element 0 has shape [3] but element 2 has shape [4]",
    );
  });

  it("checks each tuple component's shape", () => {
    const t = tupleOf([DOUBLE, VECTOR]);
    expect(() => stackValues(t, [tuple([1, vector([1])]), tuple([2, vector([1, 2])])])).toThrow(
      "element 0 has shape (scalar, [1]) but element 1 has shape (scalar, [2])",
    );
    // components may differ from each other, as long as each is regular
    expect(() => stackValues(tupleOf([VECTOR, VECTOR]), [tuple([vector([1]), vector([1, 2])])])).not.toThrow();
  });
});
