// One-hot loop state (the derivative of an argmax, e.g. vectorMax in forward mode):
//
//   ifold (fun a i -> (..., if c then snd a else if i = p then 1. else 0.)) (z, if e0 = p then 1. else 0.) n
//   -> let r = ifold (fun a i -> (..., if c then snd a else i)) (z, e0) n in (..., if snd r = p then 1. else 0.)
//
// A Double state component that only ever holds `if e = p then 1. else 0.` for one invariant Index p (a one-hot value)
// is carried as the Index e instead; a literal 0. becomes the sentinel -1, which equals no p >= 0. The loop then no
// longer depends on p, so LICM takes it out of the build over p: the vectorised derivative of vectorMax is O(n), not
// O(n²). Exact: the component is rebuilt from the index after the loop with the same conditional.

import { AnfBuilder, litDouble, litIndex, mkIf, mkIfold, splitLets, wrapLets, type Binding } from "../../ir/builder.js";
import { forEachNode, useCounts } from "../../ir/free.js";
import { freshVar, mkTuple, type Atom, type Expr, type Ifold, type Var } from "../../ir/ir.js";
import { substitute } from "../../ir/rename.js";
import { INT, tupleOf, type Type } from "../../types/types.js";

type TupleType = Extract<Type, { k: "tuple" }>;
import { rule, type RuleContext } from "./rule.js";

const isDoubleLit = (e: Expr, v: number) => e.kind === "lit" && e.type.k === "double" && Object.is(e.value, v);

/** Every let-bound variable of `e` (at any depth) and its right-hand side. */
function allBindings(e: Expr): Map<number, Expr> {
  const out = new Map<number, Expr>();
  forEachNode(e, (n) => {
    if (n.kind === "let") out.set(n.v.id, n.rhs);
  });
  return out;
}

/** Translates a one-hot Double expression into the Index it is hot at, for one candidate p. */
class Translation {
  /** Body variables whose definitions the translation took over (each must have no other use). */
  readonly consumed = new Set<number>();
  /** How many `proj component acc` nodes in tail position the translation replaced. */
  directProjections = 0;
  sentinel = false;

  constructor(
    private readonly p: Var,
    private readonly acc: Var,
    private readonly component: number,
    private readonly k: Var,
    private readonly bodyDefs: ReadonlyMap<number, Expr>,
    private readonly ctx: RuleContext,
    /** Whether body variables may be looked through (false for the initial value, outside the loop). */
    private readonly inBody: boolean,
  ) {}

  /** The Index expression, or undefined when `e` is not of the one-hot form. */
  expr(e: Expr, depth = 0): Expr | undefined {
    if (depth > 16) return undefined;
    if (isDoubleLit(e, 0)) {
      this.sentinel = true;
      return litIndex(-1);
    }
    if (e.kind === "var") {
      const inside = this.inBody && this.bodyDefs.has(e.id);
      const d = inside ? this.bodyDefs.get(e.id)! : this.ctx.definition(e);
      if (d === undefined) return undefined;
      if (d.kind === "proj") {
        if (!inside || d.arg.kind !== "var" || d.arg.id !== this.acc.id || d.index !== this.component) return undefined;
        this.consumed.add(e.id);
        return this.k;
      }
      if (d.kind !== "if") return undefined;
      const out = this.expr(d, depth + 1);
      if (out !== undefined && inside) this.consumed.add(e.id);
      return out;
    }
    if (e.kind === "proj") {
      if (!this.inBody || e.arg.kind !== "var" || e.arg.id !== this.acc.id || e.index !== this.component)
        return undefined;
      this.directProjections++;
      return this.k;
    }
    if (e.kind !== "if") return undefined;
    const hot = this.hotAt(e);
    if (hot !== undefined) return hot;
    if (!this.inBody) return undefined;
    const then = this.scope(e.then, depth + 1);
    const els = then && this.scope(e.else, depth + 1);
    return then && els && mkIf(e.cond, then, els);
  }

  /** `if c then 1. else 0.` with c bound to `e = p` or `p = e`: e. */
  private hotAt(e: Expr & { kind: "if" }): Atom | undefined {
    if (!isDoubleLit(e.then, 1) || !isDoubleLit(e.else, 0) || e.cond.kind !== "var") return undefined;
    const d = (this.inBody ? this.bodyDefs.get(e.cond.id) : undefined) ?? this.ctx.definition(e.cond);
    if (d?.kind !== "prim" || d.op !== "eq") return undefined;
    const [x, y] = d.args as [Atom, Atom];
    if (x.type.k !== "int") return undefined;
    const isP = (a: Atom) => a.kind === "var" && a.id === this.p.id;
    return isP(y) ? x : isP(x) ? y : undefined;
  }

  /** A branch: its lets (minus those taken over) around the translation of its tail. */
  private scope(e: Expr, depth: number): Expr | undefined {
    const { bindings, tail } = splitLets(e);
    const t = this.expr(tail, depth);
    return (
      t &&
      wrapLets(
        bindings.filter((b) => !this.consumed.has(b.v.id)),
        t,
      )
    );
  }
}

/**
 * Whether `a` can be the initial value of a one-hot component for some p: 0., or bound to `if x = y then 1. else 0.`
 * on Indexes (what a `Translation` outside the loop accepts). Asked before anything walks the loop body.
 */
function mayStartOneHot(a: Atom, ctx: RuleContext): boolean {
  if (isDoubleLit(a, 0)) return true;
  const d = ctx.definition(a);
  if (d?.kind !== "if" || !isDoubleLit(d.then, 1) || !isDoubleLit(d.else, 0) || d.cond.kind !== "var") return false;
  const c = ctx.definition(d.cond);
  return c?.kind === "prim" && c.op === "eq" && c.args[0]!.type.k === "int";
}

/** The variables p of one-hot conditions `x = p` in `defs` that could be the invariant p (not bound in the loop). */
function candidates(defs: Iterable<Expr>, boundInLoop: (id: number) => boolean): Var[] {
  const out = new Map<number, Var>();
  for (const d of defs) {
    if (d.kind !== "prim" || d.op !== "eq") continue;
    for (const a of d.args) if (a.kind === "var" && a.type.k === "int" && !boundInLoop(a.id)) out.set(a.id, a);
  }
  return [...out.values()];
}

export const onehotState = rule({
  name: "onehot-state",
  head: "ifold",
  doc: "a Double ifold state that is always `if e = p then 1. else 0.` (p invariant) carries the Index e instead",
  apply(node, ctx) {
    const accType = node.acc.type;
    if (accType.k !== "tuple" || node.init.kind !== "var") return undefined;
    const init = ctx.definition(node.init);
    const { bindings, tail } = splitLets(node.body);
    if (init?.kind !== "tuple" || tail.kind !== "tuple") return undefined;
    if (!init.elems.some((a, j) => accType.elems[j]!.k === "double" && mayStartOneHot(a, ctx))) return undefined;
    const bodyDefs = allBindings(node.body);
    const boundInLoop = (id: number) => id === node.index.id || id === node.acc.id || bodyDefs.has(id);
    const initDefs: Expr[] = [];
    for (const a of init.elems) {
      const d = ctx.definition(a);
      if (d?.kind === "if" && d.cond.kind === "var") initDefs.push(ctx.definition(d.cond) ?? d);
    }
    const ps = candidates([...initDefs, ...bodyDefs.values()], boundInLoop);
    if (ps.length === 0) return undefined;
    const counts = useCounts(node.body);
    for (let j = 0; j < accType.elems.length; j++) {
      if (accType.elems[j]!.k !== "double") continue;
      for (const p of ps) {
        const out = rewriteComponent(node, ctx, j, p, bindings, tail.elems, bodyDefs, counts);
        if (out !== undefined) return out;
      }
    }
    return undefined;
  },
});

function rewriteComponent(
  node: Ifold,
  ctx: RuleContext,
  j: number,
  p: Var,
  bindings: readonly Binding[],
  tailElems: readonly Atom[],
  bodyDefs: ReadonlyMap<number, Expr>,
  counts: ReadonlyMap<number, number>,
): Expr | undefined {
  const init = ctx.definition(node.init) as Expr & { kind: "tuple" };
  const k = freshVar("k", INT);
  const inBody = new Translation(p, node.acc, j, k, bodyDefs, ctx, true);
  const step = inBody.expr(tailElems[j]!);
  const outside = new Translation(p, node.acc, j, k, bodyDefs, ctx, false);
  const start = step && outside.expr(init.elems[j]!);
  if (step === undefined || start === undefined) return undefined;
  if ((inBody.sentinel || outside.sentinel) && !ctx.facts.isNonNegative(p)) return undefined;
  // Each variable taken over had no other use (the tail's own element included: it appears once, in the tuple).
  const tailVar = tailElems[j]!;
  if (tailVar.kind === "var" && inBody.consumed.has(tailVar.id) && tailElems.filter((a) => a === tailVar).length > 1)
    return undefined;
  for (const id of inBody.consumed) if ((counts.get(id) ?? 0) !== 1) return undefined;
  // The state is used only through projections, and component j only where the translation took it over.
  let otherUse = false;
  const projJ = new Set<number>();
  forEachNode(node.body, (n) => {
    if (
      n.kind === "let" &&
      n.rhs.kind === "proj" &&
      n.rhs.arg.kind === "var" &&
      n.rhs.arg.id === node.acc.id &&
      n.rhs.index === j
    ) {
      projJ.add(n.v.id);
      if (!inBody.consumed.has(n.v.id) && (counts.get(n.v.id) ?? 0) > 0) otherUse = true;
    }
  });
  const accProjections = countProjections(node.body, node.acc);
  if (otherUse || accProjections !== (counts.get(node.acc.id) ?? 0)) return undefined;
  // Every projection of component j is let-bound (and taken over or unused) or one the translation replaced.
  if (countProjections(node.body, node.acc, j) !== projJ.size + inBody.directProjections) return undefined;
  // Unused projections of component j that are not at the top level would keep the Double type: give up on them.
  const topIds = new Set(bindings.map((b) => b.v.id));
  for (const id of projJ) if (!inBody.consumed.has(id) && !topIds.has(id)) return undefined;

  const stateTypes = (node.acc.type as TupleType).elems.map((t, i) => (i === j ? INT : t));
  const acc2 = freshVar(node.acc.name, tupleOf(stateTypes));
  const kept = bindings.filter((b) => !inBody.consumed.has(b.v.id) && !projJ.has(b.v.id));
  const kOut = freshVar("k", INT);
  const newTail = mkTuple(tailElems.map((a, i) => (i === j ? kOut : a)));
  const body = wrapLets(
    [{ v: k, rhs: { kind: "proj", index: j, arg: acc2, type: INT } }, ...kept, { v: kOut, rhs: step }],
    newTail,
  );
  const newBody = substitute(body, new Map<number, Atom>([[node.acc.id, acc2]]));

  const b = new AnfBuilder();
  const k0 = start.kind === "var" || start.kind === "lit" ? start : b.bind("k", start);
  const init2 = b.tuple(
    init.elems.map((a, i) => (i === j ? k0 : a)),
    "z",
  );
  const r = b.bind("r", mkIfold(init2, node.count, acc2, node.index, newBody, node.span));
  const kr = b.proj(j, r, "k");
  const hot = b.prim("eq", [kr, p], "hot");
  const dj = b.bind("d", mkIf(hot, litDouble(1), litDouble(0)));
  const elems = stateTypes.map((_, i) => (i === j ? dj : b.proj(i, r)));
  return b.finish(mkTuple(elems));
}

/** How many `proj _ acc` nodes `e` has (of component `only`, if given). */
function countProjections(e: Expr, acc: Var, only?: number): number {
  let n = 0;
  forEachNode(e, (x) => {
    if (x.kind === "proj" && x.arg.kind === "var" && x.arg.id === acc.id && (only === undefined || x.index === only))
      n++;
  });
  return n;
}
