// The library's transforms called inside a plain function that is itself differentiated (issue 28, item 4; JAX's
// idioms): grad, valueAndGrad, jvp, vjp, linearize, jacobian, hessian and vmap of closures over the outer function's
// variables. Each function runs as JavaScript too (calling the library at each point), so its own value and central
// differences of it are the references; nested derivatives show no perturbation confusion.

import { describe, expect, it } from "vitest";
import { compile, grad, hessian, jacobian, jvp, linearize, valueAndGrad, vjp, vmap } from "../../src/index.js";
import { thrown } from "../helpers.js";
import { expectClose, numericGradient } from "../library/helpers.js";

type Scalar = (x: number) => number;
const num = (x: unknown) => x as number;
const vec = (x: unknown) => x as Float64Array;
const rows = (x: unknown) => x as Float64Array[];

describe("derivatives inside a plain function, of closures over its variables", () => {
  it("grad(x => x * grad(y => x * y)(3))(2) is 4, and Siskind and Pearlmutter's d/dx (x · d/dy (x + y)) = 1", () => {
    expect(grad((x: number) => x * num(grad((y: number) => x * y)(3)))(2)).toBe(4);
    expect(grad((x: number) => x * num(grad((y: number) => x + y)(1)))(1)).toBe(1);
    // Three levels: x · d/dy [y · d/dz (x y z)] = 2x²y at y = 1, whose derivative is 4x.
    const f = (x: number) => x * num(grad((y: number) => y * num(grad((z: number) => x * y * z)(2)))(1));
    expect(grad(f)(1.5)).toBeCloseTo(6, 13);
  });

  const cases: Record<string, Scalar> = {
    "grad of a closure at a point depending on x": (x) => num(grad((y: number) => Math.sin(x * y) * y)(x)),
    "valueAndGrad of a closure": (x) => {
      const [v, g] = valueAndGrad((y: number) => Math.exp(x * y) / (1 + y * y))(0.3);
      return v * g;
    },
    "grad with argnums and an object argument": (x) => {
      const loss = (p: { w: number; b: number }, t: number) => (p.w * t + p.b - x) ** 2;
      const g = grad(loss, { argnums: [0, 1] })({ w: x, b: 0.5 }, 2) as [{ w: number; b: number }, number];
      return g[0].w * x + g[0].b + g[1];
    },
    "jvp of a closure (forward mode inside reverse mode)": (x) => {
      const [y, dy] = jvp((a: number, b: number) => Math.sin(a) * b * x, [x, 2], [1, 0.5]);
      return y + dy * dy;
    },
    "vjp and its pullback": (x) => {
      const [y, back] = vjp((a: number, b: number) => a * a * b + x * b, x, 3) as [number, (ct: number) => number[]];
      const [da, db] = back(2);
      return y + da! * db!;
    },
    "linearize and the linear map": (x) => {
      const [y, map] = linearize((a: number) => Math.exp(a * x), x) as [number, (d: number) => number];
      return y + map(2) * x;
    },
    "jacobian of a Vector function": (x) => {
      const J = rows(
        jacobian((v: Float64Array) => [v[0]! * v[1]!, Math.sin(v[0]! * x), v[1]!])(new Float64Array([x, 2])),
      );
      return J[0]![0]! + J[0]![1]! * 2 + J[1]![0]! - J[2]![1]!;
    },
    "jacobian of a scalar function is its gradient": (x) => {
      const J = vec(jacobian((v: Float64Array) => v[0]! * v[1]! * x)(new Float64Array([x, 3])));
      return J[0]! + J[1]!;
    },
    "hessian of a closure": (x) => {
      const H = rows(
        hessian((v: Float64Array) => v[0]! * v[0]! * v[1]! * x + Math.exp(v[1]!))(new Float64Array([x, 1])),
      );
      return H[0]![0]! + H[0]![1]! + H[1]![1]!;
    },
    "hessian of a closure of a number": (x) => num(hessian((z: number) => z ** 4 * x)(x)),
    "vmap of a closure, one argument shared": (x) => {
      const ys = vec(
        vmap((z: number, s: number) => z * x + s, { inAxes: [0, null] })(new Float64Array([1, 2, 3]), x * x),
      );
      return ys[0]! * ys[2]!;
    },
    "a Hessian-vector product jvp(w => grad(loss)(w), [w], [v])": (x) => {
      const loss = (u: Float64Array) => u[0]! * u[0]! * u[1]! + u[1]! ** 3 * x;
      const w = new Float64Array([x, 1]);
      const [, hv] = jvp((u: Float64Array) => grad(loss)(u), [w], [new Float64Array([1, -0.5])]) as [
        Float64Array,
        Float64Array,
      ];
      return hv[0]! + hv[1]!;
    },
    "a derivative stored in a variable and called twice": (x) => {
      const d = grad((y: number) => y * y * x);
      return num(d(1)) + num(d(x));
    },
    "grad of grad": (x) => num(grad(grad((y: number) => y ** 3 * x))(x)),
  };

  it.each(Object.entries(cases))("%s: its own value, and its derivative against central differences", (_, f) => {
    for (const x of [0.4, -1.1]) {
      expect(compile(f)(x)).toBeCloseTo(f(x), 11);
      expectClose(
        [num(grad(f)(x))],
        numericGradient((p) => f(p[0]!), [x], 1e-5),
        1e-6,
      );
    }
  });
});

describe("transforms inside a plain function the translation refuses, each at its call", () => {
  it("a transform used as a value, a Jacobian with respect to an object, a transform of a number", () => {
    const asValue = (x: number) => {
      const d = grad;
      return num(d((y: number) => y * x)(1));
    };
    expect(thrown(() => grad(asValue)(1)).headline).toMatch(/grad is used as a value here/);
    const ofObject = (x: number) => num(jacobian((p: { a: number }) => p.a * x)({ a: x }));
    const e = thrown(() => grad(ofObject)(1));
    expect(e.headline).toMatch(/jacobian inside a plain function is taken with respect to a number or an array/);
    // (vitest calls an import `(0, __vite_ssr_import_1__.jacobian)`.)
    expect(e.span!.file.text.slice(e.span!.start, e.span!.end)).toMatch(
      /jacobian\)?\(\(p\) => p\.a \* x\)\(\{ a: x \}\)$/,
    );
    const notAFunction = (x: number) => num(grad(3 as unknown as Scalar)(x));
    expect(thrown(() => grad(notAFunction)(1)).headline).toMatch(/grad takes a function, not number/);
  });
});
