// The derivative transforms that return functions: grad, valueAndGrad, jacobian, hessian. Each returns a compiled
// function whose target is the derivative (./derived-target.ts), so any transform accepts it again: grad(grad(f)),
// jacobian(grad(f)), vmap(grad(f)), hessian(vmap(...)). What a request means (which arguments, which results, which
// mode, which program) is src/api/derivatives.ts's and src/api/derivative-blocks.ts's; here are the options, the
// result forms and the checks' wording.

import { registerTransform } from "../tsfront/transforms.js";
import { optimisesFirst } from "../backends/registry.js";
import {
  checkWrt,
  GRADIENT_HINT,
  HESSIAN_HINT,
  requireDoubleRank,
  requireDoubleResult,
  valueSize,
  type Mode,
} from "../api/derivatives.js";
import { gradientFunction, hessianFunction, jacobianFunction, leavesOf, packType } from "../api/derivative-blocks.js";
import type { Value } from "../runtime/value.js";
import { fail } from "../syntax/diagnostics.js";
import { arrayOf, showType, tupleOf, type Type } from "../types/types.js";
import { compiledFunction } from "./compile.js";
import type { BackendOption } from "./backend-option.js";
import type {
  AnyFunction,
  GradFunction,
  HessianFunction,
  JacobianFunction,
  OnBackend,
  ValueAndGradFunction,
} from "./types.js";
import { DerivedTarget } from "./derived-target.js";
import { sparseFunction } from "./sparse.js";
import { parseArgnums, type Argnums } from "./errors.js";
import { checkCompileOptions, checkFlag } from "./check.js";
import { blockForm, formLeaves, formOr, hessianBlockForm, rebuildForm } from "./forms.js";
import { keyOf, type Tree } from "./pytree.js";
import { BoundedCache } from "./bounded-cache.js";
import {
  compiledProgram,
  derivedKey,
  hiddenOfInner,
  targetOf,
  withHidden,
  type Instance,
  type Target,
} from "./target.js";

/** Which arguments to differentiate: a position (the default, 0) or a list of positions (then results are a list). */
export interface ArgnumsOption extends BackendOption {
  readonly argnums?: number | readonly number[];
}

export interface GradOptions extends ArgnumsOption {
  /** The function returns `[value, aux]`: differentiate the value, return aux alongside (as JAX's has_aux). */
  readonly hasAux?: boolean;
}

export interface JacobianOptions extends SparseOption {
  /**
   * `reverse`: one reverse sweep per output scalar; `forward`: vectorised forward mode, one column per input scalar;
   * `auto` (default): reverse when the output has fewer scalars than the differentiated inputs, else forward. With
   * `sparse`, per colour of the rows or of the columns (auto: the fewer).
   */
  readonly mode?: "auto" | "forward" | "reverse";
}

export interface SparseOption extends ArgnumsOption {
  /**
   * Return the derivative in compressed sparse row form (a SparseMatrix: `shape`, `rowPointers`, `columnIndexes`,
   * `values`, `info`), computed from its sparsity pattern: the pattern is found from the program at the arguments'
   * shapes and Index values, its columns (or rows) coloured so that one compressed pass per colour gives every entry.
   * Rows are the output's scalars, columns the differentiated arguments' (each a Double or an array of Doubles),
   * argument after argument, row-major. A dense pattern is computed as dense (info.note says so). With
   * `borrowResult`, the arrays of the result belong to the function and are rewritten by its next call.
   */
  readonly sparse?: boolean;
}

/** The gradients' form: each in its argument's form (a list when argnums is a list). */
function gradientsForm(argnums: Argnums, trees: readonly Tree[]): Tree {
  if (argnums.single) return trees[argnums.list[0]!]!;
  return { k: "tuple", elems: argnums.list.map((k) => trees[k]!) };
}

class GradTarget extends DerivedTarget {
  constructor(
    inner: Target,
    name: string,
    private readonly argnums: Argnums,
    private readonly withValue: boolean,
    private readonly hasAux: boolean,
  ) {
    super(inner, `${name}(${inner.label})`);
  }

  protected make(trees: readonly Tree[], values?: () => readonly Value[]): Instance {
    const inner = this.inner.instance(trees, values);
    const { list } = this.argnums;
    checkWrt(this.inner, inner.argTypes, list, this.label);
    const rt = inner.resultType;
    if (this.hasAux) {
      if (rt.k !== "tuple" || rt.elems.length !== 2 || rt.elems[0]!.k !== "double")
        fail(
          "argument",
          `${this.label} with hasAux needs ${this.inner.label} to return a pair [value, aux] whose value is a Double, but it returns ${showType(rt)}`,
          this.span,
          { expected: "[Double, anything]", found: showType(rt) },
        );
    } else requireDoubleResult(this.inner, rt, this.label, GRADIENT_HINT);
    const grads = packType(list.map((k) => inner.argTypes[k]!));
    const aux = this.hasAux ? (rt as { elems: readonly Type[] }).elems[1]! : undefined;
    const resultType = this.withValue ? tupleOf([rt, grads]) : aux ? tupleOf([grads, aux]) : grads;
    const { withValue, hasAux } = this;
    return {
      argTypes: inner.argTypes,
      ...hiddenOfInner(inner),
      ...derivedKey(inner, `grad[${list.join(",")}|${withValue}|${hasAux}]`),
      resultType,
      paramNames: inner.paramNames,
      derivative: true,
      lower: (engine) => gradientFunction(inner.lower(engine), list, optimisesFirst(engine), { withValue, hasAux }),
      ...(inner.cacheKey === undefined || inner.hidden !== undefined
        ? {}
        : { cacheKey: JSON.stringify(["grad", inner.cacheKey, list, withValue, hasAux]) }),
      resultForm: (ts) => {
        const g = gradientsForm(this.argnums, ts);
        const valueForm = formOr(inner.resultForm(ts), rt);
        if (withValue) return { k: "tuple", elems: [valueForm, g] };
        if (!hasAux) return g;
        const auxForm = valueForm.k === "tuple" ? valueForm.elems[1]! : formOr(undefined, aux!);
        return { k: "tuple", elems: [g, auxForm] };
      },
    };
  }
}

function checkGradOptions(options: unknown, what: string): void {
  checkCompileOptions(options, what, ["argnums", "hasAux"]);
  checkFlag((options as GradOptions | undefined)?.hasAux, what, "hasAux");
}

/**
 * The gradient of `f` (which must return a Double) with respect to argument `argnums` (default 0), by reverse mode,
 * in the argument's form: a Float64Array for a Float64Array, `{w, b}` for `{w, b}`, nested arrays for nested arrays.
 * With a list of positions, a list of gradients. With `hasAux`, f returns `[value, aux]` and the result is
 * `[gradient, aux]`. The result is itself a function every transform accepts (`grad(grad(f))`, `vmap(grad(f))`).
 *
 * @example
 * const dloss = grad(m.loss, { argnums: [0, 1] });
 * const [dw, db] = dloss(w, b, x);
 */
export function grad<F extends AnyFunction, const O extends GradOptions = GradOptions>(
  f: F,
  options?: O,
): OnBackend<O, GradFunction<F, O>> {
  checkGradOptions(options, "grad");
  const o: GradOptions = options ?? {};
  const target = new GradTarget(targetOf(f, "grad"), "grad", parseArgnums(o.argnums, "grad"), false, !!o.hasAux);
  return compiledFunction(target, target.label, "grad", o) as OnBackend<O, GradFunction<F, O>>;
}

/** Like {@link grad}, but returns `[value, gradient]` (with `hasAux`, `[[value, aux], gradient]`) from one program. */
export function valueAndGrad<F extends AnyFunction, const O extends GradOptions = GradOptions>(
  f: F,
  options?: O,
): OnBackend<O, ValueAndGradFunction<F, O>> {
  checkGradOptions(options, "valueAndGrad");
  const o: GradOptions = options ?? {};
  const argnums = parseArgnums(o.argnums, "valueAndGrad");
  const target = new GradTarget(targetOf(f, "valueAndGrad"), "valueAndGrad", argnums, true, !!o.hasAux);
  return compiledFunction(target, target.label, "valueAndGrad", o) as OnBackend<O, ValueAndGradFunction<F, O>>;
}

/** How many scalars a value of this structure holds. */
const sizeOf = (t: Tree): number =>
  t.k === "dense"
    ? t.shape.reduce((n, d) => n * d, 1)
    : t.k === "tuple"
      ? t.elems.reduce((n, e) => n + sizeOf(e), 0)
      : t.k === "list"
        ? t.length * sizeOf(t.elem)
        : 1;

class JacobianTarget extends DerivedTarget {
  /** The mode chosen per argument shapes (auto mode runs the primal once per shapes to compare sizes). */
  private readonly modes = new BoundedCache<string, Mode>();

  constructor(
    inner: Target,
    private readonly argnums: Argnums,
    private readonly requested: Mode | undefined,
  ) {
    super(inner, `jacobian(${inner.label})`);
  }

  /** Checks what the Jacobian is of; the ranks of the output's leaves. */
  private check(inner: Instance): number[] {
    const { list } = this.argnums;
    checkWrt(this.inner, inner.argTypes, list, this.label);
    for (const k of list)
      for (const leaf of leavesOf(inner.argTypes[k]!))
        requireDoubleRank(this.inner, leaf.type, `every part of ${this.inner.argument(k)}`, this.label);
    return leavesOf(inner.resultType).map((leaf) =>
      requireDoubleRank(this.inner, leaf.type, `every part of the result of ${this.inner.label}`, this.label),
    );
  }

  private mode(trees: readonly Tree[], values?: () => readonly Value[]): Mode {
    const shapes = keyOf(trees, true);
    const known = this.modes.get(shapes);
    if (known) return known;
    const inner = this.inner.instance(trees, values);
    this.check(inner);
    // Both modes can: reverse when there are fewer output scalars than input scalars. Without the call's values
    // (inside another transform), a Double output counts 1 and any other as many.
    const inputs = this.argnums.list.reduce((n, k) => n + sizeOf(trees[k]!), 0);
    const output = () =>
      values
        ? valueSize(compiledProgram(inner).run(withHidden(inner, values())))
        : inner.resultType.k === "double"
          ? 1
          : Number.POSITIVE_INFINITY;
    const mode = this.requested ?? (output() < inputs ? "reverse" : "forward");
    this.modes.set(shapes, mode);
    return mode;
  }

  override key(trees: readonly Tree[], values?: () => readonly Value[]): string {
    return `${this.inner.key(trees, values)}|${this.mode(trees, values)}`;
  }

  protected make(trees: readonly Tree[], values?: () => readonly Value[]): Instance {
    const inner = this.inner.instance(trees, values);
    const mode = this.mode(trees, values);
    const { list, single } = this.argnums;
    const outRanks = this.check(inner);
    // The output's structure, whose leaf j is per argument (a list of them for several) the argument's structure
    // whose leaf i is the block of shape O_j ++ I_i.
    const pack = <T>(parts: T[], tuple: (parts: T[]) => T): T => (single ? parts[0]! : tuple(parts));
    let j = 0;
    const resultType = rebuildType(inner.resultType, () => {
      const rank = outRanks[j++]!;
      // (A list of one position is that block itself in the program, and a list of it as a result: see decode.)
      return packType(list.map((k) => rebuildType(inner.argTypes[k]!, (leaf) => prefixDims(leaf, rank))));
    });
    return {
      argTypes: inner.argTypes,
      ...hiddenOfInner(inner),
      ...derivedKey(inner, `jacobian[${list.join(",")}|${single}|${mode}]`),
      resultType,
      paramNames: inner.paramNames,
      derivative: true,
      lower: (engine) => jacobianFunction(inner.lower(engine), list, mode, optimisesFirst(engine), inner.paramNames),
      resultForm: (ts) => {
        const out = formOr(inner.resultForm(ts), inner.resultType);
        let leaf = 0;
        return rebuildForm(out, () => {
          const rank = outRanks[leaf++]!;
          const blocks = list.map((k) => {
            const ins = formLeaves(ts[k]!);
            return rebuildForm(ts[k]!, (i) => blockForm(ins[i]!, rank));
          });
          return pack<Tree>(blocks, (elems) => ({ k: "tuple", elems }));
        });
      },
    };
  }
}

/** A type of the structure of `t` (its tuples) whose leaves are `leaf(leaf's type)`, depth first. */
const rebuildType = (t: Type, leaf: (t: Type) => Type): Type =>
  t.k === "tuple" ? tupleOf(t.elems.map((e) => rebuildType(e, leaf))) : leaf(t);

/** Array^n<t>: a block with n dimensions in front of t's. */
const prefixDims = (t: Type, outRank: number): Type => {
  let u = t;
  for (let d = 0; d < outRank; d++) u = arrayOf(u);
  return u;
};

/**
 * The Jacobian of `f` with respect to argument `argnums` (default 0), in JAX's structure. For an output of shape O and
 * an argument of shape I, the block has shape O ++ I (a Vector → Vector function gives a matrix with one row per
 * output), in the argument's form (rows of Float64Arrays, nested arrays or an NDArray); an object argument gives an
 * object of blocks, and an output that is an object (or a JS array of parts, or a Smooth tuple) gives that object
 * with the blocks of each part in place: the Jacobian of `{a: number, b: Float64Array}` with respect to `{w, c}` is
 * `{a: {w, c}, b: {w, c}}`. With a list of positions, each part of the output holds a list, one entry per argument.
 * Every part of the output and of the arguments differentiated must be a Double or an array of Doubles. See
 * {@link JacobianOptions} for the mode.
 */
export function jacobian<F extends AnyFunction, const O extends JacobianOptions = JacobianOptions>(
  f: F,
  options?: O,
): OnBackend<O, JacobianFunction<F, O>> {
  checkCompileOptions(options, "jacobian", ["argnums", "mode", "sparse"]);
  checkFlag(options?.sparse, "jacobian", "sparse");
  if (options?.sparse === true) notOnWebGpu(options, "jacobian");
  const argnums = parseArgnums(options?.argnums, "jacobian");
  const mode = options?.mode ?? "auto";
  if (mode !== "auto" && mode !== "forward" && mode !== "reverse")
    fail("argument", `jacobian: unknown mode \`${String(mode)}\``, undefined, { expected: "auto, forward or reverse" });
  if (options?.sparse === true)
    return sparseFunction(
      targetOf(f, "jacobian"),
      argnums,
      "jacobian",
      mode === "auto" ? undefined : mode,
      options,
    ) as OnBackend<O, JacobianFunction<F, O>>;
  const target = new JacobianTarget(targetOf(f, "jacobian"), argnums, mode === "auto" ? undefined : mode);
  return compiledFunction(target, target.label, "jacobian", options) as OnBackend<O, JacobianFunction<F, O>>;
}

/** Sparse Jacobians and Hessians run on the CPU back ends (their colouring and decompression are host work). */
function notOnWebGpu(options: BackendOption, what: string): void {
  if (options.backend === "webgpu")
    fail("argument", `${what}: sparse: true runs on the js and wasm back ends, not webgpu`, undefined, {
      hint: 'leave out sparse, or give backend: "wasm"',
    });
}

class HessianTarget extends DerivedTarget {
  constructor(
    inner: Target,
    private readonly argnums: Argnums,
  ) {
    super(inner, `hessian(${inner.label})`);
  }

  protected make(trees: readonly Tree[], values?: () => readonly Value[]): Instance {
    const inner = this.inner.instance(trees, values);
    const { list, single } = this.argnums;
    checkWrt(this.inner, inner.argTypes, list, this.label);
    requireDoubleResult(this.inner, inner.resultType, this.label, HESSIAN_HINT);
    for (const k of list)
      for (const leaf of leavesOf(inner.argTypes[k]!))
        requireDoubleRank(this.inner, leaf.type, `every part of ${this.inner.argument(k)}`, this.label);
    // The result's type is the derivative program's: built once here (cheap: no optimisation) for its type.
    const entryType = (a: number, c: number): Type => {
      const rebuild = (t: Type, leaf: (i: number) => Type): Type => {
        let next = 0;
        const rec = (u: Type): Type => (u.k === "tuple" ? tupleOf(u.elems.map(rec)) : leaf(next++));
        return rec(t);
      };
      const ta = inner.argTypes[list[a]!]!;
      const tc = inner.argTypes[list[c]!]!;
      const la = leavesOf(ta);
      const lc = leavesOf(tc);
      return rebuild(ta, (i) => rebuild(tc, (j) => prefixDims(lc[j]!.type, rankOf(la[i]!.type))));
    };
    const resultType =
      list.length === 1 ? entryType(0, 0) : tupleOf(list.map((_, a) => tupleOf(list.map((_, c) => entryType(a, c)))));
    return {
      argTypes: inner.argTypes,
      ...hiddenOfInner(inner),
      ...derivedKey(inner, `hessian[${list.join(",")}|${single}]`),
      resultType,
      paramNames: inner.paramNames,
      derivative: true,
      lower: (engine) => hessianFunction(inner.lower(engine), list, optimisesFirst(engine), inner.paramNames),
      resultForm: (ts) => {
        const entry = (a: number, c: number): Tree => {
          const ta = ts[list[a]!]!;
          const tc = ts[list[c]!]!;
          const la = formLeaves(ta);
          const lc = formLeaves(tc);
          return rebuildForm(ta, (i) => rebuildForm(tc, (j) => hessianBlockForm(la[i]!, lc[j]!)));
        };
        if (single) return entry(0, 0);
        return { k: "tuple", elems: list.map((_, a) => ({ k: "tuple", elems: list.map((_, c) => entry(a, c)) })) };
      },
    };
  }
}

const rankOf = (t: Type): number => (t.k === "array" ? 1 + rankOf(t.elem) : 0);

/**
 * The Hessian of `f` (returning a Double) with respect to argument `argnums` (default 0), by forward over reverse
 * mode. For an argument of shape I the Hessian has shape I ++ I, in the argument's form; for an object argument
 * (`{W1, b1, W2, b2}`), an object of objects of blocks: `H.W1.b1` is ∂²f/∂W1∂b1, of shape W1 ++ b1. With a list of
 * positions [i, j, ...], a list of lists: entry [i][j] is the block (or object of blocks) of ∂²f/∂x_i∂x_j.
 */
export function hessian<F extends AnyFunction, const O extends SparseOption = SparseOption>(
  f: F,
  options?: O,
): OnBackend<O, HessianFunction<F, O>> {
  checkCompileOptions(options, "hessian", ["argnums", "sparse"]);
  checkFlag(options?.sparse, "hessian", "sparse");
  if (options?.sparse === true) {
    notOnWebGpu(options, "hessian");
    return sparseFunction(
      targetOf(f, "hessian"),
      parseArgnums(options.argnums, "hessian"),
      "hessian",
      undefined,
      options,
    ) as OnBackend<O, HessianFunction<F, O>>;
  }
  const target = new HessianTarget(targetOf(f, "hessian"), parseArgnums(options?.argnums, "hessian"));
  return compiledFunction(target, target.label, "hessian", options) as OnBackend<O, HessianFunction<F, O>>;
}

// A plain function calling these is translated with them (src/tsfront/transforms.ts), not traced.
registerTransform(grad, "grad");
registerTransform(valueAndGrad, "valueAndGrad");
registerTransform(jacobian, "jacobian");
registerTransform(hessian, "hessian");
