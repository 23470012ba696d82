// The arena compiled code allocates its arrays from (src/codegen/arena.ts): results never share memory with a later
// call, reused memory reads as zeros where the program relies on fresh arrays being zero, and arrays too large for
// the arena or past its cap are ordinary allocations.

import { describe, expect, it } from "vitest";
import { Arena } from "../../src/codegen/arena.js";
import { loadProgram } from "../../src/api/program.js";
import { VECTOR } from "../../src/types/types.js";
import type { Value } from "../../src/runtime/value.js";

const dense = (data: number[]): Value => ({
  tag: "dense",
  elemKind: "double",
  shape: [data.length],
  data: Float64Array.from(data),
});
const dataOf = (v: Value): number[] => [...(v as { data: Float64Array }).data];

describe("compiled code allocating from an arena", () => {
  const program = loadProgram({
    name: "arena.smooth",
    text: [
      "let scaled = fun (v: Vector) (s: Double) -> build (length v) (fun i -> v[i] * s)",
      // Each row is a small array that lives only within its iteration; the zeros come from zerosLike.
      "let rows = fun (v: Vector) -> build 3 (fun r -> let z = addAt (zerosLike v) r 1. in vectorSum (build (length v) (fun i -> z[i] * v[i])))",
      // Builds that write only some elements (a one-hot terminal, a branch leaving zeros) rely on zeroed memory.
      "let hot = fun (v: Vector) (k: Index) -> build (length v) (fun r -> build (length v) (fun i -> if i = k then v[r] else 0.))",
      "let half = fun (v: Vector) -> build (length v) (fun r -> if r < 2 then build (length v) (fun i -> v[i] * v[r]) else build (length v) (fun i -> 0.))",
    ].join("\n"),
  });

  it("returns results that a later call does not overwrite", () => {
    const f = program.specialise("scaled", [VECTOR, { k: "double" }], "js");
    const first = f.run([dense([1, 2, 3]), 2]);
    const second = f.run([dense([4, 5, 6]), 10]);
    expect(dataOf(first)).toEqual([2, 4, 6]);
    expect(dataOf(second)).toEqual([40, 50, 60]);
  });

  it("gives zeros where a build writes only some elements, after a call that wrote others", () => {
    const hot = program.specialise("hot", [VECTOR, { k: "int" }], "js");
    const flat = (v: Value) => [...(v as { data: Float64Array }).data];
    hot.run([dense([9, 9, 9]), 0]);
    expect(flat(hot.run([dense([1, 2, 3]), 2]))).toEqual([0, 0, 1, 0, 0, 2, 0, 0, 3]);
    const half = program.specialise("half", [VECTOR], "js");
    half.run([dense([5, 5, 5])]);
    expect(flat(half.run([dense([1, 2, 3])]))).toEqual([1, 2, 3, 2, 4, 6, 0, 0, 0]);
  });

  it("lends a borrowed result's memory to the next call, and copies an ordinary result out", () => {
    const f = program.specialise("scaled", [VECTOR, { k: "double" }], "js");
    const big = Array.from({ length: 1 << 15 }, (_, i) => i);
    const borrowed = f.runBorrowed([dense(big), 2]);
    expect(dataOf(borrowed)[100]).toBe(200);
    const next = f.runBorrowed([dense(big), 3]);
    // The same memory: the first result now reads the second's values (the price of borrowing).
    expect((next as { data: Float64Array }).data).toBe((borrowed as { data: Float64Array }).data);
    const own = f.run([dense(big), 4]);
    f.runBorrowed([dense(big), 5]);
    expect(dataOf(own)[100]).toBe(400);
    // A small result lives in the arena: borrowed, it is not copied out either.
    const small = f.runBorrowed([dense([1, 2, 3]), 2]);
    const smallAgain = f.runBorrowed([dense([1, 2, 3]), 7]);
    expect((smallAgain as { data: Float64Array }).data).toBe((small as { data: Float64Array }).data);
  });

  it("gives zeros where a fresh array is zeros, on every call", () => {
    const f = program.specialise("rows", [VECTOR], "js");
    for (let call = 0; call < 3; call++) expect(dataOf(f.run([dense([7, 8, 9, 10])]))).toEqual([7, 8, 9]);
  });
});

describe("Arena", () => {
  it("zeroes memory reused from an earlier call, and copies out only its own arrays", () => {
    const arena = new Arena();
    const a = arena.f64(4);
    a.fill(5);
    arena.reset();
    const b = arena.f64(4);
    expect(b.buffer).toBe(a.buffer);
    expect([...b]).toEqual([0, 0, 0, 0]);
    const own = arena.detach(b);
    expect(own.buffer).not.toBe(b.buffer);
    const outside = new Float64Array(3);
    expect(arena.detach(outside)).toBe(outside);
  });

  it("hands a call the views the previous call had, zeroed, and new ones where the arrays differ", () => {
    const arena = new Arena();
    const a = arena.f64(4);
    const b = arena.i32(2);
    a.fill(3);
    b.fill(7);
    arena.reset();
    const a2 = arena.f64(4);
    const b2 = arena.i32(2);
    expect(a2).toBe(a);
    expect(b2).toBe(b);
    expect([...a2]).toEqual([0, 0, 0, 0]);
    expect([...b2]).toEqual([0, 0]);
    arena.reset();
    const longer = arena.f64(5);
    expect(longer).not.toBe(a);
    expect(longer.length).toBe(5);
    // Same length as the previous call's second f64 request would be, but at another offset: a view of its own.
    const next = arena.f64(4, false);
    expect(next).not.toBe(a);
    expect(next.byteOffset).toBe(longer.byteOffset + 40);
  });

  it("gives a call that needs more than it keeps further chunks for that call only", () => {
    const arena = new Arena(32);
    // 8 arrays of 128 KB fill a 1 MB chunk: 33 chunks is one more than this arena keeps.
    const first = Array.from({ length: 8 * 33 }, () => arena.f64(16384));
    const past = first[first.length - 1]!;
    past.fill(7);
    expect(new Set(first.map((a) => a.buffer)).size).toBe(33);
    // A result in the transient chunk is still copied out.
    const result = arena.detach(past);
    expect(result.buffer).not.toBe(past.buffer);
    arena.reset();
    const second = Array.from({ length: 8 * 33 }, () => arena.f64(16384));
    // The kept chunks' views are handed out again; the transient chunk is new memory with a view of its own.
    expect(second[0]).toBe(first[0]);
    expect(second[second.length - 1]).not.toBe(past);
    expect(second[second.length - 1]!.buffer).not.toBe(past.buffer);
    expect([...second[second.length - 1]!.subarray(0, 3)]).toEqual([0, 0, 0]);
    expect(result[0]).toBe(7);
  });

  it("reuses large arrays from call to call only for a borrowed result, zeroed where asked", () => {
    const arena = new Arena();
    arena.reset(true);
    const big = arena.f64(1 << 20);
    big.fill(3);
    arena.reset(true);
    const again = arena.f64(1 << 20);
    expect(again).toBe(big);
    expect(again[12345]).toBe(0);
    arena.reset(false);
    expect(arena.f64(1 << 20)).not.toBe(big);
  });

  it("allocates large arrays on their own", () => {
    const arena = new Arena();
    const big = arena.f64(1 << 20);
    expect(big.length).toBe(1 << 20);
    expect(arena.detach(big)).toBe(big);
  });

  it("copies slices", () => {
    const arena = new Arena();
    const src = Float64Array.from([1, 2, 3, 4, 5]);
    expect([...arena.sliceF64(src, 1, 4)]).toEqual([2, 3, 4]);
    expect([...arena.sliceI32(Int32Array.from([1, 2, 3]), 0, 2)]).toEqual([1, 2]);
    expect([...arena.sliceU8(Uint8Array.from([1, 0, 1]), 2, 3)]).toEqual([1]);
  });
});
