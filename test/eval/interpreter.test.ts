import { describe, expect, it } from "vitest";
import { evaluate, runFunction } from "../../src/eval/interpreter.js";
import { freshVar, mkLet, type Expr, type IrFunction } from "../../src/ir/ir.js";
import { thrown } from "../helpers.js";
import { arrayOf, DOUBLE, funOf, INT, MATRIX, tupleOf, VECTOR } from "../../src/types/types.js";
import type { DenseArray, TupleArray, Value } from "../../src/runtime/value.js";
import {
  app,
  Block,
  bool,
  buildOf,
  idx,
  ifoldOf,
  iff,
  lam,
  matrix,
  num,
  prim,
  proj,
  spanOf,
  tup,
  vector,
} from "./ir-builder.js";

const run = (e: Expr): Value => evaluate(e, new Map());

describe("lets, tuples, lambdas", () => {
  it("binds lets and projects tuples", () => {
    const b = new Block();
    const x = b.bind("x", prim("mul", [num(3), num(4)]));
    const p = b.bind("p", tup([x, bool(true), idx(7)]));
    const y = b.bind("y", proj(0, p));
    const k = b.bind("k", proj(2, p));
    const z = b.bind("z", prim("toDouble", [k]));
    expect(run(b.end(prim("add", [y, z])))).toBe(19);
    expect(run(tup([num(1), bool(false)]))).toEqual({ tag: "tuple", elems: [1, false] });
  });

  it("does not modify the caller's environment", () => {
    const v = freshVar("v", DOUBLE);
    const x = freshVar("x", DOUBLE);
    const env = new Map<number, Value>([[v.id, 2]]);
    expect(evaluate(mkLet(x, prim("add", [v, v]), x), env)).toBe(4);
    expect([...env.keys()]).toEqual([v.id]);
  });

  it("reports an unbound variable as an internal error", () => {
    expect(() => run(freshVar("ghost", DOUBLE))).toThrow(/unbound variable ghost/);
  });

  it("applies closures that capture their environment", () => {
    // let a = 10 in let addA = fun x -> x + a in addA 5
    const b = new Block();
    const a = b.bind("a", num(10));
    const addA = b.bind(
      "addA",
      lam("x", DOUBLE, (x) => prim("add", [x, a])),
    );
    expect(run(b.end(app(addA, num(5))))).toBe(15);
  });

  it("keeps each closure's own captured values (curried functions called twice)", () => {
    // let adder = fun y -> (let y2 = y * 2 in fun z -> y2 + z) in (adder 1) 0 + (adder 5) 0, with adder 5 made first
    const b = new Block();
    const adder = b.bind(
      "adder",
      lam("y", DOUBLE, (y, inner) => {
        const y2 = inner.bind("y2", prim("mul", [y, num(2)]));
        return inner.end(lam("z", DOUBLE, (z) => prim("add", [y2, z])));
      }),
    );
    const f1 = b.bind("f1", app(adder, num(1)));
    const f5 = b.bind("f5", app(adder, num(5)));
    const r1 = b.bind("r1", app(f1, num(0)));
    const r5 = b.bind("r5", app(f5, num(0)));
    expect(run(b.end(tup([r1, r5])))).toEqual({ tag: "tuple", elems: [2, 10] });
  });

  it("passes functions to functions", () => {
    // let twice = fun f -> fun x -> f (f x) in twice (fun x -> x * 3) 2  = 18
    const D2D = funOf(DOUBLE, DOUBLE);
    const b = new Block();
    const twice = b.bind(
      "twice",
      lam("f", D2D, (f) =>
        lam("x", DOUBLE, (x, inner) => {
          const fx = inner.bind("fx", app(f, x));
          return inner.end(app(f, fx));
        }),
      ),
    );
    const triple = b.bind(
      "triple",
      lam("x", DOUBLE, (x) => prim("mul", [x, num(3)])),
    );
    const g = b.bind("g", app(twice, triple));
    expect(run(b.end(app(g, num(2))))).toBe(18);
  });

  it("gives closures made in a loop the index of their own iteration", () => {
    // ifold (fun fs i -> let g = fun x -> x + double i in (if i = 1 then g else fs)) id 3, applied to 100 = 101
    const b = new Block();
    const id = b.bind(
      "id",
      lam("x", DOUBLE, (x) => x),
    );
    const chosen = b.bind(
      "chosen",
      ifoldOf(id, idx(3), (fs, i, body) => {
        const g = body.bind(
          "g",
          lam("x", DOUBLE, (x, inner) => {
            const di = inner.bind("di", prim("toDouble", [i]));
            return inner.end(prim("add", [x, di]));
          }),
        );
        const isOne = body.bind("isOne", prim("eq", [i, idx(1)]));
        return body.end(iff(isOne, g, fs));
      }),
    );
    expect(run(b.end(app(chosen, num(100))))).toBe(101);
  });

  it("respects scoping when a transformation reuses a variable id in a nested scope", () => {
    // let x = 1 in let y = (if true then (let x = 2 in x) else x) in x + y  = 3 (not 4)
    const x = freshVar("x", DOUBLE);
    const y = freshVar("y", DOUBLE);
    const inner = mkLet(x, num(2), x);
    const e = mkLet(x, num(1), mkLet(y, iff(bool(true), inner, x), prim("add", [x, y])));
    expect(run(e)).toBe(3);
  });

  it("runs a long let chain without growing the JS stack", () => {
    const vars = Array.from({ length: 100_000 }, () => freshVar("s", DOUBLE));
    let body: Expr = vars[vars.length - 1]!;
    for (let k = vars.length - 1; k >= 0; k--)
      body = mkLet(vars[k]!, k === 0 ? num(0) : prim("add", [vars[k - 1]!, num(1)]), body);
    expect(run(body)).toBe(vars.length - 1);
  });
});

describe("if", () => {
  it("evaluates only the taken branch", () => {
    // if length v > 5 then v[5] else 0: v has 3 elements, so the then branch would fail
    const v = freshVar("v", VECTOR);
    const b = new Block();
    const n = b.bind("n", prim("length", [v]));
    const big = b.bind("big", prim("gt", [n, idx(5)]));
    const e = b.end(iff(big, prim("get", [v, idx(5)]), num(0)));
    expect(evaluate(e, new Map([[v.id, vector([1, 2, 3])]]))).toBe(0);
    expect(evaluate(e, new Map([[v.id, vector([1, 2, 3, 4, 5, 6])]]))).toBe(6);
  });
});

describe("build", () => {
  it("builds a Vector as one Float64Array", () => {
    const e = buildOf(idx(4), (i, b) => {
      const d = b.bind("d", prim("toDouble", [i]));
      return b.end(prim("mul", [d, d]));
    });
    const r = run(e) as DenseArray;
    expect(r.tag).toBe("dense");
    expect(r.shape).toEqual([4]);
    expect(r.data).toBeInstanceOf(Float64Array);
    expect([...r.data]).toEqual([0, 1, 4, 9]);
  });

  it("builds Index and Bool arrays as Int32Array and Uint8Array", () => {
    const ints = run(buildOf(idx(3), (i) => prim("mul", [i, idx(-2)]))) as DenseArray;
    expect(ints.data).toBeInstanceOf(Int32Array);
    expect([...ints.data]).toEqual([0, -2, -4]);
    const flags = run(buildOf(idx(3), (i) => prim("eq", [i, idx(1)]))) as DenseArray;
    expect(flags.data).toBeInstanceOf(Uint8Array);
    expect([...flags.data]).toEqual([0, 1, 0]);
  });

  it("builds a Matrix as one rank-2 array, row-major", () => {
    // build 2 (fun i -> build 3 (fun j -> 10 i + j))
    const e = buildOf(idx(2), (i) =>
      buildOf(idx(3), (j, b) => {
        const ten = b.bind("ten", prim("mul", [i, idx(10)]));
        const s = b.bind("s", prim("add", [ten, j]));
        return b.end(prim("toDouble", [s]));
      }),
    );
    expect(e.type).toEqual(MATRIX);
    const r = run(e) as DenseArray;
    expect(r.shape).toEqual([2, 3]);
    expect(r.data).toBeInstanceOf(Float64Array);
    expect([...r.data]).toEqual([0, 1, 2, 10, 11, 12]);
  });

  it("builds a rank-3 array", () => {
    const e = buildOf(idx(2), (i) =>
      buildOf(idx(3), (j) =>
        buildOf(idx(4), (k, b) => {
          const a = b.bind("a", prim("mul", [i, idx(100)]));
          const c = b.bind("c", prim("mul", [j, idx(10)]));
          const s = b.bind("s", prim("add", [a, c]));
          const t = b.bind("t", prim("add", [s, k]));
          return b.end(prim("toDouble", [t]));
        }),
      ),
    );
    const r = run(e) as DenseArray;
    expect(r.shape).toEqual([2, 3, 4]);
    const expected: number[] = [];
    for (let i = 0; i < 2; i++)
      for (let j = 0; j < 3; j++) for (let k = 0; k < 4; k++) expected.push(100 * i + 10 * j + k);
    expect([...r.data]).toEqual(expected);
  });

  it("builds an array of tuples as a TupleArray of component arrays", () => {
    // build 3 (fun i -> (double i, build 2 (fun j -> double (i + j))))
    const e = buildOf(idx(3), (i, b) => {
      const d = b.bind("d", prim("toDouble", [i]));
      const row = b.bind(
        "row",
        buildOf(idx(2), (j, inner) => {
          const s = inner.bind("s", prim("add", [i, j]));
          return inner.end(prim("toDouble", [s]));
        }),
      );
      return b.end(tup([d, row]));
    });
    expect(e.type).toEqual(arrayOf(tupleOf([DOUBLE, VECTOR])));
    const r = run(e) as TupleArray;
    expect(r.tag).toBe("tuparr");
    expect(r.depth).toBe(1);
    expect(r.fields).toEqual([
      vector([0, 1, 2]),
      matrix([
        [0, 1],
        [1, 2],
        [2, 3],
      ]),
    ]);
    // and reading an element back gives the tuple
    const arr = freshVar("arr", e.type);
    expect(evaluate(prim("get", [arr, idx(2)]), new Map([[arr.id, r]]))).toEqual({
      tag: "tuple",
      elems: [2, vector([2, 3])],
    });
  });

  it("builds an empty Matrix with shape [0, 0]", () => {
    const e = buildOf(idx(0), () => buildOf(idx(5), () => num(1)));
    expect(run(e)).toEqual({ tag: "dense", elemKind: "double", shape: [0, 0], data: new Float64Array(0) });
  });

  it("reports elements of different shapes at the build", () => {
    // build 3 (fun i -> build (if i = 2 then 4 else 3) (fun j -> 0.0))
    const text = "let main = build 3 (fun i -> build (if i = 2 then 4 else 3) (fun j -> 0.0))";
    const span = spanOf(text, "build 3 (fun i -> build (if i = 2 then 4 else 3) (fun j -> 0.0))");
    const e = buildOf(
      idx(3),
      (i, b) => {
        const last = b.bind("last", prim("eq", [i, idx(2)]));
        const n = b.bind("n", iff(last, idx(4), idx(3)));
        return b.end(buildOf(n, () => num(0)));
      },
      span,
    );
    const err = thrown(() => run(e));
    expect(err.kind).toBe("shape");
    expect(err.span).toBe(span);
    expect(err.headline).toBe(
      "test.smooth:1:12: shape error: build produced elements of different shapes: element 0 has shape [3] but element 2 has shape [4]",
    );
  });

  it("rejects a negative size", () => {
    const text = "build n (fun i -> 1.0)";
    const span = spanOf(text, text);
    const n = freshVar("n", INT);
    const err = thrown(() =>
      evaluate(
        buildOf(n, () => num(1), span),
        new Map([[n.id, -3]]),
      ),
    );
    expect(err.kind).toBe("shape");
    expect(err.summary).toBe("build size must not be negative, got -3");
    expect(err.span).toBe(span);
  });
});

describe("ifold", () => {
  it("sums a vector", () => {
    const v = freshVar("v", VECTOR);
    const b = new Block();
    const n = b.bind("n", prim("length", [v]));
    const e = b.end(
      ifoldOf(num(0), n, (s, i, body) => {
        const x = body.bind("x", prim("get", [v, i]));
        return body.end(prim("add", [s, x]));
      }),
    );
    expect(evaluate(e, new Map([[v.id, vector([1.5, 2, 3, -4])]]))).toBe(2.5);
  });

  it("carries a tuple state (Fibonacci pairs)", () => {
    // ifold (fun (a, b) i -> (b, a + b)) (0, 1) 30
    const b = new Block();
    const init = b.bind("init", tup([idx(0), idx(1)]));
    const e = b.end(
      ifoldOf(init, idx(30), (st, _i, body) => {
        const a = body.bind("a", proj(0, st));
        const c = body.bind("c", proj(1, st));
        const s = body.bind("s", prim("add", [a, c]));
        return body.end(tup([c, s]));
      }),
    );
    expect(run(e)).toEqual({ tag: "tuple", elems: [832040, 1346269] });
  });

  it("returns the initial state for a count of 0 and runs a million iterations on a flat stack", () => {
    expect(run(ifoldOf(num(7), idx(0), (s) => prim("add", [s, num(1)])))).toBe(7);
    expect(run(ifoldOf(idx(0), idx(1_000_000), (s) => prim("add", [s, idx(1)])))).toBe(1_000_000);
  });

  it("rejects a negative count", () => {
    const text = "ifold f 0.0 (0 - 2)";
    const span = spanOf(text, text);
    const err = thrown(() => run(ifoldOf(num(0), idx(-2), (s) => s, span)));
    expect(err.kind).toBe("shape");
    expect(err.summary).toBe("ifold count must not be negative, got -2");
    expect(err.span).toBe(span);
  });
});

describe("runFunction", () => {
  it("applies a function to its arguments (matrix-vector product)", () => {
    const m = freshVar("m", MATRIX);
    const v = freshVar("v", VECTOR);
    const b = new Block();
    const rows = b.bind("rows", prim("length", [m]));
    const body = b.end(
      buildOf(rows, (i, bb) => {
        const row = bb.bind("row", prim("get", [m, i]));
        const cols = bb.bind("cols", prim("length", [v]));
        return bb.end(
          ifoldOf(num(0), cols, (s, j, inner) => {
            const a = inner.bind("a", prim("get", [row, j]));
            const x = inner.bind("x", prim("get", [v, j]));
            const p = inner.bind("p", prim("mul", [a, x]));
            return inner.end(prim("add", [s, p]));
          }),
        );
      }),
    );
    const fn: IrFunction = { name: "mv", params: [m, v], body };
    expect(
      runFunction(fn, [
        matrix([
          [1, 2],
          [3, 4],
          [5, 6],
        ]),
        vector([10, 1]),
      ]),
    ).toEqual(vector([12, 34, 56]));
    expect(() => runFunction(fn, [vector([1])])).toThrow(/expected 2 arguments, got 1/);
  });

  it("can return a function value", () => {
    const k = freshVar("k", DOUBLE);
    const fn: IrFunction = { name: "scale", params: [k], body: lam("x", DOUBLE, (x) => prim("mul", [x, k])) };
    const f = runFunction(fn, [4]);
    if (typeof f !== "object" || f.tag !== "fun") throw new Error("expected a function");
    expect(f.apply(2.5)).toBe(10);
  });
});
