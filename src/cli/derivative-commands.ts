// `smooth grad`, `smooth jacobian`, and the derivative views of `smooth show`.
//
// Output formats: grad prints {"value": v, "gradient": [g0, g1, ...]} with one entry per argument (the argument's
// shape; null for an Index or Bool argument, or one not selected by --wrt); jacobian prints
// {"value": ..., "jacobian": [[...], ...]}: one row per output scalar, one column per input scalar of the
// differentiated arguments, both flattened in row-major order.

import type { Command } from "commander";
import type { SmoothProgram, Specialised } from "../api/program.js";
import { describeParam } from "../api/entry-types.js";
import { doubleRank } from "../ad/seed.js";
import { hasTangent } from "../ad/dual-types.js";
import { printIr } from "../ir/print.js";
import { valueFromJson, valueToJson } from "../runtime/json.js";
import type { Value } from "../runtime/value.js";
import { fail } from "../syntax/diagnostics.js";
import { arrayOf, showType, type Type } from "../types/types.js";
import { tangentType } from "../ad/seed.js";

export type Mode = "forward" | "reverse";

export interface DerivativeOptions {
  fn: string;
  args?: string;
  argsFile?: string;
  engine: string;
  prelude: boolean;
  wrt?: string;
  mode?: string;
}

export function parseMode(s: string | undefined): Mode {
  if (s === undefined || s === "forward") return "forward";
  if (s === "reverse")
    fail("unsupported", "reverse mode is not available yet", undefined, { hint: "use --mode forward (the default for now)" });
  return fail("argument", `unknown mode \`${s}\``, undefined, { expected: "forward or reverse", found: s });
}

/** The parameters to differentiate: --wrt K (0-based), else every parameter with a Double in it. */
export function chooseWrt(prog: SmoothProgram, name: string, argTypes: readonly Type[], wrt: string | undefined): number[] {
  const def = prog.definition(name);
  if (wrt !== undefined) {
    const k = Number(wrt);
    if (!Number.isInteger(k) || k < 0 || k >= argTypes.length)
      fail("argument", `--wrt ${wrt} is not an argument position of \`${name}\``, undefined, {
        expected: `an integer from 0 to ${argTypes.length - 1}`,
        found: wrt,
      });
    if (!hasTangent(argTypes[k]!))
      fail("argument", `cannot differentiate with respect to ${describeParam(def, k)}: it is ${article(argTypes[k]!)}`, def.def.nameSpan, {
        expected: "an argument containing Doubles",
        found: showType(argTypes[k]!),
        hint: "Index and Bool values are constants to differentiation",
      });
    return [k];
  }
  const all = argTypes.flatMap((t, i) => (hasTangent(t) ? [i] : []));
  if (all.length === 0) fail("argument", `\`${name}\` has no argument containing a Double to differentiate with respect to`, def.def.nameSpan);
  return all;
}

function article(t: Type): string {
  return t.k === "int" ? "an Index" : t.k === "bool" ? "a Bool" : showType(t);
}

interface Evaluated {
  values: Value[];
  argTypes: Type[];
  primal: Specialised;
  derivative: Specialised;
  wrt: number[];
}

function evaluate(prog: SmoothProgram, o: DerivativeOptions, args: unknown[], engine: "js" | "interp"): Evaluated {
  parseMode(o.mode);
  const def = prog.definition(o.fn);
  const argTypes = prog.argTypesFromJson(o.fn, args);
  const values = args.map((a, i) => valueFromJson(a, argTypes[i]!, describeParam(def, i)));
  const wrt = chooseWrt(prog, o.fn, argTypes, o.wrt);
  const primal = prog.specialise(o.fn, argTypes, engine);
  const derivative = prog.derivative(o.fn, argTypes, wrt, engine);
  return { values, argTypes, primal, derivative, wrt };
}

/** The derivative for each wrt parameter (the program returns a tuple when there are several). */
function perParameter(result: Value, count: number): Value[] {
  if (count === 1) return [result];
  if (typeof result !== "object" || result.tag !== "tuple") throw new Error("derivative program did not return a tuple");
  return [...result.elems];
}

export function gradJson(prog: SmoothProgram, o: DerivativeOptions, args: unknown[], engine: "js" | "interp"): unknown {
  const e = evaluate(prog, o, args, engine);
  if (e.primal.resultType.k !== "double")
    fail("argument", `\`${o.fn}\` returns ${showType(e.primal.resultType)}, not a Double: a gradient needs a scalar result`, undefined, {
      hint: "use `smooth jacobian` for a function with several outputs",
    });
  const value = valueToJson(e.primal.run(e.values), e.primal.resultType);
  const parts = perParameter(e.derivative.run(e.values), e.wrt.length);
  const gradient = e.argTypes.map((t, i) => {
    const at = e.wrt.indexOf(i);
    return at < 0 ? null : valueToJson(parts[at]!, t);
  });
  return { value, gradient };
}

export function jacobianJson(prog: SmoothProgram, o: DerivativeOptions, args: unknown[], engine: "js" | "interp"): unknown {
  const e = evaluate(prog, o, args, engine);
  const value = valueToJson(e.primal.run(e.values), e.primal.resultType);
  const column = tangentType(e.primal.resultType)!;
  const parts = perParameter(e.derivative.run(e.values), e.wrt.length);
  const columns: number[][] = [];
  e.wrt.forEach((k, at) => {
    const rank = doubleRank(e.argTypes[k]!)!;
    let t = column;
    for (let r = 0; r < rank; r++) t = arrayOf(t);
    collectColumns(valueToJson(parts[at]!, t), rank, columns);
  });
  const rows = columns.length === 0 ? [] : columns[0]!.map((_, r) => columns.map((c) => c[r]!));
  return { value, jacobian: rows };
}

/** Descends `depth` array levels (the input positions), flattening each column (the output's tangent) in row-major order. */
function collectColumns(json: unknown, depth: number, out: number[][]): void {
  if (depth === 0) {
    out.push(flatten(json));
    return;
  }
  for (const x of json as unknown[]) collectColumns(x, depth - 1, out);
}

function flatten(json: unknown): number[] {
  if (Array.isArray(json)) return json.flatMap(flatten);
  return [typeof json === "number" ? json : Number(json)];
}

export function showDerivative(prog: SmoothProgram, o: DerivativeOptions, argTypes: Type[], kind: "grad" | "jacobian"): string {
  parseMode(o.mode);
  const wrt = chooseWrt(prog, o.fn, argTypes, o.wrt);
  const spec = prog.derivative(o.fn, argTypes, wrt, "interp");
  if (kind === "grad") {
    const primal = prog.specialise(o.fn, argTypes, "interp");
    if (primal.resultType.k !== "double")
      fail("argument", `\`${o.fn}\` returns ${showType(primal.resultType)}, not a Double: a gradient needs a scalar result`, undefined, {
        hint: "use --jacobian",
      });
  }
  return printIr(spec.optimised);
}

export function registerDerivativeCommands(
  program: Command,
  withEntry: (c: Command) => Command,
  run: (kind: "grad" | "jacobian", file: string, o: DerivativeOptions) => void,
): void {
  for (const kind of ["grad", "jacobian"] as const) {
    withEntry(program.command(kind).argument("<file>", "a Smooth source file"))
      .description(kind === "grad" ? "the value and gradient of a definition with a Double result" : "the value and Jacobian of a definition")
      .option("--wrt <k>", "differentiate with respect to argument k only (0-based)")
      .option("--mode <mode>", "forward (reverse mode comes with the reverse-mode milestone)", "forward")
      .option("--engine <engine>", "back end: js (compiled) or interp (reference interpreter)", "js")
      .action((file: string, o: DerivativeOptions) => run(kind, file, o));
  }
}
