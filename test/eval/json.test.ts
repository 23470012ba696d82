import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { shortJson, valueFromJson, valueToJson, valuesEqual } from "../../src/runtime/json.js";
import { thrown } from "../helpers.js";
import {
  arrayOf,
  BOOL,
  DOUBLE,
  funOf,
  INT,
  MATRIX,
  showType,
  tupleOf,
  VECTOR,
  type Type,
} from "../../src/types/types.js";
import type { DenseArray, TupleArray } from "../../src/runtime/value.js";
import { matrix, vector } from "./ir-builder.js";

// Random function-free types, a random "template" fixing the length of every array in it (so the JSON is regular),
// and random JSON following the template.
const typeArb: fc.Arbitrary<Type> = fc.letrec<{ type: Type }>((tie) => ({
  type: fc.oneof(
    { maxDepth: 4, depthIdentifier: "type" },
    fc.constantFrom(DOUBLE, INT, BOOL),
    tie("type").map(arrayOf),
    fc.array(tie("type"), { minLength: 2, maxLength: 3 }).map(tupleOf),
  ),
})).type;

type Template = null | { length: number; elem: Template } | Template[];

function templateArb(t: Type): fc.Arbitrary<Template> {
  switch (t.k) {
    case "array":
      return fc.record({ length: fc.nat(3), elem: templateArb(t.elem) });
    case "tuple":
      return fc.tuple(...t.elems.map(templateArb));
    default:
      return fc.constant(null);
  }
}

function jsonArb(t: Type, tpl: Template): fc.Arbitrary<unknown> {
  switch (t.k) {
    case "double":
      // JSON numbers, plus the strings that stand for the numbers JSON lacks
      return fc.double().map((x) => (Number.isFinite(x) ? x : String(x)));
    case "int":
      return fc.integer({ min: -2147483648, max: 2147483647 });
    case "bool":
      return fc.boolean();
    case "array": {
      const a = tpl as { length: number; elem: Template };
      return fc.array(jsonArb(t.elem, a.elem), { minLength: a.length, maxLength: a.length });
    }
    case "tuple":
      return fc.tuple(...t.elems.map((e, i) => jsonArb(e, (tpl as Template[])[i]!)));
    case "fun":
    case "tape":
      throw new Error(`no ${t.k} in JSON`);
  }
}

const typedJsonArb = typeArb.chain((type) =>
  templateArb(type).chain((tpl) => jsonArb(type, tpl).map((json) => ({ type, json }))),
);

const argumentError = thrown;

describe("JSON round trips", () => {
  it("valueToJson inverts valueFromJson on random well-formed input", () => {
    fc.assert(
      fc.property(typedJsonArb, ({ type, json }) => {
        const value = valueFromJson(json, type, "argument 1");
        expect(valueToJson(value, type)).toEqual(json);
        // and through text, as the CLI does
        const again = valueFromJson(JSON.parse(JSON.stringify(valueToJson(value, type))), type, "argument 1");
        expect(valuesEqual(again, value, type)).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it("reads matrices, Index and Bool arrays and arrays of tuples into the flat representation", () => {
    expect(
      valueFromJson(
        [
          [1, 2, 3],
          [4, 5, 6],
        ],
        MATRIX,
        "m",
      ),
    ).toEqual(
      matrix([
        [1, 2, 3],
        [4, 5, 6],
      ]),
    );
    expect(valueFromJson([[], []], MATRIX, "m")).toEqual({
      tag: "dense",
      elemKind: "double",
      shape: [2, 0],
      data: new Float64Array(0),
    });
    expect(valueFromJson([], MATRIX, "m")).toEqual({
      tag: "dense",
      elemKind: "double",
      shape: [0, 0],
      data: new Float64Array(0),
    });
    const ints = valueFromJson([-1, 0, 7], arrayOf(INT), "n") as DenseArray;
    expect(ints.data).toEqual(Int32Array.from([-1, 0, 7]));
    const flags = valueFromJson([true, false], arrayOf(BOOL), "b") as DenseArray;
    expect(flags.data).toEqual(Uint8Array.from([1, 0]));
    const pairs = valueFromJson(
      [
        [1, [1, 2]],
        [2, [3, 4]],
        [3, [5, 6]],
      ],
      arrayOf(tupleOf([DOUBLE, VECTOR])),
      "p",
    ) as TupleArray;
    expect(pairs).toEqual({
      tag: "tuparr",
      depth: 1,
      fields: [
        vector([1, 2, 3]),
        matrix([
          [1, 2],
          [3, 4],
          [5, 6],
        ]),
      ],
    });
  });

  it("writes NaN and infinities as strings", () => {
    expect(valueToJson(vector([NaN, Infinity, -Infinity, -0.5]), VECTOR)).toEqual([
      "NaN",
      "Infinity",
      "-Infinity",
      -0.5,
    ]);
    expect(valueFromJson(["NaN", "Infinity", "-Infinity"], VECTOR, "v")).toEqual(vector([NaN, Infinity, -Infinity]));
  });
});

describe("JSON argument errors", () => {
  const cases: { json: unknown; type: Type; what: string; summary: string; expected: string; found: string }[] = [
    {
      json: "x",
      type: DOUBLE,
      what: "parameter `x`",
      summary: 'parameter `x` expects a Double (a number, or "NaN", "Infinity", "-Infinity"), got "x"',
      expected: "Double",
      found: '"x"',
    },
    {
      json: 2.5,
      type: INT,
      what: "parameter `n`",
      summary: "parameter `n` expects an Index (an integer), got 2.5",
      expected: "Index",
      found: "2.5",
    },
    {
      json: 2147483648,
      type: INT,
      what: "parameter `n`",
      summary: "parameter `n` expects an Index (an integer from -2147483648 to 2147483647), got 2147483648",
      expected: "Index",
      found: "2147483648",
    },
    {
      json: 1,
      type: BOOL,
      what: "argument 3 (flag)",
      summary: "argument 3 (flag) expects a Bool (true or false), got 1",
      expected: "Bool",
      found: "1",
    },
    {
      json: 3,
      type: VECTOR,
      what: "parameter `v`",
      summary: "parameter `v` expects a Vector (a JSON array), got 3",
      expected: "Vector",
      found: "3",
    },
    {
      json: [1, null],
      type: VECTOR,
      what: "parameter `v`",
      summary: 'parameter `v` at [1] expects a Double (a number, or "NaN", "Infinity", "-Infinity"), got null',
      expected: "Double",
      found: "null",
    },
    {
      json: [
        [1, 2, 3],
        [4, 5],
      ],
      type: MATRIX,
      what: "parameter `M`",
      summary: "parameter `M` must be a regular array: row 0 has length 3 but row 1 has length 2",
      expected: "Matrix",
      found: "[[1,2,3],[4,5]]",
    },
    {
      json: [[[1, 2], [3]]],
      type: arrayOf(MATRIX),
      what: "parameter `T`",
      summary: "parameter `T` at [0] must be a regular array: row 0 has length 2 but row 1 has length 1",
      expected: "Matrix",
      found: "[[1,2],[3]]",
    },
    {
      json: [
        [[1, 2]],
        [
          [1, 2],
          [3, 4],
        ],
      ],
      type: arrayOf(MATRIX),
      what: "parameter `T`",
      summary: "parameter `T` must be a regular array: row 0 has shape [1, 2] but row 1 has shape [2, 2]",
      expected: "Array<Matrix>",
      found: "[[[1,2]],[[1,2],[3,4]]]",
    },
    {
      json: [
        [1, [1]],
        [2, [1, 2]],
      ],
      type: arrayOf(tupleOf([DOUBLE, VECTOR])),
      what: "parameter `p`",
      summary:
        "parameter `p` must be a regular array: element 0 has shape (scalar, [1]) but element 1 has shape (scalar, [2])",
      expected: "Array<Double * Vector>",
      found: "[[1,[1]],[2,[1,2]]]",
    },
    {
      json: [1],
      type: tupleOf([DOUBLE, VECTOR]),
      what: "parameter `p`",
      summary: "parameter `p` expects a Double * Vector (a JSON array of 2 elements), got [1]",
      expected: "Double * Vector",
      found: "[1]",
    },
    {
      json: [[1, true]],
      type: arrayOf(tupleOf([DOUBLE, INT])),
      what: "parameter `q`",
      summary: "parameter `q` at [0][1] expects an Index (an integer), got true",
      expected: "Index",
      found: "true",
    },
    {
      json: 1,
      type: funOf(DOUBLE, DOUBLE),
      what: "parameter `f`",
      summary: "parameter `f` has the function type Double -> Double, which JSON cannot express",
      expected: "a type without functions",
      found: "Double -> Double",
    },
  ];

  it.each(cases)("$summary", ({ json, type, what, summary, expected, found }) => {
    const err = argumentError(() => valueFromJson(json, type, what));
    expect(err.kind).toBe("argument");
    expect(err.span).toBeUndefined();
    expect(err.summary).toBe(summary);
    expect(err.details).toEqual({ expected, found });
    expect(err.message).toBe(`argument error: ${summary}\n  expected: ${expected}\n  found:    ${found}`);
  });

  it("shortens long JSON excerpts", () => {
    const long = Array.from({ length: 100 }, (_, i) => i);
    expect(shortJson(long)).toHaveLength(40);
    expect(shortJson(long).endsWith("…")).toBe(true);
    expect(shortJson(undefined)).toBe("undefined");
    const err = argumentError(() => valueFromJson(long, MATRIX, "m"));
    expect(err.summary).toBe("m at [0] expects a Vector (a JSON array), got 0");
    expect(showType(MATRIX)).toBe("Matrix");
  });
});

describe("valuesEqual", () => {
  it("compares with a relative tolerance, NaN equal to NaN", () => {
    expect(valuesEqual(vector([1, NaN, 1e6]), vector([1 + 1e-12, NaN, 1e6 + 1e-4]), VECTOR, 1e-9)).toBe(true);
    expect(valuesEqual(vector([1, NaN]), vector([1 + 1e-12, NaN]), VECTOR)).toBe(false);
    expect(valuesEqual(vector([1e6]), vector([1e6 + 1]), VECTOR, 1e-9)).toBe(false);
    expect(valuesEqual(Infinity, -Infinity, DOUBLE, 1)).toBe(false);
  });

  it("tells arrays of different shapes apart, also empty ones", () => {
    const empty = (shape: number[]): DenseArray => ({
      tag: "dense",
      elemKind: "double",
      shape,
      data: new Float64Array(0),
    });
    expect(valuesEqual(empty([0, 0]), empty([0, 3]), MATRIX)).toBe(false);
    expect(valuesEqual(matrix([[1, 2]]), vector([1, 2]), MATRIX)).toBe(false);
    expect(
      valuesEqual(
        matrix([
          [1, 2],
          [3, 4],
        ]),
        matrix([
          [1, 2],
          [3, 4],
        ]),
        MATRIX,
      ),
    ).toBe(true);
  });
});
