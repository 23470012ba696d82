// A library function called while a TypeScript function is traced (grad(g)(x) inside a staged function, or a Smooth
// module's definition). When a tensor is involved — among the arguments, or captured by the callee (a closure over
// the traced function's tensors) — the call becomes part of the traced program (src/staging/external.ts), its
// callee's instance bound to the traced definition's extra parameter, so the whole compiles as one program. Data
// among the arguments (a Float64Array, a `number[][]` the callee takes as a Matrix) is passed to the program as a
// parameter of the trace (./captured.ts). A call on plain values only runs now, as outside a trace.

import { callExternal, Tensor, type StaticType } from "../staging/index.js";
import { prune, type MType } from "../types/mtype.js";
import { CapturedData } from "./captured.js";
import { BOOL_TREE, DOUBLE_TREE, describe, INDEX_TREE, isPlainObject, type Tree, type Where } from "./pytree.js";
import { activeTrace } from "../staging/graph.js";
import { paramTypes, type Instance, type Target } from "./target.js";

/** Whether a tensor is somewhere in `x` (a JavaScript array or plain object of values). */
function hasTensor(x: unknown): boolean {
  if (x instanceof Tensor) return true;
  if (Array.isArray(x)) return x.some(hasTensor);
  return isPlainObject(x) && Object.values(x).some(hasTensor);
}

/** The structure of a staged value (a dimension not known while tracing is NaN); data in it is described as data. */
function stagedTree(value: unknown, hint: MType | undefined, where: Where): Tree {
  const h = hint && prune(hint);
  if (value instanceof Tensor) return staticTree(value.node.type);
  if (!hasTensor(value)) return describe(value, hint, where);
  const hints = h?.k === "tuple" ? h.elems : [];
  if (Array.isArray(value)) return { k: "tuple", elems: value.map((v, i) => stagedTree(v, hints[i], where)) };
  const object = value as Record<string, unknown>;
  const keys = Object.keys(object);
  return { k: "tuple", elems: keys.map((key, i) => stagedTree(object[key], hints[i], where)), keys };
}

function staticTree(s: StaticType): Tree {
  switch (s.k) {
    case "double":
      return DOUBLE_TREE;
    case "int":
      return INDEX_TREE;
    case "bool":
      return BOOL_TREE;
    case "tuple":
      return { k: "tuple", elems: s.elems.map(staticTree) };
    case "array": {
      const elem = staticTree(s.elem);
      const length = s.length ?? Number.NaN;
      if (elem.k === "double" || elem.k === "index" || elem.k === "bool")
        return { k: "dense", elem: elem.k === "index" ? "int" : elem.k, shape: [length], style: "typed" };
      if (elem.k === "dense") return { ...elem, shape: [length, ...elem.shape] };
      return { k: "list", elem, length };
    }
  }
}

/**
 * The value as the tracer takes it: objects as JavaScript arrays in key order (the tracer's tuples), and data (an
 * array that is not a tensor) wrapped with its structure, to become a parameter of the trace.
 */
function asTuples(value: unknown, tree: Tree, hint: MType | undefined): unknown {
  if (tree.k !== "tuple")
    return value instanceof Tensor || typeof value !== "object" ? value : new CapturedData(value, tree, hint);
  const h = hint && prune(hint);
  const parts = tree.keys ? tree.keys.map((k) => (value as Record<string, unknown>)[k]) : (value as unknown[]);
  return parts.map((p, i) => asTuples(p, tree.elems[i]!, h?.k === "tuple" ? h.elems[i] : undefined));
}

/** A staged result in its form: tuples with keys become objects again. */
function withKeys(value: unknown, form: Tree | undefined): unknown {
  if (form?.k !== "tuple" || !Array.isArray(value)) return value;
  const parts = value.map((v, i) => withKeys(v, form.elems[i]));
  return form.keys ? Object.fromEntries(form.keys.map((k, i) => [k, parts[i]])) : parts;
}

/** Whether a call with these arguments, made while a function is traced, must be recorded in the trace. */
export const isStagedCall = (args: readonly unknown[]): boolean => activeTrace() !== undefined && args.some(hasTensor);

/**
 * `target` applied to `args` in the trace being recorded (see the file comment): the staged result. `known` gives the
 * call's structures and instance when the caller has them (a call on plain values whose instance captured a tensor).
 */
export function stagedCall(
  target: Target,
  label: string,
  args: readonly unknown[],
  known?: { readonly trees: readonly Tree[]; readonly inst: Instance },
): unknown {
  if (!known) target.checkArity(args.length);
  const trees = known?.trees ?? args.map((a, k) => stagedTree(a, target.hint(k), target.where(k)));
  const inst = known?.inst ?? target.instance(trees);
  const plain = args.map((a, k) => asTuples(a, trees[k]!, target.hint(k)));
  const hidden = (inst.hidden ?? []).map((h) => h.staged);
  const out = callExternal(label, inst, inst, paramTypes(inst), inst.resultType, [...plain, ...hidden]);
  return withKeys(out, inst.resultForm(trees));
}
