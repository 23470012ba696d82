// Helpers of the library tests: flattening library values to number lists, the CLI's JSON derivatives of the same
// program (the reference the library must agree with), and central finite differences.

import { loadProgram } from "../../src/api/program.js";
import { gradJson, hessianJson, jacobianJson } from "../../src/cli/derivative-commands.js";
import type { DerivativeOptions } from "../../src/cli/derivative-options.js";
import { NDArray } from "../../src/library/ndarray.js";

/** Every number in a library value, in order (objects in key order, arrays row-major). */
export function flat(x: unknown): number[] {
  if (typeof x === "number") return [x];
  if (x instanceof Float64Array || x instanceof Int32Array) return Array.from(x);
  if (x instanceof NDArray) return Array.from(x.data);
  if (Array.isArray(x)) return x.flatMap(flat);
  if (x !== null && typeof x === "object") return Object.values(x).flatMap(flat);
  throw new Error(`flat: ${String(x)}`);
}

export type CliKind = "grad" | "jacobian" | "hessian";

/** The CLI's result (`smooth grad|jacobian|hessian`) for definition `fn` of `text` at JSON arguments. */
export function cli(
  kind: CliKind,
  text: string,
  fn: string,
  args: unknown[],
  extra: Partial<DerivativeOptions> = {},
): unknown {
  const prog = loadProgram({ name: "<cli>", text });
  const o: DerivativeOptions = { fn, engine: "js", prelude: true, ...extra };
  const run = kind === "grad" ? gradJson : kind === "jacobian" ? jacobianJson : hessianJson;
  return run(prog, o, args, "js");
}

/** Central differences of a scalar function along each coordinate of a flat parameter vector. */
export function numericGradient(f: (x: number[]) => number, x: readonly number[], h = 1e-6): number[] {
  return x.map((_, i) => {
    const up = [...x];
    const down = [...x];
    up[i]! += h;
    down[i]! -= h;
    return (f(up) - f(down)) / (2 * h);
  });
}

export function expectClose(actual: readonly number[], expected: readonly number[], tol = 1e-6): void {
  if (actual.length !== expected.length) throw new Error(`length ${actual.length} ≠ ${expected.length}`);
  actual.forEach((a, i) => {
    const e = expected[i]!;
    if (!(Math.abs(a - e) <= tol * (1 + Math.abs(e))))
      throw new Error(`at ${i}: ${a} ≠ ${e} (all: ${actual.join(", ")} vs ${expected.join(", ")})`);
  });
}

/** A deterministic pseudo-random generator (xorshift) for test data. */
export function rng(seed: number): () => number {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    return s / 2 ** 32 - 0.5;
  };
}
