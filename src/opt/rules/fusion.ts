// Pull-array fusion (paper 000, Fig. 7c): an array built by `build n (fun i -> body)` need not exist when it is only
// indexed and measured. `length` of it is its size; indexing it at j computes `body[i := j]` in place.
//
// Cost guard for indexing: the body is copied to every use, so a build is fused only when every use of it is a `get`
// or a `length` (then the array itself disappears) and its body contains no loop (a cheap element; recomputing a loop
// per access could change the complexity of the program).
//
// Semantics: fusion assumes in-range indexes, as the paper's rule does. Indexing a fused array out of range computes
// body[i := j] instead of raising the index error (the body may raise its own).

import { someNode } from "../../ir/free.js";
import type { Atom } from "../../ir/ir.js";
import { copyFresh } from "../../ir/rename.js";
import { rule } from "./rule.js";

export const lengthOfBuild = rule({
  name: "length-of-build",
  head: "prim",
  doc: "let xs = build n f in ... length xs -> n",
  apply(node, ctx) {
    if (node.op !== "length") return undefined;
    const def = ctx.definition(node.args[0]!);
    return def?.kind === "build" ? def.size : undefined;
  },
});

export const getOfBuild = rule({
  name: "get-of-build",
  head: "prim",
  doc: "let xs = build n (fun i -> body) in ... xs[j] -> body[i := j]   (xs only indexed or measured; body loop-free)",
  apply(node, ctx) {
    if (node.op !== "get") return undefined;
    const xs = node.args[0]!;
    const def = ctx.definition(xs);
    if (def?.kind !== "build" || xs.kind !== "var") return undefined;
    const uses = ctx.uses(xs);
    if (uses === undefined || uses.asArray !== uses.total) return undefined;
    if (someNode(def.body, (e) => e.kind === "build" || e.kind === "ifold")) return undefined;
    return copyFresh(def.body, new Map<number, Atom>([[def.index.id, node.args[1]!]]));
  },
});
