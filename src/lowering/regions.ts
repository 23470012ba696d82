// Which loops give back, at the end of each iteration, the arena memory the iteration allocated (both compiled back
// ends; their arenas are otherwise released only when the next call starts, src/codegen/arena.ts, src/wasm/memory.ts).
// Without it a loop whose body makes a new array every step — a simulation's state, reverse mode's adjoints, the
// recomputed steps of a checkpointed loop — holds every step's arrays until the call ends.
//
// What an iteration allocated is dead after it except the next state. So at the end of an iteration each array leaf
// of the next state that lies in the iteration's memory (allocated since its start) is copied into that leaf's
// *home*, the memory where an earlier iteration's fresh value of the leaf stayed, and everything the iteration
// allocated is given back. A leaf with no home yet (or of another size) keeps its iteration: nothing is given back
// then, and its value there becomes its home (once per leaf, or per change of size). Copying a value into a home
// overwrites the state the iteration started from, which is dead — unless the next state still holds it in *another*
// leaf (a swap of two components): loops whose next state may hold one component's array in another are left alone.
//
// Left alone too: loops whose body allocates nothing (the marks would only cost time), and loops that call the
// program's functions (whose code and arena use are not followed here).

import { splitLets } from "../ir/builder.js";
import { freeVars, someNode } from "../ir/free.js";
import type { Atom, Expr, Ifold, Prim, While } from "../ir/ir.js";
import { isTapeOp } from "../prims/tape.js";
import { PRIMS } from "../prims/table.js";
import type { Type } from "../types/types.js";
import { leavesOf } from "./leaves.js";

/** Whether a value of type t holds arrays. */
const holdsArrays = (t: Type): boolean => leavesOf(t).some((l) => l.rank > 0);

/**
 * Whether each iteration of the loop may give back what it allocated (see above). `inPlace`: the updates that
 * overwrite their operand (src/lowering/ownership.ts), which allocate nothing.
 */
export function releasesIterations(loop: Ifold | While, inPlace: ReadonlySet<Prim>): boolean {
  const parts = loop.kind === "while" ? [loop.cond, loop.body] : [loop.body];
  if (parts.some((p) => someNode(p, (n) => n.kind === "call" || (n.kind === "prim" && isTapeOp(n.op))))) return false;
  const allocates = (n: Expr): boolean =>
    n.kind === "build" ||
    ((n.kind === "ifold" || n.kind === "while") && holdsArrays(n.type)) ||
    (n.kind === "prim" && PRIMS[n.op].cost === "array" && !inPlace.has(n));
  if (!parts.some((p) => someNode(p, allocates))) return false;
  return keepsComponentsApart(loop);
}

/** The state components the arrays of a value may be: per component of a tuple (`parts`), or as a whole. */
type Aliases = { readonly parts: readonly ReadonlySet<number>[] } | { readonly whole: ReadonlySet<number> };

/**
 * Whether the body's next state holds in each component at most arrays of the same component of the state it
 * started from (or fresh ones): no array moves from one component to another.
 */
function keepsComponentsApart(loop: Ifold | While): boolean {
  const t = loop.acc.type;
  if (t.k !== "tuple") return true;
  /** The state components a variable's arrays may be (or be part of), per component for a tuple. */
  const aliases = new Map<number, Aliases>([[loop.acc.id, { parts: t.elems.map((_, k) => new Set([k])) }]]);
  const union = (xs: Iterable<ReadonlySet<number>>): ReadonlySet<number> => {
    const out = new Set<number>();
    for (const x of xs) for (const k of x) out.add(k);
    return out;
  };
  const flat = (a: Aliases): ReadonlySet<number> => ("whole" in a ? a.whole : union(a.parts));
  const of = (a: Atom): ReadonlySet<number> => (a.kind === "var" ? flat(aliases.get(a.id) ?? NO_ALIASES) : NONE);
  const branches = new Map<Expr, Aliases>();
  /** The aliases of a scope's value, its lets recorded on the way. */
  const scope = (e: Expr): Aliases => {
    const { bindings, tail } = splitLets(e);
    for (const { v, rhs } of bindings) aliases.set(v.id, holdsArrays(v.type) ? value(rhs) : NO_ALIASES);
    return value(tail);
  };
  const value = (e: Expr): Aliases => {
    switch (e.kind) {
      case "var":
        return aliases.get(e.id) ?? NO_ALIASES;
      case "lit":
        return NO_ALIASES;
      case "tuple":
        return { parts: e.elems.map(of) };
      case "if": {
        const known = branches.get(e);
        if (known !== undefined) return known;
        const [a, b] = [scope(e.then), scope(e.else)];
        const both =
          "parts" in a && "parts" in b
            ? { parts: a.parts.map((x, k) => union([x, b.parts[k]!])) }
            : { whole: union([flat(a), flat(b)]) };
        branches.set(e, both);
        return both;
      }
      case "proj": {
        const a = e.arg.kind === "var" ? aliases.get(e.arg.id) : undefined;
        return { whole: a === undefined ? NONE : "parts" in a ? (a.parts[e.index] ?? NONE) : a.whole };
      }
      // A build copies what its elements are made of into a new array.
      case "build":
        return NO_ALIASES;
      // An update is its first operand's array (the value it stores is copied in); a read of a row or field too.
      case "prim":
        return {
          whole:
            e.op === "zerosLike" ? NONE : PRIMS[e.op].update !== undefined ? of(e.args[0]!) : union(e.args.map(of)),
        };
      // An inner loop's value: its initial state's arrays, or what its body makes of them (a fixpoint, from the
      // initial state's aliases given to its state variable).
      case "ifold":
      case "while": {
        let acc = of(e.init);
        for (let round = 0; round < 8; round++) {
          aliases.set(e.acc.id, { whole: acc });
          if (e.kind === "while") scope(e.cond);
          const next = union([acc, flat(scope(e.body))]);
          if (next.size === acc.size) break;
          acc = next;
        }
        return { whole: acc };
      }
      default:
        return { whole: union([...freeVars(e).values()].map(of)) };
    }
  };
  const result = scope(loop.body);
  if (!("parts" in result)) return result.whole.size === 0;
  const types = t.elems;
  return result.parts.every((a, k) => {
    if (!holdsArrays(types[k]!) || a.size === 0) return true;
    // A component of several arrays (a tuple of arrays) may have them rearranged: only one array is followed here.
    return a.size === 1 && a.has(k) && leavesOf(types[k]!).filter((l) => l.rank > 0).length <= 1;
  });
}

const NONE: ReadonlySet<number> = new Set();
const NO_ALIASES: Aliases = { whole: NONE };
