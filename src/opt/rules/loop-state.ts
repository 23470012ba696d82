// Two shapes of loop state that reverse mode makes (the gradient of logsumexp, of a softmax, of any sum of a map):
//
//   ifold (fun a k -> let d = fst a in (d, addAt (snd a) k (m[k] * d))) (c, zerosLike v) (length v)
//
// - `invariant-component`: a component the body passes on unchanged (`d = fst a`, returned as it is) holds the initial
//   state's component in every iteration; reading it from the initial state instead frees the other components of it
//   (fission, ./fission.ts, then computes them alone, and LICM takes the read out of the loop);
// - `scatter-build`: a loop that adds one value at its own index into an array of zeros the length of the loop, and
//   reads the array nowhere else, is a build of those values: `build n (fun k -> 0. + m[k] * d)`. The build's elements
//   can run in SIMD lanes and fuse; the loop's updates could not. Exact: `0. + x` is what the update computed (the
//   sign of a zero included), and errors are raised for the same k in the same order.

import { mkBuild, mkPrim, mkProj, litDouble, splitLets, splitStep, wrapLets, type Binding } from "../../ir/builder.js";
import { useCounts } from "../../ir/free.js";
import type { Atom, Ifold } from "../../ir/ir.js";
import { rule, type RuleContext } from "./rule.js";

const sameVar = (a: Atom, b: Atom) => a.kind === "var" && b.kind === "var" && a.id === b.id;

export const invariantComponent = rule({
  name: "invariant-component",
  head: "ifold",
  doc: "ifold (fun a i -> let x = proj j a in .. (.., x, ..)) z n -> ifold (fun a i -> let x = proj j z in .. (.., x, ..)) z n",
  apply(node) {
    if (node.type.k !== "tuple") return undefined;
    const { bindings, tail } = splitLets(node.body);
    if (tail.kind !== "tuple") return undefined;
    const passedOn = new Set<number>();
    // The body's lets by binder: a state of many components would otherwise search the body once for each.
    const byId = new Map(bindings.map((y) => [y.v.id, y]));
    tail.elems.forEach((x, j) => {
      const b = x.kind === "var" ? byId.get(x.id) : undefined;
      if (b?.rhs.kind === "proj" && b.rhs.index === j && sameVar(b.rhs.arg, node.acc)) passedOn.add(j);
    });
    if (passedOn.size === 0) return undefined;
    const readsInit = (b: Binding): Binding =>
      b.rhs.kind === "proj" && passedOn.has(b.rhs.index) && sameVar(b.rhs.arg, node.acc)
        ? { v: b.v, rhs: mkProj(b.rhs.index, node.init) }
        : b;
    return { ...node, body: wrapLets(bindings.map(readsInit), tail) };
  },
});

/** The array `init` is, if it is all zeros with as many elements as the loop has iterations. */
function zerosOfLoopLength(node: Ifold, ctx: RuleContext): boolean {
  const init = ctx.definition(node.init);
  if (init?.kind === "prim" && init.op === "zerosLike") {
    const count = ctx.definition(node.count);
    return count?.kind === "prim" && count.op === "length" && sameVar(count.args[0]!, init.args[0]!);
  }
  // +0 only: the build computes `0. + x`, which -0 + x is not when x is -0.
  if (init?.kind !== "build" || init.body.kind !== "lit" || !Object.is(init.body.value, 0)) return false;
  const [size, count] = [init.size, node.count];
  return sameVar(size, count) || (size.kind === "lit" && count.kind === "lit" && size.value === count.value);
}

export const scatterBuild = rule({
  name: "scatter-build",
  head: "ifold",
  doc: "ifold (fun a k -> .. addAt a k x) zeros n -> build n (fun k -> .. 0. + x)   (zeros: n of them; a used only there)",
  apply(node, ctx) {
    if (node.type.k !== "array" || node.type.elem.k !== "double") return undefined;
    const { bindings: lets, step: update } = splitStep(node.body);
    if (update.kind !== "prim" || update.op !== "addAt") return undefined;
    const [target, at, value] = update.args as [Atom, Atom, Atom];
    if (!sameVar(target, node.acc) || !sameVar(at, node.index) || value.type.k !== "double") return undefined;
    if (useCounts(node.body).get(node.acc.id) !== 1 || !zerosOfLoopLength(node, ctx)) return undefined;
    const element = wrapLets(lets, mkPrim("add", [litDouble(0), value], update.span));
    return mkBuild(node.count, node.index, element, node.span);
  },
});
