// The staged entry point: a TypeScript function over tensors goes through the same compiler as Smooth source and gives
// the same derivatives (as the CLI's on the source); its structure (objects in, objects out) is kept; it is traced
// once per argument shapes; what the tracer cannot stage is a clear error.

import { describe, expect, it } from "vitest";
import {
  add,
  compilations,
  compile,
  cond,
  dot,
  exp,
  get,
  grad,
  hessian,
  ifold,
  inspect,
  jacobian,
  jvp,
  log,
  logsumexp,
  lt,
  mul,
  sin,
  smoothModule,
  StagingError,
  sub,
  valueAndGrad,
  vectorAdd,
  vjp,
  vmap,
  type AnyFunction,
  type Tensor,
} from "../../src/index.js";
import { printIr } from "../../src/ir/print.js";
import { libraryFunction } from "../../src/library/target.js";
import { thrown } from "../helpers.js";
import { cli, expectClose, flat, rng } from "./helpers.js";

const SOURCE = `
let loss = fun (p: Vector * Double) (x: Vector) (y: Double) ->
  let z = vectorDot (fst p) x + snd p
  log (1 + exp z) - y * z
let f = fun x y -> x * x * y + sin y
let meanLoss = fun (w: Vector) (X: Matrix) (y: Vector) ->
  let n = length X
  ifold (fun acc i -> let z = vectorDot w X[i] in acc + log (1 + exp z) - y[i] * z) 0 n / double n
`;
const m = smoothModule(SOURCE);

// The same three functions as TypeScript over tensors.
const loss = (p: { w: Tensor; b: Tensor }, x: Tensor, y: Tensor) => {
  const z = add(dot(p.w, x), p.b);
  return sub(log(add(1, exp(z))), mul(y, z));
};
const f = (x: Tensor, y: Tensor) => add(mul(mul(x, x), y), sin(y));
const meanLoss = (w: Tensor, X: Tensor, y: Tensor) => {
  const n = X.length as number; // a plain number: shapes are static in a trace
  const total = ifold(
    (acc: Tensor, i: Tensor) => {
      const z = dot(w, get(X, i));
      return add(acc, sub(log(add(1, exp(z))), mul(get(y, i), z)));
    },
    0,
    n,
  );
  return mul(total, 1 / n);
};

const random = rng(3);
const p = { w: new Float64Array([0.5, -0.25]), b: 0.1 };
const x = new Float64Array([1, 2]);

describe("a staged TypeScript function", () => {
  it("computes what the same Smooth source computes", () => {
    expect(compile(loss)(p, x, 1)).toBeCloseTo(m.loss!(p, x, 1) as number, 14);
    const X = [Array.from({ length: 3 }, random), Array.from({ length: 3 }, random)];
    const w = Float64Array.from({ length: 3 }, random);
    expect(compile(meanLoss)(w, X, new Float64Array([0, 1]))).toBeCloseTo(
      m.meanLoss!(w, X, new Float64Array([0, 1])) as number,
      14,
    );
  });

  it("has the CLI's derivatives on the source, in the arguments' structure", () => {
    const reference = cli("grad", SOURCE, "loss", [[[0.5, -0.25], 0.1], [1, 2], 1]) as { gradient: unknown[] };
    const [dp, dx] = grad(loss, { argnums: [0, 1] })(p, x, 1) as [{ w: Float64Array; b: number }, Float64Array];
    expect(Object.keys(dp)).toEqual(["w", "b"]);
    expect(dp.w).toBeInstanceOf(Float64Array);
    expectClose([...flat(dp), ...flat(dx)], [...flat(reference.gradient[0]), ...flat(reference.gradient[1])], 1e-12);
    const h = cli("hessian", SOURCE, "f", [2, 3]) as { hessian: number[][] };
    expect(hessian(f, { argnums: [0, 1] })(2, 3)).toEqual(h.hessian);
    expect(valueAndGrad(f)(2, 3)).toEqual(valueAndGrad(m.f!)(2, 3));
  });

  it("gives the source's gradient of a loop over a matrix, and jvp/vjp agree with it", () => {
    const X = [
      [1, 2],
      [3, 4],
      [5, 6],
    ];
    const y = new Float64Array([0, 1, 1]);
    const w = new Float64Array([0.1, -0.2]);
    const reference = cli("grad", SOURCE, "meanLoss", [[0.1, -0.2], X, [0, 1, 1]], { wrt: "0" }) as {
      gradient: unknown[];
    };
    const g = grad(meanLoss)(w, X, y) as Float64Array;
    expectClose(flat(g), flat(reference.gradient[0]), 1e-12);
    const [, pullback] = vjp(meanLoss, w, X, y);
    expectClose(flat((pullback(1) as unknown[])[0]), flat(g), 1e-12);
    const [, dy] = jvp(
      meanLoss,
      [w, X, y],
      [
        new Float64Array([1, 0]),
        [
          [0, 0],
          [0, 0],
          [0, 0],
        ],
        new Float64Array(3),
      ],
    );
    expect(dy).toBeCloseTo(g[0]!, 12);
  });

  it("is traced once per argument shapes, not per call", () => {
    const g = grad(loss);
    g(p, x, 1);
    g({ w: new Float64Array([1, 2]), b: 3 }, new Float64Array([4, 5]), 0);
    expect(compilations(g)).toBe(1);
    g({ w: new Float64Array(3), b: 0 }, new Float64Array(3), 0);
    expect(compilations(g)).toBe(2);
  });

  it("keeps `cond` in the program and evaluates JavaScript control flow at trace time", () => {
    const relu = (v: Tensor) =>
      cond(
        lt(v, 0),
        () => 0,
        () => v,
      );
    const h = grad(relu);
    expect([h(-2), h(3)]).toEqual([0, 1]);
    expect(compilations(h)).toBe(1);
    const power = (v: Tensor, k = 3) => {
      let acc: Tensor | number = 1;
      for (let i = 0; i < k; i++) acc = mul(acc, v); // unrolled while tracing
      return acc;
    };
    expect(grad(power)(2)).toBe(12);
    expect(inspect(compile(relu), 1).smooth).toContain("if");
  });

  it("returns objects as objects, also when vmapped, and vmap composes with jacobian", () => {
    const both = (a: Tensor, b: Tensor) => ({ sum: add(a, b), product: mul(a, b) });
    expect(compile(both)(2, 3)).toEqual({ sum: 5, product: 6 });
    // A batch of objects is an object of batches (as JAX's vmap gives it).
    expect(vmap(both)(new Float64Array([1, 2]), new Float64Array([3, 4]))).toEqual({
      sum: new Float64Array([4, 6]),
      product: new Float64Array([3, 8]),
    });
    const J = jacobian(vmap(f))(new Float64Array([1, 2]), new Float64Array([3, 4])) as Float64Array[];
    expect(flat(J)).toEqual([6, 0, 0, 16]); // ∂(x² y)/∂x = 2xy on the diagonal
  });

  it("keeps the sharing written by the user: a value used twice is computed once", () => {
    const twice = (v: Tensor) => {
      const y = logsumexp(v); // expensive, then used three times
      return add(mul(y, y), y);
    };
    const compiled = compile(twice);
    expect(compiled(new Float64Array([1, 2]))).toBeCloseTo(((l) => l * l + l)(Math.log(Math.exp(1) + Math.exp(2))), 12);
    // Before any optimisation (which would merge duplicates anyway), the program calls logsumexp once.
    const lowered = printIr(libraryFunction(compiled)!.program([new Float64Array([1, 2])]).lowered);
    expect(lowered.match(/logsumexp \w+/g)).toHaveLength(1);
  });

  it("can be inspected", () => {
    expect(inspect(grad(loss), p, x, 1).smooth).toMatch(
      /^let staged\d+' \(x0: Vector \* Double\) \(x1: Vector\) \(x2: Double\) =/,
    );
  });
});

describe("errors of staged functions", () => {
  it("a value that cannot be passed, out-of-range argnums, a missing argument", () => {
    expect(thrown(() => grad(f)("2", 3)).headline).toBe(
      'argument error: argument 0 of the TypeScript function `f` cannot be passed to Smooth: it is the string "2"',
    );
    expect(thrown(() => grad(f, { argnums: 5 })(2, 3)).headline).toBe(
      "argument error: grad(the TypeScript function `f`): argnums 5 is out of range: the TypeScript function `f` is called with 2 arguments",
    );
    // (The types reject the missing argument too; the run-time check is for JavaScript callers.)
    expect(thrown(() => (grad(f) as AnyFunction)(2)).headline).toBe(
      "argument error: the TypeScript function `f` takes 2 arguments, but 1 was given",
    );
  });

  it("the gradient of a non-scalar result", () => {
    const twice = (v: Tensor) => vectorAdd(v, v);
    expect(thrown(() => grad(twice)(new Float64Array(2))).headline).toBe(
      "argument error: grad(the TypeScript function `twice`) needs the TypeScript function `twice` to return a Double, but it returns Vector",
    );
  });

  it("what the tracer cannot stage is a StagingError naming the operation", () => {
    // A function without tensor operations is read from its source instead, where `>` and `?:` are the program's.
    const branchy = (v: number) => (v > 0 ? v : 0);
    expect([grad(branchy)(1.5), grad(branchy)(-1.5)]).toEqual([1, 0]);
    const mismatched = (a: Tensor, b: Tensor) => dot(vectorAdd(a, b), a);
    const e = (() => {
      try {
        grad(mismatched)(new Float64Array(2), new Float64Array(3));
      } catch (err) {
        return err as Error;
      }
      throw new Error("no error");
    })();
    expect(e).toBeInstanceOf(StagingError);
    expect(e.message).toMatch(/vectorAdd/);
  });
});
