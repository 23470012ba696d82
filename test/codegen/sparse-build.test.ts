// Two build shapes of forward derivative programs that the generator writes without an element loop: a one-hot
// element (`if j = e then A else 0.`, written at e alone into the fresh, zero-filled buffer) and a copy
// (`build n (fun i -> xs[i])`, one slice). Both must agree with the interpreter, errors included.

import { describe, expect, it } from "vitest";
import { litDouble, litIndex, mkIf, nested } from "../../src/ir/builder.js";
import { INT, MATRIX, VECTOR } from "../../src/types/types.js";
import { agrees, fnOf, mat, spanIn, vec } from "./harness.js";

const loops = (source: string) => source.split("for (").length - 1;

describe("one-hot terminal builds", () => {
  it("the identity matrix of a vectorised Jacobian: one loop, one write per row", () => {
    const fn = fnOf([["n", INT]], (n) =>
      nested((b) =>
        b.build(n, (p, c) =>
          c.build(n, (j, d) => {
            const hit = d.prim("eq", [j, p], "c");
            return mkIf(hit, litDouble(1), litDouble(0));
          }),
        ),
      ),
    );
    const compiled = agrees(fn, [0], [1], [4]);
    expect(loops(compiled.source)).toBe(1);
  });

  it("a hot index from outside, maybe out of range; the value computed only where it is written", () => {
    const fn = fnOf(
      [
        ["v", VECTOR],
        ["e", INT],
      ],
      (v, e) =>
        nested((b) =>
          b.build(b.prim("length", [v]), (_j, c) => {
            const hit = c.prim("eq", [e, _j], "c");
            return mkIf(
              hit,
              nested((t) => t.prim("mul", [t.prim("get", [v, e]), litDouble(2)])),
              litDouble(0),
            );
          }),
        ),
    );
    const v = vec([1.5, -2, 4]);
    const compiled = agrees(fn, [v, -1], [v, 0], [v, 2], [v, 3], [vec([]), 0]);
    expect(loops(compiled.source)).toBe(0);
  });
});

describe("copy builds", () => {
  it("build (length a) (fun i -> b[i]) is a slice; b shorter than a is the index error of b[length b]", () => {
    const text = "b[i]";
    const span = spanIn(text, "b[i]");
    const fn = fnOf(
      [
        ["a", VECTOR],
        ["b", VECTOR],
      ],
      (a, b) => nested((x) => x.build(x.prim("length", [a]), (i, c) => c.prim("get", [b, i], "get", span))),
    );
    const compiled = agrees(
      fn,
      [vec([1, 2]), vec([5, 6, 7])],
      [vec([1, 2, 3]), vec([5, 6, 7])],
      [vec([1, 2, 3, 4]), vec([5, 6])],
      [vec([]), vec([])],
    );
    expect(compiled.source).toContain("$a.sliceF64(");
    expect(loops(compiled.source)).toBe(0);
  });

  it("a row of a matrix (a view at an offset)", () => {
    const fn = fnOf([["m", MATRIX]], (m) =>
      nested((x) => {
        const row = x.prim("get", [m, litIndex(1)], "row");
        return x.build(x.prim("length", [row]), (i, c) => c.prim("get", [row, i]));
      }),
    );
    const compiled = agrees(
      fn,
      [
        mat([
          [1, 2, 3],
          [4, 5, 6],
        ]),
      ],
      [mat([[1], [2], [3]])],
      [mat([[1, 2]])],
    );
    expect(compiled.source).toContain("$a.sliceF64(");
    agrees(
      fn,
      [
        mat([
          [1, 2, 3],
          [4, 5, 6],
        ]),
      ],
      [mat([[1], [2], [3]])],
      [mat([[1, 2]])],
    );
  });
});

describe("terminal elements that are zeros in one branch", () => {
  it("if j = q then A else build m (fun _ -> 0.): the zeros are not copied; shapes are still checked", () => {
    const fn = fnOf(
      [
        ["v", VECTOR],
        ["q", INT],
        ["m", INT],
      ],
      (v, q, m) =>
        nested((b) =>
          b.build(b.prim("length", [v]), (j, c) => {
            const hit = c.prim("eq", [j, q], "c");
            const zeros = nested((z) => z.build(m, () => litDouble(0)));
            const value = nested((t) =>
              t.build(litIndex(2), (k, u) => u.prim("mul", [u.prim("get", [v, j]), u.prim("toDouble", [k])])),
            );
            return mkIf(hit, value, zeros);
          }),
        ),
    );
    const v = vec([1.5, -2, 4]);
    // m = 2: regular; m = 3: the hot element differs in shape (an error, unless q hits nothing); m = -1: a negative
    // size.
    const compiled = agrees(fn, [v, 1, 2], [v, 0, 2], [v, 5, 2], [v, 1, 3], [v, 7, 3], [v, 1, -1], [vec([]), 0, 2]);
    // The copy of the hot element is guarded by "this branch produced one" (the zeros are never copied).
    expect(compiled.source).toMatch(/!== null\) \{ const \w+ = /);
  });
});
