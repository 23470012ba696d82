// Chunk sites in the wasm back end (src/wasm/chunk-sites.ts, parallel.ts): `build 8 (fun c -> ... ifold (fun s i ->
// if i < lo then s else if i < hi then B else s) (x, zerosLike M, zerosLike v) n)`, an accumulation over n points
// split into a fixed number of chunks, each element a tuple of arrays started from zeros. With two threads its
// elements run across threads, each in its slice of the destination: results bit for bit those of one thread, of the
// js back end and of the interpreter; errors the single-threaded ones; an element whose arrays change shape leaves
// the build to one thread (its result, or its irregular build's error).

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadProgram, type Engine } from "../../src/api/program.js";
import { PASSES } from "../../src/opt/pipeline.js";
import type { Value } from "../../src/runtime/value.js";
import { INT, MATRIX, VECTOR, type Type } from "../../src/types/types.js";
import { parallelCalls, setWasmThreads, waitForWorkers } from "../../src/wasm/parallel-run.js";
import { parallelSites } from "../../src/wasm/parallel-sites.js";
import { matrix, random, vector } from "../helpers.js";

const SOURCE = `
// Per point i of chunk c: an inner loop over the point's row, a row added into a Matrix at the point's bucket, a
// Double added into a Vector, and a Double total started from a literal.
let hist = fun (X: Matrix) (M: Matrix) (v: Vector) ->
  let n = length X
  build 8 (fun c ->
    let lo = c * n / 8
    let hi = (c + 1) * n / 8
    let z1 = zerosLike M
    let z2 = zerosLike v
    ifold (fun s i ->
      if i < lo then s
      else if i < hi then
        let (t, A, b) = s
        let k = i - i / length M * length M
        let w = ifold (fun u j -> u + X[i][j] * X[i][j]) 0. (length X[i])
        let row = build (length X[i]) (fun j -> X[i][j] * w - sin (X[i][j]))
        (t * 0.5 + w, addAt A k row, addAt b (i - i / length v * length v) (sqrt w))
      else s) (0.5, z1, z2) n)
// The single-array form: the element is one Vector.
let counts = fun (X: Matrix) (v: Vector) ->
  let n = length X
  build 8 (fun c ->
    let lo = c * n / 8
    let hi = (c + 1) * n / 8
    ifold (fun s i ->
      if i < lo then s
      else if i < hi then addAt s (i - i / length v * length v) (ifold (fun u j -> u + exp (X[i][j] * 0.1)) 0. (length X[i]))
      else s) (zerosLike v) n)
// Zeros written as builds (what the optimiser makes of zerosLike of a build): a K x d Matrix and a K Vector.
let grid = fun (X: Matrix) (M: Matrix) ->
  let n = length X
  let K = length M
  let d = length M[0]
  build 8 (fun c ->
    let lo = c * n / 8
    let hi = (c + 1) * n / 8
    ifold (fun s i ->
      if i < lo then s
      else if i < hi then
        let (A, b) = s
        let k = i - i / K * K
        (addAt A k (build d (fun j -> X[i][j] * M[k][j])), addAt b k (ifold (fun u j -> u + X[i][j]) 0. d))
      else s) (build K (fun _ -> build d (fun _ -> 0.)), build K (fun _ -> 0.)) n)
// The first update cannot run in place (s is read after it): the element's state ends outside its slice.
let copies = fun (X: Matrix) (v: Vector) ->
  let n = length X
  build 8 (fun c ->
    let lo = c * n / 8
    let hi = (c + 1) * n / 8
    ifold (fun s i ->
      if i < lo then s
      else if i < hi then
        let t = addAt s (i - i / length v * length v) (ifold (fun u j -> u + X[i][j] * 0.5) 0. (length X[i]))
        addAt t 0 (s[1] * 0.25)
      else s) (zerosLike v) n)
// Reads at indexes the data gives: out of range where ix says so.
let picks = fun (X: Matrix) (v: Vector) (ix: Vector) ->
  let n = length X
  build 8 (fun c ->
    let lo = c * n / 8
    let hi = (c + 1) * n / 8
    ifold (fun s i ->
      if i < lo then s
      else if i < hi then
        let (t, b) = s
        (t + 1., addAt b (i - i / length v * length v) (ifold (fun u j -> u + X[i][j + toIndex ix[i]]) 0. 3))
      else s) (0., zerosLike v) n)
// Every element's Vector becomes a shorter one at its last point: elements of another shape than the zeros.
let shrinks = fun (X: Matrix) (v: Vector) ->
  let n = length X
  build 8 (fun c ->
    let lo = c * n / 8
    let hi = (c + 1) * n / 8
    ifold (fun s i ->
      if i < lo then s
      else if i < hi then
        let t = addAt s 0 (ifold (fun u j -> u + X[i][j]) 0. (length X[i]))
        if i = hi - 1 then build 2 (fun j -> t[j] * 2.) else t
      else s) (zerosLike v) n)
// Only the element holding point \`last\` changes shape: an irregular build.
let irregular = fun (X: Matrix) (v: Vector) (last: Index) ->
  let n = length X
  build 8 (fun c ->
    let lo = c * n / 8
    let hi = (c + 1) * n / 8
    ifold (fun s i ->
      if i < lo then s
      else if i < hi then
        let t = addAt s 0 (ifold (fun u j -> u + X[i][j]) 0. (length X[i]))
        if i = last then build 2 (fun j -> t[j] * 2.) else t
      else s) (zerosLike v) n)
// Not from zeros (the state starts from v itself): no chunk site.
let fromV = fun (X: Matrix) (v: Vector) ->
  let n = length X
  build 8 (fun c ->
    let lo = c * n / 8
    let hi = (c + 1) * n / 8
    ifold (fun s i ->
      if i < lo then s
      else if i < hi then addAt s 0 (ifold (fun u j -> u + X[i][j]) 0. (length X[i]))
      else s) v n)
`;

/** Every number of a value (fields of an array of tuples in order), and its shapes. */
function flat(v: Value): (number | string)[] {
  if (typeof v === "number" || typeof v === "boolean") return [Number(v)];
  if (v.tag === "dense") return [`shape ${v.shape.join("x")}`, ...Array.from(v.data as Float64Array)];
  if (v.tag === "tuparr") return v.fields.flatMap((f) => flat(f as Value));
  if (v.tag === "tuple") return v.elems.flatMap(flat);
  throw new Error(`not a value of a chunk site: ${v.tag}`);
}

/** Without the optimiser the zeros stay inside the element (the optimiser hoists them out of the build). */
const UNOPTIMISED = [PASSES["forward-ad"]!, PASSES.inline!];

function compiled(threads: number, name: string, types: Type[], engine: Engine, optimise = true) {
  setWasmThreads(threads, 0);
  const prog = loadProgram({ name: "chunks.smooth", text: SOURCE });
  return optimise ? prog.specialise(name, types, engine) : prog.specialise(name, types, engine, UNOPTIMISED);
}
const outcome = (threads: number, name: string, types: Type[], args: Value[], engine: Engine, optimise = true) => {
  try {
    return flat(compiled(threads, name, types, engine, optimise).run(args));
  } catch (e) {
    return (e as Error).message;
  }
};

describe.each([true, false])("chunk sites (wasm, two threads; the calling thread works: %s)", (callerWorks) => {
  // Calls leave out a worker that is still booting: every call below should run across threads.
  beforeAll(() => {
    setWasmThreads(2, 0, callerWorks);
    expect(waitForWorkers(2)).toBe(true);
  });
  afterAll(() => setWasmThreads(undefined, 100_000, true));

  const X = matrix(203, 37, random(203 * 37, 3));
  const M = matrix(5, 37, random(5 * 37, 4));
  const v = vector(random(7, 5));
  const cases: [string, string, Type[], Value[], boolean][] = [
    ["hist", "hist", [MATRIX, MATRIX, VECTOR], [X, M, v], true],
    ["hist, zeros in the element", "hist", [MATRIX, MATRIX, VECTOR], [X, M, v], false],
    ["counts", "counts", [MATRIX, VECTOR], [X, v], true],
    ["counts, zeros in the element", "counts", [MATRIX, VECTOR], [X, v], false],
    ["copies", "copies", [MATRIX, VECTOR], [X, v], true],
    ["grid", "grid", [MATRIX, MATRIX], [X, M], true],
  ];
  it.each(cases)("%s: across threads, bit for bit one thread, js and the interpreter", (...c) => {
    const [, name, types, args, optimise] = c;
    const two = compiled(2, name, types, "wasm", optimise);
    expect(two.code?.text).toMatch(/1 builds across 2 threads/);
    const before = parallelCalls();
    const result = flat(two.run(args));
    expect(parallelCalls()).toBe(before + 1);
    expect(result.filter((x) => typeof x === "number").every(Number.isFinite)).toBe(true);
    expect(result).toEqual(outcome(1, name, types, args, "wasm", optimise));
    expect(result).toEqual(outcome(1, name, types, args, "js", optimise));
    expect(result).toEqual(outcome(1, name, types, args, "interp"));
    // Again, on the same compiled function: the slices are cleared per element.
    expect(flat(two.run(args))).toEqual(result);
  });

  it.each(cases)("%s, in float32: bit for bit one thread", (...c) => {
    const [, name, types, args, optimise] = c;
    const two = compiled(2, name, types, "wasm-f32", optimise);
    expect(two.code?.text).toMatch(/1 builds across 2 threads/);
    expect(flat(two.run(args))).toEqual(outcome(1, name, types, args, "wasm-f32", optimise));
  });

  it("an index error in an early or a late element is the single-threaded one", () => {
    const types = [MATRIX, VECTOR, VECTOR];
    expect(compiled(2, "picks", types, "wasm").code?.text).toMatch(/1 builds across 2 threads/);
    const ok = random(203, 11).map((x) => Math.floor((x + 1) * 10));
    const fine = outcome(2, "picks", types, [X, v, vector(ok)], "wasm");
    expect(fine).toEqual(outcome(1, "picks", types, [X, v, vector(ok)], "interp"));
    for (const bad of [[3], [190], [30, 180]]) {
      const ix = [...ok];
      for (const b of bad) ix[b] = 35 + (b % 3);
      const args = [X, v, vector(ix)];
      const one = outcome(1, "picks", types, args, "wasm");
      expect(one).toMatch(/out of range/);
      expect(outcome(2, "picks", types, args, "wasm")).toEqual(one);
      expect(outcome(1, "picks", types, args, "interp")).toEqual(one);
    }
  });

  it("elements of another shape than the zeros: one thread's result, or its irregular build's error", () => {
    const two = compiled(2, "shrinks", [MATRIX, VECTOR], "wasm");
    expect(two.code?.text).toMatch(/1 builds across 2 threads/);
    const result = flat(two.run([X, v]));
    expect(result[0]).toBe("shape 8x2");
    expect(result).toEqual(outcome(1, "shrinks", [MATRIX, VECTOR], [X, v], "interp"));
    const types = [MATRIX, VECTOR, INT];
    expect(compiled(2, "irregular", types, "wasm").code?.text).toMatch(/1 builds across 2 threads/);
    for (const last of [0, 100, 202]) {
      const one = outcome(1, "irregular", types, [X, v, last], "interp");
      expect(one).toMatch(/shape/);
      expect(outcome(2, "irregular", types, [X, v, last], "wasm")).toEqual(one);
    }
  });

  it("below the threshold of work the site runs on the calling thread: the same bits", () => {
    const types = [MATRIX, MATRIX, VECTOR];
    const X2 = matrix(203, 37, random(203 * 37, 9));
    const expected = [X, X2].map((x) => outcome(1, "hist", types, [x, M, v], "interp"));
    setWasmThreads(2, 1e15);
    const fn = loadProgram({ name: "chunks.smooth", text: SOURCE }).specialise("hist", types, "wasm");
    expect(fn.code?.text).toMatch(/1 builds across 2 threads/);
    const before = parallelCalls();
    // Twice, the second call with other data in the memory the first left (its env block's claim word among it).
    expect(flat(fn.run([X, M, v]))).toEqual(expected[0]);
    expect(flat(fn.run([X2, M, v]))).toEqual(expected[1]);
    expect(parallelCalls()).toBe(before);
  });

  it("a site whose elements keep the zeros' shape runs its part on one thread too, with no build of its own", () => {
    // The loop only updates its state, through the chunk's `if i < lo then s else ...` and an update in tail
    // position (counts): the element's shape is the destination's. Zero builds (grid: their sizes could be
    // negative) and loops that replace an array (shrinks, irregular) keep the single-threaded build.
    const keeps = (name: string, types: Type[]) =>
      parallelSites(compiled(2, name, types, "wasm").optimised).map((s) => s.chunk?.keepsShape);
    expect(keeps("hist", [MATRIX, MATRIX, VECTOR])).toEqual([true]);
    expect(keeps("counts", [MATRIX, VECTOR])).toEqual([true]);
    expect(keeps("copies", [MATRIX, VECTOR])).toEqual([true]);
    expect(keeps("grid", [MATRIX, MATRIX])).toEqual([false]);
    expect(keeps("shrinks", [MATRIX, VECTOR])).toEqual([false]);
    expect(keeps("irregular", [MATRIX, VECTOR, INT])).toEqual([false]);
  });

  it("a state that does not start from zeros is no chunk site", () => {
    expect(compiled(2, "fromV", [MATRIX, VECTOR], "wasm").code?.text).not.toMatch(/threads/);
  });
});
