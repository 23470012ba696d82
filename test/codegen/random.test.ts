// Differential testing: random well-typed programs (scalars, ifs, ifolds, builds of vectors and matrices, gets that
// may be out of range, sizes that may be negative or irregular) give the same value or the same error compiled and
// interpreted.

import { describe, it } from "vitest";
import fc from "fast-check";
import { freshVar, type Atom, type Var } from "../../src/ir/ir.js";
import { AnfBuilder, litBool, litDouble, litIndex, nested } from "../../src/ir/builder.js";
import type { PrimName } from "../../src/prims/names.js";
import { BOOL, DOUBLE, INT, MATRIX, tupleOf, VECTOR, typeEq, type Type } from "../../src/types/types.js";
import { agrees, dense, vec } from "./harness.js";
import type { Value } from "../../src/runtime/value.js";

/** Choices drawn from a fixed list of numbers (what fast-check generates and shrinks); 0 once it runs out. */
class Choices {
  private at = 0;
  constructor(private readonly xs: readonly number[]) {}
  pick(n: number): number {
    const x = this.xs[this.at++] ?? 0;
    return x % n;
  }
}

const DOUBLE_BINARY: readonly PrimName[] = ["add", "sub", "mul", "div", "max", "min", "pow"];
const DOUBLE_UNARY: readonly PrimName[] = ["sin", "exp", "log", "sqrt", "tanh", "floor", "abs", "neg"];
const INDEX_BINARY: readonly PrimName[] = ["add", "sub", "mul", "div", "max", "min"];
const COMPARE: readonly PrimName[] = ["lt", "gt", "le", "ge", "eq", "ne"];
const PAIR = tupleOf([DOUBLE, DOUBLE]);

class Generator {
  constructor(private readonly c: Choices) {}

  /** An atom of type `t` computed in `b`, using variables of `scope`. */
  gen(t: Type, depth: number, b: AnfBuilder, scope: readonly Atom[]): Atom {
    const vars = scope.filter((a) => typeEq(a.type, t));
    const leaf = depth <= 0 || this.c.pick(4) === 0;
    if (leaf && vars.length > 0 && this.c.pick(3) > 0) return vars[this.c.pick(vars.length)]!;
    if (leaf) return this.literal(t, b, scope);
    const d = depth - 1;
    switch (this.c.pick(6)) {
      case 0:
        return b.if(
          this.gen(BOOL, d, b, scope),
          (c) => this.gen(t, d, c, scope),
          (c) => this.gen(t, d, c, scope),
        );
      case 1: {
        const count = this.size(b, scope);
        return b.ifold(this.gen(t, d, b, scope), count, (acc, i, c) => this.gen(t, d, c, [...scope, acc, i]));
      }
      default:
        return this.compute(t, d, b, scope);
    }
  }

  private compute(t: Type, d: number, b: AnfBuilder, scope: readonly Atom[]): Atom {
    const g = (ty: Type) => this.gen(ty, d, b, scope);
    const pick = <T>(xs: readonly T[]): T => xs[this.c.pick(xs.length)]!;
    switch (t.k) {
      case "double":
        switch (this.c.pick(5)) {
          case 4:
            return b.proj(this.c.pick(2), g(PAIR));
          case 0:
            return b.prim(pick(DOUBLE_UNARY), [g(DOUBLE)]);
          case 1:
            return b.prim("toDouble", [g(INT)]);
          case 2:
            return b.prim("get", [g(VECTOR), g(INT)]);
          default:
            return b.prim(pick(DOUBLE_BINARY), [g(DOUBLE), g(DOUBLE)]);
        }
      case "int":
        switch (this.c.pick(3)) {
          case 0:
            return b.prim("length", [this.c.pick(2) ? g(VECTOR) : g(MATRIX)]);
          case 1:
            return b.prim(pick(["neg", "abs"] as const), [g(INT)]);
          default:
            return b.prim(pick(INDEX_BINARY), [g(INT), g(INT)]);
        }
      case "bool":
        switch (this.c.pick(3)) {
          case 0:
            return b.prim(pick(COMPARE), [g(DOUBLE), g(DOUBLE)]);
          case 1:
            return b.prim(pick(COMPARE), [g(INT), g(INT)]);
          default:
            return b.prim(pick(["and", "or"] as const), [g(BOOL), g(BOOL)]);
        }
      case "tuple":
        return b.tuple([g(DOUBLE), g(DOUBLE)]);
      case "array": {
        if (typeEq(t, VECTOR) && this.c.pick(2) === 0) return b.prim("get", [g(MATRIX), g(INT)]);
        const size = this.size(b, scope);
        return b.build(size, (i, c) => this.gen(t.elem, d, c, [...scope, i]));
      }
      default:
        throw new Error(`no generator for ${t.k}`);
    }
  }

  /** Usually a small non-negative size; sometimes any Index up to 4 (negative sizes are errors in both back ends). */
  private size(b: AnfBuilder, scope: readonly Atom[]): Atom {
    if (this.c.pick(8) === 0) return b.prim("min", [this.gen(INT, 1, b, scope), litIndex(4)]);
    return litIndex(this.c.pick(4));
  }

  private literal(t: Type, b: AnfBuilder, scope: readonly Atom[]): Atom {
    switch (t.k) {
      case "double":
        return litDouble([0, 1, -2.5, 0.5, 3][this.c.pick(5)]!);
      case "int":
        return litIndex([0, 1, 2, -1, 3][this.c.pick(5)]!);
      case "bool":
        return litBool(this.c.pick(2) === 1);
      case "tuple":
        return b.tuple([this.literal(DOUBLE, b, scope), this.literal(DOUBLE, b, scope)]);
      case "array": {
        const size = litIndex(this.c.pick(3));
        return b.build(size, (i, c) => this.gen(t.elem, 0, c, [...scope, i]));
      }
      default:
        throw new Error(`no literal for ${t.k}`);
    }
  }
}

const doubles = fc.oneof(fc.constantFrom(0, -0, 1, -1, NaN, Infinity, -Infinity), fc.double());
const vector = fc.array(doubles, { maxLength: 4 }).map((xs) => vec(xs) as Value);
const matrix = fc
  .tuple(
    fc.integer({ min: 0, max: 3 }),
    fc.integer({ min: 0, max: 3 }),
    fc.array(doubles, { minLength: 9, maxLength: 9 }),
  )
  .map(([r, c, xs]) => dense("double", [r, c], xs.slice(0, r * c)) as Value);
const index = fc.oneof(fc.integer({ min: -2, max: 5 }), fc.constantFrom(2147483647, -2147483648));

describe("random programs: compiled = interpreted", () => {
  it.each([DOUBLE, INT, BOOL, PAIR, VECTOR, MATRIX])("with a result of type %o", (resultType) => {
    fc.assert(
      fc.property(
        fc.array(fc.nat(), { minLength: 20, maxLength: 300 }),
        fc.array(fc.tuple(doubles, index, fc.boolean(), vector, matrix), { minLength: 1, maxLength: 3 }),
        (choices, argLists) => {
          const params: Var[] = [
            freshVar("x", DOUBLE),
            freshVar("n", INT),
            freshVar("b", BOOL),
            freshVar("v", VECTOR),
            freshVar("m", MATRIX),
          ];
          const gen = new Generator(new Choices(choices));
          const body = nested((b) => gen.gen(resultType, 4, b, params));
          agrees({ name: "random", params, body }, ...argLists.map((args) => [...args] as Value[]));
        },
      ),
      { numRuns: 150 },
    );
  });
});
