// Row-major access (src/opt/rules/transposed-view.ts, issue 4): a transposed view whose rows the consumer walks with
// its
// innermost loop, reading its elements more than once, stays an array; every other pull array is fused as before.
// Program in, program out, the same values; and through the whole pipeline, the primal and the reverse-mode gradient
// of <w, a b> read and write every array by rows in their innermost loops.

import { describe, expect, test } from "vitest";
import { loadProgram } from "../../src/api/program.js";
import { litDouble, litIndex, type AnfBuilder } from "../../src/ir/builder.js";
import { runFunction } from "../../src/eval/interpreter.js";
import { compileFunction } from "../../src/codegen/compile.js";
import { children, forEachNode, someNode } from "../../src/ir/free.js";
import type { Atom, Build, Expr, Ifold, IrFunction } from "../../src/ir/ir.js";
import { checkIndexInRange } from "../../src/opt/rules/range.js";
import { getOfBuild, lengthOfBuild, lengthOfRowOfBuild } from "../../src/opt/rules/fusion.js";
import { isTransposedView } from "../../src/opt/rules/transposed-view.js";
import type { DenseArray, Value } from "../../src/runtime/value.js";
import { MATRIX } from "../../src/types/types.js";
import { func } from "../ir/helpers.js";
import { params, runRules } from "./run-rules.js";

const FUSION = [getOfBuild, lengthOfBuild, lengthOfRowOfBuild, checkIndexInRange];

const matrix = (rows: number[][]): DenseArray => ({
  tag: "dense",
  elemKind: "double",
  shape: [rows.length, rows[0]?.length ?? 0],
  data: Float64Array.from(rows.flat()),
});
/** A rows x cols matrix of distinct, irregular values. */
const sample = (rows: number, cols: number, seed: number) =>
  Array.from({ length: rows }, (_, i) =>
    Array.from({ length: cols }, (_, j) => Math.sin(seed + 1.7 * i + 0.3 * j * j)),
  );

/** `build (length m[0]) (fun i -> build (length m) (fun k -> element(i, k)))`. */
function view(b: AnfBuilder, m: Atom, element: (i: Atom, k: Atom, b: AnfBuilder) => Atom, name = "v"): Atom {
  return b.build(
    b.prim("length", [b.prim("get", [m, litIndex(0)])]),
    (i, bb) => bb.build(bb.prim("length", [m]), (k, b3) => element(i, k, b3)),
    name,
  );
}
const transposed = (b: AnfBuilder, m: Atom, name = "mT") =>
  view(b, m, (i, k, bb) => bb.prim("get", [bb.prim("get", [m, k]), i]), name);

/** The build a function's body ends with (a one-definition function `let v = build ... in v`, after the builder). */
function firstBuild(fn: IrFunction): Build {
  let found: Build | undefined;
  forEachNode(fn.body, (e) => {
    if (e.kind === "build" && found === undefined) found = e;
  });
  return found!;
}

describe("isTransposedView", () => {
  const single = (element: (m: Atom, i: Atom, k: Atom, b: AnfBuilder) => Atom) =>
    firstBuild(func("f", params(["m", MATRIX]), (b, m) => view(b, m, (i, k, bb) => element(m, i, k, bb))));

  test("a transpose is one, also through an index check", () => {
    expect(isTransposedView(single((m, i, k, b) => b.prim("get", [b.prim("get", [m, k]), i])))).toBe(true);
    const checked = single((m, i, k, b) =>
      b.prim("get", [b.prim("get", [m, b.prim("checkIndex", [k, b.prim("length", [m])])]), i]),
    );
    expect(isTransposedView(checked)).toBe(true);
  });

  test("a copy, a one-hot matrix and a broadcast row are not (the inner index is innermost, or indexes nothing)", () => {
    expect(isTransposedView(single((m, i, k, b) => b.prim("get", [b.prim("get", [m, i]), k])))).toBe(false);
    expect(
      isTransposedView(
        single((_m, i, k, b) =>
          b.if(
            b.prim("eq", [i, k]),
            () => litDouble(1),
            () => litDouble(0),
          ),
        ),
      ),
    ).toBe(false);
    expect(isTransposedView(single((m, _i, k, b) => b.prim("get", [b.prim("get", [m, litIndex(0)]), k])))).toBe(false);
  });
});

describe("fusion keeps a transposed view read by rows", () => {
  /** matrixMul as the prelude writes it: out[i][j] = Σ_k m1[i][k] m2T[j][k]. */
  const product = () =>
    func("mul", params(["m1", MATRIX], ["m2", MATRIX]), (b, m1, m2) => {
      const m2T = transposed(b, m2, "m2T");
      return b.build(b.prim("length", [m1]), (i, bb) =>
        bb.build(bb.prim("length", [m2T]), (j, b3) => {
          const a = b3.prim("get", [m1, i], "a");
          const r = b3.prim("get", [m2T, j], "r");
          return b3.ifold(litDouble(0), b3.prim("length", [r]), (s, k, b4) =>
            b4.prim("add", [s, b4.prim("mul", [b4.prim("get", [a, k]), b4.prim("get", [r, k])])]),
          );
        }),
      );
    });

  test("matrixMul: the transpose stays an array and the dot product reads its rows", () => {
    const fn = product();
    const { text, fired, out } = runRules(fn, FUSION);
    expect(fired["get-of-build"]).toBeUndefined();
    expect(text).toMatchInlineSnapshot(`
      "let mul (m1: Matrix) (m2: Matrix) =
        let length_2 = length m2[0] in
        let m2T = build length_2 (fun i -> build (length m2) (fun i_2 -> m2[i_2][i])) in
        build (length m1) (fun i_3 ->
          build length_2 (fun i_4 ->
            let a = m1[i_3] in
            let r = m2T[i_4] in
            ifold (fun acc i_5 -> acc + a[i_5] * r[i_5]) 0. (length r)))"
    `);
    const args: Value[] = [matrix(sample(2, 3, 1)), matrix(sample(3, 4, 2))];
    expect(compileFunction(out)(args)).toEqual(runFunction(fn, args));
  });

  test("read once per element (at its own depth), a transposed view is still fused", () => {
    const fn = func("f", params(["m", MATRIX]), (b, m) => {
      const mT = transposed(b, m);
      const r = b.prim("get", [mT, litIndex(1)], "r");
      return b.ifold(litDouble(0), b.prim("length", [r]), (s, k, bb) => bb.prim("add", [s, bb.prim("get", [r, k])]));
    });
    const { text } = runRules(fn, FUSION);
    expect(text).toBe(
      "let f (m: Matrix) =\n  let j = checkIndex 1 (length m[0]) in\n  ifold (fun acc i -> acc + m[i][j]) 0. (length m)",
    );
  });

  test("a consumer walking the transpose by columns (its innermost loop on the outer dimension) fuses it: reads by rows", () => {
    // mT[j][k] with j innermost: fused, m[k][j] reads m by rows.
    const fn = func("f", params(["m", MATRIX]), (b, m) => {
      const mT = transposed(b, m);
      return b.build(b.prim("length", [m]), (k, bb) =>
        bb.build(bb.prim("length", [mT]), (j, b3) => b3.prim("get", [b3.prim("get", [mT, j], "r"), k])),
      );
    });
    const { text, fired } = runRules(fn, FUSION);
    expect(fired["get-of-build"]).toBe(2);
    expect(text).toMatchInlineSnapshot(`
      "let f (m: Matrix) =
        let length_2 = length m[0] in
        build (length m) (fun i -> build length_2 (fun i_2 -> m[i][i_2]))"
    `);
  });

  test("a view that is not transposed is fused into the same consumer", () => {
    const fn = func("mul", params(["m1", MATRIX], ["m2", MATRIX]), (b, m1, m2) => {
      // m1 m2ᵀ, reading a copy of m2 (rows of m2) instead of a transpose.
      const copy = b.build(
        b.prim("length", [m2]),
        (i, bb) =>
          bb.build(bb.prim("length", [bb.prim("get", [m2, litIndex(0)])]), (k, b3) =>
            b3.prim("get", [b3.prim("get", [m2, i]), k]),
          ),
        "copy",
      );
      return b.build(b.prim("length", [m1]), (i, bb) =>
        bb.build(bb.prim("length", [copy]), (j, b3) => {
          const a = b3.prim("get", [m1, i], "a");
          const r = b3.prim("get", [copy, j], "r");
          return b3.ifold(litDouble(0), b3.prim("length", [r]), (s, k, b4) =>
            b4.prim("add", [s, b4.prim("mul", [b4.prim("get", [a, k]), b4.prim("get", [r, k])])]),
          );
        }),
      );
    });
    const { text, out } = runRules(fn, FUSION);
    expect(text).not.toMatch(/copy/);
    const args: Value[] = [matrix(sample(2, 3, 1)), matrix(sample(4, 3, 2))];
    expect(compileFunction(out)(args)).toEqual(runFunction(fn, args));
  });
});

/**
 * Reads and writes in the innermost loops of three-deep loop nests (the O(n³) work of a matrix product) that put the
 * loop's index in a non-innermost dimension: `x[k]` of an array of arrays, or `addAt`/`setAt` at a path (.., k, ..)
 * with k not last, where k is the loop's index (or `checkIndex k n`). (A transpose computed once is two deep.)
 */
function stridedAccesses(fn: IrFunction): string[] {
  const defs = new Map<number, Expr>();
  forEachNode(fn.body, (e) => {
    if (e.kind === "let") defs.set(e.v.id, e.rhs);
  });
  const found: string[] = [];
  const innermost = (loop: Build | Ifold) => {
    const isIndex = (a: Atom) => {
      if (a.kind !== "var") return false;
      if (a.id === loop.index.id) return true;
      const d = defs.get(a.id);
      return (
        d?.kind === "prim" && d.op === "checkIndex" && d.args[0]!.kind === "var" && d.args[0]!.id === loop.index.id
      );
    };
    forEachNode(loop.body, (e) => {
      if (e.kind !== "prim") return;
      if (e.op === "get" && isIndex(e.args[1]!) && e.type.k === "array")
        found.push(`get at ${loop.index.name} of a row`);
      if (e.op === "addAt" || e.op === "setAt") {
        const path = e.args[1]!;
        const tuple = path.kind === "var" ? defs.get(path.id) : undefined;
        if (tuple?.kind === "tuple" && tuple.elems.slice(0, -1).some(isIndex))
          found.push(`${e.op} at ${loop.index.name} not last`);
      }
    });
  };
  const walk = (e: Expr, depth: number): void => {
    const isLoop = e.kind === "build" || e.kind === "ifold";
    if (isLoop && depth >= 2 && !someNode(e.body, (x) => x.kind === "build" || x.kind === "ifold")) innermost(e);
    for (const c of children(e)) walk(c, isLoop ? depth + 1 : depth);
  };
  walk(fn.body, 0);
  return found;
}

describe("through the pipeline: <w, a b> and its gradient read and write by rows", () => {
  const source = [
    "let mmulLoss = fun (a: Matrix) (b: Matrix) (w: Matrix) ->",
    "  let c = matrixMul a b",
    "  vectorSum (build (length c) (fun i -> vectorDot c[i] w[i]))",
  ].join("\n");
  const prog = loadProgram({ name: "mmul.smooth", text: source });
  const types = [MATRIX, MATRIX, MATRIX];

  test("the primal and the gradient have no strided access in an innermost loop", () => {
    const primal = prog.specialise("mmulLoss", types, "js");
    const grad = prog.derivative("mmulLoss", types, [0, 1], "js", undefined, "gradient");
    expect(stridedAccesses(primal.optimised)).toEqual([]);
    expect(stridedAccesses(grad.optimised)).toEqual([]);
  });

  test("the gradient is da = w bᵀ, db = aᵀ w (computed here by hand)", () => {
    const grad = prog.derivative("mmulLoss", types, [0, 1], "js", undefined, "gradient");
    const [n, k, m] = [3, 4, 2];
    const a = sample(n, k, 1),
      b = sample(k, m, 2),
      w = sample(n, m, 3);
    const da = a.map((_, i) => b.map((row) => row.reduce((s, x, j) => s + w[i]![j]! * x, 0)));
    const db = b.map((_, p) => b[0]!.map((_, j) => a.reduce((s, row, i) => s + row[p]! * w[i]![j]!, 0)));
    const got = grad.run([matrix(a), matrix(b), matrix(w)]) as { tag: "tuple"; elems: DenseArray[] };
    const close = (x: DenseArray, y: number[][]) =>
      Array.from(x.data).forEach((v, q) => expect(v).toBeCloseTo(y.flat()[q]!, 12));
    close(got.elems[0]!, da);
    close(got.elems[1]!, db);
  });
});
