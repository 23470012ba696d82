// The persistent compile cache in one process (src/cache/): a program compiled once is taken from the store by a
// program loaded again from the same source (nothing compiled: counted), runs the same — its results, and its errors
// with the same message and excerpt — and any change of what it was compiled from misses. A bad entry is compiled
// again.

import * as fs from "node:fs";
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { loadProgram } from "../../src/api/program.js";
import type { Engine } from "../../src/backends/registry.js";
import { DiskStore } from "../../src/cache/disk-store.js";
import { CACHE_COUNTS, setCompileCacheStore } from "../../src/cache/store.js";
import { grad, smoothModule } from "../../src/index.js";
import { setWasmThreads, withWasmThreads } from "../../src/wasm/parallel-run.js";

const SOURCE = `
let f = fun (v: Vector) -> sum (build (length v) (fun i -> sin v[i] * v[i]))
let at = fun (v: Vector) (i: Index) -> v[i] * 2.0
`;
const X = [0.5, -1.25, 2];
/** f's value and gradient by hand: Σ sin xᵢ · xᵢ; ∂/∂xᵢ = cos xᵢ · xᵢ + sin xᵢ. */
const F = X.reduce((s, x) => s + Math.sin(x) * x, 0);
const GRADIENT = X.map((x) => Math.cos(x) * x + Math.sin(x));

let dir: string;
const install = (id = "test-compiler") => setCompileCacheStore(new DiskStore(dir), id);
const entries = () => readdirSync(dir).filter((n) => n.endsWith(".entry"));
const load = (text = SOURCE) => loadProgram({ name: "cached.smooth", text });
/** What happened to the cache's counts while `f` ran. */
function counted<T>(f: () => T): { result: T; hits: number; misses: number; refused: number } {
  const before = { ...CACHE_COUNTS };
  const result = f();
  return {
    result,
    hits: CACHE_COUNTS.hits - before.hits,
    misses: CACHE_COUNTS.misses - before.misses,
    refused: CACHE_COUNTS.refused - before.refused,
  };
}
const errorOf = (f: () => unknown): string => {
  try {
    f();
  } catch (e) {
    return (e as Error).message;
  }
  throw new Error("no error");
};

const errorOr = (f: () => unknown): unknown => {
  try {
    return f();
  } catch (e) {
    return (e as Error).message;
  }
};

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "smooth-compile-cache-"));
  install();
});
afterEach(() => setCompileCacheStore(undefined));

describe("the persistent compile cache", () => {
  for (const engine of ["wasm", "js", "wasm-f32"] as Engine[])
    it(`a second load of the same source runs ${engine} code from the cache, compiling nothing`, () => {
      const cold = counted(() => load().runJson("f", [X], engine));
      expect(cold).toMatchObject({ hits: 0, misses: 1 });
      expect(entries()).toHaveLength(1);
      const warm = counted(() => load().runJson("f", [X], engine));
      expect(warm).toMatchObject({ hits: 1, misses: 0 });
      expect(warm.result).toBe(cold.result);
      expect(warm.result as number).toBeCloseTo(F, engine === "wasm-f32" ? 5 : 12);
    });

  it("code from the cache raises the error compiled code raises, with the same message and excerpt", () => {
    for (const engine of ["wasm", "js"] as Engine[]) {
      const fresh = errorOf(() => load().runJson("at", [X, 7], engine));
      expect(fresh).toMatch(/index 7 is out of range/);
      const warm = counted(() => errorOf(() => load().runJson("at", [X, 7], engine)));
      expect(warm.hits).toBe(1);
      expect(warm.result).toBe(fresh);
    }
  });

  it("a program whose compiles are all hits is never parsed; with the cache on, errors come at first use", () => {
    const types = [{ k: "array", elem: { k: "double" } }] as const;
    load().specialise("f", types, "wasm");
    load().derivative("f", types, [0], "wasm", undefined, "gradient");
    const prog = load();
    const parsed = () => (prog as unknown as { parsed?: unknown }).parsed !== undefined;
    expect(parsed()).toBe(false);
    expect(counted(() => prog.specialise("f", types, "wasm"))).toMatchObject({ hits: 1, misses: 0 });
    expect(counted(() => prog.derivative("f", types, [0], "wasm", undefined, "gradient")).hits).toBe(1);
    expect(parsed()).toBe(false);
    // Asking for the program itself parses it.
    expect(prog.specialise("f", types, "wasm").optimised.name).toBe("f");
    expect(parsed()).toBe(true);
    // A syntax error, and a name the program does not define, are the same errors as without a cache.
    const bad = "let f = fun (v: Vector) -> sum (";
    setCompileCacheStore(undefined);
    const withoutCache = errorOf(() => load(bad));
    const unknown = errorOf(() => load().specialise("g", types, "wasm"));
    install();
    expect(errorOf(() => load(bad).specialise("f", types, "wasm"))).toBe(withoutCache);
    expect(errorOf(() => load().specialise("g", types, "wasm"))).toBe(unknown);
  });

  it("a module that runs builds across threads runs across them from the cache, raising the same errors", () => {
    const text = `
let pairs = fun (W: Matrix) (x: Vector) ->
  build (length W) (fun i ->
    let a = ifold (fun s k -> s + W[i][k] * x[k]) 0. (length x)
    build 2 (fun k -> if k = 0 then a else exp (0. - a * a)))
`;
    const W = Array.from({ length: 64 }, (_, i) => Array.from({ length: 9 }, (_, k) => Math.sin(i + 2 * k)));
    const x = Array.from({ length: 9 }, (_, k) => Math.cos(k));
    // By hand: row i is (W[i]·x, exp(-(W[i]·x)²)).
    const expected = W.map((row) => {
      const a = row.reduce((s, w, k) => s + w * x[k]!, 0);
      return [a, Math.exp(-a * a)];
    });
    setWasmThreads(2, 0, false);
    try {
      const run = (args: unknown[]) => {
        const prog = loadProgram({ name: "threads.smooth", text });
        return counted(() => ({
          code: prog.specialise("pairs", prog.argTypesFromJson("pairs", args), "wasm").code?.text,
          out: errorOr(() => prog.runJson("pairs", args, "wasm")),
        }));
      };
      const cold = run([W, x]);
      const warm = run([W, x]);
      expect(cold.misses).toBe(1);
      expect(warm).toMatchObject({ hits: 1, misses: 0 });
      expect(warm.result.code).toMatch(/1 builds across 2 threads/);
      expect(warm.result.out).toEqual(cold.result.out);
      (warm.result.out as number[][]).forEach((row, i) =>
        row.forEach((v, k) => expect(v).toBeCloseTo(expected[i]![k]!, 12)),
      );
      // x longer than the rows: the first row's index error, from the cached module as from the fresh one.
      const long = [...x, 1];
      const fresh = errorOf(() => loadProgram({ name: "threads.smooth", text }).runJson("pairs", [W, long], "js"));
      expect(fresh).toMatch(/index 9 is out of range/);
      expect(run([W, long]).result.out).toBe(fresh);
    } finally {
      setWasmThreads(undefined, 100_000, true);
    }
  });

  it("a hit still gives the optimised program when asked (compiling it then)", () => {
    load().specialise("f", [{ k: "array", elem: { k: "double" } }]);
    const spec = load().specialise("f", [{ k: "array", elem: { k: "double" } }]);
    expect(spec.optimised.name).toBe("f");
    expect(spec.code?.language).toBe("wasm");
  });

  it("the library's grad of a module's definition is taken from the cache by a new module", () => {
    const gradient = () => [...grad(smoothModule<{ f: (v: Float64Array) => number }>(SOURCE).f)(Float64Array.from(X))];
    const cold = counted(gradient);
    expect(cold.misses).toBeGreaterThanOrEqual(1);
    const warm = counted(gradient);
    expect(warm).toMatchObject({ hits: 1, misses: 0 });
    warm.result.forEach((g, i) => expect(g).toBeCloseTo(GRADIENT[i]!, 12));
  });

  it("misses when the source, the arguments' types, the back end, the threads or the compiler change", () => {
    load().runJson("f", [X], "wasm");
    const misses = (f: () => unknown) => counted(f).misses;
    expect(misses(() => load().runJson("f", [X], "js"))).toBe(1);
    expect(misses(() => load().runJson("at", [X, 1], "wasm"))).toBe(1);
    expect(misses(() => load(SOURCE + "\n").runJson("f", [X], "wasm"))).toBe(1);
    expect(
      misses(() => withWasmThreads(3, () => load().specialise("f", [{ k: "array", elem: { k: "double" } }]))),
    ).toBe(1);
    // Another version or build of Smooth.
    install("another-compiler");
    expect(misses(() => load().runJson("f", [X], "wasm"))).toBe(1);
    install();
    expect(misses(() => load().runJson("f", [X], "wasm"))).toBe(0);
  });

  it("a derivative of another kind or pipeline misses", () => {
    const lib = () => smoothModule<{ f: (v: Float64Array) => number }>(SOURCE);
    grad(lib().f)(Float64Array.from(X));
    expect(counted(() => grad(lib().f, { backend: "js" })(Float64Array.from(X))).misses).toBe(1);
    expect(counted(() => grad(lib().f)(Float64Array.from(X))).misses).toBe(0);
  });

  for (const damage of ["truncated", "corrupted", "emptied"] as const)
    it(`a ${damage} entry is compiled again, never run, and replaced`, () => {
      load().runJson("f", [X], "wasm");
      const [name] = entries();
      const path = join(dir, name!);
      const bytes = readFileSync(path);
      const whole = Buffer.from(bytes);
      if (damage === "truncated") writeFileSync(path, bytes.subarray(0, bytes.length >> 1));
      else if (damage === "emptied") writeFileSync(path, "");
      else {
        bytes[bytes.length - 20]! ^= 0xff; // in the wasm module's code
        writeFileSync(path, bytes);
      }
      const again = counted(() => load().runJson("f", [X], "wasm"));
      expect(again).toMatchObject({ hits: 0, misses: 1 });
      expect(again.result as number).toBeCloseTo(F, 12);
      // The same program compiled again is the same entry, byte for byte.
      expect(readFileSync(path)).toEqual(whole);
      expect(counted(() => load().runJson("f", [X], "wasm"))).toMatchObject({ hits: 1, misses: 0 });
    });

  it("an entry whose checksum passes but which holds no program is refused and compiled again", () => {
    const garbage = { read: () => new Uint8Array([3, 0, 0, 0, 1, 2, 3]), write: () => {} };
    setCompileCacheStore(garbage, "test-compiler");
    const r = counted(() => load().runJson("f", [X], "wasm"));
    expect(r).toMatchObject({ hits: 0, misses: 1, refused: 1 });
    expect(r.result as number).toBeCloseTo(F, 12);
  });

  it("a store that cannot write (a full disk, a read-only directory) leaves the answers right and says nothing", () => {
    for (const code of ["ENOSPC", "EROFS", "EACCES"]) {
      const failing = new DiskStore(dir, undefined, {
        ...fs,
        writeFileSync: () => {
          throw Object.assign(new Error(`${code}: cannot write`), { code });
        },
      });
      setCompileCacheStore(failing, `test-${code}`);
      expect(load().runJson("f", [X], "wasm") as number).toBeCloseTo(F, 12);
      expect(readdirSync(dir)).toEqual([]);
    }
  });
});
