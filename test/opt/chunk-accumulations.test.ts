// Chunked accumulations (src/opt/chunk-accumulations.ts, src/opt/accumulation.ts): reverse mode's heavy sweep over
// points becomes CHUNKS independent loops from zeros plus an ordered sum. Programs in, programs out: which loops are
// chunked and which are left alone; values against the same gradient without the pass and against central finite
// differences; the chunked program run by the interpreter, js and wasm bit for bit.

import { describe, expect, test, vi } from "vitest";
import { loadProgram } from "../../src/api/program.js";
import { runFunction } from "../../src/eval/interpreter.js";
import { printIr } from "../../src/ir/print.js";
import { CHUNKS } from "../../src/opt/chunk-accumulations.js";
import { DERIVATIVE_PIPELINE, PASSES, STANDARD_PIPELINE } from "../../src/opt/pipeline.js";
import type { Pipeline } from "../../src/opt/pass.js";
import type { Value } from "../../src/runtime/value.js";
import { MAX_ARRAY_ELEMENTS } from "../../src/runtime/limits.js";
import { MATRIX, VECTOR } from "../../src/types/types.js";
import { random } from "../helpers.js";
import { parallelCalls, setWasmThreads } from "../../src/wasm/parallel-run.js";

const SOURCE = `
// Per point i, a triangular form of the point under each of K components: loops over k, j and l (depth 3) add into
// the K x d adjoint of c (every point adds to all of it) and into row i of the adjoint of x (the point's own row).
let fit = fun (c: Matrix) (x: Matrix) ->
  let K = length c
  let d = length c[0]
  ifold (fun s i ->
    s + ifold (fun t k ->
      t + ifold (fun u j ->
        let y = ifold (fun w l -> w + c[k][l] * x[i][l]) 0. (j + 1)
        u + y * y) 0. d) 0. K) 0. (length x)
// The same per component: the sweep over k adds only into row k of c's adjoint (the iterations own their rows).
let perComponent = fun (c: Matrix) (x: Vector) ->
  ifold (fun s k -> s + ifold (fun u j -> u + c[k][j] * c[k][j] * x[j]) 0. (length x)) 0. (length c)
// A triangle: the sweep over r adds into the whole of L, but runs only one loop deep, as deep as L has dimensions.
let triangle = fun (q: Vector) (l: Vector) (v: Vector) ->
  let d = length v
  ifold (fun t r ->
    let y = q[r] * v[r] + ifold (fun s c -> s + l[c * d + r] * v[c]) 0. r
    t + y * y) 0. d
`;
const prog = loadProgram({ name: "chunks.smooth", text: SOURCE });
const WITHOUT: Pipeline = DERIVATIVE_PIPELINE.filter((p) => p !== PASSES["chunk-accumulations"]);

const matrix = (rows: number, cols: number, seed: number): Value => ({
  tag: "dense",
  elemKind: "double",
  shape: [rows, cols],
  data: Float64Array.from(random(rows * cols, seed)),
});
/** The numbers of a result (a tuple of arrays and Doubles), in order. */
function numbers(v: unknown): number[] {
  if (typeof v === "number") return [v];
  if (Array.isArray(v)) return v.flatMap(numbers);
  const o = v as { data?: Float64Array; elems?: unknown[] };
  if (o.data !== undefined) return Array.from(o.data);
  if (o.elems !== undefined) return o.elems.flatMap(numbers);
  throw new Error(`numbers: ${JSON.stringify(v)}`);
}

const gradient = (name: string, types = [MATRIX, MATRIX], passes = DERIVATIVE_PIPELINE, engine: "js" | "wasm" = "js") =>
  prog.derivative(name, types, [0, 1], engine, passes, "gradient");

describe("chunk-accumulations", () => {
  test("chunks the sweep over points into CHUNKS loops and adds their sums to the adjoints in order", () => {
    const text = printIr(gradient("fit").optimised);
    expect(CHUNKS).toBe(8);
    // CHUNKS, or fewer when CHUNKS copies of the largest adjoint would pass the limit on an array's elements.
    expect(text).toMatch(new RegExp(`let chunks = min 8 \\(max 1 \\(${MAX_ARRAY_ELEMENTS} / max `));
    expect(text).toMatch(
      /build chunks \(fun chunk ->\s+let lo = chunk \* (\S+) \/ chunks in\s+let hi = \(chunk \+ 1\) \* \1 \/ chunks in/,
    );
    expect(text).toMatch(/if (\S+) < lo then\s+\S+\s+else\s+if \1 < hi then/);
    expect(text).toMatch(/addArray acc \S+\[\S+\]\) \S+ chunks/);
    expect(text.match(/build chunks/g)).toHaveLength(1);
  });

  test("leaves loops that own their rows, and loops no deeper than the arrays they add into", () => {
    expect(printIr(gradient("perComponent", [MATRIX, VECTOR]).optimised)).not.toMatch(/chunk/);
    expect(
      printIr(
        prog.derivative("triangle", [VECTOR, VECTOR, VECTOR], [0, 1, 2], "js", DERIVATIVE_PIPELINE, "gradient")
          .optimised,
      ),
    ).not.toMatch(/chunk/);
  });

  test("gives the gradient without chunks to rounding, and central finite differences, for any number of points", () => {
    const [K, d] = [3, 4];
    for (const n of [0, 1, 3, 8, 13, 40]) {
      const args = [matrix(K, d, 1 + n), matrix(n, d, 2 + n)];
      const chunked = numbers(gradient("fit").run(args));
      const plain = numbers(gradient("fit", undefined, WITHOUT).run(args));
      expect(chunked.length).toBe(plain.length);
      chunked.forEach((g, k) => expect(Math.abs(g - plain[k]!)).toBeLessThanOrEqual(1e-12 * (1 + Math.abs(g))));
      // d/dc[0][1] and d/dx[last][0] by central differences of the primal.
      const f = (a: Value[]) => numbers(prog.specialise("fit", [MATRIX, MATRIX], "js", STANDARD_PIPELINE).run(a))[0]!;
      const nudged = (which: number, at: number, h: number) =>
        args.map((v, k) => {
          if (k !== which) return v;
          const data = Float64Array.from((v as { data: Float64Array }).data);
          data[at]! += h;
          return { ...(v as object), data } as Value;
        });
      const h = 1e-5;
      const fd = (which: number, at: number) => (f(nudged(which, at, h)) - f(nudged(which, at, -h))) / (2 * h);
      // The gradient is (dc, dx): dc's element 1, and dx's last row after dc.
      expect(chunked[1]).toBeCloseTo(fd(0, 1), 6);
      if (n > 0) expect(chunked[K * d + (n - 1) * d]).toBeCloseTo(fd(1, (n - 1) * d), 6);
    }
  });

  test("the chunked program gives the same bits on the interpreter, js and wasm with one thread or two", () => {
    const [K, d, n] = [4, 5, 21];
    const args = [matrix(K, d, 7), matrix(n, d, 8)];
    const js = gradient("fit");
    const reference = numbers(runFunction(js.optimised, args));
    expect(numbers(js.run(args))).toEqual(reference);
    try {
      for (const threads of [1, 2]) {
        // Threshold 0 and the calling thread idle: with two threads every chunk is computed on a worker.
        setWasmThreads(threads, 0, false);
        const fresh = loadProgram({ name: `chunks-${threads}.smooth`, text: SOURCE });
        const wasm = fresh.derivative("fit", [MATRIX, MATRIX], [0, 1], "wasm", DERIVATIVE_PIPELINE, "gradient");
        // One thread: the chunks' loop over the points is a function of its own (src/wasm/outline.ts), inside the build
        // of the chunks; two: the chunks are a parallel site (whose part outlines the same loop).
        expect(wasm.code?.text).toMatch(
          threads === 1 ? /^(?!.*across).*; 1 loops as functions of their own/ : /across 2 threads/,
        );
        const calls = parallelCalls();
        expect(numbers(wasm.run(args))).toEqual(reference);
        expect(parallelCalls() - calls).toBe(threads - 1);
      }
    } finally {
      setWasmThreads(undefined, 100_000, true);
    }
  });

  test("adjoints too large for CHUNKS copies within the array limit are accumulated in fewer chunks", async () => {
    // With a limit of 100 elements: x's adjoint (6 x 5 = 30) in 8 chunks would be an array of 240 elements, an error
    // of the compiler's making; 3 chunks (90) fit. The gradient is the one without chunks, on every back end.
    vi.stubEnv("SMOOTH_MAX_ARRAY_ELEMENTS", "100");
    vi.resetModules();
    try {
      const limited = await import("../../src/api/program.js");
      const { DERIVATIVE_PIPELINE: pipeline } = await import("../../src/opt/pipeline.js");
      const small = limited.loadProgram({ name: "limited.smooth", text: SOURCE });
      const args = [matrix(3, 5, 11), matrix(6, 5, 12)];
      const plain = numbers(gradient("fit", undefined, WITHOUT).run(args));
      for (const engine of ["interp", "js", "wasm"] as const) {
        const g = small.derivative("fit", [MATRIX, MATRIX], [0, 1], engine, pipeline, "gradient");
        const chunked = numbers(g.run(args));
        expect(chunked.length).toBe(plain.length);
        chunked.forEach((x, k) => expect(Math.abs(x - plain[k]!)).toBeLessThanOrEqual(1e-12 * (1 + Math.abs(x))));
      }
      expect(printIr(small.derivative("fit", [MATRIX, MATRIX], [0, 1], "js", pipeline, "gradient").optimised)).toMatch(
        /min 8 \(max 1 \(100 \//,
      );
    } finally {
      vi.unstubAllEnvs();
      vi.resetModules();
    }
  });

  test("an index error inside a chunk is the one the loop raises without chunks", () => {
    const err = (passes: Pipeline) => {
      try {
        gradient("fit", undefined, passes).run([matrix(3, 4, 1), matrix(5, 3, 2)]);
      } catch (e) {
        return (e as Error).message;
      }
      return "no error";
    };
    expect(err(DERIVATIVE_PIPELINE)).toMatch(/index/);
    expect(err(DERIVATIVE_PIPELINE)).toBe(err(WITHOUT));
  });
});
