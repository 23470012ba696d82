// Scalar primitives in compiled code: every primitive against the interpreter on edge values (as arguments and as
// literals printed into the code), Index int32 semantics checked against hand-computed values too.

import { describe, expect, it } from "vitest";
import { lit, type Atom } from "../../src/ir/ir.js";
import { mkPrim } from "../../src/ir/builder.js";
import { PRIMS } from "../../src/prims/table.js";
import type { PrimName } from "../../src/prims/names.js";
import { BOOL, DOUBLE, INT, type Type } from "../../src/types/types.js";
import { compileFunction } from "../../src/codegen/compile.js";
import { JS_LOWERING } from "../../src/codegen/lowering.js";
import { agrees, fnOf, spanIn, thrown } from "./harness.js";

const DOUBLES = [0, -0, 1, -1.5, 2.5, 3, 0.1, NaN, Infinity, -Infinity, 1e308, -1e-308, 5e-324, 123456789.125];
const INDEXES = [0, 1, -1, 2, -7, 7, 3, 31, 65536, 46341, 2147483647, -2147483648];
const BOOLS = [false, true];
const VALUES: Record<"double" | "int" | "bool", readonly (number | boolean)[]> = {
  double: DOUBLES,
  int: INDEXES,
  bool: BOOLS,
};

const BINARY: readonly [PrimName, readonly Type[]][] = [
  ...(["add", "sub", "mul", "div", "pow", "max", "min"] as const).map((op): [PrimName, Type[]] => [op, [DOUBLE, INT]]),
  ["withDerivativeOf", [DOUBLE]],
  ["atan2", [DOUBLE]],
  ...(["bitAnd", "bitOr", "bitXor", "shiftLeft", "shiftRight", "shiftRightUnsigned"] as const).map(
    (op): [PrimName, Type[]] => [op, [INT]],
  ),
  ...(["lt", "gt", "le", "ge"] as const).map((op): [PrimName, Type[]] => [op, [DOUBLE, INT]]),
  ...(["eq", "ne"] as const).map((op): [PrimName, Type[]] => [op, [DOUBLE, INT, BOOL]]),
  ["and", [BOOL]],
  ["or", [BOOL]],
];
const UNARY: readonly [PrimName, Type][] = [
  ...(
    ["sin", "cos", "tan", "atan", "asin", "acos", "log", "exp", "sqrt", "tanh", "floor", "stopGradient"] as const
  ).map((op): [PrimName, Type] => [op, DOUBLE]),
  ["neg", DOUBLE],
  ["neg", INT],
  ["abs", DOUBLE],
  ["abs", INT],
  ["toDouble", INT],
  ["toIndex", DOUBLE],
  ["not", BOOL],
];

describe("scalar primitives agree with the interpreter", () => {
  for (const [op, types] of BINARY) {
    for (const t of types) {
      const values = VALUES[t.k as "double" | "int" | "bool"];
      const pairs = values.flatMap((a) => values.map((b) => [a, b] as const));
      it(`${op} on ${t.k} arguments`, () => {
        const fn = fnOf(
          [
            ["x", t],
            ["y", t],
          ],
          (x, y) => mkPrim(op, [x, y]),
        );
        // Division by zero on Index is an error in both back ends (checked separately below for the span).
        agrees(fn, ...pairs.map(([a, b]) => [a, b]));
      });
      it(`${op} on ${t.k} literals`, () => {
        for (const [a, b] of pairs) {
          agrees({ name: "lits", params: [], body: mkPrim(op, [lit(a, t), lit(b, t)]) }, []);
        }
      });
    }
  }
  for (const [op, t] of UNARY) {
    const values = VALUES[t.k as "double" | "int" | "bool"];
    it(`${op} on ${t.k}`, () => {
      agrees(
        fnOf([["x", t]], (x) => mkPrim(op, [x])),
        ...values.map((a) => [a]),
      );
      for (const a of values) agrees({ name: "lit", params: [], body: mkPrim(op, [lit(a, t)]) }, []);
    });
  }
  // The snapshots a checkpointed loop keeps (src/ad/reverse-checkpoint.ts): the budget over a state's bytes, at most
  // the steps and what one array holds; a located memory error when not one state fits (and at 0 bytes: no error).
  it("checkpointSlots on budgets, states, steps and widths, and its error", () => {
    const fn = fnOf(
      [
        ["budget", DOUBLE],
        ["bytes", DOUBLE],
        ["steps", INT],
        ["widest", DOUBLE],
      ],
      (b, x, n, w) => mkPrim("checkpointSlots", [b, x, n, w], spanIn("let g = ifold f x n", "ifold f x n")),
    );
    const cases = [
      [1000, 8, 50, 1],
      [1000, 8, 500, 1],
      [2 ** 28, 8000, 100000, 1000],
      [1e18, 8, 2147483647, 1],
      [1000, 8, 50, 2 ** 25],
      [1000, 0, 50, 1],
      [7, 8, 10, 1],
      [0, 8, 10, 1],
    ];
    const compiled = agrees(fn, ...cases);
    expect(compiled([2 ** 28, 8000, 100000, 1000])).toBe(33554);
    expect(thrown(() => compiled([7, 8, 10, 1])).message).toContain(
      "the memory budget of 7 bytes cannot hold one state",
    );
  });
  it("covers every primitive except the structural ones", () => {
    const covered = new Set([...BINARY.map(([op]) => op), ...UNARY.map(([op]) => op), "checkpointSlots"]);
    const missing = Object.keys(PRIMS).filter(
      (op) => !covered.has(op as PrimName) && "expr" in JS_LOWERING[op as PrimName],
    );
    expect(missing).toEqual([]);
  });
});

describe("Index arithmetic is int32, as hand-computed", () => {
  const run = (op: PrimName, a: number, b: number) =>
    compileFunction(
      fnOf(
        [
          ["x", INT],
          ["y", INT],
        ],
        (x, y) => mkPrim(op, [x, y]),
      ),
    )([a, b]);
  it("wraps around", () => {
    expect(run("add", 2147483647, 1)).toBe(-2147483648);
    expect(run("sub", -2147483648, 1)).toBe(2147483647);
    expect(run("mul", 65536, 65536)).toBe(0);
    expect(run("mul", 46341, 46341)).toBe(-2147479015);
    expect(run("pow", 3, 31)).toBe(Math.imul(Math.imul(Math.imul(3 ** 10, 3 ** 10), 3 ** 10), 3));
  });
  it("divides towards zero", () => {
    expect(run("div", 7, -2)).toBe(-3);
    expect(run("div", -7, 2)).toBe(-3);
    expect(run("div", -2147483648, -1)).toBe(-2147483648);
  });
  it("reports division by zero like the interpreter, at the division", () => {
    const text = "let f (x: Index) (y: Index) = x / y";
    const span = spanIn(text, "x / y");
    const fn = fnOf(
      [
        ["x", INT],
        ["y", INT],
      ],
      (x, y) => mkPrim("div", [x, y], span),
    );
    agrees(fn, [3, 0]);
    const err = thrown(() => compileFunction(fn)([3, 0]));
    expect(err.kind).toBe("index");
    expect(err.span).toBe(span);
    expect(err.headline).toBe("codegen.smooth:1:31: index error: integer division by zero");
  });
});

describe("literals are printed exactly", () => {
  const identity = (value: number | boolean, t: Type) =>
    compileFunction({ name: "lit", params: [], body: lit(value, t) });
  it.each([0, -0, NaN, Infinity, -Infinity, 5e-324, -1.7976931348623157e308, 0.1 + 0.2, 1e21, -123.456])(
    "Double %s",
    (x) => {
      const f = identity(x, DOUBLE);
      expect(Object.is(f([]), x)).toBe(true);
    },
  );
  it("Index and Bool", () => {
    expect(identity(-2147483648, INT)([])).toBe(-2147483648);
    expect(identity(true, BOOL)([])).toBe(true);
    expect(identity(false, BOOL)([])).toBe(false);
  });
  it("negative literals can follow an operator", () => {
    const neg = (a: Atom) => mkPrim("neg", [a]);
    expect(compileFunction({ name: "n", params: [], body: neg(lit(-2, DOUBLE)) })([])).toBe(2);
    expect(Object.is(compileFunction({ name: "n", params: [], body: neg(lit(-0, DOUBLE)) })([]), 0)).toBe(true);
    expect(compileFunction({ name: "n", params: [], body: mkPrim("sub", [lit(1, INT), lit(-3, INT)]) })([])).toBe(4);
  });
});
