// Accumulation loops: an `ifold (fun s i -> B) init n` whose result is init plus what the iterations add, each
// iteration adding something that does not depend on s. Reverse mode writes them: the sweep over a dataset's points
// adds every point's contribution to the adjoints of the parameters (`addAt`, `addArray`, `+`). Such a loop may run
// its iterations in chunks, each chunk from zeros, and add the chunks' sums to init (./chunk-accumulations.ts).
//
// The analysis is an abstract interpretation of B. A value is `indep` (computed without reading s), `acc p` (the
// state's component p plus indep terms, whatever the path: in-place updates, nested loops over the same accumulators,
// branches that both add), or a tuple of those. An accumulator may only be added to, passed on, or have its length
// read: any other use (a read of an element, a product) makes the loop no accumulation. Component p of B's result
// must be `acc p`, or be indep (then it is checked by the caller: a literal the loop keeps).

import { freeVars } from "../ir/free.js";
import type { Expr, Ifold, Var } from "../ir/ir.js";

export type Added = { readonly k: "indep" } | { readonly k: "acc"; readonly p: number } | Tup;
interface Tup {
  readonly k: "tup";
  readonly elems: readonly Added[];
}

const INDEP: Added = { k: "indep" };
/** Adding an indep operand to an accumulator keeps it one; these are the additions. */
const ADDITIONS: ReadonlySet<string> = new Set(["addAt", "add", "addArray"]);

function same(a: Added, b: Added): boolean {
  if (a.k !== b.k) return false;
  if (a.k === "acc") return a.p === (b as typeof a).p;
  if (a.k === "tup") {
    const be = (b as Tup).elems;
    return a.elems.length === be.length && a.elems.every((x, i) => same(x, be[i]!));
  }
  return true;
}

/** What an accumulation loop's body makes of each state component, and which components it adds to across rows. */
export interface Accumulation {
  readonly result: readonly Added[];
  /**
   * The components some iteration adds to other than in row i of its own (i the loop's index): where iterations
   * add to the same elements, so running them apart needs a sum for each. Adding at a path that starts with i does
   * not count: the iterations own their rows.
   */
  readonly shared: ReadonlySet<number>;
}

/**
 * What each component of the loop's result is, when `f` is an accumulation loop whose state is a flat tuple (or one
 * array: component 0), else undefined.
 */
export function accumulation(f: Ifold): Accumulation | undefined {
  const t = f.acc.type;
  const components = t.k === "tuple" ? t.elems.length : 1;
  const state: Added =
    t.k === "tuple" ? { k: "tup", elems: t.elems.map((_, p) => ({ k: "acc", p })) } : { k: "acc", p: 0 };
  const a = new Analysis(f.index);
  a.bind(f.acc, state);
  const result = a.expr(f.body);
  if (result === undefined) return undefined;
  const elems = result.k === "tup" ? result.elems : [result];
  if (elems.length !== components) return undefined;
  return elems.every((e, p) => e.k === "indep" || (e.k === "acc" && e.p === p))
    ? { result: elems, shared: a.shared }
    : undefined;
}

class Analysis {
  /** The variables that are not indep (ids are unique in a function, so one map serves every scope). */
  private readonly env = new Map<number, Added>();
  /** The first index of the paths that variables bound to a tuple hold. */
  private readonly pathStarts = new Map<number, Expr>();
  readonly shared = new Set<number>();

  constructor(private readonly index: Var) {}

  /** Whether `path` (an addAt's) starts with the loop's own index. */
  private inOwnRow(path: Expr): boolean {
    const first = path.kind === "var" && path.type.k === "tuple" ? this.pathStarts.get(path.id) : path;
    return first?.kind === "var" && first.id === this.index.id;
  }

  bind(v: Var, a: Added): void {
    if (a.k !== "indep") this.env.set(v.id, a);
  }

  private atom(e: Expr): Added {
    return e.kind === "var" ? (this.env.get(e.id) ?? INDEP) : INDEP;
  }

  private indep(e: Expr): boolean {
    for (const v of freeVars(e).values()) if (this.env.has(v.id)) return false;
    return true;
  }

  /** What `e` is, or undefined when it uses an accumulator other than by adding to it. */
  expr(e: Expr): Added | undefined {
    for (; e.kind === "let"; e = e.body) {
      const rhs = this.expr(e.rhs);
      if (rhs === undefined) return undefined;
      this.bind(e.v, rhs);
      if (e.rhs.kind === "tuple" && e.rhs.elems.length > 0) this.pathStarts.set(e.v.id, e.rhs.elems[0]!);
    }
    switch (e.kind) {
      case "var":
      case "lit":
        return this.atom(e);
      case "tuple": {
        const elems = e.elems.map((x) => this.atom(x));
        return elems.every((x) => x.k === "indep") ? INDEP : { k: "tup", elems };
      }
      case "proj": {
        const arg = this.atom(e.arg);
        return arg.k === "tup" ? arg.elems[e.index] : arg.k === "indep" ? INDEP : undefined;
      }
      case "prim": {
        const args = e.args.map((x) => this.atom(x));
        if (args.every((x) => x.k === "indep")) return INDEP;
        if (e.op === "length") return INDEP; // shape only: a chunk's zeros have the shape of the accumulator
        if (!ADDITIONS.has(e.op)) return undefined;
        // addAt a path value: a may be an accumulator; add and addArray: one operand may be.
        const accs = e.op === "addAt" ? [args[0]!] : args;
        const others = e.op === "addAt" ? args.slice(1) : [];
        const acc = accs.filter((x) => x.k !== "indep");
        const into = acc[0];
        if (acc.length !== 1 || into?.k !== "acc" || others.some((x) => x.k !== "indep")) return undefined;
        if (e.op !== "addAt" || !this.inOwnRow(e.args[1]!)) this.shared.add(into.p);
        return into;
      }
      case "if": {
        if (this.atom(e.cond).k !== "indep") return undefined;
        const then = this.expr(e.then);
        const els = this.expr(e.else);
        return then !== undefined && els !== undefined && same(then, els) ? then : undefined;
      }
      case "ifold": {
        if (this.atom(e.count).k !== "indep") return undefined;
        const init = this.atom(e.init);
        this.bind(e.acc, init);
        const body = this.expr(e.body);
        return body !== undefined && same(body, init) ? init : undefined;
      }
      case "build": {
        const body = this.expr(e.body);
        return body?.k === "indep" ? INDEP : undefined;
      }
      default:
        return this.indep(e) ? INDEP : undefined;
    }
  }
}
