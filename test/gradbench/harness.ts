// Driving the GradBench tool in tests: a whole session in-process (the same serve loop as the stdin/stdout tool, over
// an array of lines), and evaluating one function of one eval with its response checked for the protocol's form.

import { expect } from "vitest";
import type { EvalModule } from "../../src/gradbench/eval-module.js";
import { GradbenchTool, serve, type Registry } from "../../src/gradbench/protocol.js";
import { EVALS } from "../../src/gradbench/registry.js";

/** The module of `create`, made and defined (compiled: the slow part) once however many sessions define it. */
function definedOnce(create: () => EvalModule): () => EvalModule {
  let module: EvalModule | undefined;
  let defined = false;
  return () => {
    const m = (module ??= create());
    return {
      name: m.name,
      functions: m.functions,
      define() {
        if (!defined) m.define();
        defined = true;
      },
      prepare: (fn, input) => m.prepare(fn, input),
    };
  };
}

/** The tool's modules, each compiled once per test file. */
const TEST_EVALS: Registry = new Map([...EVALS].map(([name, create]) => [name, definedOnce(create)]));

export interface Response {
  readonly id: unknown;
  readonly success?: boolean;
  readonly output?: unknown;
  readonly error?: string;
  readonly timings?: readonly { readonly name: string; readonly nanoseconds: number }[];
  readonly tool?: string;
}

/** The responses to these messages (objects are sent as JSON, strings as they are), one per message, in order. */
export async function session(
  messages: readonly (object | string)[],
  registry: Registry = TEST_EVALS,
): Promise<Response[]> {
  const lines = messages.map((m) => (typeof m === "string" ? m : JSON.stringify(m)));
  const out: string[] = [];
  const logged: string[] = [];
  await serve(lines, (line) => out.push(line), new GradbenchTool(registry, { log: (m) => logged.push(m) }));
  const text = out.join("");
  expect(text.endsWith("\n")).toBe(true);
  const responseLines = text.slice(0, -1).split("\n");
  expect(responseLines).toHaveLength(lines.filter((l) => l.trim() !== "").length);
  return responseLines.map((l) => JSON.parse(l) as Response);
}

/** The output of `fn` of module `name` on `input` (start, define, one evaluate with one run), checked to succeed. */
export async function evaluate(name: string, fn: string, input: unknown): Promise<unknown> {
  const withRuns = typeof input === "object" && input !== null ? { ...input, min_runs: 1, min_seconds: 0 } : input;
  const [start, define, result] = await session([
    { id: 0, kind: "start", eval: name },
    { id: 1, kind: "define", module: name },
    { id: 2, kind: "evaluate", module: name, function: fn, input: withRuns },
  ]);
  expect(start).toEqual({ id: 0, tool: "smooth" });
  expect(define).toMatchObject({ id: 1, success: true });
  expect(result, JSON.stringify(result).slice(0, 300)).toMatchObject({ id: 2, success: true });
  expect(result!.timings).toHaveLength(1);
  expect(result!.timings![0]!.name).toBe("evaluate");
  expect(result!.timings![0]!.nanoseconds).toBeGreaterThan(0);
  return result!.output;
}

/** rho(x, y) = |x - y| / max(1, |x| + |y|), the error measure of ADBench and GradBench, maximised over elements. */
export function maxRho(actual: unknown, expected: unknown): number {
  const a = flat(actual);
  const e = flat(expected);
  expect(a).toHaveLength(e.length);
  return a.reduce(
    (worst, x, i) => Math.max(worst, Math.abs(x - e[i]!) / Math.max(1, Math.abs(x) + Math.abs(e[i]!))),
    0,
  );
}

function flat(json: unknown): number[] {
  if (Array.isArray(json)) return json.flatMap(flat);
  if (typeof json !== "number") throw new Error(`not a number: ${JSON.stringify(json)}`);
  return [json];
}

/** n pseudo-random numbers in [lo, hi), reproducible from the seed. */
export function randoms(n: number, seed: number, lo = 0, hi = 1): number[] {
  const out: number[] = [];
  let s = seed;
  for (let i = 0; i < n; i++) {
    s = (s * 1103515245 + 12345) % 2147483648;
    out.push(lo + (hi - lo) * (s / 2147483648));
  }
  return out;
}

/** The rows of a matrix of r-by-c pseudo-random numbers. */
export const randomRows = (r: number, c: number, seed: number, lo = 0, hi = 1): number[][] =>
  Array.from({ length: r }, (_, i) => randoms(c, seed + 7919 * i, lo, hi));

/** The gradient of f at x by central differences with step h. */
export function centralDifferences(f: (x: number[]) => number, x: readonly number[], h = 1e-6): number[] {
  return x.map((_, j) => {
    const plus = [...x];
    const minus = [...x];
    plus[j]! += h;
    minus[j]! -= h;
    return (f(plus) - f(minus)) / (2 * h);
  });
}
