// Transforms compose to any depth: each composition is one IR function, compiled once per argument types, and the
// reference interpreter runs the same IR (unoptimised) to the same numbers. References: closed forms and central
// differences.

import { describe, expect, it } from "vitest";
import {
  add,
  compilations,
  compile,
  grad,
  hessian,
  jacobian,
  jvp,
  mul,
  smooth,
  sum,
  valueAndGrad,
  vectorSMul,
  vmap,
  type AnyFunction,
  type Tensor,
} from "../../src/index.js";
import { interpretedProgram, libraryFunction, Specialisations } from "../../src/library/target.js";
import { expectClose, flat, numericGradient, rng } from "./helpers.js";
import { decode } from "../../src/library/convert.js";

const m = smooth`
let cubic = fun (x: Double) -> x * x * x + sin x
let rosen = fun (v: Vector) -> ifold (fun acc i -> acc + 100 * (v[i + 1] - v[i] * v[i]) ** 2 + (1 - v[i]) ** 2) 0 (length v - 1)
let loss = fun (p: Vector * Double) (x: Vector) (y: Double) ->
  let z = vectorDot (fst p) x + snd p
  log (1 + exp z) - y * z
let mlp = fun (p: Matrix * Vector * Vector * Double) (x: Vector) (y: Double) ->
  let (W1, b1, W2, b2) = p
  let h = build (length W1) (fun i -> tanh (vectorDot W1[i] x + b1[i]))
  let out = vectorDot W2 h + b2
  (out - y) * (out - y)
`;

/** The same library function run by the reference interpreter on its (unoptimised) IR. */
function interpreted(fn: AnyFunction, ...args: unknown[]): unknown {
  const target = libraryFunction(fn)!.target!;
  const { inst, trees, values } = new Specialisations(target).lookup(args);
  return decode(interpretedProgram(inst).run(values), inst.resultType, inst.resultForm(trees));
}

const random = rng(11);
const vector = (n: number) => Float64Array.from({ length: n }, random);

describe("composition", () => {
  it("grad(grad(grad(f))) of a scalar function is the closed form, compiled once, in both back ends", () => {
    const d3 = grad(grad(grad(m.cubic!)));
    for (const x of [0.3, -1.2, 2]) {
      expect(d3(x)).toBeCloseTo(6 - Math.cos(x), 10);
      expect(interpreted(d3, x)).toBeCloseTo(6 - Math.cos(x), 10);
    }
    expect(compilations(d3)).toBe(1);
    expect(grad(grad(m.cubic!))(0.7)).toBeCloseTo(6 * 0.7 - Math.sin(0.7), 12);
  });

  it("jacobian(grad(f)) is the Hessian, and jvp(grad(f)) a Hessian-vector product", () => {
    const v = new Float64Array([0.5, -0.3, 0.8]);
    const H = flat(jacobian(grad(m.rosen!))(v));
    expectClose(H, flat(hessian(m.rosen!)(v)), 1e-10);
    const numeric = numericGradient((x) => (grad(m.rosen!)(Float64Array.from(x)) as Float64Array)[1]!, Array.from(v));
    expectClose(H.slice(3, 6), numeric, 1e-5);
    const t = new Float64Array([1, 0.5, -2]);
    const [, hv] = jvp(grad(m.rosen!), [v], [t]);
    const expected = [0, 1, 2].map((i) => H.slice(3 * i, 3 * i + 3).reduce((s, h, j) => s + h * t[j]!, 0));
    expectClose(flat(hv), expected, 1e-10);
    expectClose(flat(interpreted(jacobian(grad(m.rosen!)), v)), H, 1e-10);
  });

  it("per-example gradients: vmap(grad(loss)) over a batch of 1,000, against finite differences", () => {
    const p = { w: vector(4), b: 0.2 };
    const X = Array.from({ length: 1000 }, () => vector(4));
    const y = Float64Array.from({ length: 1000 }, (_, i) => i % 2);
    const perExample = vmap(grad(m.loss!), { inAxes: [null, 0, 0] });
    const g = perExample(p, X, y) as { w: Float64Array[]; b: Float64Array };
    expect(g.w).toHaveLength(1000);
    expect(g.b).toHaveLength(1000);
    for (const i of [0, 1, 517, 999]) {
      const f = (q: number[]) => m.loss!({ w: Float64Array.from(q.slice(0, 4)), b: q[4] }, X[i], y[i]) as number;
      expectClose([...g.w[i]!, g.b[i]!], numericGradient(f, [...p.w, p.b]), 1e-6);
    }
    expect(compilations(perExample)).toBe(1);
    perExample(p, X.slice(0, 10), y.slice(0, 10));
    expect(compilations(perExample)).toBe(1);
  });

  it("grad(vmap(f)) and vmap with axes other than the leading one", () => {
    const X = [vector(3), vector(3)];
    // Column j of X (inAxes 1): the Rosenbrock value of each column, summed by a gradient of its sum.
    const cols = vmap(m.rosen!, { inAxes: 1 });
    const values = cols(X) as Float64Array;
    const byHand = [0, 1, 2].map((j) => m.rosen!(new Float64Array([X[0]![j]!, X[1]![j]!])) as number);
    expectClose(flat(values), byHand, 1e-14);
    const J = jacobian(cols)(X) as Float64Array[][];
    // Output j depends only on column j: its Jacobian block is the gradient of rosen at that column.
    for (let j = 0; j < 3; j++) {
      const gj = grad(m.rosen!)(new Float64Array([X[0]![j]!, X[1]![j]!])) as Float64Array;
      expectClose([J[j]![0]![j]!, J[j]![1]![j]!], flat(gj), 1e-10);
    }
    // outAxes: the batch axis last.
    const rows = vmap(vmap(m.cubic!), { inAxes: 0, outAxes: 1 })([
      [1, 2, 3],
      [4, 5, 6],
    ]) as number[][];
    expectClose(
      flat(rows),
      [1, 4, 2, 5, 3, 6].map((x) => x ** 3 + Math.sin(x)),
      1e-14,
    );
    // grad of a traced function around vmap: the sum of rosen over the columns.
    const total = (Y: Tensor) => sum(cols(Y) as Tensor);
    const gT = grad(total)(X) as Float64Array[];
    const byColumn = [0, 1, 2].map((j) => grad(m.rosen!)(new Float64Array([X[0]![j]!, X[1]![j]!])) as Float64Array);
    expectClose(flat(gT), [...byColumn.map((g) => g[0]!), ...byColumn.map((g) => g[1]!)], 1e-10);
    // Negative axes count from the last.
    expectClose(flat(vmap(m.rosen!, { inAxes: -1 })(X)), byHand, 1e-14);
  });

  it("hessian of an MLP loss over {W1, b1, W2, b2}: blocks per pair of leaves, against finite differences", () => {
    const p = { W1: [vector(3), vector(3)], b1: vector(2), W2: vector(2), b2: 0.1 };
    const x = vector(3);
    const H = hessian(m.mlp!)(p, x, 0.5) as Record<string, Record<string, unknown>>;
    expect(Object.keys(H)).toEqual(["W1", "b1", "W2", "b2"]);
    expect(Object.keys(H.W1!)).toEqual(["W1", "b1", "W2", "b2"]);
    const leaves = (q: number[]) => ({
      W1: [Float64Array.from(q.slice(0, 3)), Float64Array.from(q.slice(3, 6))],
      b1: Float64Array.from(q.slice(6, 8)),
      W2: Float64Array.from(q.slice(8, 10)),
      b2: q[10]!,
    });
    const theta = flat(p);
    const g = (q: number[]) => flat(grad(m.mlp!)(leaves(q), x, 0.5));
    // Row r of the full 11 × 11 Hessian from central differences of the gradient.
    const h = 1e-5;
    const sizes: Record<string, number> = { W1: 6, b1: 2, W2: 2, b2: 1 };
    const offset: Record<string, number> = { W1: 0, b1: 6, W2: 8, b2: 10 };
    for (const a of Object.keys(sizes)) {
      for (let i = 0; i < sizes[a]!; i++) {
        const r = offset[a]! + i;
        const up = [...theta];
        const down = [...theta];
        up[r]! += h;
        down[r]! -= h;
        const below = g(down);
        const column = g(up).map((u, k) => (u - below[k]!) / (2 * h));
        for (const b of Object.keys(sizes)) {
          const block = flat(H[a]![b]);
          const row = block.slice(i * sizes[b]!, (i + 1) * sizes[b]!);
          expectClose(row, column.slice(offset[b], offset[b]! + sizes[b]!), 1e-5);
        }
      }
    }
  });

  it("valueAndGrad and grad with hasAux", () => {
    const m2 = smooth`let f = fun (v: Vector) -> (vectorDot v v, vectorSum v)`;
    const v = new Float64Array([1, 2, 3]);
    const [g, aux] = grad(m2.f!, { hasAux: true })(v) as [Float64Array, number];
    expect(g).toEqual(new Float64Array([2, 4, 6]));
    expect(aux).toBe(6);
    const [[value, aux2], g2] = valueAndGrad(m2.f!, { hasAux: true })(v) as [[number, number], Float64Array];
    expect([value, aux2]).toEqual([14, 6]);
    expect(g2).toEqual(new Float64Array([2, 4, 6]));
    expect(() => grad(m2.f!)(v)).toThrow(/needs `f` to return a Double, but it returns Double \* Double/);
    expect(() => grad(m.cubic!, { hasAux: true })(1)).toThrow(/with hasAux needs `cubic` to return a pair/);
  });
});

describe("library functions called inside a staged function", () => {
  it("grad(g) and a module's definition called with tensors become part of the traced program", () => {
    // One step of gradient descent on rosen, written in TypeScript over tensors: x - 0.001 ∇rosen(x).
    const dRosen = grad(m.rosen!);
    const step = (x: Tensor) => add(x, vectorSMul(dRosen(x) as Tensor, -0.001));
    const x = new Float64Array([0.5, -0.3, 0.8]);
    const g = grad(m.rosen!)(x) as Float64Array;
    expectClose(
      flat(compile(step)(x)),
      Array.from(x, (xi, i) => xi - 0.001 * g[i]!),
      1e-14,
    );
    // Differentiating through the step: d/dx rosen(step(x)) (second derivatives inside), against differences.
    const after = (v: Tensor) => m.rosen!(step(v)) as Tensor;
    const numeric = numericGradient((q) => m.rosen!(compile(step)(Float64Array.from(q))) as number, Array.from(x));
    expectClose(flat(grad(after)(x)), numeric, 1e-5);
    // An object argument passes through the call with its keys.
    const loss = (p: { w: Tensor; b: Tensor }, v: Tensor, y: Tensor) => mul(m.loss!(p, v, y) as Tensor, 2);
    const p = { w: new Float64Array([0.5, -0.25]), b: 0.1 };
    const v = new Float64Array([1, 2]);
    expectClose(
      flat(grad(loss)(p, v, 1)),
      flat(grad(m.loss!)(p, v, 1)).map((u) => 2 * u),
      1e-14,
    );
  });
});
