// `smooth grad`, `smooth jacobian`, `smooth hessian`, and the derivative programs shown by `smooth show` / `smooth
// dev`.
//
// Output formats: grad prints {"value": v, "gradient": [g0, g1, ...]} with one entry per argument (the argument's
// shape; null for an Index or Bool argument, or one not selected by --wrt); jacobian prints
// {"value": ..., "jacobian": [[...], ...]}: one row per output scalar (the Doubles of a tuple's parts in order; an
// Index or Bool part has none), one column per input scalar of the differentiated arguments, both flattened in
// row-major order (the same in both modes); hessian prints
// {"value": v, "hessian": [[...], ...]}: one row and one column per input scalar of the differentiated arguments.

import type { Command } from "commander";
import type { DerivativeKind, Engine, SmoothProgram } from "../api/program.js";
import { describeParam } from "../api/entry-types.js";
import { DEFAULT_ENGINE, describeEngines } from "../backends/registry.js";
import { withMemoryBudget } from "../runtime/memory-budget.js";
import { forwardDerivative } from "../api/derivative-programs.js";
import { reverseGradient, reverseJacobian } from "../api/reverse-programs.js";
import { doubleRank } from "../ad/seed.js";
import { typeOf, type IrFunction } from "../ir/ir.js";
import { lowerEntry } from "../ir/lower.js";
import { printIr } from "../ir/print.js";
import { runPipeline } from "../opt/pass.js";
import { REVERSE_PRIMAL_PIPELINE } from "../opt/pipeline.js";
import { valueFromJson, valueToJson } from "../runtime/json.js";
import type { Value } from "../runtime/value.js";
import { fail } from "../syntax/diagnostics.js";
import type { Type } from "../types/types.js";
import {
  chooseJacobianMode,
  GRADIENT_HINT,
  HESSIAN_HINT,
  requireDoubleResult,
  requireJacobianResult,
  valueSize,
  type Mode,
} from "../api/derivatives.js";
import { chooseWrt, cliSubject, MODE_HELP, parseMode, type DerivativeOptions } from "./derivative-options.js";
import { sparseJson } from "./sparse-commands.js";

/** The entry point called with the JSON arguments, and the arguments to differentiate. */
interface Call {
  argTypes: Type[];
  values: Value[];
  wrt: number[];
}

function call(prog: SmoothProgram, o: DerivativeOptions, args: unknown[]): Call {
  const def = prog.definition(o.fn);
  const argTypes = prog.argTypesFromJson(o.fn, args);
  const values = args.map((a, i) => valueFromJson(a, argTypes[i]!, describeParam(def, i)));
  return { argTypes, values, wrt: chooseWrt(prog, o.fn, argTypes, o.wrt) };
}

/** The result type of `name` at `argTypes`, without optimising or compiling it. */
function resultTypeOf(prog: SmoothProgram, name: string, argTypes: readonly Type[]): Type {
  return typeOf(lowerEntry(prog.checked, name, argTypes).body);
}

/** Runs a derivative program of `kind` and returns its result as JSON. */
function runDerivative(
  prog: SmoothProgram,
  o: DerivativeOptions,
  c: Call,
  engine: Engine,
  kind: DerivativeKind,
): unknown {
  const spec = prog.derivative(o.fn, c.argTypes, c.wrt, engine, undefined, kind);
  return valueToJson(spec.run(c.values), spec.resultType);
}

/** The primal's value as JSON, and its type. */
function runPrimal(prog: SmoothProgram, o: DerivativeOptions, c: Call, engine: Engine): { value: unknown; type: Type } {
  const spec = prog.specialise(o.fn, c.argTypes, engine);
  return { value: valueToJson(spec.run(c.values), spec.resultType), type: spec.resultType };
}

/** One entry per wrt parameter (a derivative program returns a tuple when there are several). */
const perParameter = (json: unknown, count: number): unknown[] => (count === 1 ? [json] : (json as unknown[]));

export function gradJson(prog: SmoothProgram, o: DerivativeOptions, args: unknown[], engine: Engine): unknown {
  const mode = parseMode(o.mode) ?? "reverse";
  const c = call(prog, o, args);
  requireDoubleResult(cliSubject(prog, o.fn), resultTypeOf(prog, o.fn, c.argTypes), "smooth grad", GRADIENT_HINT);
  let value: unknown;
  let parts: unknown[];
  if (mode === "reverse") {
    // (value, adjoint of each wrt parameter...) from one run.
    [value, ...parts] = runDerivative(prog, o, c, engine, "value-gradient") as unknown[];
  } else {
    value = runPrimal(prog, o, c, engine).value;
    parts = perParameter(runDerivative(prog, o, c, engine, "forward"), c.wrt.length);
  }
  const gradient = c.argTypes.map((_, i) => {
    const at = c.wrt.indexOf(i);
    return at < 0 ? null : parts[at];
  });
  return { value, gradient };
}

export function jacobianJson(prog: SmoothProgram, o: DerivativeOptions, args: unknown[], engine: Engine): unknown {
  if (o.sparse === true) return sparseJson(prog, o, args, engine, "jacobian");
  const requested = parseMode(o.mode);
  const c = call(prog, o, args);
  const spec = prog.specialise(o.fn, c.argTypes, engine);
  const y = spec.run(c.values);
  const primal = { value: valueToJson(y, spec.resultType), type: spec.resultType };
  const inputs = c.wrt.reduce((n, k) => n + valueSize(c.values[k]!), 0);
  const sizes = { inputs, output: () => valueSize(y) };
  const mode = chooseJacobianMode(
    requested,
    cliSubject(prog, o.fn),
    primal.type,
    c.argTypes,
    c.wrt,
    sizes,
    "smooth jacobian",
  );
  if (mode === "reverse") {
    // Per leaf of the output (one for an array, several for a tuple), a build over its positions of the row of
    // adjoints: descend the leaf's rank, flatten each row.
    const leaves = requireJacobianResult(cliSubject(prog, o.fn), primal.type, "smooth jacobian");
    const parts = perParameter(runDerivative(prog, o, c, engine, "jacobian-rows"), leaves.length);
    const rows: unknown[][] = [];
    leaves.forEach((leaf, j) => collectLeaves(parts[j], leaf.rank, rows));
    return { value: primal.value, jacobian: rows };
  }
  const columns = forwardColumns(perParameter(runDerivative(prog, o, c, engine, "forward"), c.wrt.length), c);
  return { value: primal.value, jacobian: transpose(columns) };
}

export function hessianJson(prog: SmoothProgram, o: DerivativeOptions, args: unknown[], engine: Engine): unknown {
  if (o.sparse === true) return sparseJson(prog, o, args, engine, "hessian");
  const c = call(prog, o, args);
  const primal = runPrimal(prog, o, c, engine);
  requireDoubleResult(cliSubject(prog, o.fn), primal.type, "smooth hessian", HESSIAN_HINT);
  // Forward over reverse: per input scalar j (the forward columns), the tangent of the whole gradient, i.e. column j.
  const columns = forwardColumns(perParameter(runDerivative(prog, o, c, engine, "hessian"), c.wrt.length), c);
  return { value: primal.value, hessian: transpose(columns) };
}

/** A forward derivative's parts (per wrt parameter: a build over its positions of a tangent) as flat columns. */
function forwardColumns(parts: unknown[], c: Call): unknown[][] {
  const columns: unknown[][] = [];
  c.wrt.forEach((k, at) => collectLeaves(parts[at], doubleRank(c.argTypes[k]!) ?? 0, columns));
  return columns;
}

/** Descends `depth` array levels (positions), flattening each leaf in row-major order. */
function collectLeaves(json: unknown, depth: number, out: unknown[][]): void {
  if (depth === 0) out.push(flatten(json));
  else for (const x of json as unknown[]) collectLeaves(x, depth - 1, out);
}

const flatten = (json: unknown): unknown[] => (Array.isArray(json) ? json.flatMap(flatten) : [json]);

const transpose = (columns: unknown[][]): unknown[][] =>
  columns.length === 0 ? [] : columns[0]!.map((_, r) => columns.map((col) => col[r]));

export type DerivativeView = "grad" | "jacobian" | "hessian";

const SPARSE_HELP =
  "in compressed sparse row form: the pattern found from the program, one compressed pass per colour of a colouring";

/**
 * The optimised derivative program that `smooth grad|jacobian|hessian` would compile, printed in Smooth syntax.
 * With --args, --jacobian picks its mode as `smooth jacobian` does; without, the default is forward.
 */
export function showDerivative(
  prog: SmoothProgram,
  o: DerivativeOptions,
  argTypes: Type[],
  args: unknown[] | undefined,
  view: DerivativeView,
): string {
  const chosen = parseMode(o.mode);
  const wrt = chooseWrt(prog, o.fn, argTypes, o.wrt);
  const subject = cliSubject(prog, o.fn);
  let kind: DerivativeKind;
  if (view === "hessian") {
    if (chosen !== undefined)
      fail("argument", "--mode does not apply to --hessian", undefined, {
        hint: "a Hessian is always forward over reverse",
      });
    requireDoubleResult(subject, resultTypeOf(prog, o.fn, argTypes), "smooth show --hessian", HESSIAN_HINT);
    kind = "hessian";
  } else if (view === "grad") {
    requireDoubleResult(subject, resultTypeOf(prog, o.fn, argTypes), "smooth show --grad", "use --jacobian");
    kind = (chosen ?? "reverse") === "reverse" ? "gradient" : "forward";
  } else {
    let mode: Mode = chosen ?? "forward";
    if (chosen === undefined && args) {
      const def = prog.definition(o.fn);
      const spec = prog.specialise(o.fn, argTypes, "js");
      const values = args.map((a, i) => valueFromJson(a, argTypes[i]!, describeParam(def, i)));
      const sizes = {
        inputs: wrt.reduce((n, k) => n + valueSize(values[k]!), 0),
        output: () => valueSize(spec.run(values)),
      };
      mode = chooseJacobianMode(undefined, subject, spec.resultType, argTypes, wrt, sizes, "smooth show --jacobian");
    }
    kind = mode === "reverse" ? "jacobian-rows" : "forward";
  }
  // Printed without automatic checkpointing: the program that runs while a loop's tapes fit the memory budget, and
  // the same text on every machine (the budget, a share of the machine's memory, would be a literal in it; a loop past
  // it runs Revolve's schedule instead, see docs/guide/derivatives).
  return printIr(
    withMemoryBudget(Infinity, () => prog.derivative(o.fn, argTypes, wrt, "js", undefined, kind)).optimised,
  );
}

/**
 * For `smooth dev --derivative`: the derivative program before the optimiser passes (which dev runs one by one), as
 * the compiled back end builds it — reverse mode starts from the optimised first-order primal. --mode defaults to
 * reverse (the gradient) for a Double result and to forward (the Jacobian) otherwise.
 */
export function derivativeForDev(prog: SmoothProgram, o: DerivativeOptions, argTypes: Type[]): IrFunction {
  const wrt = chooseWrt(prog, o.fn, argTypes, o.wrt);
  const primal = lowerEntry(prog.checked, o.fn, argTypes);
  const scalar = typeOf(primal.body).k === "double";
  const mode = parseMode(o.mode) ?? (scalar ? "reverse" : "forward");
  if (mode === "forward") return forwardDerivative(primal, { wrt, paramNames: prog.definition(o.fn).paramNames });
  const firstOrder = runPipeline(primal, REVERSE_PRIMAL_PIPELINE);
  return scalar ? reverseGradient(firstOrder, { wrt }) : reverseJacobian(firstOrder, { wrt });
}

export function registerDerivativeCommands(
  program: Command,
  withEntry: (c: Command) => Command,
  run: (kind: DerivativeView, file: string, o: DerivativeOptions) => void,
): void {
  const engineOption = (c: Command) => c.option("--engine <engine>", `back end: ${describeEngines()}`, DEFAULT_ENGINE);
  const wrtOption = (c: Command) => c.option("--wrt <k>", "differentiate with respect to argument k only (0-based)");
  const command = (kind: DerivativeView, description: string) =>
    wrtOption(
      withEntry(
        program.command(kind).argument("<file>", "a Smooth source file, or a TypeScript/JavaScript module"),
      ).description(description),
    );

  engineOption(
    command("grad", "the value and gradient of a definition with a Double result").option(
      "--mode <mode>",
      MODE_HELP.grad,
    ),
  ).action((file: string, o: DerivativeOptions) => run("grad", file, o));
  engineOption(
    command("jacobian", "the value and Jacobian of a definition (rows: output scalars; columns: input scalars)")
      .option("--mode <mode>", MODE_HELP.jacobian)
      .option("--sparse", SPARSE_HELP),
  ).action((file: string, o: DerivativeOptions) => run("jacobian", file, o));
  engineOption(
    command("hessian", "the value and Hessian of a definition with a Double result (forward over reverse mode)").option(
      "--sparse",
      SPARSE_HELP,
    ),
  ).action((file: string, o: DerivativeOptions) => run("hessian", file, o));
}
