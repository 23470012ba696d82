// A staged function is never silently wrong: a tensor where JavaScript decides (a condition, `!`, `&&`, `===`) is a
// StagingError naming the line, found in the source before tracing or, when hidden in a helper, by the tracer (a
// staged Bool no operation used); a trace that does not end is stopped; a function over numbers is read from its
// source instead, where the same condition is the program's own.

import { describe, expect, it } from "vitest";
import { add, cond, get, grad, lt, mul, neg, StagingError, type Tensor } from "../../src/index.js";
import { MAX_TRACED_OPERATIONS } from "../../src/staging/graph.js";

function stagingError(run: () => unknown): StagingError {
  try {
    run();
  } catch (e) {
    if (e instanceof StagingError) return e;
    throw e;
  }
  throw new Error("no StagingError");
}

describe("tensors where JavaScript decides", () => {
  it("`if (lt(x, 0))` is an error at that line (abs(2) was silently -2)", () => {
    const abs = (x: Tensor) => {
      if (lt(x, 0)) return neg(x);
      return x;
    };
    const e = stagingError(() => grad(abs)(2));
    // (The line as the runtime has it: a bundler may have written `(0, ns.lt)(x, 0)`.)
    expect(e.message).toMatch(
      /^\/.*staging-safety\.test\.ts:\d+:\d+ \(in `abs`\): `[^`]*lt\)?\(x, 0\)` is a staged value used as the condition of `if`/,
    );
    expect(e.message).toMatch(/\d+ \| +if \([^\n]*lt\)?\(x, 0\)\) return/);
    expect(e.message).toContain("use cond(c, () => a, () => b)");
  });

  it("`get(v, 0) ? a : b`, `while (lt(...))`, `!t`, `t && u` and `x === 0` likewise", () => {
    const pick = (v: Tensor) => (get(v, 0) ? mul(v, 2) : v);
    expect(stagingError(() => grad(pick)(new Float64Array(2))).message).toMatch(/used as the condition of `\?:`/);
    const count = (x: Tensor) => {
      let y = x;
      while (lt(y, 10)) y = add(y, 1);
      return y;
    };
    expect(stagingError(() => grad(count)(1)).message).toMatch(
      /`[^`]*lt\)?\(y, 10\)` is a staged value used as a loop's condition/,
    );
    const negated = (x: Tensor) => {
      const small = lt(x, 1);
      return !small ? x : mul(x, x);
    };
    expect(stagingError(() => grad(negated)(3)).message).toMatch(/`small` is a staged value negated with `!`/);
    const both = (x: Tensor) =>
      cond(
        lt(x, 1) && lt(0, x),
        () => x,
        () => mul(x, 2),
      );
    expect(stagingError(() => grad(both)(0.5)).message).toMatch(/used as an operand of `&&`/);
    const zero = (x: Tensor) => (x === (0 as unknown as Tensor) ? x : mul(x, x));
    expect(stagingError(() => grad(zero)(0)).message).toMatch(/`x` is a staged value compared with `===`/);
  });

  it("a condition hidden in a helper: the Bool no staged operation used, at the line that made it", () => {
    const isNegative = (t: Tensor) => lt(t, 0);
    const abs = (x: Tensor) => (isNegative(x) ? neg(x) : x);
    const e = stagingError(() => grad(abs)(2));
    expect(e.message).toMatch(
      /^a staged Bool made at .*staging-safety\.test\.ts:\d+:\d+ is never used by a staged operation/,
    );
  });

  it("a trace that does not end is stopped after a bounded number of operations", () => {
    const isSmall = (t: Tensor) => lt(t, 1e9);
    const forever = (x: Tensor) => {
      let y = x;
      while (isSmall(y)) y = add(y, 1);
      return y;
    };
    const e = stagingError(() => grad(forever)(1));
    expect(e.message).toContain(`the trace has recorded ${MAX_TRACED_OPERATIONS} operations without ending`);
  });

  it("the staged choice is cond; over plain numbers, the function is read from its source", () => {
    const abs = (x: Tensor) =>
      cond(
        lt(x, 0),
        () => neg(x),
        () => x,
      );
    expect([grad(abs)(2), grad(abs)(-2)]).toEqual([1, -1]);
    const plain = (x: number) => (x < 0 ? -x : x);
    expect([grad(plain)(2), grad(plain)(-2)]).toEqual([1, -1]);
  });
});
