// Every primitive through the interpreter, against Math.* / JS operators for Doubles and against exact BigInt
// arithmetic wrapped to 32 bits for Index.

import { describe, expect, it } from "vitest";
import { evaluate } from "../../src/eval/interpreter.js";
import { AnfBuilder, mkTapePop } from "../../src/ir/builder.js";
import { freshVar, mkTuple, type Atom } from "../../src/ir/ir.js";
import { PRIM_NAMES, type PrimName } from "../../src/prims/names.js";
import { SmoothError } from "../../src/syntax/diagnostics.js";
import { arrayOf, BOOL, DOUBLE, INT, MATRIX, tupleOf, VECTOR } from "../../src/types/types.js";
import { tuple, type TupleArray, type Value } from "../../src/runtime/value.js";
import { bool, idx, matrix, num, prim, spanOf, vector } from "./ir-builder.js";

const DOUBLES = [-3.5, -1, -0.25, -0, 0, 0.5, 1, 2, 7.75, 1e300, Infinity, -Infinity, NaN];
const INTS = [-2147483648, -2147483647, -65536, -7, -1, 0, 1, 3, 46341, 65536, 2147483647];

const run = (op: PrimName, args: Atom[]): Value => evaluate(prim(op, args), new Map());
const wrap32 = (x: bigint): number => Number(BigInt.asIntN(32, x));

function checkUnaryDouble(op: PrimName, ref: (x: number) => number) {
  for (const x of DOUBLES) expect(Object.is(run(op, [num(x)]), ref(x)), `${op}(${x})`).toBe(true);
}

function checkBinaryDouble(op: PrimName, ref: (a: number, b: number) => number) {
  for (const a of DOUBLES)
    for (const b of DOUBLES) expect(Object.is(run(op, [num(a), num(b)]), ref(a, b)), `${a} ${op} ${b}`).toBe(true);
}

function checkBinaryInt(
  op: PrimName,
  ref: (a: bigint, b: bigint) => bigint,
  skip: (a: number, b: number) => boolean = () => false,
) {
  for (const a of INTS)
    for (const b of INTS) {
      if (skip(a, b)) continue;
      expect(run(op, [idx(a), idx(b)]), `${a} ${op} ${b}`).toBe(wrap32(ref(BigInt(a), BigInt(b))));
    }
}

function checkCompare(op: PrimName, ref: (a: number, b: number) => boolean) {
  for (const a of DOUBLES)
    for (const b of DOUBLES) expect(run(op, [num(a), num(b)]), `${a} ${op} ${b}`).toBe(ref(a, b));
  for (const a of INTS) for (const b of INTS) expect(run(op, [idx(a), idx(b)]), `${a} ${op} ${b}`).toBe(ref(a, b));
}

function checkBool(op: PrimName, ref: (a: boolean, b: boolean) => boolean) {
  for (const a of [false, true]) for (const b of [false, true]) expect(run(op, [bool(a), bool(b)])).toBe(ref(a, b));
}

const bigMax = (a: bigint, b: bigint) => (a > b ? a : b);
const bigMin = (a: bigint, b: bigint) => (a < b ? a : b);

/** [(0.5, 4), (1.5, 9)] as the runtime stores it: a tuple of arrays. */
function pairArray(): TupleArray {
  return {
    tag: "tuparr",
    depth: 1,
    fields: [vector([0.5, 1.5]), { tag: "dense", elemKind: "int", shape: [2], data: Int32Array.from([4, 9]) }],
  };
}

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
    checkBinaryInt(
      "div",
      (a, b) => a / b,
      (_a, b) => b === 0,
    ); // BigInt division truncates toward zero, like Smooth
    expect(() => run("div", [idx(5), idx(0)])).toThrow(/integer division by zero/);
  },
  pow: () => {
    checkBinaryDouble("pow", (a, b) => a ** b);
    // Index powers are checked where the result fits in 32 bits (see the report: larger ones are not wrapped exactly).
    for (const a of [-3, -2, -1, 0, 1, 2, 5])
      for (const b of [0, 1, 2, 3, 7]) expect(run("pow", [idx(a), idx(b)])).toBe(Number(BigInt(a) ** BigInt(b)));
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
  atan: () => checkUnaryDouble("atan", Math.atan),
  asin: () => checkUnaryDouble("asin", Math.asin),
  acos: () => checkUnaryDouble("acos", Math.acos),
  atan2: () => checkBinaryDouble("atan2", Math.atan2),
  // JavaScript's operators on int32 operands, against the same operations on BigInts wrapped to 32 bits.
  bitAnd: () => checkBinaryInt("bitAnd", (a, b) => a & b),
  bitOr: () => checkBinaryInt("bitOr", (a, b) => a | b),
  bitXor: () => checkBinaryInt("bitXor", (a, b) => a ^ b),
  shiftLeft: () => checkBinaryInt("shiftLeft", (a, b) => a << (b & 31n)),
  shiftRight: () => checkBinaryInt("shiftRight", (a, b) => a >> (b & 31n)),
  shiftRightUnsigned: () => {
    for (const a of INTS)
      for (const b of INTS)
        expect(run("shiftRightUnsigned", [idx(a), idx(b)])).toBe(
          Number(BigInt.asUintN(32, BigInt(a)) >> BigInt(b & 31)),
        );
  },
  floor: () => checkUnaryDouble("floor", Math.floor),
  stopGradient: () => checkUnaryDouble("stopGradient", (x) => x),
  withDerivativeOf: () => checkBinaryDouble("withDerivativeOf", (a) => a),
  abs: () => {
    checkUnaryDouble("abs", Math.abs);
    for (const a of INTS) expect(run("abs", [idx(a)])).toBe(wrap32(a < 0 ? -BigInt(a) : BigInt(a)));
  },
  toIndex: () => {
    for (const a of INTS) expect(run("toIndex", [num(a)])).toBe(a);
    for (const x of [0.5, -1.25, 2147483648, -2147483649, Infinity, NaN]) {
      const e = (() => {
        try {
          run("toIndex", [num(x)]);
        } catch (err) {
          return err;
        }
        return undefined;
      })();
      expect(e, `toIndex(${x})`).toBeInstanceOf(SmoothError);
      expect((e as SmoothError).kind).toBe("index");
    }
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
    const env = new Map<number, Value>([
      [v.id, vector([10, 20, 30])],
      [
        m.id,
        matrix([
          [1, 2, 3],
          [4, 5, 6],
        ]),
      ],
      [flags.id, { tag: "dense", elemKind: "bool", shape: [2], data: Uint8Array.from([0, 1]) }],
      [pairs.id, pairArray()],
    ]);
    expect(evaluate(prim("get", [v, idx(2)]), env)).toBe(30);
    expect(evaluate(prim("get", [m, idx(1)]), env)).toEqual(vector([4, 5, 6]));
    expect(evaluate(prim("get", [flags, idx(1)]), env)).toBe(true);
    expect(evaluate(prim("get", [flags, idx(0)]), env)).toBe(false);
    expect(evaluate(prim("get", [pairs, idx(1)]), env)).toEqual({ tag: "tuple", elems: [1.5, 9] });
    for (const bad of [-1, 3]) {
      expect(() => evaluate(prim("get", [v, idx(bad)]), env)).toThrow(
        `index ${bad} is out of range for an array of length 3`,
      );
    }
  },
  length: () => {
    const m = freshVar("m", MATRIX);
    const empty = freshVar("empty", VECTOR);
    const pairs = freshVar("pairs", arrayOf(tupleOf([DOUBLE, VECTOR])));
    const env = new Map<number, Value>([
      [
        m.id,
        matrix([
          [1, 2, 3],
          [4, 5, 6],
        ]),
      ],
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
        else
          expect(() => run("checkIndex", [idx(j), idx(n)])).toThrow(
            `index ${j} is out of range for an array of length ${n}`,
          );
      }
    }
  },
  // floor(budget / bytes), at most the steps and what one array of snapshots holds; under one state, an error.
  checkpointSlots: () => {
    const slots = (b: number, x: number, n: number, w: number) =>
      run("checkpointSlots", [num(b), num(x), idx(n), num(w)]);
    expect(slots(1000, 8, 50, 1)).toBe(50);
    expect(slots(1000, 8, 500, 1)).toBe(125);
    expect(slots(1000, 8, 500, 2 ** 25)).toBe(2);
    expect(() => slots(7, 8, 10, 1)).toThrow(
      "the memory budget of 7 bytes cannot hold one state of this loop (8 bytes)",
    );
  },
  sameSize: () => {
    for (const n of [0, 1, 7]) expect(run("sameSize", [idx(n), idx(n)])).toBe(n);
    expect(() => run("sameSize", [idx(3), idx(2)])).toThrow("the sizes 3 and 2 differ");
    expect(() => run("sameSize", [idx(0), idx(-1)])).toThrow("the sizes 0 and -1 differ");
  },
  field: () => {
    const { pairs, env } = updateEnv();
    unchanged(env, () => {
      expect(evaluate(prim("field", [pairs, idx(0)]), env)).toEqual(vector([0.5, 1.5]));
      expect(evaluate(prim("field", [pairs, idx(1)]), env)).toEqual({
        tag: "dense",
        elemKind: "int",
        shape: [2],
        data: Int32Array.from([4, 9]),
      });
    });
  },
  record: () => {
    const { v, m, row, env } = updateEnv();
    const empty = freshVar("empty", MATRIX);
    env.set(empty.id, { tag: "dense", elemKind: "double", shape: [0, 0], data: new Float64Array(0) });
    unchanged(env, () => {
      // An empty tape becomes n elements shaped like the value; a filled one is updated like setAt.
      const first = evaluate(prim("record", [empty, idx(1), row, idx(3)]), env);
      expect(first).toMatchObject({ tag: "dense", shape: [3, 3] });
      expect(Array.from((first as { data: Float64Array }).data.subarray(3, 6))).toEqual([100, 200, 300]);
      expect(evaluate(prim("record", [m, idx(0), row, idx(9)]), env)).toEqual(
        matrix([
          [100, 200, 300],
          [4, 5, 6],
        ]),
      );
      expect(() => evaluate(prim("record", [m, idx(2), row, idx(9)]), env)).toThrow(
        "index 2 is out of range for an array of length 2",
      );
      expect(() => evaluate(prim("record", [v, idx(0), num(1), idx(0)]), env)).not.toThrow();
    });
  },
  sameShape: () => {
    const { v, m, row, pairs, env } = updateEnv();
    expect(evaluate(prim("sameShape", [v, row]), env)).toBe(true);
    expect(evaluate(prim("sameShape", [m, m]), env)).toBe(true);
    expect(evaluate(prim("sameShape", [num(1), num(2)]), env)).toBe(true);
    expect(evaluate(prim("sameShape", [v, freshVarWith(env, vector([1, 2]))]), env)).toBe(false);
    expect(evaluate(prim("sameShape", [pairs, pairs]), env)).toBe(true);
  },
  // Defined below (after their helpers); called lazily.
  zerosLike: () => updateChecks.zerosLike(),
  setAt: () => updateChecks.setAt(),
  addAt: () => updateChecks.addAt(),
  addArray: () => updateChecks.addArray(),
  newTape: () => tapeChecks(),
  tapePush: () => tapeChecks(),
  tapePop: () => tapeChecks(),
};

/** Values pushed on a tape come off in the opposite order, with the tape below each; a tape can be popped empty. */
function tapeChecks(): void {
  const b = new AnfBuilder();
  const t0 = b.prim("newTape", [idx(0)], "t0");
  const t1 = b.prim("tapePush", [t0, num(1.5)], "t1");
  const pair = b.tuple([idx(2), bool(true)], "pair");
  const t2 = b.prim("tapePush", [t1, pair], "t2");
  const p = b.bind("p", mkTapePop(t2, tupleOf([INT, BOOL])));
  const q = b.bind("q", mkTapePop(b.proj(1, p), DOUBLE));
  const expr = b.finish(mkTuple([b.proj(0, p), b.proj(0, q)]));
  expect(evaluate(expr, new Map())).toEqual(tuple([tuple([2, true]), 1.5]));
  const empty = new AnfBuilder();
  const e = empty.finish(empty.bind("p", mkTapePop(empty.prim("newTape", [idx(4)]), DOUBLE)));
  expect(() => evaluate(e, new Map())).toThrow("a pop from an empty tape");
}

/** An environment with a vector, a matrix and an array of (Double, Index) pairs, and the operands' values kept. */
function updateEnv() {
  const v = freshVar("v", VECTOR);
  const m = freshVar("m", MATRIX);
  const row = freshVar("row", VECTOR);
  const pairs = freshVar("pairs", arrayOf(tupleOf([DOUBLE, INT])));
  const pair = freshVar("pair", tupleOf([DOUBLE, INT]));
  const path = freshVar("path", tupleOf([INT, INT]));
  const env = new Map<number, Value>([
    [v.id, vector([10, 20, 30])],
    [
      m.id,
      matrix([
        [1, 2, 3],
        [4, 5, 6],
      ]),
    ],
    [row.id, vector([100, 200, 300])],
    [pairs.id, pairArray()],
    [pair.id, { tag: "tuple", elems: [2, 3] }],
    [path.id, { tag: "tuple", elems: [1, 2] }],
  ]);
  return { v, m, row, pairs, pair, path, env };
}

/** The operands of an update are values: evaluating it must leave them as they were. */
function unchanged(env: Map<number, Value>, run: () => void) {
  const keys = [...env.keys()];
  const snapshot = () =>
    JSON.stringify(
      keys.map((k) => env.get(k)),
      (_k, x) => (ArrayBuffer.isView(x) ? Array.from(x as Float64Array) : x),
    );
  const before = snapshot();
  run();
  expect(snapshot()).toBe(before);
}

const updateChecks = {
  zerosLike: () => {
    const { v, m, pairs, env } = updateEnv();
    unchanged(env, () => {
      expect(evaluate(prim("zerosLike", [v]), env)).toEqual(vector([0, 0, 0]));
      expect(evaluate(prim("zerosLike", [m]), env)).toEqual(
        matrix([
          [0, 0, 0],
          [0, 0, 0],
        ]),
      );
      expect(evaluate(prim("zerosLike", [pairs]), env)).toEqual({
        tag: "tuparr",
        depth: 1,
        fields: [vector([0, 0]), { tag: "dense", elemKind: "int", shape: [2], data: Int32Array.from([0, 0]) }],
      });
    });
  },
  setAt: () => {
    const { v, m, row, pairs, pair, path, env } = updateEnv();
    unchanged(env, () => {
      expect(evaluate(prim("setAt", [v, idx(1), num(-1)]), env)).toEqual(vector([10, -1, 30]));
      expect(evaluate(prim("setAt", [m, idx(0), row]), env)).toEqual(
        matrix([
          [100, 200, 300],
          [4, 5, 6],
        ]),
      );
      expect(evaluate(prim("setAt", [m, path, num(9)]), env)).toEqual(
        matrix([
          [1, 2, 3],
          [4, 5, 9],
        ]),
      );
      expect(evaluate(prim("setAt", [pairs, idx(0), pair]), env)).toEqual({
        tag: "tuparr",
        depth: 1,
        fields: [vector([2, 1.5]), { tag: "dense", elemKind: "int", shape: [2], data: Int32Array.from([3, 9]) }],
      });
      expect(() => evaluate(prim("setAt", [v, idx(3), num(0)]), env)).toThrow(
        "index 3 is out of range for an array of length 3",
      );
      expect(() => evaluate(prim("setAt", [m, idx(0), v]), env)).not.toThrow();
      expect(() => evaluate(prim("setAt", [m, idx(0), freshVarWith(env, vector([1, 2]))]), env)).toThrow(
        "cannot store an array of shape [2] into an element of shape [3]",
      );
    });
  },
  addAt: () => {
    const { v, m, row, pairs, pair, path, env } = updateEnv();
    unchanged(env, () => {
      expect(evaluate(prim("addAt", [v, idx(2), num(0.5)]), env)).toEqual(vector([10, 20, 30.5]));
      expect(evaluate(prim("addAt", [m, idx(1), row]), env)).toEqual(
        matrix([
          [1, 2, 3],
          [104, 205, 306],
        ]),
      );
      expect(evaluate(prim("addAt", [m, path, num(10)]), env)).toEqual(
        matrix([
          [1, 2, 3],
          [4, 5, 16],
        ]),
      );
      expect(evaluate(prim("addAt", [pairs, idx(1), pair]), env)).toEqual({
        tag: "tuparr",
        depth: 1,
        fields: [vector([0.5, 3.5]), { tag: "dense", elemKind: "int", shape: [2], data: Int32Array.from([4, 12]) }],
      });
      expect(() =>
        evaluate(prim("addAt", [m, path, num(1)]), new Map([...env, [path.id, { tag: "tuple", elems: [2, 0] }]])),
      ).toThrow("index 2 is out of range for an array of length 2");
      expect(() => evaluate(prim("addAt", [m, idx(0), freshVarWith(env, vector([1]))]), env)).toThrow(
        "cannot add an array of shape [1] into an element of shape [3]",
      );
    });
  },
  addArray: () => {
    const { v, m, row, env } = updateEnv();
    unchanged(env, () => {
      expect(evaluate(prim("addArray", [v, row]), env)).toEqual(vector([110, 220, 330]));
      expect(evaluate(prim("addArray", [m, m]), env)).toEqual(
        matrix([
          [2, 4, 6],
          [8, 10, 12],
        ]),
      );
      expect(() => evaluate(prim("addArray", [v, freshVarWith(env, vector([1, 2]))]), env)).toThrow(
        "cannot add arrays of shapes [3] and [2]",
      );
    });
  },
};

/** A new variable bound to `value` in `env` (left there: `unchanged` snapshots before the call). */
function freshVarWith(env: Map<number, Value>, value: Value) {
  const x = freshVar("x", VECTOR);
  env.set(x.id, value);
  return x;
}

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
