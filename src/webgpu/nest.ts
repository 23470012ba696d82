// Nested accumulation loops run as one scatter kernel (./loops.ts), a thread per iteration of the innermost of them:
// reverse mode's sweep over a convolution's filters runs, per filter, a loop over output rows and in it a loop over
// output columns, each adding into the same adjoints. A thread per filter would leave a GPU idle (and pass the loop
// cap of Mesa's software adapters, ./loop-guard.ts); a thread per (filter, row, column) does not.
//
// An accumulation loop's body `L1; let d = ifold B' init' m; L2; tail` is flattened into its inner loop when:
//   - the inner loop runs over a count the host knows, and every scalar of its state is a literal it starts from and
//     keeps (reverse mode's seed `1.`): a thread starting from that literal sees what the serial loop sees there. Every
//     array of its state is one of the outermost loop's accumulators, and the analysis of the outermost loop
//     (../opt/accumulation.ts, which planScatter runs) covers the nested loops, so what an inner iteration adds does
//     not depend on the accumulators;
//   - L1 adds nothing (every thread of the inner loop runs it again): its lets run no loop and read the state only
//     through tuples and projections;
//   - L2 and the tail only pass the inner loop's state on (tuples, projections, variables, literals), so the outer
//     iteration adds exactly what its inner loop adds.
// Whether the inner state really is the outer one (updated in place, not a copy) is checked when the kernel is written:
// the result's arrays must be the accumulators the kernel was handed.

import { splitLets } from "../ir/builder.js";
import { freeVars, someNode } from "../ir/free.js";
import { freshVar, mkLet, type Atom, type Expr, type Ifold, type Let, type Lit } from "../ir/ir.js";

/** One level of a nest: its loop, the lets before its inner loop, the let binding the inner loop, the rest after. */
export interface NestLevel {
  readonly loop: Ifold;
  readonly before: readonly Let[];
  /** The let of the inner loop (undefined at the innermost level, whose body is written as it is). */
  readonly inner?: Let;
  /** What follows the inner loop: lets and a tail that only pass its state on. */
  readonly after?: Expr;
}

const passesOn = (e: Expr): boolean => e.kind === "var" || e.kind === "lit" || e.kind === "tuple" || e.kind === "proj";

const runsLoops = (e: Expr): boolean =>
  someNode(e, (n) => n.kind === "build" || n.kind === "ifold" || n.kind === "while");

/**
 * What is known of each component of a value: a literal, "state" (an accumulator of the outermost loop, the array
 * itself), or nothing.
 */
export type Known = Lit | "state" | undefined;
type Literals = readonly Known[];

/**
 * The levels of the nest rooted at `outer` (outer first), flattened as long as the rules above allow and `known` says
 * an inner loop's count is known outside the nest (a variable of the plan, or a literal). `state` says which scalars
 * of the outer loop's state are literals it keeps and which arrays its accumulators, per component.
 */
export function accumulationNest(outer: Ifold, state: Literals, known: (e: Ifold) => boolean): NestLevel[] {
  const levels: NestLevel[] = [];
  let loop = outer;
  let literals = state;
  for (;;) {
    const found = innerOf(loop, literals, known);
    if (found === undefined) break;
    levels.push(found.level);
    loop = found.level.inner!.rhs as Ifold;
    literals = found.literals;
  }
  levels.push({ loop, before: [] });
  return levels;
}

/** What is known of the components of a tuple-typed (or scalar) atom. */
function literalsOf(a: Atom, env: ReadonlyMap<number, Literals>): Literals | undefined {
  if (a.kind === "lit") return [a];
  return env.get(a.id);
}

/** What is known of each component of `rhs` (tuples, projections, variables), given what is of the variables. */
function literalsOfRhs(rhs: Expr, env: ReadonlyMap<number, Literals>): Literals | undefined {
  if (rhs.kind === "var" || rhs.kind === "lit") return literalsOf(rhs, env);
  if (rhs.kind === "tuple") {
    const parts = rhs.elems.map((x) => (x.type.k === "tuple" ? undefined : (literalsOf(x, env) ?? [undefined])));
    return parts.every((p) => p !== undefined && p.length === 1) ? parts.map((p) => p![0]) : undefined;
  }
  if (rhs.kind === "proj") {
    const whole = literalsOf(rhs.arg, env);
    return whole === undefined || rhs.type.k === "tuple" ? undefined : [whole[rhs.index]];
  }
  return undefined;
}

function innerOf(
  loop: Ifold,
  literals: Literals,
  known: (e: Ifold) => boolean,
): { level: NestLevel; literals: Literals } | undefined {
  const env = new Map<number, Literals>([[loop.acc.id, literals]]);
  const before: Let[] = [];
  const stateVars = new Set<number>([loop.acc.id]);
  const readsState = (e: Expr) => [...freeVars(e).keys()].some((id) => stateVars.has(id));
  let e = loop.body;
  for (; e.kind === "let"; e = e.body) {
    if (e.rhs.kind === "ifold") break;
    if (passesOn(e.rhs)) {
      if (readsState(e.rhs)) stateVars.add(e.v.id);
      const known = literalsOfRhs(e.rhs, env);
      if (known !== undefined) env.set(e.v.id, known);
    } else if (runsLoops(e.rhs) || readsState(e.rhs)) return undefined;
    before.push(e);
  }
  // The inner loop: let-bound, or the body's value (then bound here to a variable of its own).
  let inner: Let;
  if (e.kind === "ifold") {
    const v = freshVar("inner", e.type);
    inner = mkLet(v, e, v);
  } else if (e.kind === "let" && e.rhs.kind === "ifold") inner = e;
  else return undefined;
  const innerLoop = inner.rhs as Ifold;
  if (!known(innerLoop)) return undefined;
  // The inner loop starts from the outer state (not from zeros it adds to the state afterwards).
  if (innerLoop.init.kind !== "var" || !stateVars.has(innerLoop.init.id)) return undefined;
  const start = literalsOf(innerLoop.init, env);
  const innerState = innerLoop.acc.type;
  const comps = innerState.k === "tuple" ? innerState.elems : [innerState];
  const { bindings, tail } = splitLets(innerLoop.body);
  const last = bindings[bindings.length - 1];
  const ends = tail.kind === "var" && last !== undefined && last.v.id === tail.id ? last.rhs : tail;
  const endAtoms = innerState.k === "tuple" ? (ends.kind === "tuple" ? ends.elems : undefined) : [ends];
  // Every scalar of the inner state: a literal at the start, the same literal at the end of each iteration. Every
  // array: an accumulator of the outermost loop (an array of the thread's own would hold one iteration's additions,
  // where the loop's later iterations may read all earlier ones').
  for (let p = 0; p < comps.length; p++) {
    const at = start?.[p];
    if (comps[p]!.k === "array") {
      if (at !== "state") return undefined;
      continue;
    }
    const end = endAtoms?.[p];
    if (at === undefined || at === "state" || end?.kind !== "lit" || end.value !== at.value) return undefined;
  }
  const after: Expr = inner.body;
  for (let a = after; ; a = a.body) {
    if (a.kind !== "let") {
      if (!passesOn(a)) return undefined;
      break;
    }
    if (!passesOn(a.rhs)) return undefined;
  }
  return { level: { loop, before, inner, after }, literals: start! };
}
