// The facts of the primitive table (fails, cost, commutative, update, shapeOfFirst, domain) against the lists the
// passes kept before the facts moved into the table (written out here), and against the interpreter: a primitive said
// never to fail evaluates without an error on edge operands, an Index division fails exactly on a zero divisor, and a
// commutative one gives the same value with its operands swapped.

import { describe, expect, it } from "vitest";
import { evaluate } from "../../src/eval/interpreter.js";
import type { Atom } from "../../src/ir/ir.js";
import { PRIM_NAMES, type PrimName } from "../../src/prims/names.js";
import { PRIMS, primMayFail } from "../../src/prims/table.js";
import { SmoothError } from "../../src/syntax/diagnostics.js";
import { DOUBLE, INT, type Type } from "../../src/types/types.js";
import { bool, idx, num, prim } from "../eval/ir-builder.js";

const withFact = (has: (op: PrimName) => boolean) => PRIM_NAMES.filter(has).sort();

const DOUBLES = [-3.5, -1, -0, 0, 0.5, 2, 1e300, Infinity, -Infinity, NaN];
const INTS = [-2147483648, -7, -1, 0, 1, 3, 2147483647];

/** Operand lists of scalar types a primitive accepts (by its type rule), each with the result type. */
function scalarOperands(op: PrimName): { args: Atom[]; type: Type }[] {
  const rule = PRIMS[op];
  const kinds = [
    { values: DOUBLES.map(num), type: DOUBLE },
    { values: INTS.map(idx), type: INT },
    { values: [bool(false), bool(true)], type: { k: "bool" } as Type },
  ];
  const out: { args: Atom[]; type: Type }[] = [];
  for (const k of kinds) {
    const types = new Array<Type>(rule.arity).fill(k.type);
    const result = rule.type(types);
    if (!("k" in result)) continue;
    if (rule.arity === 1) for (const a of k.values) out.push({ args: [a], type: result });
    else if (rule.arity === 2)
      for (const a of k.values) for (const b of k.values) out.push({ args: [a, b], type: result });
  }
  return out;
}

const attempt = (f: () => unknown): unknown => {
  try {
    return f();
  } catch (e) {
    if (e instanceof SmoothError) return e;
    throw e;
  }
};

describe("primitive facts", () => {
  it("match the lists the passes kept", () => {
    // src/ad/reverse-support.ts COSTLY_PRIMS and src/opt/materialise.ts TRANSCENDENTAL (the same list).
    expect(withFact((op) => PRIMS[op].cost === "transcendental")).toEqual(
      ["exp", "log", "sin", "cos", "tan", "tanh", "sqrt", "pow", "atan", "asin", "acos", "atan2"].sort(),
    );
    // src/opt/cse.ts COMMUTATIVE.
    expect(withFact((op) => PRIMS[op].commutative === true)).toEqual(
      ["add", "mul", "max", "min", "eq", "ne", "and", "or", "bitAnd", "bitOr", "bitXor"].sort(),
    );
    // src/lowering/ownership.ts UPDATES and ALLOCATES; src/ir/invariant-shapes.ts UPDATES.
    expect(withFact((op) => PRIMS[op].update !== undefined)).toEqual(["setAt", "addAt", "addArray", "record"].sort());
    expect(withFact((op) => PRIMS[op].cost === "array")).toEqual(
      ["zerosLike", "setAt", "addAt", "addArray", "record"].sort(),
    );
    expect(withFact((op) => PRIMS[op].update === "in-shape")).toEqual(["setAt", "addAt", "addArray"].sort());
    // src/ad/shape-stability.ts SHAPE_OF_FIRST.
    expect(withFact((op) => PRIMS[op].shapeOfFirst === true)).toEqual(
      ["get", "zerosLike", "setAt", "addAt", "addArray", "field"].sort(),
    );
    // The `fallible` flags, and Index division.
    expect(withFact((op) => PRIMS[op].fails === "operands")).toEqual(
      ["get", "checkIndex", "sameSize", "setAt", "addAt", "record", "addArray", "toIndex", "checkpointSlots"].sort(),
    );
    expect(withFact((op) => PRIMS[op].fails === "index-division")).toEqual(["div"]);
    expect(primMayFail("div", INT)).toBe(true);
    expect(primMayFail("div", DOUBLE)).toBe(false);
  });

  const scalarNeverFails = PRIM_NAMES.filter((op) => PRIMS[op].fails === "never" && PRIMS[op].domain === "scalar");

  it.each(scalarNeverFails)("%s: said never to fail, evaluates every edge operand without an error", (op) => {
    const cases = scalarOperands(op);
    expect(cases.length).toBeGreaterThan(0);
    for (const { args } of cases) expect(attempt(() => evaluate(prim(op, args), new Map()))).not.toBeInstanceOf(Error);
  });

  it("div: an Index division fails exactly when the divisor is zero; a Double division never", () => {
    for (const { args, type } of scalarOperands("div")) {
      const failed = attempt(() => evaluate(prim("div", args), new Map())) instanceof SmoothError;
      const zeroIndex = type.k === "int" && args[1]!.kind === "lit" && args[1]!.value === 0;
      expect(failed, `${JSON.stringify(args.map((a) => (a.kind === "lit" ? a.value : a.id)))}`).toBe(zeroIndex);
    }
  });

  const commutative = PRIM_NAMES.filter((op) => PRIMS[op].commutative === true);

  it.each(commutative)("%s: commutative, the same value with its operands swapped", (op) => {
    for (const { args } of scalarOperands(op)) {
      const ab = evaluate(prim(op, args), new Map());
      const ba = evaluate(prim(op, [args[1]!, args[0]!]), new Map());
      expect(Object.is(ab, ba) || (Number.isNaN(ab) && Number.isNaN(ba))).toBe(true);
    }
  });
});
