// Max and min reductions in SIMD lanes (src/wasm/lane-loops.ts `extremumInLanes`): each lane keeps its own running
// extremum and the lanes are combined at the end. Math.max/min give the same operand whatever the order (NaN if any
// is NaN, +0 above -0), so the result is bit for bit the loop's: checked here against the interpreter and a hand
// loop on inputs placing NaN, -0 and +0, ties and infinities at every position of short and long vectors.

import { describe, expect, test } from "vitest";
import { loadProgram } from "../../src/api/program.js";
import type { Value } from "../../src/runtime/value.js";
import { DOUBLE, VECTOR } from "../../src/types/types.js";
import { random } from "../helpers.js";

const prog = loadProgram({
  name: "extremum.smooth",
  text: `
let biggest = fun (x: Vector) (z: Double) -> ifold (fun m i -> max m (x[i] * 2.)) z (length x)
let smallest = fun (x: Vector) (z: Double) -> ifold (fun m i -> min (x[i] - 1.) m) z (length x)
`,
});
const vec = (xs: number[]): Value => ({
  tag: "dense",
  elemKind: "double",
  shape: [xs.length],
  data: Float64Array.from(xs),
});

function inputs(): number[][] {
  const out: number[][] = [];
  for (const n of [0, 1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 33, 1000]) {
    const base = random(n, n + 7).map((v) => v - 0.5);
    out.push(base);
    for (const special of [NaN, -0.5, 0.5, Infinity, -Infinity, 1e300])
      for (const at of n === 0 ? [] : [0, n >> 1, n - 1]) {
        const x = [...base];
        x[at] = special;
        out.push(x);
      }
    // Ties of +0 and -0 (of x * 2 and x - 1): the sign must be the loop's.
    out.push(base.map((_, i) => (i % 2 === 0 ? -0 : 0)));
    out.push(base.map((_, i) => (i % 3 === 0 ? 1 : 0.25)));
  }
  return out;
}

describe("max and min reductions in lanes", () => {
  for (const [name, step, z] of [
    ["biggest", (m: number, v: number) => Math.max(m, v * 2), -Infinity],
    ["smallest", (m: number, v: number) => Math.min(v - 1, m), 0],
  ] as const) {
    test(`${name}: in lanes, bit for bit the interpreter and a hand loop (float64 and float32)`, () => {
      const wasm = prog.specialise(name, [VECTOR, DOUBLE], "wasm");
      expect(wasm.code?.text).toMatch(/1 loops in SIMD lanes/);
      const f32 = prog.specialise(name, [VECTOR, DOUBLE], "wasm-f32");
      const interp = prog.specialise(name, [VECTOR, DOUBLE], "interp");
      for (const x of inputs()) {
        for (const start of [z, -0, NaN]) {
          const hand = x.reduce(step, start);
          const got = wasm.run([vec(x), start]) as number;
          expect(Object.is(got, hand) || (Number.isNaN(got) && Number.isNaN(hand))).toBe(true);
          expect(Object.is(got, interp.run([vec(x), start]))).toBe(true);
          const fr = Math.fround;
          const hand32 = x.reduce((m, v) => fr(step(m, fr(v))), fr(start));
          expect(Object.is(f32.run([vec(x), start]), hand32)).toBe(true);
        }
      }
    });
  }
});
