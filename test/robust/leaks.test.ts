// Memory stays flat: for each of the library's entry points, the heap after a full collection once many more functions
// were made and called (each a plain function closing over its own constant, or a module of its own) stays within a
// small bound of the heap after the first ones; likewise for 10⁴ calls of one function, and for a staged function
// called with ever new shapes. (The inspector's handles of the closures it read were never released, keeping each
// function and all compiled for it: 112 KB per closure; a staged function kept every shape's trace and program:
// 135 KB per shape.) SMOOTH_LEAK_SCALE multiplies the counts (`SMOOTH_LEAK_SCALE=10 npx vitest run
// test/robust/leaks.test.ts` runs 900 closures and 10⁵ calls per entry point).

import { describe, expect, test } from "vitest";
import {
  compile,
  grad,
  hessian,
  jacobian,
  jvp,
  linearize,
  mul,
  smoothModule,
  sum,
  valueAndGrad,
  vjp,
  vmap,
  type Tensor,
} from "../../src/index.js";
import { heapAfterGc } from "../helpers.js";

const SCALE = Number(process.env.SMOOTH_LEAK_SCALE ?? 1);
const MB = 1e6;

/** The heap's growth (bytes) from after `warm` rounds to after `total` rounds of `round(i)`. */
function growth(round: (i: number) => unknown, warm: number, total: number): number {
  for (let i = 0; i < warm; i++) round(i);
  const before = heapAfterGc();
  for (let i = warm; i < total; i++) round(i);
  return heapAfterGc() - before;
}

const v = new Float64Array([0.5, 1.5, 2]);
const m = smoothModule("let f = fun (x: Double) (v: Vector) -> x * vectorSum v");

/** Per entry point: one round makes a new function (closing over k) and calls what the entry point makes of it. */
const NEW_FUNCTIONS: readonly [string, (k: number) => unknown][] = [
  ["grad", (k) => grad((x: number) => x * k + Math.sin(x))(1)],
  ["valueAndGrad", (k) => valueAndGrad((x: number) => x * k + Math.sin(x))(1)],
  ["jacobian", (k) => jacobian((x: Float64Array) => x.map((t) => t * k))(v)],
  ["hessian", (k) => hessian((x: number) => x * x * k)(1)],
  ["jvp", (k) => jvp((x: number) => x * k, [1], [1])],
  ["vjp", (k) => vjp((x: number) => x * k, 1)[1](1)],
  ["linearize", (k) => linearize((x: number) => x * k + Math.sin(x), 1)[1](1)],
  ["vmap", (k) => vmap((x: number) => x * k)(v)],
  ["compile", (k) => compile((x: number) => x * k)(1)],
  ["a module's definition", (k) => smoothModule(`let f = fun (x: Double) -> x * ${k}.`).f!(1)],
  ["a staged function", (k) => compile((x: Tensor) => sum(mul(x, k)))(v)],
];

/** Per entry point: one round calls the same function (made once) again. */
const fixed = {
  grad: grad(m.f!),
  valueAndGrad: valueAndGrad(m.f!, { argnums: [0, 1] }),
  jacobian: jacobian((x: Float64Array) => x.map((t) => t * 3)),
  hessian: hessian(m.f!, { argnums: 1 }),
  vjp: vjp(m.f!, 2, v)[1],
  linearize: linearize(m.f!, 2, v)[1],
  vmap: vmap(m.f!, { inAxes: [0, null] }),
  compile: compile((x: number) => Math.sin(x) * x),
  staged: compile((x: Tensor) => sum(mul(x, x))),
};
const SAME_FUNCTION: readonly [string, (i: number) => unknown][] = [
  ["grad", (i) => fixed.grad(i, v)],
  ["valueAndGrad", (i) => fixed.valueAndGrad(i, v)],
  ["jacobian", () => fixed.jacobian(v)],
  ["hessian", (i) => fixed.hessian(i, v)],
  ["jvp", (i) => jvp(m.f!, [i, v], [1, v])],
  ["vjp", () => fixed.vjp(1)],
  ["linearize", (i) => fixed.linearize(i, v)],
  ["vmap", () => fixed.vmap(v, v)],
  ["compile", (i) => fixed.compile(i)],
  ["a module's definition", (i) => m.f!(i, v)],
  ["a staged function", () => fixed.staged(v)],
];

describe("the heap stays flat", () => {
  test.each(NEW_FUNCTIONS)("%s of new closures", (_name, round) => {
    const [warm, total] = [Math.round(30 * SCALE), Math.round(90 * SCALE)];
    // Before the fix, 60 closures kept about 7 MB; now under 1 MB.
    expect(growth(round, warm, total) / MB).toBeLessThan(3);
  });

  test.each(SAME_FUNCTION)("%s called 10⁴ times", (_name, round) => {
    expect(growth(round, Math.round(1000 * SCALE), Math.round(10_000 * SCALE)) / MB).toBeLessThan(2);
  });

  test("a staged function called with ever new shapes keeps a bounded cache", () => {
    const f = compile((x: Tensor) => sum(mul(x, x)));
    // Past the cache's 64 shapes from the start; before the fix, 120 more shapes kept about 16 MB.
    const [warm, total] = [80, Math.round(200 * SCALE)];
    expect(growth((i) => f(new Float64Array(i + 1)), warm, total) / MB).toBeLessThan(4);
  });
});
