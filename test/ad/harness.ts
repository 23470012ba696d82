// Test helpers for forward-mode AD: run a derivative program through every back end (the interpreter after the
// forward-ad pass, compiled JavaScript and WebAssembly after the standard pipeline, the IR verified after every
// pass), check that they agree and that the expanded program prints as Smooth that reads back; and central finite
// differences.

import { expect, test } from "vitest";
import { dualType } from "../../src/ad/dual-types.js";
import { describeParam } from "../../src/api/entry-types.js";
import { loadProgram, type SmoothProgram } from "../../src/api/program.js";
import { forwardAdPass } from "../../src/ad/expand.js";
import { compileFunction } from "../../src/codegen/compile.js";
import { WASM_BACKEND } from "../../src/wasm/backend.js";
import { runFunction } from "../../src/eval/interpreter.js";
import { someNode } from "../../src/ir/free.js";
import { typeOf, type IrFunction } from "../../src/ir/ir.js";
import { printIr } from "../../src/ir/print.js";
import { runPipeline } from "../../src/opt/pass.js";
import { STANDARD_PIPELINE } from "../../src/opt/pipeline.js";
import { numbersClose } from "../../src/runtime/equal.js";
import { valueFromJson, valueToJson } from "../../src/runtime/json.js";
import type { Type } from "../../src/types/types.js";

export type Json = unknown;

export function load(text: string): SmoothProgram {
  return loadProgram({ name: "ad-test.smooth", text });
}

export interface Expanded {
  readonly argTypes: readonly Type[];
  readonly resultType: Type;
  /** After forward-ad alone. */
  readonly expanded: IrFunction;
  /** After the standard pipeline. */
  readonly optimised: IrFunction;
}

/** Lowers `name` at the types of `args` and runs forward-ad, then the standard pipeline, verifying after every pass. */
export function expand(p: SmoothProgram, name: string, args: readonly Json[]): Expanded {
  const argTypes = p.argTypesFromJson(name, args);
  const lowered = p.specialise(name, argTypes, "interp").lowered;
  const expanded = runPipeline(lowered, [forwardAdPass], { verify: true });
  const optimised = runPipeline(lowered, STANDARD_PIPELINE, { verify: true });
  const jvpLeft = (fn: IrFunction) => someNode(fn.body, (e) => e.kind === "jvp");
  expect(jvpLeft(expanded)).toBe(false);
  expect(jvpLeft(optimised)).toBe(false);
  return { argTypes, resultType: typeOf(lowered.body), expanded, optimised };
}

/**
 * `name` applied to the JSON arguments: by the interpreter after forward-ad and by compiled JavaScript after the
 * standard pipeline (which must agree to 1e-12 relative), by WebAssembly (the same as JavaScript, bit for bit), and
 * by the printed forward-ad output read back as Smooth
 * (`reread`, default true). Returns the compiled result.
 */
export function runBoth(p: SmoothProgram, name: string, args: readonly Json[], opts: { reread?: boolean } = {}): Json {
  const { argTypes, resultType, expanded, optimised } = expand(p, name, args);
  const def = p.definition(name);
  const values = args.map((a, i) => valueFromJson(a, argTypes[i]!, describeParam(def, i)));
  const interp = valueToJson(runFunction(expanded, values), resultType);
  const js = valueToJson(compileFunction(optimised)(values), resultType);
  if (!jsonClose(interp, js, 1e-12)) {
    throw new Error(
      `${name}(${JSON.stringify(args)}): interpreter ${JSON.stringify(interp)}, compiled ${JSON.stringify(js)}`,
    );
  }
  const wasm = valueToJson(WASM_BACKEND.compile(optimised).run(values), resultType);
  if (JSON.stringify(wasm) !== JSON.stringify(js)) {
    throw new Error(`${name}(${JSON.stringify(args)}): JavaScript ${JSON.stringify(js)}, wasm ${JSON.stringify(wasm)}`);
  }
  if (opts.reread ?? true) {
    const text = printIr(expanded);
    const again = loadProgram({ name: "printed.smooth", text }, { prelude: false });
    // The entry is the last top-level definition (after the `let rec` group of the program's functions, if any).
    const printedName = [...text.matchAll(/^let (\S+)/gm)].at(-1)![1]!;
    const value = valueToJson(again.specialise(printedName, argTypes, "interp").run(values), resultType);
    if (!jsonClose(value, interp, 1e-12)) {
      throw new Error(
        `the printed derivative program computes ${JSON.stringify(value)}, not ${JSON.stringify(interp)}:\n${text}`,
      );
    }
  }
  return js;
}

/** Deep equality of JSON values with numbers equal up to `tol` relative (absolute below 1). */
export function jsonClose(a: Json, b: Json, tol: number): boolean {
  if (typeof a === "number" && typeof b === "number") return numbersClose(a, b, tol);
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => jsonClose(x, b[i], tol));
  return a === b;
}

/** Expects `actual` close to `expected` (relative `tol`, absolute below 1), with both in the failure message. */
export function expectClose(actual: Json, expected: Json, tol: number, what = ""): void {
  if (!jsonClose(actual, expected, tol)) {
    throw new Error(`${what}: got ${JSON.stringify(actual)}, expected ${JSON.stringify(expected)} (tolerance ${tol})`);
  }
}

// JSON arithmetic over nested arrays of numbers (points and directions of any shape).

export function axpy(x: Json, h: number, d: Json): Json {
  if (typeof x === "number") return x + h * (d as number);
  if (Array.isArray(x)) return x.map((xi, i) => axpy(xi, h, (d as Json[])[i]));
  return x;
}

/** (f(x + h d) - f(x - h d)) / 2h, elementwise over a JSON result (Index results give 0; Bools give null). */
export function centralDifference(f: (x: Json) => Json, x: Json, d: Json, h: number): Json {
  const diff = (a: Json, b: Json): Json => {
    if (typeof a === "number") return (a - (b as number)) / (2 * h);
    if (Array.isArray(a)) return a.map((ai, i) => diff(ai, (b as Json[])[i]));
    return null;
  };
  return diff(f(axpy(x, h, d)), f(axpy(x, -h, d)));
}

/** The tangent part of a dual value (JSON) of primal type `t`: Index and Bool parts become null. */
export function tangentOf(j: Json, t: Type): Json {
  switch (t.k) {
    case "double":
      return (j as Json[])[1];
    case "array":
      return (j as Json[]).map((x) => tangentOf(x, t.elem));
    case "tuple":
      return t.elems.map((e, i) => tangentOf((j as Json[])[i], e));
    default:
      return null;
  }
}

/** The primal part of a dual value (JSON) of primal type `t`. */
export function primalOf(j: Json, t: Type): Json {
  switch (t.k) {
    case "double":
      return (j as Json[])[0];
    case "array":
      return (j as Json[]).map((x) => primalOf(x, t.elem));
    case "tuple":
      return t.elems.map((e, i) => primalOf((j as Json[])[i], e));
    default:
      return j;
  }
}

/** null (no tangent: an Index or Bool part) as 0, the finite difference of an Index. */
export function nullsAsZero(j: Json): Json {
  if (j === null) return 0;
  return Array.isArray(j) ? j.map(nullsAsZero) : j;
}

/** A seeded generator (mulberry32): the same points every run. */
export function seededRandom(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export const uniform = (rnd: () => number, lo: number, hi: number) => lo + (hi - lo) * rnd();

export const maxAbs = (j: Json): number =>
  typeof j === "number" ? Math.abs(j) : Array.isArray(j) ? Math.max(0, ...j.map(maxAbs)) : 0;

/**
 * Declares the two tests of a directional forward derivative: `d1` (first order) and `d2` (second order) of the loaded
 * program take each active input of `f` followed by its direction, and must match central finite differences of `f`
 * and of `d1` along that direction, at every point.
 */
export function directionalDerivativeTests(
  p: SmoothProgram,
  points: readonly { x: readonly Json[]; d: readonly Json[] }[],
  active: readonly number[],
  label: string,
  tol = 1e-6,
): void {
  const resultType = p.specialise("f", p.argTypesFromJson("f", points[0]!.x)).resultType;
  const withDirections = (x: readonly Json[], d: readonly Json[]) =>
    x.flatMap((xi, i) => (active.includes(i) ? [xi, d[active.indexOf(i)]] : [xi]));
  /** The central difference of g along d in the active inputs of x. */
  const along = (g: (x: readonly Json[]) => Json, x: readonly Json[], d: readonly Json[]) => {
    const at = (moved: Json) => g(x.map((xi, i) => (active.includes(i) ? (moved as Json[])[active.indexOf(i)] : xi)));
    const activeX = active.map((i) => x[i]);
    return centralDifference(at, activeX, d, 1e-6 * Math.max(1, maxAbs(activeX)));
  };
  test("first order against finite differences", () => {
    for (const { x, d } of points) {
      const ad = tangentOf(runBoth(p, "d1", withDirections(x, d)), resultType);
      const fd = along((y) => p.runJson("f", [...y]), x, d);
      expectClose(nullsAsZero(ad), nullsAsZero(fd), tol, `${label} along a direction`);
    }
  });
  test("second order against finite differences of the first", () => {
    for (const { x, d } of points) {
      const dd = tangentOf(tangentOf(runBoth(p, "d2", withDirections(x, d)), dualType(resultType)), resultType);
      const first = (y: readonly Json[]) => tangentOf(p.runJson("d1", withDirections(y, d)), resultType);
      expectClose(nullsAsZero(dd), nullsAsZero(along(first, x, d)), tol, `${label} second order`);
    }
  });
}
