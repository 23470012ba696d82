// vmap: a function mapped over an axis of some of its arguments, as JAX's vmap. Its instance is one IR function —
//   fun xs... -> build n (fun b -> f (slice of each mapped argument at b along its axis) (unmapped arguments))
// followed by moving the batch axis of each result leaf to its out axis — so the mapped function is compiled once,
// differentiated (grad(vmap(f))), mapped again, and maps any transform's result (vmap(grad(f)): per-example gradients).

import { registerTransform } from "../tsfront/transforms.js";
import { inlineCall, functionOf } from "../api/derivative-blocks.js";
import { arrayDims, mapElements, movePermutation, permuteAxes, sliceAxis } from "../ir/axes.js";
import type { AnfBuilder } from "../ir/builder.js";
import type { Atom } from "../ir/ir.js";
import { fail } from "../syntax/diagnostics.js";
import { mArray, prune, type MType } from "../types/mtype.js";
import { arrayOf, tupleOf, type Type } from "../types/types.js";
import { compiledFunction } from "./compile.js";
import type { BackendOption } from "./backend-option.js";
import type { AnyFunction, OnBackend, VmapFunction } from "./types.js";
import { DerivedTarget } from "./derived-target.js";
import { batchedForm, formOr } from "./forms.js";
import { describeJs, keyOf, treeType, type Tree, type Where } from "./pytree.js";
import { checkCompileOptions } from "./check.js";
import { derivedKey, hiddenOfInner, targetOf, type Instance, type Target } from "./target.js";

/** An axis of every array in an argument (negative: counted from the last), or null: the argument is not mapped. */
export type Axis = number | null;

export interface VmapOptions extends BackendOption {
  /**
   * Per argument, the axis to map over in each of its arrays (an object's arrays all along that axis; -1 is the last
   * axis), or null to pass it whole to every call; a single entry applies to every argument. Default 0.
   */
  readonly inAxes?: Axis | readonly Axis[];
  /** Where the batch axis goes in each array of the result (a list: per component of a tuple result). Default 0. */
  readonly outAxes?: number | readonly number[];
}

/** The number of array levels above the scalars or tuples of a type. */
const rankOf = (t: Type): number => (t.k === "array" ? 1 + rankOf(t.elem) : 0);

/** The axis along which a leaf of rank `rank` is mapped (a negative axis counts from the end), checked. */
function leafAxis(axis: number, rank: number, where: Where, label: string): number {
  const a = axis < 0 ? rank + axis : axis;
  if (rank === 0)
    fail("argument", `${label} maps over axis ${axis} of ${where.what}, but it is not an array`, where.span, {
      expected: "an array (or inAxes null for this argument)",
    });
  if (a < 0 || a >= rank)
    fail("argument", `${label}: axis ${axis} is out of range for ${where.what}, which has ${rank} axes`, where.span, {
      expected: `an axis from ${-rank} to ${rank - 1}`,
      found: String(axis),
    });
  return a;
}

const INT_TREE: Tree = { k: "index" };

/** A leaf's structure without the mapped axis, and that axis's length. */
function elementLeaf(t: Tree, axis: number, where: Where, label: string): { tree: Tree; length: number } {
  if (t.k === "dense") {
    const a = leafAxis(axis, t.shape.length, where, label);
    const shape = t.shape.filter((_, d) => d !== a);
    const tree: Tree =
      shape.length > 0
        ? { ...t, shape }
        : t.elem === "double"
          ? { k: "double" }
          : t.elem === "int"
            ? INT_TREE
            : { k: "bool" };
    return { tree, length: t.shape[a]! };
  }
  if (t.k === "list") {
    leafAxis(axis, 1, where, label);
    return { tree: t.elem, length: t.length };
  }
  leafAxis(axis, 0, where, label);
  throw new Error("unreachable");
}

class VmapTarget extends DerivedTarget {
  constructor(
    inner: Target,
    private readonly inAxes: Axis | readonly Axis[],
    private readonly outAxes: number | readonly number[],
  ) {
    super(inner, `vmap(${inner.label})`);
  }

  axis(k: number): Axis {
    const a = this.inAxes;
    return typeof a === "number" || a === null ? a : (a[k] ?? null);
  }

  override hint(k: number): MType | undefined {
    const h = this.inner.hint(k);
    const axis = this.axis(k);
    if (axis === null || !h) return h;
    return axis === 0 && prune(h).k !== "tuple" ? mArray(h) : undefined;
  }

  override checkArity(n: number): void {
    this.inner.checkArity(n);
    const axes = this.inAxes;
    if (Array.isArray(axes) && axes.length !== n)
      fail("argument", `${this.label}: inAxes has ${axes.length} entries for ${n} arguments`, this.span, {
        expected: "one entry (an axis or null) per argument",
      });
    if (!Array.from({ length: n }, (_, k) => k).some((k) => this.axis(k) !== null))
      fail("argument", `${this.label}: inAxes maps no argument`, this.span);
  }

  /** The element trees (checking that the mapped arrays have one length along their axes). */
  private elements(trees: readonly Tree[]): Tree[] {
    let length: number | undefined;
    let first = "";
    return trees.map((t, k) => {
      const axis = this.axis(k);
      if (axis === null) return t;
      const where = this.where(k);
      const leaf = (u: Tree, path: string): Tree => {
        if (u.k === "tuple")
          return { ...u, elems: u.elems.map((e, i) => leaf(e, `${path}${u.keys ? `.${u.keys[i]}` : `[${i}]`}`)) };
        const e = elementLeaf(u, axis, { ...where, what: path ? `${where.what} at ${path}` : where.what }, this.label);
        const what = path ? `${where.what} at ${path}` : where.what;
        if (length === undefined) [length, first] = [e.length, what];
        else if (e.length !== length)
          fail("argument", `${this.label}: the mapped arguments have different lengths along their axes`, this.span, {
            expected: `${length} (the length of ${first})`,
            found: `${e.length} (the length of ${what})`,
          });
        return e.tree;
      };
      return leaf(t, "");
    });
  }

  override key(trees: readonly Tree[]): string {
    return `${this.inner.key(this.elements(trees))}/${keyOf(trees, false)}`;
  }

  protected make(trees: readonly Tree[]): Instance {
    const elements = this.elements(trees);
    const inner = this.inner.instance(elements);
    const argTypes = trees.map(treeType);
    const r = inner.resultType;
    const parts = r.k === "tuple" ? r.elems : [r];
    const outAxes = parts.map((p, i) => {
      const axis = typeof this.outAxes === "number" ? this.outAxes : this.outAxes[i];
      if (axis === undefined)
        fail("argument", `${this.label}: outAxes has no entry for component ${i} of the result`, this.span);
      const rank = rankOf(p) + 1;
      const a = axis < 0 ? rank + axis : axis;
      if (a < 0 || a >= rank)
        fail("argument", `${this.label}: out axis ${axis} is out of range for a result with ${rank} axes`, this.span);
      return a;
    });
    const split = outAxes.some((a) => a !== 0);
    const resultType = split && r.k === "tuple" ? tupleOf(r.elems.map(arrayOf)) : arrayOf(r);
    const axes = [...argTypes.map((_, k) => this.axis(k)), ...(inner.hidden ?? []).map(() => null)];
    const hidden = inner.hidden ?? [];
    return {
      argTypes,
      ...hiddenOfInner(inner),
      ...derivedKey(inner, `vmap[${axes.join(",")}|${outAxes.join(",")}|${keyOf(trees, false)}]`),
      resultType,
      paramNames: inner.paramNames,
      derivative: inner.derivative,
      lower: (engine) => {
        const fn = inner.lower(engine);
        // The hidden parameters are passed to every call as they are.
        const types = [...argTypes, ...hidden.map((h) => h.type)];
        const params = types.map((type, k) => ({ name: fn.params[k]?.name ?? `x${k}`, type }));
        return functionOf(`vmapped_${fn.name}`, params, (b, xs) => {
          const mapped = xs.findIndex((_, k) => axes[k] !== null);
          const n = batchLength(b, xs[mapped]!, axes[mapped]!);
          const ys = b.build(
            n,
            (i, bb) => {
              const args = xs.map((x, k) => (axes[k] === null ? x : elementAt(bb, x, axes[k]!, i)));
              return inlineCall(bb, fn, args, "y");
            },
            "ys",
            "b",
          );
          if (!split) return ys;
          const moved = parts.map((p, i) => {
            const column = r.k === "tuple" ? mapElements(b, ys, 1, (bb, e) => bb.proj(i, e, "y")) : ys;
            const rank = rankOf(p) + 1;
            return permuteAxes(b, column, rank, movePermutation(0, outAxes[i]!, rank));
          });
          return r.k === "tuple" ? b.tuple(moved, "ys") : moved[0]!;
        });
      },
      resultForm: () => batchedForm(formOr(inner.resultForm(elements), r)),
    };
  }
}

/** The slice at `i` of every array in x along `axis` (negative: from each array's last axis). */
function elementAt(b: AnfBuilder, x: Atom, axis: number, i: Atom): Atom {
  const t = x.type;
  if (t.k === "tuple")
    return b.tuple(
      t.elems.map((_, k) => elementAt(b, b.proj(k, x, "x"), axis, i)),
      "x",
    );
  const rank = rankOf(t);
  return sliceAxis(b, x, axis < 0 ? rank + axis : axis, i);
}

/** The length of the mapped axis: that of the first array in x. */
function batchLength(b: AnfBuilder, x: Atom, axis: number): Atom {
  const t = x.type;
  if (t.k === "tuple") return batchLength(b, b.proj(0, x, "x"), axis);
  const a = axis < 0 ? rankOf(t) + axis : axis;
  return arrayDims(b, x, a + 1)[a]!;
}

/**
 * `f` mapped over an axis of its arguments (see {@link VmapOptions}): `vmap(f)(xs)` is the array of `f(x)` for each
 * row x of xs, computed by one compiled loop. A result that is an object (or a JS array of parts) comes back as an
 * object of arrays, each with the batch axis at its out axis. The result is a function every transform accepts:
 * `jacobian(vmap(f))`, `vmap(vmap(f))`, `vmap(grad(f))` (per-example gradients), `inspect(vmap(f), ...)`.
 */
export function vmap<F extends AnyFunction, const O extends VmapOptions = VmapOptions>(
  f: F,
  options?: O,
): OnBackend<O, VmapFunction<F, O>> {
  checkCompileOptions(options, "vmap", ["inAxes", "outAxes"]);
  const inAxes = options?.inAxes ?? 0;
  const outAxes = options?.outAxes ?? 0;
  const check = (a: unknown, what: string, nullable: boolean) => {
    if (!(nullable && a === null) && !(typeof a === "number" && Number.isInteger(a)))
      fail("argument", `vmap: ${what} ${typeof a === "number" ? a : describeJs(a)} is not an axis`, undefined, {
        expected: nullable ? "an integer axis (negative counts from the last) or null" : "an integer axis",
      });
  };
  for (const a of Array.isArray(inAxes) ? inAxes : [inAxes]) check(a, "inAxes entry", true);
  for (const a of Array.isArray(outAxes) ? outAxes : [outAxes]) check(a, "outAxes entry", false);
  const target = new VmapTarget(targetOf(f, "vmap"), inAxes, outAxes);
  return compiledFunction(target, target.label, "vmapped", options) as OnBackend<O, VmapFunction<F, O>>;
}

registerTransform(vmap, "vmap");
