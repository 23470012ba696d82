// Parallel sites (issue 16): which `build`s and sums at the top of a function run across threads (./parallel.ts
// writes their code, ./parallel-run.ts runs them), and an estimate of the work of one of their elements.
//
// A build site is `let xs = build n (fun i -> e)` on the function body's chain of lets, or a chain or branch such a
// let runs (never inside a loop), where e is a Double, is big (it holds an ifold, or at least MIN_BODY_NODES nodes)
// and calls no function. A sum site is `let s = ifold (fun acc i -> ... in acc + x) z n` there (also `*`, `max`,
// `min`; acc used only in the step) whose term, the lets and x, would be a build site: threads compute the terms
// into an array, then the calling thread adds them to z in order, the same additions in the same order as one thread
// (gmm's sum over points). A chunk site (./chunk-sites.ts) is a build there whose elements are arrays accumulated by
// an ifold from zeros of arrays bound outside it (an accumulation split into a fixed number of chunks): its
// destination's shape is known before any element runs, each element runs in place in its slice, claimed one at a
// time. An element may allocate: in a part, arrays come from the thread's own arena (./part-arena.ts), free again at
// the next element (nothing it allocates outlives it: it is a scalar, or arrays left in the destination).

import {
  typeOf,
  type Atom,
  type Build,
  type Expr,
  type Ifold,
  type IrFunction,
  type Let,
  type Prim,
} from "../ir/ir.js";
import { children, forEachNode, freeVars, someNode } from "../ir/free.js";
import { leavesOf } from "../lowering/leaves.js";
import { arrayOf, type Type } from "../types/types.js";
import { chunkPlanOf, type ChunkPlan } from "./chunk-sites.js";

/** A body without a loop is a site only from this many IR nodes (fewer: the plain loop, in SIMD lanes, is better). */
export const MIN_BODY_NODES = 40;
/** A loop's body counts this many times in the cost estimate (its trip count is not known when compiling). */
const LOOP_WEIGHT = 16;
/** The steps a sum site takes: the calling thread combines the terms with the same operator, in order. */
const SUM_STEPS: ReadonlySet<string> = new Set(["add", "mul", "max", "min"]);

/** A parallel site: the build its threads compute, and the estimated cost of one element (IR nodes, loops weighted). */
export interface ParallelSite {
  /** A build site's build; for a sum site, the build of its terms (made here: the lets of its body, then x). */
  readonly build: Build;
  /** The node on the chain of lets that the site replaces: the build, or the ifold of a sum site. */
  readonly source: Build | Ifold;
  readonly cost: number;
  /** Whether an element allocates arrays (then parts use their own arena, ./part-arena.ts). */
  readonly allocates: boolean;
  /** A build site whose elements are rows of this many Doubles (bundle adjustment's residuals and Jacobian blocks). */
  readonly row?: number;
  /** A sum site's step: the ifold's own, with the accumulator first or second. */
  readonly step?: { readonly op: Prim["op"]; readonly accFirst: boolean };
  /** A chunk site (./chunk-sites.ts): elements of arrays accumulated from zeros, claimed one at a time. */
  readonly chunk?: ChunkPlan;
}

const scalar = (t: Type): boolean => leavesOf(t).every((l) => l.rank === 0 && l.kind !== "tape");

/** Whether `e` calls no function (a part is one wasm function with no table of the program's functions). */
const callsNothing = (e: Expr): boolean =>
  !someNode(e, (node) => ["while", "call", "jvp", "lam", "app", "custom"].includes(node.kind));

/** Whether computing `e` allocates: builds, or arrays made by primitives, branches or loops (rows read are views). */
const allocates = (e: Expr): boolean =>
  someNode(e, (node) => {
    switch (node.kind) {
      case "build":
        return true;
      case "prim":
        return node.op !== "get" && !scalar(node.type);
      case "if":
      case "ifold":
        return !scalar(node.type);
      default:
        return false;
    }
  });

/** The cost of one evaluation of `e`: its nodes, a loop's body counted LOOP_WEIGHT times. */
export function bodyCost(e: Expr): number {
  const inner = children(e).reduce((sum, c) => sum + bodyCost(c), 0);
  return 1 + (e.kind === "ifold" ? LOOP_WEIGHT * inner : inner);
}

/** The length of the rows of `b` when its element is a row `build m (fun k -> x)` of Doubles, m a literal. */
function rowOf(b: Build): number | undefined {
  let tail = b.body;
  while (tail.kind === "let") tail = tail.body;
  if (tail.kind !== "build" || tail.size.kind !== "lit" || typeOf(tail.body).k !== "double") return undefined;
  const m = tail.size.value as number;
  return m >= 1 && b.type.k === "array" && b.type.elem.k === "array" ? m : undefined;
}

/** The site `b` would be, or undefined when it is not one. */
function siteOf(b: Build, source: Build | Ifold = b, step?: ParallelSite["step"]): ParallelSite | undefined {
  if (b.type.k !== "array") return undefined;
  const row = step === undefined ? rowOf(b) : undefined;
  if (row === undefined && (b.type.elem.k !== "double" || typeOf(b.body).k !== "double")) return undefined;
  if (!callsNothing(b.body)) return undefined;
  const hasLoop = someNode(b.body, (node) => node.kind === "ifold");
  const cost = bodyCost(b.body);
  if (!hasLoop && cost < MIN_BODY_NODES) return undefined;
  return { build: b, source, cost, allocates: allocates(b.body), step, row };
}

/** The chunk site `b` would be (./chunk-sites.ts); `bound`: the right-hand side of every let of the function. */
function chunkSiteOf(b: Build, bound: ReadonlyMap<number, Expr>): ParallelSite | undefined {
  if (!callsNothing(b.body)) return undefined;
  const chunk = chunkPlanOf(b, bound);
  if (chunk === undefined) return undefined;
  return { build: b, source: b, cost: bodyCost(b.body), allocates: allocates(chunk.body), chunk };
}

/**
 * The sum site `f` would be: `ifold (fun acc i -> lets in acc ⊕ x) z n` (or `let r = acc ⊕ x in r`), acc a Double
 * used only in the step, whose terms `build n (fun i -> lets in x)` would be a site.
 */
function sumSiteOf(f: Ifold): ParallelSite | undefined {
  if (f.acc.type.k !== "double") return undefined;
  const lets: Let[] = [];
  let tail = f.body;
  for (; tail.kind === "let"; tail = tail.body) lets.push(tail);
  const last = lets[lets.length - 1];
  if (tail.kind === "var" && last !== undefined && last.v.id === tail.id) {
    lets.pop();
    tail = last.rhs;
  }
  if (tail.kind !== "prim" || !SUM_STEPS.has(tail.op) || tail.tangent !== undefined) return undefined;
  const [x, y] = tail.args as [Atom, Atom];
  const isAcc = (a: Atom) => a.kind === "var" && a.id === f.acc.id;
  if (isAcc(x) === isAcc(y)) return undefined;
  const term = isAcc(x) ? y : x;
  if (lets.some((l) => freeVars(l.rhs).has(f.acc.id))) return undefined;
  let body: Expr = term;
  for (let k = lets.length - 1; k >= 0; k--) body = { ...lets[k]!, body };
  const terms: Build = { kind: "build", size: f.count, index: f.index, body, type: arrayOf(f.type), span: f.span };
  return siteOf(terms, f, { op: tail.op, accFirst: isAcc(x) });
}

/**
 * The parallel sites of `fn`: builds and sums on the chain of lets of its body (and at its end), in order. A let
 * whose right-hand side is a chain of lets runs that chain once too (`let t = (let s = ifold ... in s * 2.) in ...`),
 * and a branch at most once (the nests ../lowering/transpose-rows.ts writes twice, `if pays then ... else ...`):
 * their sites count. Nothing inside a loop is a site.
 */
export function parallelSites(fn: IrFunction): ParallelSite[] {
  const sites: ParallelSite[] = [];
  // (Binders are unique: a variable a chunk site's initial state names is bound where it is in scope.)
  const bound = new Map<number, Expr>();
  forEachNode(fn.body, (node) => {
    if (node.kind === "let") bound.set(node.v.id, node.rhs);
  });
  const walk = (chain: Expr) => {
    let e = chain;
    for (; e.kind === "let"; e = e.body) walk(e.rhs);
    if (e.kind === "if") {
      walk(e.then);
      walk(e.else);
    }
    const site =
      e.kind === "build" ? (siteOf(e) ?? chunkSiteOf(e, bound)) : e.kind === "ifold" ? sumSiteOf(e) : undefined;
    if (site !== undefined) sites.push(site);
  };
  walk(fn.body);
  return sites;
}
