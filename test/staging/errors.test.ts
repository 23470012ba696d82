// What the tracer refuses, with a StagingError naming the operation or argument.

import type { JsFunction } from "../../src/staging/index.js";
import { describe, expect, test } from "vitest";
import * as S from "../../src/staging/index.js";
import { StagingError, type Tensor } from "../../src/staging/index.js";
import { DOUBLE, funOf, INT, MATRIX, VECTOR, type Type } from "../../src/types/types.js";

/** The StagingError of staging `fn` at `types` (with the lengths of `shapesOf` known); anything else fails. */
function stagingError(fn: JsFunction, types: readonly Type[], shapes?: readonly number[][]): StagingError {
  const statics = shapes?.map((dims) =>
    dims.reduceRight<S.StaticType>((elem, n) => ({ k: "array", length: n, elem }), { k: "double" }),
  );
  try {
    S.stageFunction(fn, types, "f", { shapes: statics });
  } catch (e) {
    if (e instanceof StagingError) return e;
    throw e;
  }
  return expect.fail("expected a StagingError");
}

/** The message without the place in the user's code it ends with (tested below). */
const message = (fn: JsFunction, types: readonly Type[], shapes?: readonly number[][]) =>
  stagingError(fn, types, shapes).message.replace(/ \(at [^()]*\)$/, "");

describe("where", () => {
  test("a StagingError ends with the place in the user's code where the operation was called", () => {
    const e = stagingError((x: Tensor) => S.add(x, S.vectorZeros(3) as never), [VECTOR], [[2]]);
    expect(e.message).toMatch(/ \(at .*errors\.test\.ts:\d+:\d+\)$/);
  });
});

describe("values that cannot be staged", () => {
  test.each([
    [
      "a string",
      (x: Tensor) => S.add(x, "a" as never),
      /^`add`: the second operand is the string "a", which cannot be staged/,
    ],
    [
      "an object",
      (x: Tensor) => S.mul({} as never, x),
      /^`mul`: the first operand is an object, which cannot be staged/,
    ],
    ["undefined", (_x: Tensor) => S.exp(undefined as never), /^`exp`: its argument is undefined/],
    [
      "a Map",
      (x: Tensor) => S.build(2, () => new Map() as never) && x,
      /^`build`: the result of the body of `build` is a Map object/,
    ],
    [
      "a 1-element tuple",
      (x: Tensor) =>
        S.cond(
          S.gt(x, 0),
          () => [x] as never,
          () => [x] as never,
        ),
      /a tuple \(a JavaScript array\) needs at least two elements/,
    ],
    ["no result", (_x: Tensor) => undefined, /^`stageFunction`: the result of the staged function is undefined/],
    ["a string result", (_x: Tensor) => "done", /the result of the staged function is the string "done"/],
    [
      "a JavaScript boolean result",
      (x: Tensor) => S.lt(1, 2) && x && true,
      /the JavaScript boolean true, which cannot be staged; decide a JavaScript boolean with a JavaScript `if`/,
    ],
  ])("%s", (_what, fn, expected) => {
    expect(message(fn, [DOUBLE])).toMatch(expected);
  });

  test("a JavaScript boolean as the condition of cond", () => {
    const m = message(
      (x: Tensor) =>
        S.cond(
          S.lt(1, 2) as never,
          () => x,
          () => x,
        ),
      [DOUBLE],
    );
    expect(m).toMatch(/^`cond`: the condition is the JavaScript boolean true; .* use a JavaScript `if`/);
  });

  test("a tensor in a JavaScript condition, operator, comparison or property key", () => {
    const uses: ((x: Tensor) => unknown)[] = [
      (x) => ((x as unknown as number) > 0 ? x : x),
      (x) => (x as unknown as number) + 1,
      (x) => `${x as unknown as string}`,
      (x) => [1, 2][x as unknown as number],
      (x) => Math.exp(x as unknown as number),
    ];
    for (const use of uses) {
      expect(message(use, [DOUBLE])).toMatch(
        /^a staged Double \(x0\) was used as a JavaScript value .* use the staged operations instead/,
      );
    }
  });

  test("function types, missing arguments, a function that is not one", () => {
    expect(message((f: Tensor) => f, [funOf(DOUBLE, DOUBLE)])).toMatch(
      /argument 0 has the function type Double -> Double/,
    );
    expect(message((a: Tensor, b: Tensor) => S.add(a, b), [DOUBLE])).toMatch(
      /takes 2 parameters, but 1 argument types were given/,
    );
    expect(message((x: Tensor) => S.build(3, 7 as never) && x, [DOUBLE])).toMatch(
      /^`build`: the element function must be a function, but it is the number 7/,
    );
    expect(() => S.stageFunction("x" as never, [DOUBLE])).toThrow(/expected a function to stage/);
  });
});

describe("tracers that escape their scope", () => {
  test("a tensor created in a build body, used after the build", () => {
    const m = message(
      (x: Tensor) => {
        let leaked: Tensor | undefined;
        S.build(3, (i) => (leaked = S.mul(x, S.toDouble(i))));
        return S.add(leaked!, 1);
      },
      [DOUBLE],
    );
    expect(m).toBe(
      "`add`: a tensor created inside the body of `build` is used outside it; a value computed in a body or branch can only leave it as that body's result",
    );
  });

  test("a tensor from one branch of cond used in the other, and a loop index used after its loop", () => {
    expect(
      message(
        (x: Tensor) => {
          let inThen: Tensor | undefined;
          return S.cond(
            S.gt(x, 0),
            () => (inThen = S.exp(x)),
            () => S.neg(inThen!),
          );
        },
        [DOUBLE],
      ),
    ).toMatch(/^`neg`: a tensor created inside the `then` branch of `cond` is used outside it/);
    expect(
      message(
        (v: Tensor) => {
          let index: Tensor | undefined;
          S.ifold((acc, i) => ((index = i), acc), 0, 3);
          return S.get(v, index!);
        },
        [VECTOR],
      ),
    ).toMatch(/^`get`: a tensor created inside the step of `ifold` is used outside it/);
  });

  test("a tensor kept from a finished staging", () => {
    let kept: Tensor | undefined;
    S.stageFunction((x: Tensor) => (kept = S.exp(x)), [DOUBLE]);
    expect(message((y: Tensor) => S.add(y, kept!), [DOUBLE])).toMatch(
      /^`add`: a tensor from another staged function \(or one whose tracing has finished\)/,
    );
    expect(() => S.sin(kept!)).toThrow(StagingError);
    expect(() => S.build(2, () => 1)).toThrow(/^`build` was called outside a staged function/);
  });
});

describe("types and shapes caught at trace time", () => {
  test.each([
    [
      "add of vectors of different lengths",
      (x: Tensor, y: Tensor) => S.add(x, y),
      [[2], [3]],
      /^`add`: the operands have different shapes: a Vector of length 2 and a Vector of length 3$/,
    ],
    [
      "mul of matrices of different shapes",
      (x: Tensor, y: Tensor) => S.mul(x, y),
      [
        [2, 3],
        [2, 4],
      ],
      /^`mul`: the operands have different shapes: a Matrix of 2 × 3 elements and a Matrix of 2 × 4 elements$/,
    ],
    [
      "dot of vectors of different lengths",
      (x: Tensor, y: Tensor) => S.dot(x, y),
      [[2], [3]],
      /^`dot`: the vectors have different lengths/,
    ],
    [
      "matrixMult with inner dimensions that differ",
      (x: Tensor, y: Tensor) => S.matrixMult(x, y),
      [
        [2, 3],
        [2, 3],
      ],
      /^`matrixMult`: the first matrix has 3 columns but the second has 2 rows$/,
    ],
    [
      "matrixVectorMult",
      (m: Tensor, v: Tensor) => S.matrixVectorMult(m, v),
      [[2, 3], [2]],
      /^`matrixVectorMult`: the matrix has 3 columns but the vector has 2 elements$/,
    ],
    [
      "map2",
      (x: Tensor, y: Tensor) => S.map2((a) => a, x, y),
      [[2], [3]],
      /^`map2`: the arrays have different lengths/,
    ],
    [
      "a static index out of range",
      (x: Tensor, _y: Tensor) => S.get(x, 5),
      [[2], [3]],
      /^`get`: index 5 is out of range for a Vector of length 2$/,
    ],
    [
      "reshape",
      (x: Tensor, _y: Tensor) => S.reshape(2, 2, x),
      [[3], [3]],
      /^`reshape`: 2 × 2 needs 4 elements, but the vector is a Vector of length 3$/,
    ],
  ])("%s", (_what, fn, shapes, expected) => {
    const types = shapes.map((d) => (d.length === 1 ? VECTOR : MATRIX));
    expect(message(fn, types, shapes)).toMatch(expected);
  });

  test("wrong types of operands and results", () => {
    expect(message((x: Tensor) => S.get(x, S.mul(S.get(x, 0), 1)), [VECTOR])).toMatch(
      /^`get`: the index must be an Index, but it is a Double$/,
    );
    expect(message((x: Tensor) => S.exp(S.lt(x, 1)), [DOUBLE])).toMatch(/^`exp` cannot take a Bool$/);
    expect(message((x: Tensor) => S.add(S.lt(x, 1), x), [DOUBLE])).toMatch(
      /^`add` cannot combine a Bool and a Double$/,
    );
    expect(message((x: Tensor) => S.sum(x), [DOUBLE])).toMatch(
      /^`sum`: its argument must be an array, but it is a Double$/,
    );
    expect(
      message(
        (x: Tensor) =>
          S.cond(
            S.gt(x, 0),
            () => x,
            () => [x, x],
          ),
        [DOUBLE],
      ),
    ).toMatch(
      /^`cond`: the branches give different types: the `then` branch a Double, the `else` branch a Double \* Double$/,
    );
    expect(
      message(
        (n: Tensor) => S.ifold((acc, i) => S.add(acc, i), S.index(0), n) && S.ifold((acc) => [acc, acc], 0, n),
        [INT],
      ),
    ).toMatch(/^`ifold`: the step of `ifold` returns a Double \* Double, but the state is a Double/);
    expect(message((x: Tensor) => S.build(-1, () => x), [DOUBLE])).toMatch(
      /^`build`: the length must not be negative, but it is -1$/,
    );
    expect(message((x: Tensor) => S.build(S.mul(x, 2), () => x), [DOUBLE])).toMatch(
      /^`build`: the length must be an Index, but it is a Double$/,
    );
  });
});
