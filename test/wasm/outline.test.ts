// Loops as functions of their own (src/wasm/outline.ts): an ifold at the top of a function over an array's elements
// whose body runs loops is a wasm function that `main` calls on chunks of iterations, and the element of a build at
// the top that runs loops (its lets, and a terminal's value) a function `main` calls once per element (the module
// listing counts both), and that changes nothing a user sees — values bit for bit the js back end's and the
// interpreter's, loop states of scalars, arrays updated in place and tuples (parts of them passed on unchanged),
// elements that are tuples and arrays, and index and shape errors raised at the same element with the same message.

import { describe, expect, it } from "vitest";
import { loadProgram } from "../../src/api/program.js";
import type { Value } from "../../src/runtime/value.js";
import { INT, MATRIX, VECTOR, type Type } from "../../src/types/types.js";

const SOURCE = `
let chained = fun (m: Matrix) ->
  ifold (fun s i -> ifold (fun t j -> t * 0.5 + m[i][j]) s (length m[i])) 0. (length m)
let running = fun (m: Matrix) ->
  ifold (fun acc i -> setAt acc (i - i) (acc[0] * 0.5 + vectorSum m[i])) (build 1 (fun i -> 0.)) (length m)
let pair = fun (m: Matrix) (v: Vector) ->
  ifold (fun st i ->
    let (best, total) = st
    let r = vectorDot m[i] v
    (max best r, addAt total 0 (best * vectorSum (build (length v) (fun j -> m[i][j] * r)))))
    (-1e300, build 1 (fun i -> 0.)) (length m)
let shiftedRead = fun (m: Matrix) (k: Index) ->
  ifold (fun s i -> ifold (fun t j -> t * 0.5 + m[i][j + k]) s (length m[i])) 0. (length m)
let flat = fun (v: Vector) -> ifold (fun s i -> s * 0.5 + v[i] * v[i]) 0. (length v)
let steps = fun (m: Matrix) (k: Index) ->
  ifold (fun s i -> ifold (fun t j -> t * 0.5 + m[i][j]) s (length m[i])) 0. k
`;
const prog = loadProgram({ name: "outline.smooth", text: SOURCE });

const matrix = (rows: number, cols: number, seed: number): Value => ({
  tag: "dense",
  elemKind: "double",
  shape: [rows, cols],
  data: Float64Array.from({ length: rows * cols }, (_, q) => Math.sin(seed + q * 0.37) * 3),
});
const vector = (n: number, seed: number): Value => ({
  tag: "dense",
  elemKind: "double",
  shape: [n],
  data: Float64Array.from({ length: n }, (_, q) => Math.cos(seed + q * 0.11)),
});
const listing = (name: string, types: Type[]) => prog.specialise(name, types, "wasm").code?.text ?? "";
const run = (name: string, types: Type[], engine: "interp" | "js" | "wasm", args: Value[]) =>
  prog.specialise(name, types, engine).run(args);
const error = (f: () => unknown): string => {
  try {
    f();
  } catch (e) {
    return (e as Error).message;
  }
  throw new Error("no error raised");
};

describe("loops as functions of their own", () => {
  it("take an ifold at the top over an array's elements whose body runs loops, not one whose body runs none", () => {
    for (const [name, types] of [
      ["chained", [MATRIX]],
      ["running", [MATRIX]],
      ["pair", [MATRIX, VECTOR]],
    ] as const)
      expect(listing(name, [...types])).toMatch(/; 1 loops as functions of their own$/);
    expect(listing("flat", [VECTOR])).not.toMatch(/functions of their own/);
    // A count that is not an array's dimension (a number of steps): left in main.
    expect(listing("steps", [MATRIX, INT])).not.toMatch(/functions of their own/);
  });

  it("compute what the js back end and the interpreter compute, bit for bit", () => {
    const cases: [string, Type[], Value[]][] = [
      ["chained", [MATRIX], [matrix(37, 11, 1)]],
      ["chained", [MATRIX], [matrix(0, 11, 1)]],
      // Chunks of 1, 2, 4, ... 64 iterations, then 64 at a time.
      ["chained", [MATRIX], [matrix(300, 3, 7)]],
      ["running", [MATRIX], [matrix(23, 9, 3)]],
      ["pair", [MATRIX, VECTOR], [matrix(19, 7, 4), vector(7, 5)]],
      ["shiftedRead", [MATRIX, INT], [matrix(5, 6, 6), 0]],
    ];
    for (const [name, types, args] of cases) {
      const wasm = run(name, types, "wasm", args);
      expect(wasm).toEqual(run(name, types, "js", args));
      expect(wasm).toEqual(run(name, types, "interp", args));
    }
  });

  it("raise an index error inside the body as the other back ends do", () => {
    const args = [matrix(5, 6, 6), 1];
    const message = error(() => run("shiftedRead", [MATRIX, INT], "wasm", args));
    expect(message).toMatch(/index/);
    expect(message).toEqual(error(() => run("shiftedRead", [MATRIX, INT], "js", args)));
    expect(message).toEqual(error(() => run("shiftedRead", [MATRIX, INT], "interp", args)));
  });

  it("leave in main a loop whose function would take more parameters than the engines allow (1,000)", () => {
    // Each a_k is a Double the body reads per iteration: a parameter of the function. 990 of them (plus the loop's own
    // slots) fit, 1010 do not: that loop stays in main, and the module still compiles and computes what js does.
    const wide = (count: number) => {
      const lets = Array.from({ length: count }, (_, k) => `  let a${k} = sin (v[0] + ${k}.25)`).join("\n");
      const terms = Array.from({ length: count }, (_, k) => `m[i][j] * a${k}`).join(" + ");
      const text = `let wide = fun (m: Matrix) (v: Vector) ->\n${lets}
  ifold (fun s i -> ifold (fun t j -> t * 0.5 + ${terms}) s (length m[i])) 0. (length m)`;
      return loadProgram({ name: `wide-${count}.smooth`, text });
    };
    const args = [matrix(3, 4, 8), vector(2, 9)];
    const fits = wide(990).specialise("wide", [MATRIX, VECTOR], "wasm");
    expect(fits.code?.text).toMatch(/; 1 loops as functions of their own$/);
    const tooMany = wide(1010);
    const inMain = tooMany.specialise("wide", [MATRIX, VECTOR], "wasm");
    expect(inMain.code?.text).not.toMatch(/functions of their own/);
    expect(inMain.run(args)).toEqual(tooMany.specialise("wide", [MATRIX, VECTOR], "js").run(args));
  });

  it("take the loop over points of gmm's gradient, bit for bit the js back end", () => {
    const gmm = loadProgram({
      name: "gmm-outline.smooth",
      text: `
let lse = fun (v: Vector) -> logsumexp v
let f = fun (alphas: Vector) (means: Matrix) (x: Matrix) ->
  vectorSum (build (length x) (fun i ->
    lse (build (length alphas) (fun k ->
      alphas[k] - 0.5 * ifold (fun s j -> let y = x[i][j] - means[k][j] in s + y * y) 0. (length x[i])))))
`,
    });
    const types = [VECTOR, MATRIX, MATRIX];
    const args = [vector(5, 1), matrix(5, 3, 2), matrix(40, 3, 3)];
    const grad = (engine: "js" | "wasm") => gmm.derivative("f", types, [0, 1], engine, undefined, "gradient");
    expect(grad("wasm").code?.text).toMatch(/loops as functions of their own/);
    expect(grad("wasm").run(args)).toEqual(grad("js").run(args));
  });

  describe("the elements of a build at the top", () => {
    const builds = loadProgram({
      name: "outline-builds.smooth",
      text: `
let positives = fun (m: Matrix) ->
  build (length m) (fun i -> double (ifold (fun c j -> if m[i][j] > 0. then c + 1 else c) 0 (length m[i])))
let scaled = fun (m: Matrix) ->
  build (length m) (fun i ->
    let s = ifold (fun t j -> t + m[i][j] * m[i][j]) 0. (length m[i])
    build (length m[i]) (fun j -> m[i][j] / (1. + s)))
let fresh = fun (m: Matrix) ->
  build (length m) (fun i ->
    let r = build (length m[i]) (fun j -> m[i][j] * 2.)
    let total = vectorSum r
    build (length r) (fun j -> r[j] + total))
let pairs = fun (m: Matrix) (v: Vector) ->
  build (length m) (fun i ->
    let c = ifold (fun c j -> if m[i][j] > v[j] then c + 1 else c) 0 (length m[i])
    (double c * 0.5, c))
let shifted = fun (m: Matrix) (k: Index) ->
  build (length m) (fun i -> ifold (fun t j -> t + m[i][j + k]) 0. (length m[i]))
let ragged = fun (m: Matrix) ->
  build (length m) (fun i ->
    let s = vectorSum m[i]
    build (i + 1) (fun j -> s * 2.))
let plain = fun (m: Matrix) -> build (length m) (fun i -> m[i][0] * 2.)
`,
    });
    const code = (name: string, types: Type[]) => builds.specialise(name, types, "wasm").code?.text ?? "";
    const on = (name: string, types: Type[], engine: "interp" | "js" | "wasm", args: Value[]) =>
      builds.specialise(name, types, engine).run(args);
    const failure = (name: string, types: Type[], engine: "interp" | "js" | "wasm", args: Value[]) =>
      error(() => on(name, types, engine, args));

    it("are functions of their own when they run loops, and stay in main when they do not", () => {
      for (const [name, types] of [
        ["positives", [MATRIX]],
        ["scaled", [MATRIX]],
        ["fresh", [MATRIX]],
        ["pairs", [MATRIX, VECTOR]],
        ["ragged", [MATRIX]],
      ] as const)
        expect(code(name, [...types]), name).toMatch(/; 1 loops as functions of their own$/);
      expect(code("plain", [MATRIX])).not.toMatch(/functions of their own/);
    });

    it("compute what the js back end and the interpreter compute, bit for bit", () => {
      const cases: [string, Type[], Value[]][] = [
        ["positives", [MATRIX], [matrix(37, 11, 1)]],
        ["positives", [MATRIX], [matrix(0, 4, 1)]],
        ["scaled", [MATRIX], [matrix(9, 5, 2)]],
        ["fresh", [MATRIX], [matrix(6, 7, 3)]],
        ["pairs", [MATRIX, VECTOR], [matrix(8, 3, 4), vector(3, 5)]],
        ["shifted", [MATRIX, INT], [matrix(5, 6, 6), 0]],
        ["ragged", [MATRIX], [matrix(1, 3, 7)]],
      ];
      for (const [name, types, args] of cases) {
        const wasm = on(name, types, "wasm", args);
        expect(wasm).toEqual(on(name, types, "js", args));
        expect(wasm).toEqual(on(name, types, "interp", args));
      }
    });

    it("raise index and shape errors as the other back ends do", () => {
      const shiftedArgs = [matrix(5, 6, 6), 1];
      const index = failure("shifted", [MATRIX, INT], "wasm", shiftedArgs);
      expect(index).toMatch(/index/);
      expect(index).toEqual(failure("shifted", [MATRIX, INT], "js", shiftedArgs));
      expect(index).toEqual(failure("shifted", [MATRIX, INT], "interp", shiftedArgs));
      // Rows of 1, 2, 3 elements: not a matrix.
      const raggedArgs = [matrix(3, 2, 8)];
      const shape = failure("ragged", [MATRIX], "wasm", raggedArgs);
      expect(shape).toMatch(/row|shape|irregular|length/i);
      expect(shape).toEqual(failure("ragged", [MATRIX], "js", raggedArgs));
      expect(shape).toEqual(failure("ragged", [MATRIX], "interp", raggedArgs));
    });
  });
});
