// Every primitive through the interpreter, against Math.* / JS operators for Doubles and against exact BigInt
// arithmetic wrapped to 32 bits for Index.

import { describe, expect, it } from "vitest";
import { evaluate } from "../../src/eval/interpreter.js";
import { freshVar, type Atom } from "../../src/ir/ir.js";
import { PRIM_NAMES, type PrimName } from "../../src/prims/names.js";
import { SmoothError } from "../../src/syntax/diagnostics.js";
import { arrayOf, BOOL, DOUBLE, INT, MATRIX, tupleOf, VECTOR } from "../../src/types/types.js";
import type { TupleArray, Value } from "../../src/runtime/value.js";
import { bool, idx, matrix, num, prim, spanOf, vector } from "./ir-builder.js";

const DOUBLES = [-3.5, -1, -0.25, -0, 0, 0.5, 1, 2, 7.75, 1e300, Infinity, -Infinity, NaN];
const INTS = [-2147483648, -2147483647, -65536, -7, -1, 0, 1, 3, 46341, 65536, 2147483647];

const run = (op: PrimName, args: Atom[]): Value => evaluate(prim(op, args), new Map());
const wrap32 = (x: bigint): number => Number(BigInt.asIntN(32, x));

function checkUnaryDouble(op: PrimName, ref: (x: number) => number) {
  for (const x of DOUBLES) expect(Object.is(run(op, [num(x)]), ref(x)), `${op}(${x})`).toBe(true);
}

function checkBinaryDouble(op: PrimName, ref: (a: number, b: number) => number) {
  for (const a of DOUBLES) for (const b of DOUBLES) expect(Object.is(run(op, [num(a), num(b)]), ref(a, b)), `${a} ${op} ${b}`).toBe(true);
}

function checkBinaryInt(op: PrimName, ref: (a: bigint, b: bigint) => bigint, skip: (a: number, b: number) => boolean = () => false) {
  for (const a of INTS)
    for (const b of INTS) {
      if (skip(a, b)) continue;
      expect(run(op, [idx(a), idx(b)]), `${a} ${op} ${b}`).toBe(wrap32(ref(BigInt(a), BigInt(b))));
    }
}

function checkCompare(op: PrimName, ref: (a: number, b: number) => boolean) {
  for (const a of DOUBLES) for (const b of DOUBLES) expect(run(op, [num(a), num(b)]), `${a} ${op} ${b}`).toBe(ref(a, b));
  for (const a of INTS) for (const b of INTS) expect(run(op, [idx(a), idx(b)]), `${a} ${op} ${b}`).toBe(ref(a, b));
}

function checkBool(op: PrimName, ref: (a: boolean, b: boolean) => boolean) {
  for (const a of [false, true]) for (const b of [false, true]) expect(run(op, [bool(a), bool(b)])).toBe(ref(a, b));
}

const bigMax = (a: bigint, b: bigint) => (a > b ? a : b);
const bigMin = (a: bigint, b: bigint) => (a < b ? a : b);

// A mapped type over the primitive names: a new primitive without a check here fails `tsc`.
const checks: { [K in PrimName]: () => void } = {
  add: () => {
    checkBinaryDouble("add", (a, b) => a + b);
    checkBinaryInt("add", (a, b) => a + b);
  },
  sub: () => {
    checkBinaryDouble("sub", (a, b) => a - b);
    checkBinaryInt("sub", (a, b) => a - b);
  },
  mul: () => {
    checkBinaryDouble("mul", (a, b) => a * b);
    checkBinaryInt("mul", (a, b) => a * b);
  },
  div: () => {
    checkBinaryDouble("div", (a, b) => a / b);
    checkBinaryInt("div", (a, b) => a / b, (_a, b) => b === 0); // BigInt division truncates toward zero, like Smooth
    expect(() => run("div", [idx(5), idx(0)])).toThrow(/integer division by zero/);
  },
  pow: () => {
    checkBinaryDouble("pow", (a, b) => a ** b);
    // Index powers are checked where the result fits in 32 bits (see the report: larger ones are not wrapped exactly).
    for (const a of [-3, -2, -1, 0, 1, 2, 5]) for (const b of [0, 1, 2, 3, 7]) expect(run("pow", [idx(a), idx(b)])).toBe(Number(BigInt(a) ** BigInt(b)));
    expect(run("pow", [idx(2), idx(30)])).toBe(1073741824);
    expect(run("pow", [idx(2), idx(31)])).toBe(-2147483648);
  },
  neg: () => {
    checkUnaryDouble("neg", (x) => -x);
    for (const a of INTS) expect(run("neg", [idx(a)])).toBe(wrap32(-BigInt(a)));
  },
  max: () => {
    checkBinaryDouble("max", Math.max);
    checkBinaryInt("max", bigMax);
  },
  min: () => {
    checkBinaryDouble("min", Math.min);
    checkBinaryInt("min", bigMin);
  },
  sin: () => checkUnaryDouble("sin", Math.sin),
  cos: () => checkUnaryDouble("cos", Math.cos),
  tan: () => checkUnaryDouble("tan", Math.tan),
  log: () => checkUnaryDouble("log", Math.log),
  exp: () => checkUnaryDouble("exp", Math.exp),
  sqrt: () => checkUnaryDouble("sqrt", Math.sqrt),
  tanh: () => checkUnaryDouble("tanh", Math.tanh),
  floor: () => checkUnaryDouble("floor", Math.floor),
  abs: () => {
    checkUnaryDouble("abs", Math.abs);
    for (const a of INTS) expect(run("abs", [idx(a)])).toBe(wrap32(a < 0 ? -BigInt(a) : BigInt(a)));
  },
  toDouble: () => {
    for (const a of INTS) expect(run("toDouble", [idx(a)])).toBe(a);
  },
  lt: () => checkCompare("lt", (a, b) => a < b),
  gt: () => checkCompare("gt", (a, b) => a > b),
  le: () => checkCompare("le", (a, b) => a <= b),
  ge: () => checkCompare("ge", (a, b) => a >= b),
  eq: () => {
    checkCompare("eq", (a, b) => a === b);
    checkBool("eq", (a, b) => a === b);
  },
  ne: () => {
    checkCompare("ne", (a, b) => a !== b);
    checkBool("ne", (a, b) => a !== b);
  },
  and: () => checkBool("and", (a, b) => a && b),
  or: () => checkBool("or", (a, b) => a || b),
  not: () => {
    expect(run("not", [bool(true)])).toBe(false);
    expect(run("not", [bool(false)])).toBe(true);
  },
  get: () => {
    const v = freshVar("v", VECTOR);
    const m = freshVar("m", MATRIX);
    const flags = freshVar("flags", arrayOf(BOOL));
    const pairs = freshVar("pairs", arrayOf(tupleOf([DOUBLE, INT])));
    const pairArray: TupleArray = {
      tag: "tuparr",
      depth: 1,
      fields: [vector([0.5, 1.5]), { tag: "dense", elemKind: "int", shape: [2], data: Int32Array.from([4, 9]) }],
    };
    const env = new Map<number, Value>([
      [v.id, vector([10, 20, 30])],
      [m.id, matrix([[1, 2, 3], [4, 5, 6]])],
      [flags.id, { tag: "dense", elemKind: "bool", shape: [2], data: Uint8Array.from([0, 1]) }],
      [pairs.id, pairArray],
    ]);
    expect(evaluate(prim("get", [v, idx(2)]), env)).toBe(30);
    expect(evaluate(prim("get", [m, idx(1)]), env)).toEqual(vector([4, 5, 6]));
    expect(evaluate(prim("get", [flags, idx(1)]), env)).toBe(true);
    expect(evaluate(prim("get", [flags, idx(0)]), env)).toBe(false);
    expect(evaluate(prim("get", [pairs, idx(1)]), env)).toEqual({ tag: "tuple", elems: [1.5, 9] });
    for (const bad of [-1, 3]) {
      expect(() => evaluate(prim("get", [v, idx(bad)]), env)).toThrow(`index ${bad} is out of range for an array of length 3`);
    }
  },
  length: () => {
    const m = freshVar("m", MATRIX);
    const empty = freshVar("empty", VECTOR);
    const pairs = freshVar("pairs", arrayOf(tupleOf([DOUBLE, VECTOR])));
    const env = new Map<number, Value>([
      [m.id, matrix([[1, 2, 3], [4, 5, 6]])],
      [empty.id, vector([])],
      [pairs.id, { tag: "tuparr", depth: 1, fields: [vector([1, 2, 3, 4]), matrix([[1], [2], [3], [4]])] }],
    ]);
    expect(evaluate(prim("length", [m]), env)).toBe(2);
    expect(evaluate(prim("length", [empty]), env)).toBe(0);
    expect(evaluate(prim("length", [pairs]), env)).toBe(4);
  },
  checkIndex: () => {
    for (const n of [0, 1, 3]) {
      for (const j of [-2147483648, -1, 0, 1, 2, 3, 2147483647]) {
        if (j >= 0 && j < n) expect(run("checkIndex", [idx(j), idx(n)])).toBe(j);
        else expect(() => run("checkIndex", [idx(j), idx(n)])).toThrow(`index ${j} is out of range for an array of length ${n}`);
      }
    }
  },
};

describe("primitives", () => {
  it.each([...PRIM_NAMES])("%s agrees with its reference", (op) => checks[op]());

  it("checks every primitive", () => {
    expect(Object.keys(checks).sort()).toEqual([...PRIM_NAMES].sort());
  });

  it("reports an out-of-range get at the indexing expression", () => {
    const text = "let main (v: Vector) =\n  v[5] + 1.0";
    const span = spanOf(text, "v[5]");
    const v = freshVar("v", VECTOR);
    const e = prim("get", [v, idx(5)], span);
    let error: unknown;
    try {
      evaluate(e, new Map([[v.id, vector([1, 2, 3])]]));
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(SmoothError);
    const se = error as SmoothError;
    expect(se.kind).toBe("index");
    expect(se.span).toBe(span);
    expect(se.headline).toBe("test.smooth:2:3: index error: index 5 is out of range for an array of length 3");
    expect(se.message).toContain("2 |   v[5] + 1.0\n  |   ^^^^");
  });

  it("keeps Index arithmetic in int32 through a chain of operations", () => {
    // (2^31 - 1) + 1 wraps to -2^31; * 2 wraps to 0: the compiled code (| 0, Math.imul) does the same.
    const x = freshVar("x", INT);
    const env = new Map<number, Value>([[x.id, 2147483647]]);
    expect(evaluate(prim("add", [x, idx(1)]), env)).toBe(-2147483648);
    expect(evaluate(prim("mul", [idx(-2147483648), idx(2)]), env)).toBe(0);
    expect(evaluate(prim("div", [idx(-7), idx(2)]), env)).toBe(-3);
    expect(evaluate(prim("div", [idx(-2147483648), idx(-1)]), env)).toBe(-2147483648);
  });
});
