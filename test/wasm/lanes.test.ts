// SIMD lanes in the wasm back end (src/lowering/lanes.ts finds the loops, src/wasm/simd.ts writes them): which loops
// run two f64 lanes at a time (the module listing counts them), and that lanes change nothing a user sees — values
// bit for bit the js back end's and within rounding of a hand-written reference, odd lengths (a build's last group of
// lanes overlaps the one before; other loops' plain loop finishes the last element), and an index error raised at
// the same element with the same message.

import { describe, expect, it } from "vitest";
import { loadProgram } from "../../src/api/program.js";
import type { Value } from "../../src/runtime/value.js";
import { MATRIX, VECTOR, type Type } from "../../src/types/types.js";

const SOURCE = `
let lse = fun (v: Vector) -> logsumexp v
let scaled = fun (a: Vector) (b: Vector) -> build (length a) (fun i -> exp a[i] * b[i] + 1)
let shifted = fun (a: Vector) -> build (length a - 1) (fun i -> a[i + 1] - a[i])
let reversed = fun (a: Vector) -> build (length a) (fun i -> a[length a - 1 - i])
let rowSums = fun (m: Matrix) -> build (length m) (fun i -> vectorSum m[i])
let addShifted = fun (a: Vector) (v: Vector) -> ifold (fun s k -> addAt s (k + 1) (2. * v[k])) a (length v)
let layer = fun (W: Matrix) (x: Vector) -> vectorSum (build (length W) (fun i -> tanh (vectorDot W[i] x)))
let softmax = fun (v: Vector) ->
  let e = build (length v) (fun i -> exp v[i])
  let s = vectorSum e
  build (length v) (fun i -> e[i] / s)
let scaledProduct = fun (v: Vector) (w: Vector) ->
  let e = build (length v) (fun i -> v[i] * w[i])
  (prod e, e)
`;
const prog = loadProgram({ name: "lanes.smooth", text: SOURCE });

const vector = (xs: readonly number[]): Value => ({
  tag: "dense",
  elemKind: "double",
  shape: [xs.length],
  data: Float64Array.from(xs),
});
const numbers = (v: Value): number[] => (typeof v === "number" ? [v] : [...(v as { data: Float64Array }).data]);
const listing = (name: string, types: Type[]) => prog.specialise(name, types, "wasm").code?.text ?? "";
const run = (name: string, types: Type[], engine: "js" | "wasm", args: Value[]) =>
  numbers(prog.specialise(name, types, engine).run(args));

const xs = Array.from({ length: 1001 }, (_, i) => Math.sin(i * 0.37) * 20);
const ys = Array.from({ length: 1001 }, (_, i) => Math.cos(i * 0.11));

describe("SIMD lanes", () => {
  it("run logsumexp's two reductions (max, then the sum of exps) in lanes, bit for bit the js back end", () => {
    expect(listing("lse", [VECTOR])).toMatch(/; 2 loops in SIMD lanes$/);
    const wasm = run("lse", [VECTOR], "wasm", [vector(xs)]);
    expect(wasm).toEqual(run("lse", [VECTOR], "js", [vector(xs)]));
    const m = Math.max(...xs);
    const byHand = m + Math.log(xs.reduce((s, x) => s + Math.exp(x - m), 0));
    expect(Math.abs(wasm[0]! - byHand)).toBeLessThanOrEqual(1e-14 * Math.abs(byHand));
  });

  it("run elementwise builds with exp and offset reads, over odd lengths", () => {
    expect(listing("scaled", [VECTOR, VECTOR])).toMatch(/; 1 loops in SIMD lanes$/);
    expect(listing("shifted", [VECTOR])).toMatch(/; 1 loops in SIMD lanes$/);
    // Every length to 19 (exp builds run four groups of two lanes side by side, then single groups, the last one
    // overlapping the one before when the length is odd), and a long one.
    for (const n of [...Array.from({ length: 20 }, (_, k) => k), 1001]) {
      const [a, b] = [xs.slice(0, n), ys.slice(0, n)];
      const wasm = run("scaled", [VECTOR, VECTOR], "wasm", [vector(a), vector(b)]);
      expect(wasm).toEqual(a.map((x, i) => Math.exp(x) * b[i]! + 1));
      if (n > 0) expect(run("shifted", [VECTOR], "wasm", [vector(a)])).toEqual(a.slice(1).map((x, i) => x - a[i]!));
    }
  });

  it("leave loops with other reads alone (reversed order), and run row sums across rows (outer lanes)", () => {
    expect(listing("reversed", [VECTOR])).not.toMatch(/SIMD/);
    expect(run("reversed", [VECTOR], "wasm", [vector(xs)])).toEqual([...xs].reverse());
    // The build over rows, each group's sums in one loop over the columns; the last row's sum in lanes over columns.
    expect(listing("rowSums", [MATRIX])).toMatch(/; 3 loops in SIMD lanes \(1 of them in outer lanes\)$/);
    const rows = [xs.slice(0, 5), xs.slice(5, 10), xs.slice(10, 15)];
    const m: Value = { tag: "dense", elemKind: "double", shape: [3, 5], data: Float64Array.from(rows.flat()) };
    expect(run("rowSums", [MATRIX], "wasm", [m])).toEqual(rows.map((r) => r.reduce((s, x) => s + x, 0)));
  });

  it("run an in-place update at the loop index (plus one): values, odd lengths, the argument kept, errors", () => {
    expect(listing("addShifted", [VECTOR, VECTOR])).toMatch(/; 1 loops in SIMD lanes$/);
    for (const n of [0, 1, 2, 5, 8]) {
      const a = vector(xs.slice(0, n + 1));
      const v = ys.slice(0, n);
      const want = xs.slice(0, n + 1).map((x, i) => (i === 0 ? x : x + 2 * v[i - 1]!));
      expect(run("addShifted", [VECTOR, VECTOR], "wasm", [a, vector(v)])).toEqual(want);
      expect(numbers(a)).toEqual(xs.slice(0, n + 1)); // the argument is not updated
    }
    const message = (engine: "js" | "wasm") => {
      try {
        run("addShifted", [VECTOR, VECTOR], engine, [vector([0, 0, 0, 0]), vector(ys.slice(0, 6))]);
      } catch (e) {
        return (e as Error).message;
      }
      return "no error";
    };
    expect(message("wasm")).toMatch(/index error: index 4 is out of range for an array of length 4/);
    expect(message("wasm")).toBe(message("js"));
  });

  it("run reverse mode's weight update of a layer's gradient in lanes, bit for bit js and a hand gradient", () => {
    const [n, m] = [5, 7];
    const W: Value = { tag: "dense", elemKind: "double", shape: [n, m], data: Float64Array.from(xs.slice(0, n * m)) };
    const x = ys.slice(0, m);
    const g = prog.derivative("layer", [MATRIX, VECTOR], [0], "wasm", undefined, "gradient");
    expect(g.code?.text).toMatch(/loops in SIMD lanes/);
    const wasm = numbers(g.run([W, vector(x)]));
    expect(wasm).toEqual(
      numbers(prog.derivative("layer", [MATRIX, VECTOR], [0], "js", undefined, "gradient").run([W, vector(x)])),
    );
    // ∂/∂W_ij Σ_i tanh(W_i · x) = (1 - tanh²(W_i · x)) x_j.
    for (let i = 0; i < n; i++) {
      const t = Math.tanh(x.reduce((s, xj, j) => s + xs[i * m + j]! * xj, 0));
      for (let j = 0; j < m; j++) expect(wasm[i * m + j]).toBeCloseTo((1 - t * t) * x[j]!, 14);
    }
  });

  it("run a fold of an array in the loop that builds it (softmax's sum): bit for bit js and a hand softmax", () => {
    expect(listing("softmax", [VECTOR])).toMatch(
      /; 1 folds in the loop of the array they read; 1 builds written over an array they read$/,
    );
    for (const n of [1, 2, 3, 7, 100]) {
      const v = xs
        .slice(0, n % 23)
        .concat(ys)
        .slice(0, n);
      const e = v.map(Math.exp);
      const sum = e.reduce((a, b) => a + b, 0);
      const wasm = run("softmax", [VECTOR], "wasm", [vector(v)]);
      expect(wasm).toEqual(e.map((x) => x / sum));
      expect(wasm).toEqual(run("softmax", [VECTOR], "js", [vector(v)]));
    }
  });

  it("run a product fold with its array, and raise the build's index error at the same element as js", () => {
    const types = [VECTOR, VECTOR];
    expect(listing("scaledProduct", types)).toMatch(/; 1 folds in the loop of the array they read$/);
    const [v, w] = [xs.slice(0, 9), ys.slice(0, 9)];
    const terms = v.map((x, i) => x * w[i]!);
    const both = prog.specialise("scaledProduct", types, "wasm").run([vector(v), vector(w)]) as unknown as {
      elems: Value[];
    };
    expect(numbers(both.elems[0]!)).toEqual([terms.reduce((a, b) => a * b, 1)]);
    expect(numbers(both.elems[1]!)).toEqual(terms);
    const message = (engine: "js" | "wasm") => {
      try {
        prog.specialise("scaledProduct", types, engine).run([vector(v), vector(w.slice(0, 5))]);
      } catch (e) {
        return (e as Error).message;
      }
      return "no error";
    };
    expect(message("wasm")).toMatch(/index 5 is out of range for an array of length 5/);
    expect(message("wasm")).toBe(message("js"));
  });

  it("raise an index error at the same element, with the same message, as the js back end", () => {
    const args = [vector(xs.slice(0, 9)), vector(ys.slice(0, 6))];
    const message = (engine: "js" | "wasm") => {
      try {
        run("scaled", [VECTOR, VECTOR], engine, args);
      } catch (e) {
        return (e as Error).message;
      }
      return "no error";
    };
    expect(message("wasm")).toMatch(/index 6 is out of range for an array of length 6/);
    expect(message("wasm")).toBe(message("js"));
  });
});
