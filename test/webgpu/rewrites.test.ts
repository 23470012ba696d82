// The rewrites the parallel plan makes before planning (../../src/webgpu/unchunk.ts, flat-state.ts), checked on the
// CPU (no adapter needed): the models' reverse sweeps come out as one top-level loop over a flat tuple state, and the
// reference interpreter gives the same values for the rewritten program as for the optimised one (float64; the
// sums' order differs from the chunks', hence a tolerance).

import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { grad, smoothModule, valueAndGrad } from "../../src/index.js";
import { libraryFunction } from "../../src/library/target.js";
import type { AnyFunction } from "../../src/library/compile.js";
import { splitLets } from "../../src/ir/builder.js";
import type { Ifold, IrFunction } from "../../src/ir/ir.js";
import { runFunction } from "../../src/eval/interpreter.js";
import { valueFromJson } from "../../src/runtime/json.js";
import type { Value } from "../../src/runtime/value.js";
import { accumulation } from "../../src/opt/accumulation.js";
import { unchunk } from "../../src/webgpu/unchunk.js";
import { flattenStates } from "../../src/webgpu/flat-state.js";
import { CONV_SOURCE, convArgs, gmmArgs, MLP_SOURCE, mlpArgs } from "./models.js";

/** The optimised IR `fn` runs for `args` (on the default back end), and the arguments as values. */
function optimised(fn: AnyFunction, args: readonly unknown[]): { ir: IrFunction; values: Value[] } {
  (fn as (...a: unknown[]) => unknown)(...args);
  const ir = (libraryFunction(fn)!.program(args) as unknown as { optimised: IrFunction }).optimised;
  return { ir, values: args.map((a, i) => valueFromJson(a, ir.params[i]!.type, `argument ${i}`)) };
}

/** Every number in a value, in order. */
function numbersOf(v: Value): number[] {
  if (typeof v === "number") return [v];
  if (typeof v === "boolean") return [];
  if (v.tag === "tuple") return v.elems.flatMap(numbersOf);
  if (v.tag === "dense") return [...v.data];
  if (v.tag === "tuparr") return v.fields.flatMap(numbersOf);
  throw new Error("a function value");
}

/** The top-level loops of `fn` that the accumulation analysis takes (what the scatter plan needs). */
const accumulations = (fn: IrFunction): Ifold[] =>
  splitLets(fn.body)
    .bindings.map((b) => b.rhs)
    .filter((e): e is Ifold => e.kind === "ifold" && accumulation(e) !== undefined);

/** The loops of the chunks of an accumulation: top-level builds whose elements are a loop's result. */
const chunkLoops = (fn: IrFunction): Ifold[] =>
  splitLets(fn.body).bindings.flatMap((b) => {
    if (b.rhs.kind !== "build") return [];
    const { tail } = splitLets(b.rhs.body);
    return tail.kind === "ifold" && tail.type.k !== "double" ? [tail] : [];
  });

/** The chunked loop of `ir` is, in `rewritten`, an accumulation over the same count with the same state. */
function expectUnchunked(ir: IrFunction, rewritten: IrFunction): void {
  const chunked = chunkLoops(ir);
  expect(chunked.length).toBe(1);
  expect(chunkLoops(rewritten)).toEqual([]);
  const [loop] = chunked as [Ifold];
  const whole = accumulations(rewritten).filter(
    (f) => f.count.kind === "var" && loop.count.kind === "var" && f.count.id === loop.count.id,
  );
  expect(whole.map((f) => f.type)).toEqual([loop.type]);
}

function expectSameValues(ir: IrFunction, rewritten: IrFunction, values: readonly Value[]): void {
  const [a, b] = [numbersOf(runFunction(ir, values)), numbersOf(runFunction(rewritten, values))];
  expect(b.length).toBe(a.length);
  const scale = Math.max(1, ...a.map(Math.abs));
  const worst = Math.max(0, ...a.map((x, i) => Math.abs(x - b[i]!)));
  expect(worst / scale).toBeLessThan(1e-12);
}

describe("the webgpu plan's rewrites of reverse sweeps", () => {
  it("a conv2d gradient's chunked sweep is one accumulation loop again, with the same values", () => {
    const m = smoothModule(CONV_SOURCE, { fileName: "conv.smooth" });
    const { ir, values } = optimised(grad(m.conv2dLoss!, { argnums: [0, 1] }), convArgs(3, 2, 7, 6));
    const rewritten = flattenStates(unchunk(ir));
    expectUnchunked(ir, rewritten);
    expectSameValues(ir, rewritten, values);
  });

  it("the GMM gradient's chunked sweep over points is one accumulation loop again, with the same values", () => {
    const text = readFileSync(new URL("../../examples/adbench/gmm.smooth", import.meta.url), "utf8");
    const m = smoothModule(text, { fileName: "gmm.smooth" });
    const { ir, values } = optimised(grad(m.gmmObjective!, { argnums: [0, 1, 2] }), gmmArgs(3, 4, 25));
    const rewritten = flattenStates(unchunk(ir));
    expectUnchunked(ir, rewritten);
    expectSameValues(ir, rewritten, values);
  });

  it("an MLP's sweep over a nested tuple state gets a flat one, which the analysis takes", () => {
    const m = smoothModule(MLP_SOURCE, { fileName: "mlp.smooth" });
    const fn = valueAndGrad(m.mlpLoss!, { argnums: [0, 1, 2, 3] });
    const { ir, values } = optimised(fn, mlpArgs(5, 6, 3, 7));
    expect(accumulations(ir)).toEqual([]);
    const rewritten = flattenStates(unchunk(ir));
    const [sweep] = accumulations(rewritten);
    expect(sweep?.type).toMatchObject({ k: "tuple", elems: { length: 6 } });
    expectSameValues(ir, rewritten, values);
  });
});
