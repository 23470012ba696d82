// The derivative transforms that return functions: grad, valueAndGrad, jacobian, hessian. Each compiles one derivative
// program per argument types (src/api/program.ts `derivative`) and gives results in the form of the arguments.

import type { Specialised } from "../api/program.js";
import { doubleRank } from "../ad/seed.js";
import type { DenseArray, Value } from "../runtime/value.js";
import { shapeSize, tuple } from "../runtime/value.js";
import { fail } from "../syntax/diagnostics.js";
import type { AnyFunction } from "./compile.js";
import { decode, decodeBlock, decodeDense, swapBlocks } from "./convert.js";
import { checkWrt, parseArgnums, requireDoubleRank, requireDoubleResult, type Argnums } from "./errors.js";
import type { Style, Tree } from "./pytree.js";
import { encodeArgs, register, Specialisations, targetOf, type Instance, type Target } from "./target.js";

/** Which arguments to differentiate: a position (the default, 0) or a list of positions (then results are a list). */
export interface ArgnumsOption {
  readonly argnums?: number | readonly number[];
}

export interface JacobianOptions extends ArgnumsOption {
  /**
   * `reverse`: one reverse sweep per output scalar; `forward`: vectorised forward mode, one column per input scalar;
   * `auto` (default): reverse when the output has fewer scalars than the differentiated inputs, else forward.
   */
  readonly mode?: "auto" | "forward" | "reverse";
}

/** Part i of a derivative program's result: the program returns a tuple (or an array of tuples) for several. */
function part(v: Value, i: number, count: number): Value {
  if (count === 1) return v;
  if (typeof v === "object" && v.tag === "tuple") return v.elems[i]!;
  if (typeof v === "object" && v.tag === "tuparr") return v.fields[i]!;
  throw new Error("a derivative program with several parts returned neither a tuple nor an array of tuples");
}

const GRAD_HINT = "use jacobian (or vjp) for a function with several outputs";

/** One call of a derivative: the program to run, and how to turn its result into the transform's result. */
interface Plan {
  readonly spec: Specialised;
  readonly finish: (out: Value) => unknown;
}

/** A transform's function: specialise per argument types (`make` checks and compiles), plan each call, run, finish. */
function derivativeFunction<E>(
  f: AnyFunction,
  name: string,
  make: (target: Target, inst: Instance, what: string) => E,
  plan: (entry: E, inst: Instance, trees: readonly Tree[], values: Value[]) => Plan,
): AnyFunction {
  const target = targetOf(f, name);
  const what = `${name}(${target.label})`;
  const specs = new Specialisations<E>(target, (inst) => make(target, inst, what));
  const prepare = (args: readonly unknown[]) => {
    const { entry, inst, trees } = specs.lookup(args);
    const { values } = encodeArgs(target, args, trees);
    return { p: plan(entry, inst, trees, values), values };
  };
  const fn = (...args: unknown[]): unknown => {
    const { p, values } = prepare(args);
    return p.finish(p.spec.run(values));
  };
  return register(
    fn,
    { description: what, compilations: () => specs.count, program: (args) => prepare(args).p.spec },
    name,
  );
}

/** Gradients of the `argnums` arguments, each in its argument's form. */
function gradients(out: Value, argnums: Argnums, inst: Instance, trees: readonly Tree[]): unknown {
  const n = argnums.list.length;
  const parts = argnums.list.map((k, i) => decode(part(out, i, n), inst.argTypes[k]!, trees[k]));
  return argnums.single ? parts[0] : parts;
}

function gradientProgram(
  target: Target,
  inst: Instance,
  argnums: Argnums,
  what: string,
  kind: "gradient" | "value-gradient",
): Specialised {
  checkWrt(target, inst, argnums, what);
  requireDoubleResult(target, inst, what, GRAD_HINT);
  return inst.program.derivative(inst.name, inst.argTypes, argnums.list, "js", undefined, kind);
}

/**
 * The gradient of `f` (which must return a Double) with respect to argument `argnums` (default 0), by reverse mode,
 * in the argument's form: a Float64Array for a Float64Array, `{w, b}` for `{w, b}`, nested arrays for nested arrays.
 * With a list of positions, a list of gradients.
 *
 * @example
 * const dloss = grad(m.loss, { argnums: [0, 1] });
 * const [dw, db] = dloss(w, b, x);
 */
export function grad(f: AnyFunction, options: ArgnumsOption = {}): AnyFunction {
  const argnums = parseArgnums(options.argnums, "grad");
  return derivativeFunction(
    f,
    "grad",
    (target, inst, what) => gradientProgram(target, inst, argnums, what, "gradient"),
    (spec, inst, trees) => ({ spec, finish: (out) => gradients(out, argnums, inst, trees) }),
  );
}

/** Like {@link grad}, but returns `[value, gradient]` from one run of one program. */
export function valueAndGrad(f: AnyFunction, options: ArgnumsOption = {}): AnyFunction {
  const argnums = parseArgnums(options.argnums, "valueAndGrad");
  return derivativeFunction(
    f,
    "valueAndGrad",
    (target, inst, what) => gradientProgram(target, inst, argnums, what, "value-gradient"),
    (spec, inst, trees) => ({
      spec,
      finish: (out) => {
        const { elems } = out as { elems: readonly Value[] };
        const grads = argnums.list.length === 1 ? elems[1]! : tuple(elems.slice(1));
        return [elems[0], gradients(grads, argnums, inst, trees)];
      },
    }),
  );
}

interface JacobianEntry {
  readonly inst: Instance;
  readonly outRank: number;
  /** Forward mode needs each differentiated argument to be a Double or an array of Doubles. */
  readonly forwardOk: boolean;
  readonly forward: () => Specialised;
  readonly reverse: () => Specialised;
}

function lazy<T>(make: () => T): () => T {
  let v: T | undefined;
  return () => (v ??= make());
}

const styleOf = (t: Tree): Style => (t.k === "dense" ? t.style : "typed");

/** How many scalars a value of this structure holds. */
const sizeOf = (t: Tree): number =>
  t.k === "dense" ? shapeSize(t.shape) : t.k === "tuple" ? t.elems.reduce((n, e) => n + sizeOf(e), 0) : 1;

/**
 * The Jacobian of `f` (returning a Double or an array of Doubles) with respect to argument `argnums` (default 0).
 * For an output of shape O and an argument of shape I, the block has shape O ++ I (a Vector → Vector function gives
 * a matrix with one row per output), in the argument's form (rows of Float64Arrays, nested arrays or an NDArray); an
 * object argument gives an object of blocks. See {@link JacobianOptions} for the mode.
 */
export function jacobian(f: AnyFunction, options: JacobianOptions = {}): AnyFunction {
  const argnums = parseArgnums(options.argnums, "jacobian");
  const mode = options.mode ?? "auto";
  if (mode !== "auto" && mode !== "forward" && mode !== "reverse")
    fail("argument", `jacobian: unknown mode \`${String(mode)}\``, undefined, { expected: "auto, forward or reverse" });
  const n = argnums.list.length;
  const choose = (e: JacobianEntry, trees: readonly Tree[], values: Value[]): "forward" | "reverse" => {
    if (mode !== "auto") return mode;
    if (!e.forwardOk || e.outRank === 0) return "reverse";
    // Compare the sizes: the output's from a run of the primal (cheaper than either Jacobian).
    const inputs = argnums.list.reduce((s, k) => s + sizeOf(trees[k]!), 0);
    const y = e.inst.program.specialise(e.inst.name, e.inst.argTypes, "js").run(values) as DenseArray;
    return shapeSize(y.shape) < inputs ? "reverse" : "forward";
  };
  return derivativeFunction<JacobianEntry>(
    f,
    "jacobian",
    (target, inst, what) => {
      checkWrt(target, inst, argnums, what);
      const outRank = requireDoubleRank(target, inst, "result", what);
      const forwardOk = argnums.list.every((k) => doubleRank(inst.argTypes[k]!) !== undefined);
      if (mode === "forward")
        argnums.list.forEach((k) => requireDoubleRank(target, inst, k, `${what} in forward mode`));
      const derivative = (kind: "forward" | "jacobian-rows") =>
        lazy(() => inst.program.derivative(inst.name, inst.argTypes, argnums.list, "js", undefined, kind));
      return { inst, outRank, forwardOk, forward: derivative("forward"), reverse: derivative("jacobian-rows") };
    },
    (e, inst, trees, values) => {
      const forward = choose(e, trees, values) === "forward";
      const block = (out: Value, k: number, i: number): unknown => {
        const p = part(out, i, n);
        // Forward mode gives, per input position, the output's tangent (shape I ++ O): swapped to O ++ I.
        if (!forward) return decodeBlock(p, e.outRank, inst.argTypes[k]!, trees[k]!);
        if (e.outRank === 0) return decode(p, inst.argTypes[k]!, trees[k]);
        const d = p as DenseArray;
        return decodeDense(swapBlocks(d, d.shape.length - e.outRank), styleOf(trees[k]!));
      };
      return {
        spec: forward ? e.forward() : e.reverse(),
        finish: (out) => {
          const blocks = argnums.list.map((k, i) => block(out, k, i));
          return argnums.single ? blocks[0] : blocks;
        },
      };
    },
  );
}

/**
 * The Hessian of `f` (returning a Double) with respect to argument `argnums` (default 0; a Double or an array of
 * Doubles), by forward over reverse mode. For an argument of shape I the Hessian has shape I ++ I, in the argument's
 * form. With a list of positions [i, j, ...], a list of lists: entry [i][j] is the block of ∂²f/∂x_i∂x_j.
 */
export function hessian(f: AnyFunction, options: ArgnumsOption = {}): AnyFunction {
  const argnums = parseArgnums(options.argnums, "hessian");
  const n = argnums.list.length;
  return derivativeFunction(
    f,
    "hessian",
    (target, inst, what) => {
      checkWrt(target, inst, argnums, what);
      requireDoubleResult(
        target,
        inst,
        what,
        "a Hessian is of a function with one Double output; reduce the outputs to one first (e.g. a sum)",
      );
      const ranks = argnums.list.map((k) => requireDoubleRank(target, inst, k, what));
      return {
        ranks,
        spec: inst.program.derivative(inst.name, inst.argTypes, argnums.list, "js", undefined, "hessian"),
      };
    },
    ({ ranks, spec }, _inst, trees) => ({
      spec,
      finish: (out) => {
        // Column j (one per differentiated argument): over x_j's positions, the tangent of each gradient i: shape
        // I_j ++ I_i. Block [i][j] is that part swapped to I_i ++ I_j.
        const block = (i: number, j: number): unknown => {
          const p = part(part(out, j, n), i, n);
          const tree = trees[argnums.list[i]!]!;
          if (typeof p === "number") return p;
          return decodeDense(swapBlocks(p as DenseArray, ranks[j]!), styleOf(tree));
        };
        if (argnums.single) return block(0, 0);
        return argnums.list.map((_, i) => argnums.list.map((_, j) => block(i, j)));
      },
    }),
  );
}
