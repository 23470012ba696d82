// Test helpers for reverse mode. A `Point` is an entry point of a program at fixed JSON arguments; from it:
//  - every derivative program (gradient, vjp, jacobian-rows, hessian, forward) runs in both engines — the interpreter
//    on the program built from the unoptimised primal, compiled JavaScript on the optimised one — which must agree to
//    1e-12 relative, and its IR is verified after every pass of DERIVATIVE_PIPELINE;
//  - Jacobians as plain matrices (rows: the Double leaves of the output; columns: the Double leaves of the
//    differentiated parameters, in order), by central finite differences, by forward mode, by reverse mode;
//  - the dot-product test <J t, c> = <t, Jᵀ c> with random t and c, the forward column program against the vjp one.
// IR functions built by hand (reverse over reverse) run through `runIrBoth`.

import { expect } from "vitest";
import { describeParam } from "../../src/api/entry-types.js";
import { prepare, type DerivativeKind, type SmoothProgram, type Specialised } from "../../src/api/program.js";
import { derivativeFunction } from "../../src/api/derivatives.js";
import { optimisesFirst } from "../../src/backends/registry.js";
import { doubleRank, tangentType } from "../../src/ad/seed.js";
import { compileFunction } from "../../src/codegen/compile.js";
import { runFunction } from "../../src/eval/interpreter.js";
import { someNode } from "../../src/ir/free.js";
import { typeOf, type IrFunction } from "../../src/ir/ir.js";
import { runPipeline } from "../../src/opt/pass.js";
import { DERIVATIVE_PIPELINE, PASSES } from "../../src/opt/pipeline.js";
import { numbersClose } from "../../src/runtime/equal.js";
import { valueFromJson, valueToJson } from "../../src/runtime/json.js";
import type { Value } from "../../src/runtime/value.js";
import { tupleOf, type Type } from "../../src/types/types.js";
import { expectClose, jsonClose, uniform, type Json } from "../ad/harness.js";

export { expectClose, jsonClose, load, seededRandom, uniform, type Json } from "../ad/harness.js";

/** Interpreter and compiled code agree to this (relative; absolute below 1). */
export const ENGINE_TOL = 1e-12;
/** Forward and reverse mode agree to this, and so do the two sides of the dot-product test. */
export const MODE_TOL = 1e-9;
/** Central finite differences (step 1e-6 relative) agree with derivatives to this. */
export const FD_TOL = 1e-6;

export type Matrix = number[][];

/** The Double leaves of a JSON value of type t, in order ("NaN" and the infinities as numbers). */
export function doubleLeaves(j: Json, t: Type): number[] {
  switch (t.k) {
    case "double":
      return [typeof j === "string" ? Number(j) : (j as number)];
    case "array":
      return (j as Json[]).flatMap((x) => doubleLeaves(x, t.elem));
    case "tuple":
      return t.elems.flatMap((e, i) => doubleLeaves((j as Json[])[i], e));
    default:
      return [];
  }
}

/** The elements `depth` array levels down, in row-major order. */
export function atDepth(j: Json, depth: number): Json[] {
  return depth === 0 ? [j] : (j as Json[]).flatMap((x) => atDepth(x, depth - 1));
}

/** A JSON value of type t shaped like `like`, with `f` at its Double leaves (0 at Indexes, false at Bools). */
export function mapDoubles(like: Json, t: Type, f: () => number): Json {
  switch (t.k) {
    case "double":
      return f();
    case "int":
      return 0;
    case "bool":
      return false;
    case "array":
      return (like as Json[]).map((x) => mapDoubles(x, t.elem, f));
    case "tuple":
      return t.elems.map((e, i) => mapDoubles((like as Json[])[i], e, f));
    case "fun":
      throw new Error("no JSON for a function");
  }
}

/** The JSON value with its q-th number leaf moved by h (a Double or a nested array of Doubles). */
function moveLeaf(j: Json, q: number, h: number): Json {
  let at = 0;
  const go = (x: Json): Json => (typeof x === "number" ? (at++ === q ? x + h : x) : (x as Json[]).map(go));
  return go(j);
}

export const transpose = (m: Matrix, cols: number): Matrix =>
  Array.from({ length: cols }, (_, c) => m.map((row) => row[c]!));
export const dot = (a: readonly number[], b: readonly number[]): number => {
  expect(a.length).toBe(b.length);
  return a.reduce((s, x, i) => s + x * b[i]!, 0);
};

type Engines = Record<"interp" | "js" | "wasm", Specialised>;

/**
 * Runs a derivative program in every engine (which must agree: the interpreter within ENGINE_TOL, the compiled back
 * ends exactly); returns the compiled result as JSON.
 */
function runAgreeing(specs: Engines, values: readonly Value[], what: () => string): Json {
  const [interp, js, wasm] = (["interp", "js", "wasm"] as const).map((e) =>
    valueToJson(specs[e].run(values), specs[e].resultType),
  );
  if (!jsonClose(interp, js, ENGINE_TOL)) {
    throw new Error(`${what()}: interpreter ${JSON.stringify(interp)}, compiled ${JSON.stringify(js)}`);
  }
  if (JSON.stringify(wasm) !== JSON.stringify(js)) {
    throw new Error(`${what()}: compiled JavaScript ${JSON.stringify(js)}, WebAssembly ${JSON.stringify(wasm)}`);
  }
  return js;
}

const verified = new WeakSet<IrFunction>();

/** Runs `passes` over `fn` with the IR verifier on its input and after every pass; returns the result. */
export function verifyPasses(fn: IrFunction, passes = DERIVATIVE_PIPELINE): IrFunction {
  const out = runPipeline(fn, passes, { verify: true });
  verified.add(fn);
  return out;
}

/** An entry point of a program at fixed JSON arguments, differentiated with respect to its parameters `wrt`. */
export class Point {
  readonly argTypes: readonly Type[];
  readonly resultType: Type;
  readonly values: readonly Value[];
  /** Parameter positions differentiated: by default every Double or array-of-Doubles parameter. */
  readonly wrt: readonly number[];
  /** The type of the gradient: the wrt parameter's, or a tuple of them. */
  readonly gradType: Type;
  /** The number of Double leaves of each wrt parameter. */
  readonly sizes: readonly number[];

  constructor(
    readonly p: SmoothProgram,
    readonly name: string,
    readonly args: readonly Json[],
    wrt?: readonly number[],
  ) {
    this.argTypes = p.argTypesFromJson(name, args);
    const def = p.definition(name);
    this.values = args.map((a, i) => valueFromJson(a, this.argTypes[i]!, describeParam(def, i)));
    const primal = p.specialise(name, this.argTypes, "js");
    this.resultType = primal.resultType;
    this.wrt = wrt ?? this.argTypes.flatMap((t, i) => (doubleRank(t) === undefined ? [] : [i]));
    const wrtTypes = this.wrt.map((k) => this.argTypes[k]!);
    this.gradType = wrtTypes.length === 1 ? wrtTypes[0]! : tupleOf(wrtTypes);
    this.sizes = this.wrt.map((k) => doubleLeaves(args[k], this.argTypes[k]!).length);
  }

  /** The number of Double leaves of the output and of the differentiated inputs. */
  get outputs(): number {
    return doubleLeaves(this.primal(), this.resultType).length;
  }
  get inputs(): number {
    return this.sizes.reduce((a, b) => a + b, 0);
  }

  private value: Json;

  /** The function's value (compiled), at `args` (default: the point's). */
  primal(args?: readonly Json[]): Json {
    if (args === undefined) return (this.value ??= this.p.runJson(this.name, this.args, "js"));
    return this.p.runJson(this.name, args, "js");
  }

  /** The derivative program of this kind for every engine, its IR verified after every pass (once per program). */
  specs(kind: DerivativeKind): Engines {
    const spec = (engine: "interp" | "js" | "wasm") =>
      this.p.derivative(this.name, this.argTypes, this.wrt, engine, DERIVATIVE_PIPELINE, kind);
    const specs = { interp: spec("interp"), js: spec("js"), wasm: spec("wasm") };
    for (const s of Object.values(specs)) if (!verified.has(s.lowered)) verifyPasses(s.lowered);
    return specs;
  }

  /** Runs the derivative program of this kind in every engine; the (agreeing) JSON result. vjp takes a cotangent. */
  run(kind: DerivativeKind, cotangent?: Json): Json {
    const specs = this.specs(kind);
    const extra = cotangent === undefined ? [] : [valueFromJson(cotangent, this.resultType, "the cotangent")];
    return runAgreeing(
      specs,
      [...this.values, ...extra],
      () => `${this.name} (${kind}) at ${JSON.stringify(this.args).slice(0, 500)}`,
    );
  }

  /** Per wrt parameter (a tuple when several) the JSON parts of a derivative result. */
  private perParam(j: Json): Json[] {
    return this.wrt.length === 1 ? [j] : (j as Json[]);
  }

  /** Column j of the matrix (one per Double leaf of the inputs) from a build over each parameter's positions. */
  private columns(result: Json, columnType: Type): Matrix {
    const parts = this.perParam(result);
    const cols = this.wrt.flatMap((k, i) =>
      atDepth(parts[i], doubleRank(this.argTypes[k]!)!).map((c) => doubleLeaves(c, columnType)),
    );
    expect(cols.length, "one column per input leaf").toBe(this.inputs);
    return cols;
  }

  /** The Jacobian by central finite differences of the compiled primal. */
  fdJacobian(step = 1e-6): Matrix {
    const cols: number[][] = [];
    this.wrt.forEach((k, i) => {
      const leaves = doubleLeaves(this.args[k], this.argTypes[k]!);
      for (let q = 0; q < this.sizes[i]!; q++) {
        const h = step * Math.max(1, Math.abs(leaves[q]!));
        const at = (s: number) =>
          doubleLeaves(this.primal(this.args.map((a, j) => (j === k ? moveLeaf(a, q, s * h) : a))), this.resultType);
        const [plus, minus] = [at(1), at(-1)];
        cols.push(plus.map((y, o) => (y - minus[o]!) / (2 * h)));
      }
    });
    return transpose(cols, this.outputs);
  }

  /** The Jacobian by vectorised forward mode (the "forward" program: Jacobian columns). */
  forwardJacobian(): Matrix {
    const tangent = tangentType(this.resultType);
    if (tangent === undefined) throw new Error(`${this.name} has no Double in its result`);
    return transpose(this.columns(this.run("forward"), tangent), this.outputs);
  }

  /** The Jacobian by reverse mode: the gradient for a Double result, else one reverse sweep per output (rows). */
  reverseJacobian(): Matrix {
    if (this.resultType.k === "double") {
      const g = this.run("gradient");
      const [value, ...grads] = this.run("value-gradient") as Json[];
      expectClose(value, this.primal(), ENGINE_TOL, `${this.name}: value-gradient's value`);
      expectClose(grads.length === 1 ? grads[0] : grads, g, ENGINE_TOL, `${this.name}: value-gradient's gradient`);
      return [doubleLeaves(g, this.gradType)];
    }
    const rank = doubleRank(this.resultType);
    if (rank === undefined) throw new Error(`${this.name}: reverse Jacobians by rows need an array-of-Doubles result`);
    const rows = atDepth(this.run("jacobian-rows"), rank).map((g) => doubleLeaves(g, this.gradType));
    expect(rows.length, "one row per output").toBe(this.outputs);
    return rows;
  }

  /** Jᵀ c by the vjp program (the value it returns is the primal's); c is a JSON value shaped like the result. */
  vjp(c: Json): number[] {
    const [value, ...adjoints] = this.run("vjp", c) as Json[];
    expectClose(value, this.primal(), ENGINE_TOL, `${this.name}: vjp's value`);
    return this.wrt.flatMap((k, i) => doubleLeaves(adjoints[i], this.argTypes[k]!));
  }

  /** A random cotangent: Doubles uniform in [-1, 1] at the result's Double leaves. */
  randomCotangent(rnd: () => number): Json {
    return mapDoubles(this.primal(), this.resultType, () => uniform(rnd, -1, 1));
  }

  /**
   * The dot-product test: <J t, c> with J t from the forward column program, <t, Jᵀ c> from the vjp program, for
   * random t and c; also Jᵀ c against the forward Jacobian transposed, element by element.
   */
  dotProductTest(rnd: () => number, forward: Matrix = this.forwardJacobian(), trials = 2): void {
    for (let trial = 0; trial < trials; trial++) {
      const t = Array.from({ length: this.inputs }, () => uniform(rnd, -1, 1));
      const c = this.randomCotangent(rnd);
      const cLeaves = doubleLeaves(c, this.resultType);
      const jt = forward.map((row) => dot(row, t));
      const jtc = this.vjp(c);
      const [lhs, rhs] = [dot(jt, cLeaves), dot(t, jtc)];
      if (!numbersClose(lhs, rhs, MODE_TOL)) throw new Error(`${this.name}: <J t, c> = ${lhs} but <t, Jᵀ c> = ${rhs}`);
      const expected = transpose(forward, this.inputs).map((col) => dot(col, cLeaves));
      expectClose(jtc, expected, MODE_TOL, `${this.name}: Jᵀ c by vjp against the forward Jacobian`);
    }
  }

  /** The Hessian by forward over reverse (the "hessian" program), a matrix over the input leaves. */
  hessian(): Matrix {
    return transpose(this.columns(this.run("hessian"), this.gradType), this.inputs);
  }

  /**
   * Hᵀ c by the vjp program of the gradient program (reverse mode over it, or its forward columns where it keeps
   * tapes: the library's vjp(grad(f))), in every engine; c is shaped like the gradient. The adjoints' leaves in order.
   */
  vjpOfGradient(c: Json): number[] {
    const specs = Object.fromEntries(
      (["interp", "js", "wasm"] as const).map((engine) => {
        const gradient = this.specs("gradient")[engine].lowered;
        const fn = derivativeFunction(gradient, "vjp", this.wrt, optimisesFirst(engine));
        if (!verified.has(fn)) verifyPasses(fn);
        return [engine, prepare(fn, [...this.argTypes, this.gradType], engine, DERIVATIVE_PIPELINE)];
      }),
    ) as Engines;
    const ct = valueFromJson(c, this.gradType, "the cotangent");
    const [, ...adjoints] = runAgreeing(
      specs,
      [...this.values, ct],
      () => `${this.name} (vjp of the gradient)`,
    ) as Json[];
    return this.wrt.flatMap((k, i) => doubleLeaves(adjoints[i], this.argTypes[k]!));
  }

  /** The Hessian by central differences of the (reverse, compiled) gradient. */
  fdHessian(step = 1e-6): Matrix {
    const gradient = this.specs("gradient").js;
    const grad = (args: readonly Json[]) => {
      const values = args.map((a, i) => valueFromJson(a, this.argTypes[i]!, "arg"));
      return doubleLeaves(valueToJson(gradient.run(values), gradient.resultType), this.gradType);
    };
    const cols: number[][] = [];
    this.wrt.forEach((k, i) => {
      const leaves = doubleLeaves(this.args[k], this.argTypes[k]!);
      for (let q = 0; q < this.sizes[i]!; q++) {
        const h = step * Math.max(1, Math.abs(leaves[q]!));
        const at = (s: number) => grad(this.args.map((a, j) => (j === k ? moveLeaf(a, q, s * h) : a)));
        const [plus, minus] = [at(1), at(-1)];
        cols.push(plus.map((y, o) => (y - minus[o]!) / (2 * h)));
      }
    });
    return transpose(cols, this.inputs);
  }

  /**
   * Everything at once: forward against finite differences; reverse (gradient or rows, when the result allows)
   * against forward and finite differences; the vjp and dot-product tests. Returns the forward Jacobian.
   */
  checkAll(rnd: () => number): Matrix {
    const fd = this.fdJacobian();
    const fwd = this.forwardJacobian();
    expectClose(fwd, fd, FD_TOL, `${this.name}: forward Jacobian vs finite differences`);
    if (doubleRank(this.resultType) !== undefined) {
      const rev = this.reverseJacobian();
      expectClose(rev, fwd, MODE_TOL, `${this.name}: reverse Jacobian vs forward`);
      expectClose(rev, fd, FD_TOL, `${this.name}: reverse Jacobian vs finite differences`);
    }
    this.dotProductTest(rnd, fwd);
    return fwd;
  }
}

/**
 * Runs an IR function built by hand in both engines — the interpreter (after forward-ad when it has `jvp` nodes) and
 * compiled JavaScript after DERIVATIVE_PIPELINE, verified after every pass — which must agree. Returns the JSON.
 */
export function runIrBoth(fn: IrFunction, values: readonly Value[]): Json {
  const hasJvp = someNode(fn.body, (e) => e.kind === "jvp");
  const reference = hasJvp ? runPipeline(fn, [PASSES["forward-ad"]!], { verify: true }) : fn;
  const optimised = verifyPasses(fn);
  const t = typeOf(fn.body);
  const interp = valueToJson(runFunction(reference, values), t);
  const js = valueToJson(compileFunction(optimised)(values), t);
  if (!jsonClose(interp, js, ENGINE_TOL))
    throw new Error(`${fn.name}: interpreter ${JSON.stringify(interp)}, compiled ${JSON.stringify(js)}`);
  return js;
}
