// Builds written over a dead array they read elementwise (src/lowering/ownership.ts `buildInto`, src/wasm/build.ts
// `overwrite`): `let e = build n f in .. build n (fun i -> e[i] / s)` needs no second buffer when e is fresh and
// read nowhere after. Values bit for bit the interpreter's and the js back end's; the near misses (e kept, read
// after, read at another index, reused by a loop around the build) are left alone, and the caller's arrays are never
// written.

import { describe, expect, test } from "vitest";
import { loadProgram, type Engine } from "../../src/api/program.js";
import type { Value } from "../../src/runtime/value.js";
import { INT, VECTOR, type Type } from "../../src/types/types.js";
import { random } from "../helpers.js";

const SOURCE = `
let normalise = fun (x: Vector) ->
  let e = build (length x) (fun i -> exp x[i]) in
  let s = ifold (fun s i -> s + e[i]) 0. (length x) in
  build (length x) (fun i -> e[i] / s)
let keeps = fun (x: Vector) ->
  let e = build (length x) (fun i -> exp x[i]) in
  let s = ifold (fun s i -> s + e[i]) 0. (length x) in
  (e, build (length x) (fun i -> e[i] / s))
let reversed = fun (x: Vector) ->
  let e = build (length x) (fun i -> exp x[i]) in
  let s = ifold (fun s i -> s + e[i]) 0. (length x) in
  let n = length x in
  build n (fun i -> e[n - 1 - i] / s)
let mirrored = fun (x: Vector) ->
  let e = build (length x) (fun i -> exp x[i]) in
  let s = ifold (fun s i -> s + e[i]) 0. (length x) in
  let n = length x in
  build n (fun i -> (e[i] + e[n - 1 - i]) / s)
let readAfter = fun (x: Vector) ->
  let e = build (length x) (fun i -> exp x[i]) in
  let s = ifold (fun s i -> s + e[i]) 0. (length x) in
  (build (length x) (fun i -> e[i] / s), e[1])
let longer = fun (x: Vector) (m: Index) ->
  let e = build (length x) (fun i -> exp x[i]) in
  let s = ifold (fun s i -> s + e[i]) 0. (length x) in
  build m (fun i -> if i < length x then e[i] / s else s)
let inLoop = fun (x: Vector) ->
  let e = build (length x) (fun i -> exp x[i]) in
  let s = ifold (fun s i -> s + e[i]) 0. (length x) in
  ifold (fun acc j -> build (length x) (fun i -> e[i] * acc[i] + s)) x (length x)
`;
const prog = loadProgram({ name: "build-in-place.smooth", text: SOURCE });
const vec = (xs: number[]): Value => ({
  tag: "dense",
  elemKind: "double",
  shape: [xs.length],
  data: Float64Array.from(xs),
});
const inPlaceCount = (name: string, types: Type[], engine: Engine = "wasm") =>
  Number(/(\d+) builds written over/.exec(prog.specialise(name, types, engine).code?.text ?? "")?.[1] ?? 0);

/** Runs `name` on wasm, js and the interpreter: bit for bit the interpreter's, the caller's arrays untouched. */
function agree(name: string, types: Type[], args: Value[]): void {
  const before = args.map((a) => structuredClone(a));
  const reference = prog.specialise(name, types, "interp").run(args);
  for (const engine of ["wasm", "js"] as Engine[])
    expect(prog.specialise(name, types, engine).run(args)).toEqual(reference);
  expect(args).toEqual(before);
}

/** normalise in float32 by hand: every operation rounded (exp: its float64 value rounded), the sum in order. */
function normaliseF32(x: number[]): number[] {
  const e = x.map((v) => Math.fround(Math.exp(Math.fround(v))));
  const s = e.reduce((a, v) => Math.fround(a + v), 0);
  return e.map((v) => Math.fround(v / s));
}

describe("a build written over a dead array it reads elementwise", () => {
  const sizes = [0, 1, 2, 3, 7, 64, 1001];

  test("normalise (softmax's shape): in place, equal to the interpreter and js", () => {
    expect(inPlaceCount("normalise", [VECTOR])).toBe(1);
    expect(inPlaceCount("normalise", [VECTOR], "wasm-f32")).toBe(1);
    for (const n of sizes) {
      const x = random(n, n + 1);
      agree("normalise", [VECTOR], [vec(x)]);
      const f32 = prog.specialise("normalise", [VECTOR], "wasm-f32").run([vec(x)]) as unknown as { data: Float32Array };
      expect(Array.from(f32.data)).toEqual(normaliseF32(x));
    }
  });

  test("a build over a loop's state that the loop reuses: the state, copied once from the argument, not e", () => {
    expect(inPlaceCount("inLoop", [VECTOR])).toBe(1);
    for (const n of sizes.slice(0, 5)) agree("inLoop", [VECTOR], [vec(random(n, n + 5).map((v) => v / 4))]);
  });

  test("a conditional read in a longer build: a's buffer only when it is long enough", () => {
    expect(inPlaceCount("longer", [VECTOR, INT])).toBe(1);
    for (const [n, m] of [
      [3, 5],
      [5, 3],
      [4, 4],
      [0, 2],
    ] as const)
      agree("longer", [VECTOR, INT], [vec(random(n, n + 9)), m]);
  });

  test("left alone when e is kept, read after, or read at another index (which in place would clobber)", () => {
    for (const name of ["keeps", "readAfter", "reversed", "mirrored"]) {
      expect(inPlaceCount(name, [VECTOR])).toBe(0);
      for (const n of [2, 3, 9]) agree(name, [VECTOR], [vec(random(n, n + 3))]);
    }
  });
});
