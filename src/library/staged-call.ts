// A library function called with tensors while a TypeScript function is traced (grad(g)(x) inside a staged function,
// or a Smooth module's definition): the call becomes part of the traced program (src/staging/external.ts), its
// callee's instance bound to the traced definition's extra parameter, so the whole compiles as one program.

import { callExternal, Tensor, type StaticType } from "../staging/index.js";
import { fail } from "../syntax/diagnostics.js";
import { prune, type MType } from "../types/mtype.js";
import { BOOL_TREE, DOUBLE_TREE, INDEX_TREE, isPlainObject, type Tree, type Where } from "./pytree.js";
import type { Target } from "./target.js";

/** The structure of a staged value (a dimension not known while tracing is NaN). */
function stagedTree(value: unknown, hint: MType | undefined, where: Where): Tree {
  const h = hint && prune(hint);
  if (value instanceof Tensor) return staticTree(value.node.type);
  if (typeof value === "number") return h?.k === "int" ? INDEX_TREE : DOUBLE_TREE;
  if (Array.isArray(value)) {
    const hints = h?.k === "tuple" ? h.elems : [];
    return { k: "tuple", elems: value.map((v, i) => stagedTree(v, hints[i], where)) };
  }
  if (isPlainObject(value)) {
    const keys = Object.keys(value);
    const hints = h?.k === "tuple" ? h.elems : [];
    return { k: "tuple", elems: keys.map((key, i) => stagedTree(value[key], hints[i], where)), keys };
  }
  return fail("argument", `${where.what} is not a staged value, a number, or an array or object of these`, where.span);
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

/** The value with its objects as JavaScript arrays in key order (the tracer's tuples). */
function asTuples(value: unknown, tree: Tree): unknown {
  if (tree.k !== "tuple") return value;
  const parts = tree.keys ? tree.keys.map((k) => (value as Record<string, unknown>)[k]) : (value as unknown[]);
  return parts.map((p, i) => asTuples(p, tree.elems[i]!));
}

/** A staged result in its form: tuples with keys become objects again. */
function withKeys(value: unknown, form: Tree | undefined): unknown {
  if (form?.k !== "tuple" || !Array.isArray(value)) return value;
  const parts = value.map((v, i) => withKeys(v, form.elems[i]));
  return form.keys ? Object.fromEntries(form.keys.map((k, i) => [k, parts[i]])) : parts;
}

/** `target` applied to staged arguments, recorded in the trace being made. */
export function stagedCall(target: Target, label: string, args: readonly unknown[]): unknown {
  target.checkArity(args.length);
  const trees = args.map((a, k) => stagedTree(a, target.hint(k), target.where(k)));
  const inst = target.instance(trees);
  const plain = args.map((a, k) => asTuples(a, trees[k]!));
  const out = callExternal(label, inst, inst, inst.argTypes, inst.resultType, plain);
  return withKeys(out, inst.resultForm(trees));
}
