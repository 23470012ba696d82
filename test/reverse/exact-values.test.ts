// A derivative program's value is the primal's, bit for bit (issue 15 item 3): the derivative pipeline's assumption
// (paper 000's `0 * x = 0`) applies to tangent arithmetic only, so the primal value a `vjp`, `valueAndGrad` or CLI
// `grad` returns equals what `run` returns, NaN, infinities and signs of zero included — in both engines, on the
// hand-written corpus and on random programs. And at the singular points of a derivative both engines and both modes
// follow one semantics (JAX's): a zero tangent is a symbolic zero, `x ** 0.` has derivative 0 everywhere.

import fc from "fast-check";
import { describe, expect, test } from "vitest";
import type { Engine, SmoothProgram } from "../../src/api/program.js";
import { valueFromJson, valueToJson } from "../../src/runtime/json.js";
import type { Value } from "../../src/runtime/value.js";
import type { Type } from "../../src/types/types.js";
import { SmoothError } from "../../src/syntax/diagnostics.js";
import { CORPUS_DIR, readPrograms } from "../gen/corpus.js";
import { arbProgram } from "../gen/program.js";
import { arbDoubleProgram } from "./double-programs.js";
import { load, mapDoubles, type Json } from "./harness.js";

const RUNS = Number(process.env.SMOOTH_REVERSE_RUNS ?? 150);
const ENGINES: readonly Engine[] = ["interp", "js"];

/** Equal JSON values, numbers compared with Object.is (NaN equals NaN, -0 differs from 0). */
function sameBits(a: Json, b: Json): boolean {
  if (typeof a === "number" && typeof b === "number") return Object.is(a, b);
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => sameBits(x, b[i]));
  return a === b;
}

/** The differentiable parameters of `name` at these arguments (those with a Double in them). */
function wrtOf(p: SmoothProgram, name: string, args: readonly unknown[]): number[] {
  return p.argTypesFromJson(name, args).flatMap((t, i) => (hasDouble(t) ? [i] : []));
}
const hasDouble = (t: Type): boolean =>
  t.k === "double" || (t.k === "array" && hasDouble(t.elem)) || (t.k === "tuple" && t.elems.some(hasDouble));

/**
 * For each engine: `run`'s value and the value the vjp program returns (for a zero cotangent), as JSON; undefined when
 * the program has nothing to differentiate or fails (an index error: a user error, the same in both).
 */
function valuesOf(p: SmoothProgram, name: string, args: readonly unknown[], engine: Engine): [Json, Json] | undefined {
  const wrt = wrtOf(p, name, args);
  if (wrt.length === 0) return undefined;
  const argTypes = p.argTypesFromJson(name, args);
  const values: Value[] = args.map((a, i) => valueFromJson(a, argTypes[i]!, `argument ${i + 1}`));
  try {
    const primal = p.specialise(name, argTypes, engine);
    const run = primal.run(values);
    const vjp = p.derivative(name, argTypes, wrt, engine, undefined, "vjp");
    const runJson = valueToJson(run, primal.resultType);
    const zero = valueFromJson(
      mapDoubles(runJson, primal.resultType, () => 0),
      primal.resultType,
      "cotangent",
    );
    const out = vjp.run([...values, zero]);
    if (typeof out !== "object" || out.tag !== "tuple") throw new Error("vjp: not a tuple");
    return [runJson, valueToJson(out.elems[0]!, primal.resultType)];
  } catch (e) {
    if (e instanceof SmoothError) return undefined;
    throw e;
  }
}

function expectExactValues(p: SmoothProgram, name: string, args: readonly unknown[], what: string): boolean {
  let compared = false;
  for (const engine of ENGINES) {
    const got = valuesOf(p, name, args, engine);
    if (got === undefined) continue;
    compared = true;
    const [run, vjpValue] = got;
    if (!sameBits(run, vjpValue))
      throw new Error(`${what} (${engine}): run ${JSON.stringify(run)}, the vjp's value ${JSON.stringify(vjpValue)}`);
  }
  return compared;
}

describe("repros: the value of a derivative is the primal's", () => {
  const p = load(
    [
      "let f = fun x y -> 0 * y + x",
      "let g = fun x -> 0 * log x + x",
      "let h = fun (v: Vector) -> vectorSum (build (length v) (fun i -> 0 * log v[i])) + v[0]",
      "let k = fun x -> snd (diff (fun z -> 0 * log z + z * x) x)",
    ].join("\n"),
  );
  test.each([
    ["f", [1, Infinity]],
    ["g", [0]],
    ["h", [[0, 1]]],
    ["k", [0]],
  ])("%s at %j: NaN in run, gradient and vjp alike", (name, args) => {
    expect(expectExactValues(p, name, args, name)).toBe(true);
    for (const engine of ENGINES) {
      const argTypes = p.argTypesFromJson(name, args);
      const values = args.map((a, i) => valueFromJson(a, argTypes[i]!, `argument ${i + 1}`));
      const wrt = argTypes.map((_, i) => i);
      const vg = p.derivative(name, argTypes, wrt, engine, undefined, "value-gradient").run(values);
      expect(typeof vg === "object" && vg.tag === "tuple" && Number.isNaN(vg.elems[0])).toBe(true);
    }
  });
});

describe("singular points: one semantics in both engines and both modes", () => {
  const p = load(["let p = fun x -> x ** 0.", "let q = fun x y -> x / y", "let r = fun x e -> x ** e"].join("\n"));
  const grad = (name: string, args: number[], engine: Engine, kind: "forward" | "gradient"): number[] => {
    const argTypes = p.argTypesFromJson(name, args);
    const out = p
      .derivative(
        name,
        argTypes,
        args.map((_, i) => i),
        engine,
        undefined,
        kind,
      )
      .run(args);
    const leaf = (v: Value): number[] =>
      typeof v === "number" ? [v] : typeof v === "object" && v.tag === "tuple" ? v.elems.flatMap(leaf) : [];
    return leaf(out);
  };
  test.each([
    ["p", [0], [0]],
    ["q", [1, 0], [Infinity, -Infinity]],
    ["r", [0, 0], [0, -Infinity]], // d/de 0 ** e = log 0 · 0 ** 0 = -∞ (JAX too)
  ])("%s at %j: %j", (name, args, expected) => {
    for (const engine of ENGINES)
      for (const kind of ["forward", "gradient"] as const) expect(grad(name, args, engine, kind)).toEqual(expected);
  });
});

describe("limits and signs", () => {
  const p = load("let lse = fun (v: Vector) -> logsumexp v");
  test.each([
    [[-Infinity, -Infinity], -Infinity],
    [[Infinity, 1], Infinity],
    [[-Infinity, 0], 0],
  ])("logsumexp %j = %s", (v, expected) => {
    for (const engine of ENGINES) expect(p.runJson("lse", [v], engine)).toBe(valueToJson(expected, { k: "double" }));
  });
});

describe("on the corpus and on random programs, in both engines", () => {
  test("every corpus program", () => {
    let compared = 0;
    for (const prog of readPrograms(CORPUS_DIR))
      if (expectExactValues(load(prog.text), "main", prog.args, prog.file)) compared++;
    expect(compared).toBeGreaterThan(20);
  });

  test(`random programs of any type (${RUNS})`, () => {
    let compared = 0;
    fc.assert(
      fc.property(arbProgram({ maxDepth: 5 }), (prog) => {
        if (expectExactValues(load(prog.source), "main", prog.args, prog.source)) compared++;
      }),
      { numRuns: RUNS },
    );
    expect(compared).toBeGreaterThanOrEqual(RUNS / 4);
  });

  test(`random Double-valued programs (${RUNS})`, () => {
    fc.assert(
      fc.property(arbDoubleProgram(5), (prog) => {
        expect(expectExactValues(load(prog.source), "f", prog.args, prog.source)).toBe(true);
      }),
      { numRuns: RUNS },
    );
  });
});
