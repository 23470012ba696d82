// `jacobian(f, { sparse: true })` and `hessian(f, { sparse: true })`: functions that return the derivative in
// compressed sparse row form (src/sparse/sparse-derivative.ts's SparseMatrix). The pattern, colouring and mode are
// found once per argument shapes and Index values (the analysis runs the program at them: an Index argument can
// decide which elements are read); the compressed program is compiled once per argument types and mode. The result
// is a matrix, not a value of the language, so other transforms do not take these functions.

import { withinCompilerStack } from "../api/compiler-stack.js";
import { checkWrt, HESSIAN_HINT, requireDoubleResult, type Mode } from "../api/derivatives.js";
import { prepare, type Specialised } from "../api/program.js";
import { optimisesFirst } from "../backends/registry.js";
import type { IrFunction } from "../ir/ir.js";
import { runPipeline } from "../opt/pass.js";
import { DERIVATIVE_PIPELINE, REVERSE_PRIMAL_PIPELINE, REVERSE_PRIMAL_REFERENCE } from "../opt/pipeline.js";
import type { FlatData, Value } from "../runtime/value.js";
import { compressedFunction } from "../sparse/compressed-programs.js";
import { planSparse, sparseResult, type SparseKind, type SparsePlan } from "../sparse/sparse-derivative.js";
import { isStagedCall } from "./staged-call.js";
import { fail } from "../syntax/diagnostics.js";
import type { Type } from "../types/types.js";
import { withWasmThreads } from "../wasm/parallel-run.js";
import { backendOf, threadsOf, type BackendOption } from "./backend-option.js";
import type { Argnums } from "./errors.js";
import {
  compiledProgram,
  paramTypes,
  register,
  Specialisations,
  withHidden,
  type Call,
  type Instance,
  type Target,
} from "./target.js";
import type { AnyFunction } from "./types.js";

/** The Index and Bool parts of the arguments (what a pattern may depend on besides shapes), for comparing calls. */
type IndexPart = number | boolean | FlatData;

function indexParts(values: readonly Value[], types: readonly Type[]): IndexPart[] {
  const out: IndexPart[] = [];
  const rec = (v: Value, t: Type) => {
    if (t.k === "int" || t.k === "bool") out.push(v as number | boolean);
    else if (t.k === "tuple") t.elems.forEach((e, i) => rec((v as { elems: readonly Value[] }).elems[i]!, e));
    else if (typeof v === "object" && v.tag === "dense" && v.elemKind !== "double") out.push(v.data);
    else if (typeof v === "object" && v.tag === "tuparr") v.fields.forEach((f) => rec(f, { k: "array", elem: t }));
  };
  values.forEach((v, k) => rec(v, types[k]!));
  return out;
}

function sameParts(a: readonly IndexPart[], b: readonly IndexPart[]): boolean {
  if (a.length !== b.length) return false;
  return a.every((x, i) => {
    const y = b[i]!;
    if (typeof x !== "object" || typeof y !== "object") return x === y;
    if (x.length !== y.length) return false;
    for (let j = 0; j < x.length; j++) if (x[j] !== y[j]) return false;
    return true;
  });
}

/** A copy of the Index parts (the caller may change its arrays after the call). */
const snapshot = (parts: readonly IndexPart[]): IndexPart[] =>
  parts.map((p) => (typeof p === "object" ? p.slice() : p));

interface Planned {
  readonly parts: readonly IndexPart[];
  readonly plan: SparsePlan;
  readonly program: Specialised;
  /** The values array a `borrowResult` function returns again and again. */
  readonly values: Float64Array;
}

/** The sparse Jacobian or Hessian of `inner` with respect to `argnums`. */
export function sparseFunction(
  inner: Target,
  argnums: Argnums,
  kind: SparseKind,
  requested: Mode | undefined,
  options: BackendOption | undefined,
): AnyFunction {
  const label = `${kind}(${inner.label}, { sparse: true })`;
  const engine = backendOf(options, kind);
  const threads = threadsOf(options, kind);
  const specs = new Specialisations(inner);
  /** Plans by argument key (shapes), each with the Index values it was made for. */
  const plans = new Map<string, Planned[]>();
  /** Compressed programs by argument key and mode. */
  const programs = new Map<string, Specialised>();
  const wrt = argnums.list;

  const compileFor = (inst: Instance, key: string, mode: Mode, analysed: IrFunction): Specialised => {
    const known = programs.get(`${key}|${mode}`);
    if (known) return known;
    const firstOrder = () =>
      optimisesFirst(engine) ? analysed : runPipeline(inst.lower(engine), REVERSE_PRIMAL_REFERENCE);
    const program = withinCompilerStack("the function", () =>
      withWasmThreads(threads, () => {
        const { fn, argTypes } = compressedFunction(kind, mode, inst.lower(engine), firstOrder, wrt);
        return prepare(fn, argTypes, engine, DERIVATIVE_PIPELINE);
      }),
    );
    programs.set(`${key}|${mode}`, program);
    return program;
  };

  const planned = (call: Call): Planned => {
    const { inst, trees } = call;
    // The instance's own parameters after the arguments (data a traced function closes over, read at each call) are
    // constants of the derivative, and Index data among them can decide the pattern as arguments can.
    const values = withHidden(inst, call.values);
    const types = paramTypes(inst);
    const key = inner.key(trees);
    const parts = indexParts(values, types);
    const list = plans.get(key) ?? [];
    const hit = list.find((p) => sameParts(p.parts, parts));
    if (hit) return hit;
    checkWrt(inner, inst.argTypes, wrt, label);
    if (kind === "hessian") requireDoubleResult(inner, inst.resultType, label, HESSIAN_HINT);
    const analysed = withinCompilerStack("the function", () =>
      runPipeline(inst.lower(engine), REVERSE_PRIMAL_PIPELINE),
    );
    let output: Value | undefined;
    const plan = planSparse({
      kind,
      subject: inner,
      context: label,
      firstOrder: analysed,
      argTypes: types,
      values,
      wrt,
      output: () => (output ??= compiledProgram(inst, engine, threads).run(values)),
      ...(requested === undefined ? {} : { requested }),
    });
    const program = compileFor(inst, key, plan.mode, analysed);
    const entry = { parts: snapshot(parts), plan, program, values: new Float64Array(plan.sources.length) };
    list.push(entry);
    plans.set(key, list);
    return entry;
  };

  const fn = (...args: unknown[]): unknown => {
    if (isStagedCall(args))
      fail("unsupported", `${label} cannot be called on tensors inside a traced function`, inner.span, {
        hint: "its result is a sparse matrix, not a tensor: call it on numbers and arrays",
      });
    const call = specs.lookup(args);
    const { plan, program, values } = planned(call);
    // The program's result is borrowed: the values are gathered out of it before anything runs again.
    const out = program.runBorrowed([...withHidden(call.inst, call.values), ...plan.colourArguments]);
    return sparseResult(plan, out, options?.borrowResult === true ? { values } : undefined);
  };
  return register(
    fn,
    { description: label, compilations: () => programs.size, program: (args) => planned(specs.lookup(args)).program },
    kind,
  );
}
