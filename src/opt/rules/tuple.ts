// Tuple partial evaluation (paper 000, Fig. 7d): projecting a component of a let-bound tuple is that component.
// The dual numbers of forward-mode AD leave many such pairs behind, also as the branches of conditionals.

import { mkProj, splitLets, wrapLets } from "../../ir/builder.js";
import type { Atom, Expr, If } from "../../ir/ir.js";
import { copyFresh } from "../../ir/rename.js";
import { rule } from "./rule.js";

export const projOfTuple = rule({
  name: "proj-of-tuple",
  head: "proj",
  doc: "let t = (a0, ..., an) in ... proj k t -> ak   (fst (a, b) -> a, snd (a, b) -> b)",
  apply(node, ctx) {
    const def = ctx.definition(node.arg);
    return def?.kind === "tuple" ? def.elems[node.index] : undefined;
  },
});

/** `branch` ending in component k of the tuple it ended with. */
function projectBranch(branch: Expr, k: number): Expr {
  const { bindings, tail } = splitLets(branch);
  if (tail.kind === "tuple") return wrapLets(bindings, tail.elems[k]!);
  if (tail.kind === "var") return wrapLets(bindings, mkProj(k, tail));
  throw new Error(`proj-of-if: a branch ending in a ${tail.kind}`);
}

const projectable = (e: Expr) => {
  const { tail } = splitLets(e);
  return tail.kind === "tuple" || tail.kind === "var";
};

export const projOfIf = rule({
  name: "proj-of-if",
  head: "proj",
  doc: "let t = if c then (a, b) else (d, e) in ... fst t -> if c then a else d   (the projection is t's only use)",
  apply(node, ctx) {
    const t = node.arg;
    const def = ctx.definition(t);
    if (def?.kind !== "if" || t.kind !== "var" || ctx.uses(t)?.total !== 1) return undefined;
    return projectIf(def, node.index, (e) => ctx.copy(e));
  },
});

/**
 * `proj k` of the conditional `def`, taken in its branches (a copy, made by `copy`), if both end in a tuple or a
 * variable.
 */
export function projectIf(def: If, k: number, copy: (e: Expr) => Expr = copyFresh): Expr | undefined {
  if (!projectable(def.then) || !projectable(def.else) || def.type.k !== "tuple") return undefined;
  const copied = copy(def) as If;
  const then = projectBranch(copied.then, k);
  return { ...copied, then, else: projectBranch(copied.else, k), type: def.type.elems[k]! };
}

export const tupleEta = rule({
  name: "tuple-eta",
  head: "tuple",
  doc: "(proj 0 t, ..., proj n t) -> t",
  apply(node, ctx) {
    let whole: Atom | undefined;
    for (let k = 0; k < node.elems.length; k++) {
      const d = ctx.definition(node.elems[k]!);
      if (d?.kind !== "proj" || d.index !== k) return undefined;
      if (whole === undefined) whole = d.arg;
      else if (!ctx.facts.sameValue(whole, d.arg)) return undefined;
    }
    const t = whole?.type;
    return t?.k === "tuple" && t.elems.length === node.elems.length ? whole : undefined;
  },
});

export const TUPLE_RULES = [projOfTuple, projOfIf, tupleEta];
