// What compiled code may contain and what it accepts: no program text in the generated JavaScript, arguments checked
// against the parameter types, results in the runtime representation, and first-order programs only.

import { describe, expect, it } from "vitest";
import { freshVar, mkLam, type IrFunction } from "../../src/ir/ir.js";
import { litDouble, litIndex, mkApp, nested } from "../../src/ir/builder.js";
import { arrayOf, DOUBLE, funOf, INT, MATRIX, tupleOf, VECTOR } from "../../src/types/types.js";
import { compileFunction } from "../../src/codegen/compile.js";
import type { SourceFile, Span } from "../../src/syntax/source.js";
import { agrees, dense, fnOf, mat, thrown, vec } from "./harness.js";

describe("generated JavaScript", () => {
  const evilText = 'evilName"); globalThis.pwned = true; ("';
  const file: SourceFile = { name: "evil\u2028name.smooth", text: evilText };
  const span: Span = { file, start: 0, end: evilText.length };

  // Every binder is called evilName: parameters, lets, loop variables, accumulators.
  const fn: IrFunction = (() => {
    const v = freshVar("evilName", VECTOR);
    const body = nested((b) => {
      const n = b.prim("length", [v], "evilName");
      const sum = b.ifold(
        litDouble(0),
        n,
        (acc, i, c) => c.prim("add", [acc, c.prim("get", [v, i], "evilName", span)], "evilName"),
        "evilName",
        "evilName",
        "evilName",
        span,
      );
      const scaled = b.build(
        n,
        (i, c) => c.prim("mul", [c.prim("get", [v, i], "evilName"), sum], "evilName"),
        "evilName",
        "evilName",
        span,
      );
      const k = b.prim("sub", [n, litIndex(7)], "evilName");
      return b.tuple([scaled, b.prim("get", [v, k], "evilName", span)], "evilName");
    });
    return { name: "evilName", params: [v], body };
  })();

  it("contains no variable names, function names or source text", () => {
    const { source } = compileFunction(fn);
    expect(source).not.toContain("evilName");
    expect(source).not.toContain("pwned");
    expect(source).not.toContain("evil");
    expect(source.startsWith('"use strict";')).toBe(true);
  });

  it("still reports errors at the user's spans", () => {
    const err = thrown(() => compileFunction(fn)([vec([1, 2, 3])]));
    expect(err.span).toBe(span);
    expect((globalThis as { pwned?: boolean }).pwned).toBeUndefined();
    agrees(fn, [vec([1, 2, 3])], [vec([1, 2, 3, 4, 5, 6, 7, 8])]);
  });
});

describe("arguments", () => {
  const fn = fnOf(
    [
      ["v", VECTOR],
      ["n", INT],
      ["p", tupleOf([DOUBLE, arrayOf(tupleOf([INT, DOUBLE]))])],
    ],
    (v) => v,
  );
  const pairs = { tag: "tuparr" as const, depth: 1, fields: [dense("int", [2], [1, 2]), vec([0.5, 1.5])] };
  const good = [vec([1]), 3, { tag: "tuple" as const, elems: [1, pairs] }] as const;
  const c = compileFunction(fn);

  it("of the right types are accepted", () => {
    expect(c(good)).toEqual(vec([1]));
  });

  it.each([
    ["too few", [vec([1]), 3]],
    ["a number for a Vector", [1, 3, good[2]]],
    ["Index data for a Vector", [dense("int", [1], [1]), 3, good[2]]],
    ["a Matrix for a Vector", [mat([[1]]), 3, good[2]]],
    ["a shape that does not fit the data", [{ ...vec([1, 2]), shape: [3] }, 3, good[2]]],
    ["a fractional Index", [vec([1]), 2.5, good[2]]],
    ["an Index beyond int32", [vec([1]), 2 ** 31, good[2]]],
    ["a Bool for a Double", [vec([1]), 3, { tag: "tuple", elems: [true, pairs] }]],
    [
      "fields of different lengths",
      [vec([1]), 3, { tag: "tuple", elems: [1, { ...pairs, fields: [dense("int", [1], [1]), vec([0.5, 1.5])] }] }],
    ],
  ])("%s are an argument error", (_what, args) => {
    const err = thrown(() => c(args as never));
    expect(err.kind).toBe("argument");
  });
});

describe("results", () => {
  it("that are views of an argument hold exactly their elements", () => {
    const fn = fnOf([["m", MATRIX]], (m) => nested((b) => b.tuple([b.prim("get", [m, litIndex(1)]), m])));
    const m = mat([
      [1, 2],
      [3, 4],
      [5, 6],
    ]);
    const out = compileFunction(fn)([m]) as unknown as { elems: [{ data: Float64Array; shape: number[] }, unknown] };
    expect(Array.from(out.elems[0].data)).toEqual([3, 4]);
    expect(out.elems[0].shape).toEqual([2]);
    expect(out.elems[1]).toEqual(m);
    agrees(fn, [m]);
  });
});

describe("higher-order programs are refused", () => {
  it("a lambda or an application", () => {
    const x = freshVar("x", DOUBLE);
    const lam = mkLam(x, x);
    const f = freshVar("f", funOf(DOUBLE, DOUBLE));
    const y = freshVar("y", DOUBLE);
    const body = {
      kind: "let" as const,
      v: f,
      rhs: lam,
      body: { kind: "let" as const, v: y, rhs: mkApp(f, litDouble(1)), body: y },
    };
    expect(thrown(() => compileFunction({ name: "h", params: [], body })).kind).toBe("unsupported");
  });
  it("a function-typed parameter", () => {
    const fn = fnOf([["g", funOf(DOUBLE, DOUBLE)]], () => litDouble(1));
    expect(thrown(() => compileFunction(fn)).kind).toBe("unsupported");
  });
});
