// Random well-typed programs (test/gen) differentiated along a random direction in all their Double inputs: the
// derivative program (jvp of the whole entry function, seeded with the direction) expanded by forward-ad and run by
// the interpreter agrees with its compiled form after the standard pipeline, and with central finite differences of
// the program wherever those are stable (two step sizes agree: no jump or kink within the step) and the tangent is
// finite.
//
// SMOOTH_AD_RANDOM_RUNS sets the number of programs (default 150), SMOOTH_AD_RANDOM_SEED the first seed.

import { describe, expect, it } from "vitest";
import { forwardAdPass } from "../../src/ad/expand.js";
import { dualType, hasTangent } from "../../src/ad/dual-types.js";
import { tangentOf } from "../../src/ad/seed.js";
import { compileFunction } from "../../src/codegen/compile.js";
import { runFunction } from "../../src/eval/interpreter.js";
import { AnfBuilder, litDouble } from "../../src/ir/builder.js";
import { freshVar, mkLam, mkTuple, typeOf, type Atom, type Expr, type IrFunction, type Jvp } from "../../src/ir/ir.js";
import { printIr } from "../../src/ir/print.js";
import { runPipeline } from "../../src/opt/pass.js";
import { STANDARD_PIPELINE } from "../../src/opt/pipeline.js";
import { valuesEqual } from "../../src/runtime/equal.js";
import { valueFromJson } from "../../src/runtime/json.js";
import { arrayGet, arrayLength, isArrayValue, type TupleValue, type Value } from "../../src/runtime/value.js";
import { SmoothError } from "../../src/syntax/diagnostics.js";
import type { Type } from "../../src/types/types.js";
import { generateProgram } from "../gen/program.js";
import { ChoiceRng, seededChoices } from "../gen/rng.js";
import { load, seededRandom, type Json } from "./harness.js";

const RUNS = Number(process.env.SMOOTH_AD_RANDOM_RUNS ?? 150);
const SEED_OFFSET = Number(process.env.SMOOTH_AD_RANDOM_SEED ?? 7000);

/**
 * The dual of x whose tangent is t (both of x's type): Index and Bool parts are their own duals. With `zero`, the
 * value of x's type that is t with every Double 0 instead.
 */
function zipDual(b: AnfBuilder, x: Atom, t: Atom, zero = false): Atom {
  const type = x.type;
  switch (type.k) {
    case "double":
      return zero ? litDouble(0) : b.bind("d", mkTuple([x, t]));
    case "array":
      if (!hasTangent(type)) return x;
      return b.build(b.prim("length", [x]), (i, inner) =>
        zipDual(inner, inner.prim("get", [x, i]), inner.prim("get", [t, i]), zero),
      );
    case "tuple":
      return b.bind("d", mkTuple(type.elems.map((_, k) => zipDual(b, b.proj(k, x), b.proj(k, t), zero))));
    default:
      return x;
  }
}

/** `fun x1 .. xn t1 .. tn -> jvp (fun x1 .. xn -> body)` applied to the duals `seed(xi, ti)`, through `result`. */
function derivativeProgram(fn: IrFunction, order: 1 | 2, result: (b: AnfBuilder, r: Atom) => Atom): IrFunction {
  let lam: Expr = fn.body;
  for (let i = fn.params.length - 1; i >= 0; i--) lam = mkLam(fn.params[i]!, lam);
  const xs = fn.params.map((p) => freshVar(p.name, p.type));
  const ts = fn.params.map((p) => freshVar(`t${p.name}`, p.type));
  const b = new AnfBuilder();
  let f = b.bind("f", lam);
  for (let k = 0; k < order; k++) {
    const node: Jvp = { kind: "jvp", fn: f, type: dualType(f.type) };
    f = b.bind("df", node);
  }
  // Order 2: x paired with t, paired with t paired with 0 (both perturbations along t).
  const seed = (x: Atom, t: Atom) =>
    order === 1 ? zipDual(b, x, t) : zipDual(b, zipDual(b, x, t), zipDual(b, t, zipDual(b, t, t, true)));
  let r = f;
  xs.forEach((x, i) => (r = b.app(r, seed(x, ts[i]!))));
  const functions = fn.functions === undefined ? {} : { functions: fn.functions };
  return { name: "dmain", params: [...xs, ...ts], body: b.finish(result(b, r)), ...functions };
}

/** x + h d on the Double leaves of a JSON value of type t. */
function move(x: Json, h: number, d: Json, t: Type): Json {
  switch (t.k) {
    case "double":
      return (x as number) + h * (d as number);
    case "array":
      return (x as Json[]).map((xi, i) => move(xi, h, (d as Json[])[i], t.elem));
    case "tuple":
      return t.elems.map((e, i) => move((x as Json[])[i], h, (d as Json[])[i], e));
    default:
      return x;
  }
}

/** A direction: the Double leaves of x replaced by random numbers in [-1, 1]. */
function direction(x: Json, t: Type, rnd: () => number): Json {
  switch (t.k) {
    case "double":
      return 2 * rnd() - 1;
    case "array":
      return (x as Json[]).map((xi) => direction(xi, t.elem, rnd));
    case "tuple":
      return t.elems.map((e, i) => direction((x as Json[])[i], e, rnd));
    default:
      return x;
  }
}

/** The Double leaves of a value of type t, in order. */
function leaves(v: Value, t: Type, out: number[] = []): number[] {
  switch (t.k) {
    case "double":
      out.push(v as number);
      break;
    case "array":
      if (!isArrayValue(v)) throw new Error("not an array");
      for (let i = 0; i < arrayLength(v); i++) leaves(arrayGet(v, i), t.elem, out);
      break;
    case "tuple":
      t.elems.forEach((e, i) => leaves((v as TupleValue).elems[i]!, e, out));
      break;
    default:
      break;
  }
  return out;
}

/** The second-order tangents of a value of D(D(t)): at each Double, ((p, ṗ), (t, ṫ)) gives ṫ. */
function secondOrder(v: Value, t: Type, out: number[] = []): number[] {
  switch (t.k) {
    case "double":
      out.push(((v as TupleValue).elems[1] as TupleValue).elems[1] as number);
      break;
    case "array":
      if (!isArrayValue(v)) throw new Error("not an array");
      for (let i = 0; i < arrayLength(v); i++) secondOrder(arrayGet(v, i), t.elem, out);
      break;
    case "tuple":
      t.elems.forEach((e, i) => secondOrder((v as TupleValue).elems[i]!, e, out));
      break;
    default:
      break;
  }
  return out;
}

function outcome(run: () => Value): Value | SmoothError {
  try {
    return run();
  } catch (e) {
    if (e instanceof SmoothError) return e;
    throw e;
  }
}

/**
 * Runs a derivative program both ways (interpreter after forward-ad, compiled after the standard pipeline), which
 * must agree; returns the expanded program and its value.
 */
function runDerivative(
  dfn: IrFunction,
  args: readonly Value[],
  context: () => string,
): { expanded: IrFunction; value: Value } {
  const expanded = runPipeline(dfn, [forwardAdPass], { verify: true });
  const optimised = runPipeline(dfn, STANDARD_PIPELINE, { verify: true });
  const value = runFunction(expanded, args);
  const js = compileFunction(optimised)(args);
  if (!valuesEqual(value, js, typeOf(expanded.body), 1e-12)) {
    throw new Error(
      `interpreter and compiled code differ: ${context()}\n--- after forward-ad ---\n${printIr(expanded)}`,
    );
  }
  return { expanded, value };
}

/**
 * Compares derivatives with central differences of `f` along d at two steps, where those agree (no jump or kink
 * within the step) and the derivative is finite; `scale` is the size of f's values (rounding is relative to it).
 * Returns the number of values compared.
 */
function compareWithDifferences(
  derivatives: readonly number[],
  f: (h: number) => number[] | undefined,
  scale: number,
  context: () => string,
): number {
  const central = (h: number) => {
    const plus = f(h);
    const minus = f(-h);
    return plus && minus ? plus.map((p, k) => (p - minus[k]!) / (2 * h)) : undefined;
  };
  const coarse = central(1e-6);
  const fine = central(2.5e-7);
  if (!coarse || !fine) return 0;
  expect(derivatives.length).toBe(coarse.length);
  let compared = 0;
  coarse.forEach((c, k) => {
    const f = fine[k]!;
    const t = derivatives[k]!;
    if (!Number.isFinite(c) || !Number.isFinite(f) || Math.abs(c - f) > 1e-5 * Math.max(1, Math.abs(c)) + 1e-9 * scale)
      return;
    // A tangent through an infinite intermediate (x / (y / 0.)) is NaN (0 · ∞) where the function is flat.
    if (!Number.isFinite(t)) return;
    compared++;
    const r = (16 * f - c) / 15; // Richardson extrapolation: the central differences' error is O(h²)
    if (!(Math.abs(t - r) <= 1e-5 * Math.max(1, Math.abs(r), Math.abs(t)) + 1e-9 * scale)) {
      throw new Error(`derivative ${k}: AD ${t}, finite differences ${c} (and ${f}); ${context()}`);
    }
  });
  return compared;
}

describe("random programs under forward-mode AD", () => {
  it(
    `agree between the back ends and with finite differences, first and second order (${RUNS} programs)`,
    { timeout: Math.max(60_000, RUNS * 20) },
    () => {
      let programs = 0;
      const compared: [number, number] = [0, 0];
      for (let seed = 0; programs < RUNS && seed < RUNS * 20; seed++) {
        const gen = generateProgram(new ChoiceRng(seededChoices(seed + SEED_OFFSET)));
        const p = load(gen.source);
        const argTypes = p.argTypesFromJson("main", gen.args);
        const primal = p.specialise("main", argTypes, "interp").lowered;
        const primalType = typeOf(primal.body);
        if (!primal.params.some((x) => hasTangent(x.type)) || !hasTangent(primalType)) continue;
        // Jittered off the generator's round numbers, so that no Double sits exactly on a kink (abs 0., max x x).
        const rnd = seededRandom(seed);
        const x = gen.args.map((a, i) => move(a, 1e-3, direction(a, argTypes[i]!, rnd), argTypes[i]!));
        const d = x.map((xi, i) => direction(xi, argTypes[i]!, rnd));
        const values = (args: readonly Json[]) =>
          args.map((a, i) => valueFromJson(a, argTypes[i]!, `argument ${i + 1}`));
        const at = (h: number) => values(x.map((xi, i) => move(xi, h, d[i], argTypes[i]!)));
        const base = outcome(() => runFunction(primal, values(x)));
        if (base instanceof SmoothError) continue;
        programs++;
        const context = () => `seed ${seed}\n${gen.source}`;
        const scale = Math.max(1, ...leaves(base, primalType).map(Math.abs).filter(Number.isFinite));

        const first = derivativeProgram(primal, 1, (b, r) => tangentOf(b, r, primalType)!);
        const { expanded, value } = runDerivative(first, [...values(x), ...values(d)], context);
        const firstType = typeOf(expanded.body);
        const primalAt = (h: number) => {
          const v = outcome(() => runFunction(primal, at(h)));
          return v instanceof SmoothError ? undefined : leaves(v, primalType);
        };
        compared[0] += compareWithDifferences(leaves(value, firstType), primalAt, scale, context);

        const second = derivativeProgram(primal, 2, (_b, r) => r);
        const dd = runDerivative(second, [...values(x), ...values(d)], context).value;
        const firstAt = (h: number) => {
          const v = outcome(() => runFunction(expanded, [...at(h), ...values(d)]));
          return v instanceof SmoothError ? undefined : leaves(v, firstType);
        };
        compared[1] += compareWithDifferences(secondOrder(dd, primalType), firstAt, scale, context);
      }
      if (process.env.SMOOTH_AD_STATS) console.log({ programs, compared });
      expect(programs).toBe(RUNS);
      expect(compared[0]).toBeGreaterThan(RUNS);
      expect(compared[1]).toBeGreaterThan(RUNS / 2);
    },
  );
});
