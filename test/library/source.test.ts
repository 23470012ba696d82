// The library on Smooth source (the `smooth` tag): derivatives agree with the CLI on the same programs, results keep
// the arguments' structure, compiled functions are reused, and user errors are located SmoothErrors.

import { describe, expect, it } from "vitest";
import {
  compilations,
  compile,
  grad,
  hessian,
  inspect,
  jacobian,
  ndarray,
  NDArray,
  smooth,
  smoothModule,
  valueAndGrad,
  vjp,
} from "../../src/index.js";
import { SmoothError } from "../../src/syntax/diagnostics.js";
import { thrown } from "../helpers.js";
import { cli, expectClose, flat } from "./helpers.js";

const TEXT = `
let f = fun x y -> x * x * y + sin y
let h = fun (M: Matrix) (s: Double) -> build (length M) (fun i -> M[i][0] * s + M[i][1] * M[i][1])
let lse = fun (v: Vector) -> log (vectorSum (vectorMap v exp))
let trma = fun (M: Matrix) (A: Matrix) -> matrixTrace (matrixMul M A)
let mixed = fun (x: Double) (v: Vector) (n: Index) -> x * vectorSum v * double n
let pair = fun (p: Double * Vector) (w: Vector) -> fst p * vectorDot (snd p) w
let cube = fun (v: Vector) -> build (length v) (fun i -> v[i] * v[i] * v[i] + v[0])
`;
const m = smoothModule(TEXT);

/** Each case: a definition, JSON arguments for the CLI, and the same arguments as the library gets them. */
const CASES: { fn: string; json: unknown[]; args: unknown[] }[] = [
  { fn: "f", json: [2, 3], args: [2, 3] },
  { fn: "lse", json: [[0.5, -1, 2]], args: [new Float64Array([0.5, -1, 2])] },
  {
    fn: "trma",
    json: [
      [
        [5, 6],
        [7, 8],
      ],
      [
        [1, 2],
        [3, 4],
      ],
    ],
    args: [
      [
        [5, 6],
        [7, 8],
      ],
      ndarray([1, 2, 3, 4], [2, 2]),
    ],
  },
  { fn: "mixed", json: [2, [1, 2, 3], 4], args: [2, new Float64Array([1, 2, 3]), 4] },
  {
    fn: "pair",
    json: [
      [1.5, [1, 2]],
      [3, -4],
    ],
    args: [{ a: 1.5, b: new Float64Array([1, 2]) }, [3, -4]],
  },
];

describe("derivatives of Smooth source agree with the CLI", () => {
  it.each(CASES)("grad and valueAndGrad of `$fn`", ({ fn, json, args }) => {
    const reference = cli("grad", TEXT, fn, json) as { value: number; gradient: unknown[] };
    const positions = reference.gradient.flatMap((g, k) => (g === null ? [] : [k]));
    const grads = grad(m[fn]!, { argnums: positions })(...args) as unknown[];
    positions.forEach((k, i) => expectClose(flat(grads[i]), flat(reference.gradient[k]), 1e-12));
    const [value, g0] = valueAndGrad(m[fn]!, { argnums: positions[0] })(...args) as [number, unknown];
    expect(value).toBeCloseTo(reference.value, 12);
    expectClose(flat(g0), flat(reference.gradient[positions[0]!]), 1e-12);
  });

  it.each([
    {
      fn: "h",
      json: [
        [
          [1, 2],
          [3, 4],
          [5, 6],
        ],
        10,
      ],
      args: [
        [
          [1, 2],
          [3, 4],
          [5, 6],
        ],
        10,
      ],
    },
    { fn: "cube", json: [[1, 2, 3]], args: [new Float64Array([1, 2, 3])] },
    { fn: "f", json: [2, 3], args: [2, 3] },
  ])("jacobian of `$fn` in every mode", ({ fn, json, args }) => {
    const reference = cli("jacobian", TEXT, fn, json) as { jacobian: number[][] };
    const positions = args.map((_, k) => k);
    for (const mode of ["auto", "forward", "reverse"] as const) {
      const blocks = jacobian(m[fn]!, { argnums: positions, mode })(...args) as unknown[];
      // The CLI's rows are output scalars and its columns the inputs' scalars, argument after argument.
      const rows = reference.jacobian.length;
      const perArg = blocks.map((b) => flat(b));
      const mine = Array.from({ length: rows }, (_, r) =>
        perArg.flatMap((b) => b.slice((r * b.length) / rows, ((r + 1) * b.length) / rows)),
      );
      expectClose(mine.flat(), reference.jacobian.flat(), 1e-12);
    }
  });

  it("hessian of a two-argument function, per pair of arguments", () => {
    const reference = cli("hessian", TEXT, "f", [2, 3]) as { hessian: number[][] };
    expect(hessian(m.f!, { argnums: [0, 1] })(2, 3)).toEqual(reference.hessian);
    expect(hessian(m.f!)(2, 3)).toBe(reference.hessian[0]![0]);
  });

  it("hessian with respect to a Vector is a matrix of the argument's form", () => {
    const reference = cli("hessian", TEXT, "lse", [[0.5, -1, 2]]) as { hessian: number[][] };
    const rows = hessian(m.lse!)(new Float64Array([0.5, -1, 2])) as Float64Array[];
    expect(rows).toHaveLength(3);
    expect(rows[0]).toBeInstanceOf(Float64Array);
    expectClose(flat(rows), reference.hessian.flat(), 1e-12);
    const nested = hessian(m.lse!)([0.5, -1, 2]) as number[][];
    expect(Array.isArray(nested[0])).toBe(true);
    expectClose(flat(nested), reference.hessian.flat(), 1e-12);
  });
});

describe("results keep the arguments' structure", () => {
  const grads = (...args: unknown[]) => grad(m.pair!, { argnums: [0, 1] })(...args) as unknown[];

  it("an object argument gives an object gradient with the same keys, a JS array a JS array", () => {
    const [dp, dw] = grads({ scale: 2, dir: new Float64Array([1, 2]) }, [3, 4]);
    expect(Object.keys(dp as object)).toEqual(["scale", "dir"]);
    expect((dp as { scale: number }).scale).toBe(11); // <dir, w>
    expect((dp as { dir: Float64Array }).dir).toEqual(new Float64Array([6, 8])); // scale * w
    expect(dw).toEqual([2, 4]); // scale * dir, nested like the argument
  });

  it("a tuple given as a JS array comes back as a JS array", () => {
    const [dp] = grads([2, [1, 2]], new Float64Array([3, 4]));
    expect(dp).toEqual([11, [6, 8]]);
  });

  it("typed arrays, nested arrays and NDArrays come back in their own form", () => {
    const A = [
      [1, 2],
      [3, 4],
    ];
    const byForm = (M: unknown) => grad(m.trma!)(M, A);
    expect(
      byForm([
        [5, 6],
        [7, 8],
      ]),
    ).toEqual([
      [1, 3],
      [2, 4],
    ]); // ∂tr(MA)/∂M = Aᵀ
    const rows = byForm([new Float64Array([5, 6]), new Float64Array([7, 8])]) as Float64Array[];
    expect(rows.map((r) => r.constructor.name)).toEqual(["Float64Array", "Float64Array"]);
    expect(rows.map((r) => Array.from(r))).toEqual([
      [1, 3],
      [2, 4],
    ]);
    const nd = byForm(ndarray([5, 6, 7, 8], [2, 2])) as NDArray;
    expect(nd).toBeInstanceOf(NDArray);
    expect(nd.shape).toEqual([2, 2]);
    expect(nd.toArray()).toEqual([
      [1, 3],
      [2, 4],
    ]);
  });

  it("default result forms: Double → number, Vector → Float64Array, Matrix → rows, tuple → JS array", () => {
    const t = smooth`
      let outs = fun (v: Vector) -> (vectorSum v, (v, build 2 (fun i -> v)))
    `;
    const [s, [v, M]] = t.outs!(new Float64Array([1, 2])) as [number, [Float64Array, Float64Array[]]];
    expect(s).toBe(3);
    expect(v).toEqual(new Float64Array([1, 2]));
    expect(M).toEqual([new Float64Array([1, 2]), new Float64Array([1, 2])]);
  });

  it("a result equal to an argument does not alias it", () => {
    const id = smooth`let id = fun (v: Vector) -> v`.id!;
    const x = new Float64Array([1, 2]);
    const y = id(x) as Float64Array;
    y[0] = 99;
    expect(x[0]).toBe(1);
  });
});

describe("compiled functions", () => {
  it("compile once per argument types, reuse across calls with identical results", () => {
    const lse = compile(m.lse!);
    const a = lse(new Float64Array([1, 2, 3]));
    const b = lse(new Float64Array([1, 2, 3]));
    const c = lse(new Float64Array([4, 5, 6, 7]));
    expect(b).toBe(a);
    expect(c).toBeCloseTo(Math.log(Math.exp(4) + Math.exp(5) + Math.exp(6) + Math.exp(7)), 12);
    expect(compilations(lse)).toBe(1);
    lse([1, 2]); // a nested array: the same type, so the same code
    expect(compilations(lse)).toBe(1);
  });

  it("a gradient called many times compiles once and earlier results stay intact", () => {
    const g = grad(m.lse!);
    const first = g(new Float64Array([0, 0])) as Float64Array;
    const copy = Array.from(first);
    for (let i = 0; i < 50; i++) g(new Float64Array([i, -i]));
    expect(Array.from(first)).toEqual(copy);
    expect(first).toEqual(new Float64Array([0.5, 0.5]));
    expect(compilations(g)).toBe(1);
  });

  it("a definition is callable and knows its type", () => {
    expect(m.f!(2, 3)).toBeCloseTo(12 + Math.sin(3), 12);
    expect(m.lse!.definitionType).toBe("Vector -> Double");
  });

  it("interpolated numbers become literals", () => {
    const k = 3;
    const s = smooth`let scale = fun (x: Double) -> x * ${k} + ${0.5}`;
    expect(s.scale!(2)).toBe(6.5);
  });

  it("inspect shows the optimised derivative program and its JavaScript", () => {
    const view = inspect(grad(m.lse!), new Float64Array(3));
    expect(view.smooth).toMatch(/^let lse' \(v: Vector\) =/);
    expect(view.smooth).toContain("exp");
    expect(view.javascript).toContain("function compiled(args, borrowed)");
  });
});

describe("errors", () => {
  const at = (e: SmoothError) => e.headline;

  it("differentiating with respect to an Index names the parameter and the definition's line", () => {
    const e = thrown(() => grad(m.mixed!, { argnums: 2 })(2, new Float64Array([1]), 4));
    expect(at(e)).toBe(
      "<smooth>:6:5: argument error: grad(`mixed`): cannot differentiate with respect to parameter `n` of `mixed`: it is an Index",
    );
  });

  it("argnums out of range", () => {
    const e = thrown(() => grad(m.f!, { argnums: [0, 2] })(1, 2));
    expect(at(e)).toBe(
      "<smooth>:2:5: argument error: grad(`f`): argnums 2 is out of range: `f` is called with 2 arguments",
    );
    expect(() => grad(m.f!, { argnums: -1 })).toThrow(/argnums -1 is not an argument position/);
  });

  it("the gradient of a function with a non-scalar result", () => {
    const e = thrown(() => grad(m.cube!)(new Float64Array([1, 2])));
    expect(at(e)).toBe(
      "<smooth>:8:5: argument error: grad(`cube`) needs `cube` to return a Double, but it returns Vector",
    );
    expect(e.message).toContain("use jacobian");
  });

  it("arguments that do not fit the definition", () => {
    expect(at(thrown(() => m.lse!([[1, 2]])))).toBe(
      "<smooth>:4:5: argument error: parameter `v` of `lse` expects Vector, but the value given is Matrix",
    );
    expect(at(thrown(() => m.h!([[1, 2], [3]], 1)))).toBe(
      "<smooth>:3:5: argument error: parameter `M` of `h` must be a regular array: row 0 is of length 2 but row 1 is of length 1",
    );
    expect(at(thrown(() => m.f!(1)))).toBe("<smooth>:2:5: argument error: `f` takes 2 arguments, but 1 was given");
    expect(at(thrown(() => m.mixed!(1, [1], 2.5)))).toBe(
      "<smooth>:6:5: argument error: parameter `n` of `mixed` must be an integer (an Index), got 2.5",
    );
    expect(at(thrown(() => m.f!("1", 2)))).toBe(
      '<smooth>:2:5: argument error: parameter `x` of `f` cannot be passed to Smooth: it is the string "1"',
    );
  });

  it("a shape mismatch inside the program is located in the source", () => {
    const s = smooth`
      let dot = fun (v: Vector) (w: Vector) -> vectorSum (build (length v) (fun i -> v[i] * w[i]))
    `;
    const e = thrown(() => s.dot!(new Float64Array(3), new Float64Array(2)));
    expect(e.kind).toBe("index");
    expect(e.headline).toMatch(/^<smooth>:2:\d+: index error/);
  });

  it("errors in the source carry line and column", () => {
    const e = thrown(
      () => smooth`
      let f = fun x -> x + 1
      let g = fun y -> y * undefinedName
    `,
    );
    expect(e.headline).toMatch(/^<smooth>:3:28: name error/);
    expect(thrown(() => smooth`let f = fun x -> x +`).headline).toMatch(/^<smooth>:1:\d+: syntax error/);
    expect(() => smooth`let f = fun x -> x * ${"2"}`).toThrow(/interpolation 0 of a smooth`...` template is a string/);
  });

  it("transforms reject things that are not functions, and pullbacks", () => {
    expect(() => grad(3 as never)).toThrow(/grad expects a function/);
    const [, pullback] = vjp(m.f!, 1, 2);
    expect(() => grad(pullback)).toThrow(/grad cannot transform the pullback of vjp\(`f`\)/);
  });
});
