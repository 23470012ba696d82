// stopGradient: the identity in value, with derivative zero in every mode and back end. Reverse mode treats its
// result as inactive, so logsumexp's shift (stopGradient (vectorMax v)) costs no reverse loop and no tape, and the
// gradient is exactly softmax v (checked here against a softmax written in JavaScript).

import { describe, expect, test } from "vitest";
import { grad, jvp, mul, sin, smoothModule, stopGradient as stagedStopGradient, type Tensor } from "../../src/index.js";
import { forEachNode } from "../../src/ir/free.js";
import { printIr } from "../../src/ir/print.js";
import { SmoothError } from "../../src/syntax/diagnostics.js";
import { showType } from "../../src/types/types.js";
import { thrown } from "../helpers.js";
import { Point } from "../reverse/harness.js";
import { expectClose, load, runBoth, type Json } from "./harness.js";

const SCALARS = `
let f = fun (x: Double) -> x * stopGradient x
let g = fun (x: Double) -> sin (stopGradient x)
let h = fun (x: Double) -> stopGradient (x * x) * exp x
let df = fun (x: Double) -> snd (diff f x)
let dg = fun (x: Double) -> snd (diff g x)
let dh = fun (x: Double) -> snd (diff h x)
let ddf = fun (x: Double) -> snd (diff (fun y -> snd (diff f y)) x)
`;
const scalars = load(SCALARS);

/** The derivative of `name` at x: reverse (gradient), forward (the derivative program), reverse (value-gradient). */
function byPrograms(name: string, x: number): Json[] {
  const at = new Point(scalars, name, [x]);
  return [at.run("gradient"), at.run("forward"), (at.run("value-gradient") as Json[])[1]];
}

/** softmax v, shifted by its maximum: written here independently of the prelude. */
function softmax(v: readonly number[]): number[] {
  let m = -Infinity;
  for (const x of v) if (x > m) m = x;
  const e = v.map((x) => Math.exp(x - m));
  let s = 0;
  for (const x of e) s += x;
  return e.map((x) => x / s);
}

describe("stopGradient in value", () => {
  test("is the identity in the interpreter and in compiled code", () => {
    const p = load("let f = fun (x: Double) -> stopGradient x\nlet k = fun (x: Double) -> stopGradient (x * 2.) + 1.");
    for (const x of [3, -2.5, 0, 1e300, -7.25e-300]) {
      for (const engine of ["interp", "js", "wasm"] as const) {
        expect(p.runJson("f", [x], engine)).toBe(x);
        expect(p.runJson("k", [x], engine)).toBe(x * 2 + 1);
      }
    }
  });

  test("staged TypeScript: a plain number is returned as it is; on a tensor it traces to the primitive", () => {
    expect(stagedStopGradient(4.5)).toBe(4.5);
    const f = (x: Tensor) => mul(x, stagedStopGradient(x));
    expect(grad(f)(3)).toBe(3);
    expect(grad((x: Tensor) => sin(stagedStopGradient(x)))(0.7)).toBe(0);
  });
});

describe("stopGradient's derivative is zero", () => {
  test("d/dx (x * stopGradient x) at 3 is 3, not 6: forward (diff, the derivative program) and reverse", () => {
    expect(runBoth(scalars, "df", [3])).toBe(3);
    expect(byPrograms("f", 3)).toEqual([3, 3, 3]);
    // The derivative of x ↦ stopGradient x is zero, so the second derivative of f is 0, not 2.
    expect(runBoth(scalars, "ddf", [3])).toBe(0);
  });

  test("d/dx sin (stopGradient x) is 0 (not cos x) in every mode", () => {
    for (const x of [0, 0.7, -2]) {
      expect(runBoth(scalars, "dg", [x])).toBe(0);
      expect(byPrograms("g", x)).toEqual([0, 0, 0]);
    }
  });

  test("a stopped product scales the derivative of the rest: d/dx (stopGradient (x²) · eˣ) = x² eˣ", () => {
    for (const x of [0.5, -1.25]) {
      const expected = x * x * Math.exp(x);
      expectClose(runBoth(scalars, "dh", [x]), expected, 1e-14, "diff");
      expectClose(byPrograms("h", x), [expected, expected, expected], 1e-14, "derivative programs");
    }
  });

  test("the library's jvp of a Smooth function through stopGradient", () => {
    const m = smoothModule("let f = fun (x: Double) -> x * stopGradient x");
    const [value, tangent] = jvp(m.f!, [3], [1]) as [number, number];
    expect([value, tangent]).toEqual([9, 3]);
  });
});

describe("logsumexp: its shift is stopped", () => {
  const p = load("let f = fun (v: Vector) -> logsumexp v");
  const INPUTS: readonly (readonly number[])[] = [
    [0.3, -1.2, 2.5, 0.7],
    [700, 1, -3, 699.5], // unshifted, exp 700 + exp 699.5 overflows
    [2, 5, 5, -1], // ties for the maximum
    [700, 700, 700],
    [-4],
  ];

  test.each(INPUTS)("the gradient is softmax v, in reverse and forward mode (%j)", (...v) => {
    const at = new Point(p, "f", [v]);
    const expected = softmax(v);
    expectClose(at.run("gradient"), expected, 1e-14, "reverse");
    expectClose(at.run("forward"), expected, 1e-14, "forward");
  });

  test("tied maxima get exactly the same gradient, and the value is right", () => {
    const v = [2, 5, 5, -1];
    const g = new Point(p, "f", [v]).run("gradient") as number[];
    expect(g[1]).toBe(g[2]);
    expectClose(p.runJson("f", [v]), 5 + Math.log(Math.exp(-3) + 2 + Math.exp(-6)), 1e-15, "value");
    expectClose(p.runJson("f", [[700, 699]]), 700 + Math.log(1 + Math.exp(-1)), 1e-15, "value at 700");
  });

  test("the optimised gradient program computes the max once and has no reverse loop or tape for it", () => {
    const optimised = new Point(p, "f", [[1, 2, 3]]).specs("gradient").js.optimised;
    const printed = printIr(optimised);
    // The primal's max (the shift's value) stays; what reverse mode used to add for it is gone: the tape of running
    // maxima (setAt / record into a state tuple) and the reverse loop choosing between them (`>=`, max's select).
    expect(printed.match(/\bmax\b/g)?.length).toBe(1);
    expect(printed).toMatch(/let (\w+) = ifold \(fun \w+ \w+ -> max \w+ v\[\w+\]\) v\[0\] \w+ in/);
    expect(printed).toMatch(/stopGradient \(if (\w+) - \1 = 0\. then \1 else 0\.\)/);
    expect(printed).not.toMatch(/>=|\bsetAt\b|\brecord\b|tape/);
    // Two loops: the max and the sum of exps (for the seed 1 / sum); the reverse sweep, whose state was the adjoint
    // of the sum's state and of v only (the shift, being inactive, accumulates no adjoint), is a build of v's adjoint
    // (src/opt/rules/loop-state.ts): softmax.
    const states: string[] = [];
    forEachNode(optimised.body, (e) => {
      if (e.kind === "ifold") states.push(showType(e.type));
    });
    expect(states.sort()).toEqual(["Double", "Double"]);
    expect(printed).not.toMatch(/\baddAt\b|\bzerosLike\b/);
  });
});

describe("type errors", () => {
  test.each([
    ["a tuple", "let f = fun (x: Double) -> stopGradient (x, 2.)", "(x, 2.)", "Double * Double"],
    ["a Vector", "let f = fun (v: Vector) -> stopGradient v", "v", "Vector"],
  ])("stopGradient of %s is a type error located at the argument", (_what, source, argument, found) => {
    const e = thrown(() => load(source));
    expect(e).toBeInstanceOf(SmoothError);
    expect(e.kind).toBe("type");
    expect(e.message).toContain("`stopGradient`");
    expect(e.details).toEqual({ expected: "Double", found });
    const start = source.lastIndexOf(argument);
    expect([e.span?.start, e.span?.end]).toEqual([start, start + argument.length]);
  });
});
