// build in compiled code: loops writing into preallocated typed arrays, nested builds in destination-passing style,
// builds of tuples and of arrays, empty builds, and the interpreter's shape errors (message, span and which error
// comes first).

import { describe, expect, it } from "vitest";
import { freshVar, lit, type Atom, type Expr } from "../../src/ir/ir.js";
import { AnfBuilder, litDouble, litIndex, mkBuild, nested } from "../../src/ir/builder.js";
import { arrayOf, BOOL, INT, MATRIX, tupleOf, VECTOR } from "../../src/types/types.js";
import type { Span } from "../../src/syntax/source.js";
import { compileFunction } from "../../src/codegen/compile.js";
import { agrees, dense, fnOf, mat, spanIn, thrown, vec } from "./harness.js";

/** `build size (fun i -> body)` written directly (no let around the inner build). */
function directBuild(size: Atom, body: (i: Atom, b: AnfBuilder) => Expr, span?: Span): Expr {
  const i = freshVar("i", INT);
  return mkBuild(
    size,
    i,
    nested((b) => body(i, b)),
    span,
  );
}

// Allocations of Double arrays (from the call's arena, src/codegen/arena.ts).
const countNew = (source: string) => source.split("$a.f64(").length - 1;

describe("rank-1 builds", () => {
  it("store Doubles, Indexes and Bools in Float64Array, Int32Array and Uint8Array", () => {
    const fn = fnOf([["n", INT]], (n) =>
      nested((b) => {
        const xs = b.build(n, (i, c) => c.prim("mul", [c.prim("toDouble", [i]), litDouble(0.5)]));
        const is = b.build(n, (i, c) => c.prim("mul", [i, i]));
        const bs = b.build(n, (i, c) =>
          c.prim("eq", [c.prim("mul", [c.prim("div", [i, litIndex(2)]), litIndex(2)]), i]),
        );
        return b.tuple([xs, is, bs]);
      }),
    );
    agrees(fn, [0], [1], [5]);
    const out = compileFunction(fn)([4]);
    expect(out).toEqual({
      tag: "tuple",
      elems: [
        dense("double", [4], [0, 0.5, 1, 1.5]),
        dense("int", [4], [0, 1, 4, 9]),
        dense("bool", [4], [1, 0, 1, 0]),
      ],
    });
  });

  it("of elements read from an argument", () => {
    const fn = fnOf([["v", VECTOR]], (v) =>
      nested((b) => b.build(b.prim("length", [v]), (i, c) => c.prim("exp", [c.prim("get", [v, i])]))),
    );
    agrees(fn, [vec([])], [vec([0, 1, -2.5])]);
  });
});

describe("nested builds write into one buffer (destination-passing style)", () => {
  const outer = (direct: boolean) =>
    fnOf(
      [
        ["u", VECTOR],
        ["v", VECTOR],
      ],
      (u, v) =>
        nested((b) => {
          const n = b.prim("length", [u]);
          const m = b.prim("length", [v]);
          const row = (i: Atom, c: AnfBuilder) => {
            const ui = c.prim("get", [u, i]);
            const inner = (j: Atom, d: AnfBuilder) => d.prim("mul", [ui, d.prim("get", [v, j])]);
            return direct ? directBuild(m, inner) : c.build(m, inner);
          };
          return direct ? directBuild(n, row) : b.build(n, row);
        }),
    );

  it.each([true, false])("rank 2 (inner build written directly: %s)", (direct) => {
    const fn = outer(direct);
    const c = agrees(fn, [vec([1, 2, 3]), vec([10, 20])], [vec([]), vec([1])], [vec([1, 2]), vec([])]);
    expect(c([vec([1, 2, 3]), vec([10, 20])])).toEqual(
      mat([
        [10, 20],
        [20, 40],
        [30, 60],
      ]),
    );
    expect(countNew(c.source)).toBe(1);
  });

  it("rank 3, with one allocation", () => {
    const fn = fnOf(
      [
        ["a", INT],
        ["b", INT],
        ["c", INT],
      ],
      (a, bb, cc) =>
        directBuild(a, (i) =>
          directBuild(bb, (j, b) => {
            const ij = b.prim("add", [b.prim("mul", [i, litIndex(100)]), b.prim("mul", [j, litIndex(10)])]);
            return b.build(cc, (k, d) => d.prim("toDouble", [d.prim("add", [ij, k])]));
          }),
        ),
    );
    const c = agrees(fn, [2, 3, 4], [0, 3, 4], [2, 0, 4], [2, 3, 0], [1, 1, 1]);
    const out = c([2, 3, 4]);
    expect(out).toMatchObject({ tag: "dense", shape: [2, 3, 4] });
    expect((out as { data: Float64Array }).data[1 * 12 + 2 * 4 + 3]).toBe(123);
    expect(countNew(c.source)).toBe(1);
  });

  it("rank 4 whose elements are arrays copied from an argument", () => {
    const fn = fnOf([["m", MATRIX]], (m) => directBuild(litIndex(2), (_i) => directBuild(litIndex(3), () => m)));
    agrees(
      fn,
      [
        mat([
          [1, 2],
          [3, 4],
        ]),
      ],
      [mat([])],
      [dense("double", [2, 0], [])],
    );
  });

  it("of elements that are views (rows taken in reverse order)", () => {
    const fn = fnOf([["m", MATRIX]], (m) =>
      nested((b) => {
        const n = b.prim("length", [m]);
        const last = b.prim("sub", [n, litIndex(1)]);
        return b.build(n, (i, c) => c.prim("get", [m, c.prim("sub", [last, i])]));
      }),
    );
    const c = agrees(
      fn,
      [
        mat([
          [1, 2],
          [3, 4],
          [5, 6],
        ]),
      ],
      [mat([])],
    );
    expect(
      c([
        mat([
          [1, 2],
          [3, 4],
          [5, 6],
        ]),
      ]),
    ).toEqual(
      mat([
        [5, 6],
        [3, 4],
        [1, 2],
      ]),
    );
  });
});

describe("builds of tuples are tuples of arrays", () => {
  it("of scalars", () => {
    const fn = fnOf([["n", INT]], (n) =>
      nested((b) => b.build(n, (i, c) => c.tuple([c.prim("toDouble", [i]), i, c.prim("gt", [i, litIndex(1)])]))),
    );
    agrees(fn, [0], [3]);
    expect(compileFunction(fn)([3])).toEqual({
      tag: "tuparr",
      depth: 1,
      fields: [dense("double", [3], [0, 1, 2]), dense("int", [3], [0, 1, 2]), dense("bool", [3], [0, 0, 1])],
    });
  });

  it("with array components, nested", () => {
    const fn = fnOf(
      [
        ["v", VECTOR],
        ["n", INT],
      ],
      (v, n) => directBuild(n, (i) => directBuild(litIndex(2), (j, b) => b.tuple([v, b.prim("add", [i, j])]))),
    );
    agrees(fn, [vec([1, 2, 3]), 2], [vec([]), 3], [vec([1]), 0]);
    expect(compileFunction(fn)([vec([7, 8]), 1])).toEqual({
      tag: "tuparr",
      depth: 2,
      fields: [dense("double", [1, 2, 2], [7, 8, 7, 8]), dense("int", [1, 2], [0, 1])],
    });
  });
});

describe("empty builds", () => {
  it("use 0 for the dimensions no element gave", () => {
    const fn = fnOf(
      [
        ["n", INT],
        ["m", INT],
        ["v", VECTOR],
      ],
      (n, m, v) =>
        nested((b) => {
          const rank3 = b.build(n, () => directBuild(m, (_j) => directBuild(litIndex(4), () => litDouble(1))));
          const ofArrays = b.build(n, () => directBuild(m, () => v));
          const ofTuples = b.build(m, (i, c) => c.tuple([v, c.prim("toDouble", [i])]));
          return b.tuple([rank3, ofArrays, ofTuples]);
        }),
    );
    agrees(fn, [0, 5, vec([1, 2])], [3, 0, vec([1, 2])], [0, 0, vec([])], [2, 1, vec([3])]);
    const out = compileFunction(fn)([2, 0, vec([1, 2])]);
    expect(out).toEqual({
      tag: "tuple",
      elems: [
        dense("double", [2, 0, 0], []),
        dense("double", [2, 0, 0], []),
        { tag: "tuparr", depth: 1, fields: [dense("double", [0, 0], []), dense("double", [0], [])] },
      ],
    });
  });
});

describe("shape errors are the interpreter's", () => {
  const text = "build n (fun i -> build (f i) (fun j -> g i j))";
  const outerSpan = spanIn(text, text);
  const innerSpan = spanIn(text, "build (f i) (fun j -> g i j)");
  const pick = (b: AnfBuilder, c: Atom, x: Atom, y: Atom, name = "p") =>
    b.if(
      c,
      () => x,
      () => y,
      name,
    );

  it("an outer build whose elements differ in length", () => {
    // build 3 (fun i -> build (if i = 2 then 4 else 3) (fun j -> 0.0))
    const fn = fnOf([["n", INT]], (n) =>
      directBuild(
        n,
        (i, b) => {
          const size = pick(b, b.prim("eq", [i, litIndex(2)]), litIndex(4), litIndex(3));
          return directBuild(size, () => litDouble(0), innerSpan);
        },
        outerSpan,
      ),
    );
    agrees(fn, [3], [2]);
    const err = thrown(() => compileFunction(fn)([3]));
    expect(err.kind).toBe("shape");
    expect(err.span).toBe(outerSpan);
    expect(err.summary).toBe(
      "build produced elements of different shapes: element 0 has shape [3] but element 2 has shape [4]",
    );
  });

  it("an inner build whose elements differ, and a difference three levels down", () => {
    const fn = fnOf(
      [
        ["u", VECTOR],
        ["w", VECTOR],
        ["k", INT],
      ],
      (u, w, k) =>
        directBuild(
          litIndex(2),
          (i) =>
            directBuild(
              litIndex(3),
              (j, b) => {
                const which = b.prim("eq", [b.prim("add", [i, j]), k]);
                return pick(b, which, w, u);
              },
              innerSpan,
            ),
          outerSpan,
        ),
    );
    // k = 1: in the run i = 0, element j = 1 differs (the inner build fails); k = 3: only the run i = 1 contains
    // i + j = 3 at j = 2; k = 9: regular.
    for (const k of [0, 1, 2, 3, 9]) agrees(fn, [vec([1, 2]), vec([3, 4, 5]), k]);
    const err = thrown(() => compileFunction(fn)([vec([1, 2]), vec([3, 4, 5]), 1]));
    expect(err.span).toBe(innerSpan);
    expect(err.summary).toContain("element 0 has shape [2] but element 1 has shape [3]");
  });

  it("a rank-3 build regular in every inner run but not across the outer one", () => {
    const fn = fnOf([["n", INT]], (n) =>
      directBuild(
        n,
        (i) =>
          directBuild(
            litIndex(2),
            (j, b) => {
              const size = pick(b, b.prim("eq", [i, litIndex(1)]), litIndex(3), litIndex(2));
              return directBuild(size, (k, d) => d.prim("toDouble", [k]));
            },
            innerSpan,
          ),
        outerSpan,
      ),
    );
    agrees(fn, [2], [1]);
    expect(thrown(() => compileFunction(fn)([2])).summary).toContain(
      "element 0 has shape [2, 2] but element 1 has shape [2, 3]",
    );
  });

  it("an empty element among non-empty ones, and tuples with array components", () => {
    const fn = fnOf([["v", VECTOR]], (v) =>
      directBuild(
        litIndex(2),
        (i, b) => {
          const size = b.prim("sub", [litIndex(1), i]);
          const rows = b.bind(
            "rows",
            directBuild(size, () => v, innerSpan),
          );
          return b.tuple([rows, litDouble(1)]);
        },
        outerSpan,
      ),
    );
    agrees(fn, [vec([1, 2])]);
    expect(thrown(() => compileFunction(fn)([vec([1, 2])])).summary).toBe(
      "build produced elements of different shapes: element 0 has shape ([1, 2], scalar) but element 1 has shape ([0, 0], scalar)",
    );
  });

  it("an index error later in an irregular run comes first, as in the interpreter", () => {
    // In run i = 0, element j = 1 has another shape; element j = 2 indexes out of range before the run ends.
    const fn = fnOf(
      [
        ["u", VECTOR],
        ["w", VECTOR],
      ],
      (u, w) =>
        directBuild(litIndex(2), (_i) =>
          directBuild(
            litIndex(3),
            (j, b) => {
              const bad = b.prim("eq", [j, litIndex(2)]);
              return b.if(
                bad,
                (_c) =>
                  directBuild(litIndex(2), (k, d) => d.prim("get", [u, litIndex(7)], "x", spanIn("u[7]", "u[7]"))),
                (c) => pick(c, c.prim("eq", [j, litIndex(1)]), w, u),
              );
            },
            innerSpan,
          ),
        ),
    );
    agrees(fn, [vec([1, 2]), vec([3, 4, 5])]);
    expect(thrown(() => compileFunction(fn)([vec([1, 2]), vec([3, 4, 5])])).kind).toBe("index");
  });

  it("negative sizes, outer and inner", () => {
    const fn = fnOf(
      [
        ["n", INT],
        ["m", INT],
      ],
      (n, m) => directBuild(n, (_i) => directBuild(m, () => lit(true, BOOL), innerSpan), outerSpan),
    );
    agrees(fn, [-1, 2], [2, -3], [0, -3], [2, 2]);
    const err = thrown(() => compileFunction(fn)([2, -3]));
    expect(err.span).toBe(innerSpan);
    expect(err.summary).toBe("build size must not be negative, got -3");
  });
});

it("a tuple-typed element with a matrix component keeps its shapes", () => {
  const t = tupleOf([MATRIX, arrayOf(BOOL)]);
  const fn = fnOf(
    [
      ["x", t],
      ["n", INT],
    ],
    (x, n) => directBuild(n, () => x),
  );
  const value = { tag: "tuple" as const, elems: [mat([[1, 2, 3]]), dense("bool", [2], [1, 0])] };
  agrees(fn, [value, 2], [value, 0]);
});
