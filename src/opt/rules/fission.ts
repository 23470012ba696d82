// Loop fission (paper 000, Fig. 7g), fused with the projection that makes it pay:
//
//   snd (ifold (fun a i -> (f (fst a) i, g (snd a) i)) (z1, z2) n)  ->  ifold (fun b i -> g b i) z2 n
//
// A loop whose state is a tuple computes component k alone when component k of its body uses the state only through
// `proj k a`. Fission pays in two cases, one rule each:
//  - `fission`: the loop is used only by one projection, so the other components (the primal computation, for the
//    dual numbers of forward mode) are never computed;
//  - `fission-invariant`: all components are independent, and some but not all of them are invariant in the enclosing
//    loop: those then leave it (LICM), like the primal value in each column of a vectorised derivative. (A tuple
//    costs nothing: the code generator keeps its components in locals.)

import { AnfBuilder, mkIfold, mkProj, splitLets, wrapLets } from "../../ir/builder.js";
import { forEachNode, operands } from "../../ir/free.js";
import { freshVar, mkTuple, type Atom, type Expr, type Ifold, type Var } from "../../ir/ir.js";
import { copyFresh } from "../../ir/rename.js";
import { removeDeadLets } from "../dce.js";
import { rule } from "./rule.js";

/** `e` with every node `proj k acc` replaced by the atom `by`. */
function replaceProjection(e: Expr, acc: Var, k: number, by: Atom): Expr {
  const { bindings, tail } = splitLets(e);
  const node = (x: Expr): Expr => {
    switch (x.kind) {
      case "proj":
        return x.arg.kind === "var" && x.arg.id === acc.id && x.index === k ? by : x;
      case "if":
        return { ...x, then: replaceProjection(x.then, acc, k, by), else: replaceProjection(x.else, acc, k, by) };
      case "lam":
      case "build":
      case "ifold":
        return { ...x, body: replaceProjection(x.body, acc, k, by) };
      case "while":
        return { ...x, cond: replaceProjection(x.cond, acc, k, by), body: replaceProjection(x.body, acc, k, by) };
      default:
        return x;
    }
  };
  return wrapLets(
    bindings.map((b) => ({ v: b.v, rhs: node(b.rhs) })),
    node(tail),
  );
}

/** The loop computing component k of `loop`'s state alone (initial state `init`), if that component is independent. */
export function componentLoop(loop: Ifold, k: number, init: Atom): Ifold | undefined {
  const { bindings, tail } = splitLets(loop.body);
  if (tail.kind !== "tuple") return undefined;
  const sliced = removeDeadLets(wrapLets(bindings, tail.elems[k]!)).expr;
  let independent = true;
  forEachNode(sliced, (n) => {
    if (!independent) return;
    const onlyComponentK = n.kind === "proj" && n.index === k;
    for (const a of operands(n)) if (a.kind === "var" && a.id === loop.acc.id && !onlyComponentK) independent = false;
  });
  if (!independent) return undefined;
  const acc = freshVar(loop.acc.name, init.type);
  const body = narrow(replaceProjection(sliced, loop.acc, k, acc));
  return copyFresh(mkIfold(init, loop.count, acc, loop.index, body, loop.span)) as Ifold;
}

/**
 * `e` with each loop of its let chain whose state is a tuple, and of which only one component is used, replaced by the
 * loop of that component (so that a slice does not keep the whole of an inner loop alive).
 */
function narrow(e: Expr): Expr {
  const { bindings } = splitLets(e);
  let out = e;
  for (const { v, rhs } of bindings) {
    if (rhs.kind !== "ifold" || v.type.k !== "tuple") continue;
    let component: number | undefined;
    let onlyOne = true;
    forEachNode(out, (n) => {
      for (const a of operands(n)) {
        if (a.kind !== "var" || a.id !== v.id) continue;
        if (n.kind !== "proj" || (component !== undefined && component !== n.index)) onlyOne = false;
        else component = n.index;
      }
    });
    if (!onlyOne || component === undefined) continue;
    const z = freshVar("z", v.type.elems[component]!);
    const loop = componentLoop(rhs, component, z);
    if (loop === undefined) continue;
    const w = freshVar(v.name, loop.type);
    const chain = splitLets(out).bindings.flatMap((x) =>
      x.v.id === v.id
        ? [
            { v: z, rhs: mkProj(component!, rhs.init) },
            { v: w, rhs: loop },
          ]
        : [x],
    );
    out = replaceProjection(wrapLets(chain, splitLets(out).tail), v, component, w);
  }
  return out;
}

export const fission = rule({
  name: "fission",
  head: "proj",
  doc: "proj k (ifold (fun a i -> (.., e_k, ..)) z n) -> ifold (fun b i -> e_k[proj k a := b]) (proj k z) n   (e_k uses only proj k a)",
  apply(node, ctx) {
    const t = node.arg;
    const def = ctx.definition(t);
    if (def?.kind !== "ifold" || t.kind !== "var" || ctx.uses(t)?.total !== 1) return undefined;
    return fissionOf(def, node.index);
  },
});

/** `proj k` of the loop `def` as the loop of component k alone, if that component is independent. */
export function fissionOf(def: Ifold, k: number): Expr | undefined {
  const b = new AnfBuilder();
  const z = b.proj(k, def.init, "z");
  const loop = componentLoop(def, k, z);
  return loop === undefined ? undefined : b.finish(loop);
}

export const fissionInvariant = rule({
  name: "fission-invariant",
  head: "ifold",
  doc: "ifold (fun a i -> (e_0, .., e_n)) z n -> (ifold .. e_0 .., .., ifold .. e_n ..)   (independent; some e_k loop-invariant)",
  apply(node, ctx) {
    if (node.type.k !== "tuple") return undefined;
    // Every component loop reads the count and (through new projections) the initial state, and reads nothing the
    // whole loop does not: unless both are invariant none of them is, and if the whole loop is, all of them are.
    // Checked first, as building the component loops costs several walks of the body.
    if (!ctx.isLoopInvariant(node.count)) return undefined;
    if (node.init.kind !== "lit" && !ctx.isLoopInvariant(node.init)) return undefined;
    if (ctx.isLoopInvariant(node)) return undefined;
    const b = new AnfBuilder();
    const loops: Ifold[] = [];
    for (let k = 0; k < node.type.elems.length; k++) {
      const loop = componentLoop(node, k, b.proj(k, node.init, "z"));
      if (loop === undefined) return undefined;
      loops.push(loop);
    }
    const invariant = loops.map((l) => ctx.isLoopInvariant(l));
    if (!invariant.some((x) => x) || invariant.every((x) => x)) return undefined;
    return b.finish(mkTuple(loops.map((l, k) => b.bind(`s${k}`, l))));
  },
});
