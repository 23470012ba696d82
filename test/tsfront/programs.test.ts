// ./programs.ts through the library: each function's value is its own (run as JavaScript), its gradient equals
// central differences of the function itself (and the reference interpreter gives it too); the module's text read by
// `typescriptModule` gives the same numbers.

import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { compile, grad, typescriptModule, type AnyFunction } from "../../src/index.js";
import { decode } from "../../src/library/convert.js";
import { interpretedProgram, libraryFunction, Specialisations } from "../../src/library/target.js";
import { thrown } from "../helpers.js";
import { expectClose } from "../library/helpers.js";
import * as corpus from "./corpus.js";
import * as programs from "./programs.js";
import { PROGRAM_CASES } from "./programs-cases.js";

const TEXT = readFileSync(new URL("./programs.ts", import.meta.url), "utf8");

/** Every number of a value, in order, and the value rebuilt from a list of numbers of the same shape. */
function flatten(x: unknown): number[] {
  if (typeof x === "number") return [x];
  return (x as unknown[]).flatMap(flatten);
}
function rebuild(x: unknown, values: number[], at = { i: 0 }): unknown {
  if (typeof x === "number") return values[at.i++];
  return (x as unknown[]).map((e) => rebuild(e, values, at));
}

/** Central differences of f along every number of argument k. */
function numeric(f: (...a: unknown[]) => number, args: readonly unknown[], k: number, h = 1e-6): number[] {
  const base = flatten(args[k]);
  return base.map((_, i) => {
    const at = (d: number) => {
      const p = [...base];
      p[i]! += d;
      return f(...args.map((a, j) => (j === k ? rebuild(a, p) : a)));
    };
    return (at(h) - at(-h)) / (2 * h);
  });
}

function interpreted(f: unknown, args: readonly unknown[]): unknown {
  const { inst, trees, values } = new Specialisations(libraryFunction(f)!.target!).lookup(args);
  return decode(interpretedProgram(inst).run(values), inst.resultType, inst.resultForm(trees));
}

const fn = (name: string) => (programs as Record<string, unknown>)[name] as (...a: unknown[]) => number;

describe("programs as people write them", () => {
  it("with ./corpus.ts, at least 40 programs", () => {
    const corpusFunctions = Object.values(corpus).filter((f) => typeof f === "function").length;
    expect(corpusFunctions + Object.keys(PROGRAM_CASES).length).toBeGreaterThanOrEqual(40);
    expect(new Set(Object.values(PROGRAM_CASES).map((c) => c.name)).size).toBe(Object.keys(programs).length);
  });

  const m = typescriptModule(TEXT, { fileName: "programs.ts" }) as Record<string, AnyFunction>;
  it.each(Object.entries(PROGRAM_CASES))(
    "%s: the value, the gradient against central differences, the module text's the same",
    (_, c) => {
      const f = fn(c.name);
      const expected = f(...c.args);
      expect(compile(f as AnyFunction)(...(c.args as never[]))).toBeCloseTo(expected, 10);
      const g = grad(f as AnyFunction, { argnums: c.wrt as number[] }) as (...a: unknown[]) => unknown[];
      const grads = g(...c.args);
      c.wrt.forEach((k, i) => expectClose(flatten(grads[i]), numeric(f, c.args, k), 1e-6));
      const fromText = m[c.name]!;
      expect((fromText as (...a: unknown[]) => number)(...c.args)).toBeCloseTo(expected, 10);
      const g2 = grad(fromText, { argnums: c.wrt as number[] }) as (...a: unknown[]) => unknown[];
      expectClose(flatten(g2(...c.args)), flatten(grads), 1e-10);
      // The reference interpreter on the same (unoptimised) gradient program.
      expectClose(flatten(interpreted(g, c.args)), flatten(grads), 1e-9);
    },
  );
});

describe("a program the front end refuses", () => {
  /** A training loss someone instrumented with console.log while debugging. */
  function noisyLoss(w: number[], xs: number[], ys: number[]): number {
    let loss = 0;
    for (let i = 0; i < xs.length; i++) {
      const r = w[0]! * xs[i]! + w[1]! - ys[i]!;
      console.log("residual", i, r);
      loss += r * r;
    }
    return loss;
  }

  it("a loss calling console.log: one message at the call, saying why and what to do", () => {
    const e = thrown(() => grad(noisyLoss)([0.5, 0.1], [1, 2], [1.4, 2.1]));
    expect(e.headline).toMatch(/console.log inside a function Smooth compiles is not supported/);
    expect(e.span!.file.text.slice(e.span!.start, e.span!.end)).toBe('console.log("residual", i, r)');
    expect(e.details.hint).toMatch(/call the function itself \(without grad\) to print its values/);
  });
});

// Data a closure holds (number[][] of the module), read at each call: the losses people write over their data set.
const FEATURES = [
  [0.5, -1.2],
  [1.5, 0.25],
  [-0.75, 2],
  [0.3, 0.8],
];
const LABELS = [1, 0, 1, 0];

function capturedLogistic(w: number[]): number {
  let total = 0;
  for (let i = 0; i < FEATURES.length; i++) {
    const z = FEATURES[i]!.reduce((s, x, j) => s + w[j + 1]! * x, w[0]!);
    total += Math.log1p(Math.exp(z)) - LABELS[i]! * z;
  }
  return total / FEATURES.length;
}

function capturedMlp(W1: number[][], w2: number[]): number {
  // The module's mlpError over the data the closure holds.
  return programs.mlpError(W1, [0.1, -0.2], [w2], FEATURES, LABELS);
}

describe("programs over data their closure holds", () => {
  const cases: [string, (...a: never[]) => number, unknown[]][] = [
    ["logistic regression over a captured number[][]", capturedLogistic, [[0.1, -0.4, 0.7]]],
    [
      "an MLP over captured number[][], through a function of the module",
      capturedMlp,
      [
        [
          [0.3, -0.5],
          [0.8, 0.2],
        ],
        [0.7, -0.3],
      ],
    ],
  ];
  it.each(cases)("%s: the value, the gradient against central differences", (_, f, args) => {
    const run = f as (...a: unknown[]) => number;
    expect(compile(f as AnyFunction)(...(args as never[]))).toBeCloseTo(run(...args), 10);
    const wrt = args.map((_a, k) => k);
    const grads = (grad(f as AnyFunction, { argnums: wrt }) as (...a: unknown[]) => unknown[])(...args);
    wrt.forEach((k, i) => expectClose(flatten(grads[i]), numeric(run, args, k), 1e-6));
  });
});
