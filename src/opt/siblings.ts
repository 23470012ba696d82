// Sibling fusion: two loops of one let chain over the same count that share work become one loop.
//
//   let a = ifold f x n in ... let b = ifold g y n in ...
//     ->  let ab = ifold (fun s i -> (f (fst s) i, g (snd s) i)) (x, y) n in let a = fst ab in let b = snd ab in ...
//
// and, to reach such loops in the branches that unswitching leaves, two conditionals on the same condition become one
// whose branches are the pairs. The case in point is a value and its gradient: the value's loop over the data and the
// reverse sweep's loop over the same data each compute the forward pass (a network's layers per sample); fused, CSE
// computes it once. Fusion happens only when it pays: when CSE of the fused body removes a loop (a build or ifold) of
// the second one, and for conditionals when loops inside their branches fuse.
//
// Exactness. Each loop's iterations run in their own order on their own state, so values are unchanged. The second
// loop (b) now runs earlier, interleaved with the first (a), before the lets between them. What remains of b's body
// after CSE against a's (its own work: what it shares is a's values, computed just before in the same iteration) must
// not be able to fail (./failure.ts): then the first error, if any, is a's at the same iteration, or one of the lets
// between, as before. b may not use a; the lets between them that b uses move in front of a when they cannot fail.
// Inside a loop, two loops of which only one is invariant in it are left apart (fission-invariant would split them
// again, so that the invariant one leaves the loop).

import { mkPrim, mkProj, splitLets, wrapLets, type Binding } from "../ir/builder.js";
import { freeVars, someNode } from "../ir/free.js";
import {
  freshVar,
  isAtom,
  mkTuple,
  typeOf,
  type Atom,
  type Expr,
  type If,
  type Ifold,
  type IrFunction,
  type Var,
} from "../ir/ir.js";
import { invariantShapes } from "../ir/invariant-shapes.js";
import { substitute } from "../ir/rename.js";
import { INT, tupleOf } from "../types/types.js";
import { eliminateCommonSubexpressions } from "./cse.js";
import { Facts } from "./facts.js";
import { mayFail } from "./failure.js";
import type { Pass } from "./pass.js";

export function fuseSiblings(fn: IrFunction): { fn: IrFunction; fused: number } {
  const s = new Siblings();
  return { fn: { ...fn, body: s.scope(fn.body) }, fused: s.fused };
}

export const siblingsPass: Pass = {
  name: "siblings",
  run: (fn) => fuseSiblings(fn).fn,
};

/** How far apart in a chain two loops may be, and how many pairs one chain tries (each try runs CSE on a body). */
const MAX_DISTANCE = 256;
const MAX_ATTEMPTS = 16;

const sameAtom = (a: Atom, b: Atom) =>
  a.kind === "var" ? b.kind === "var" && a.id === b.id : b.kind === "lit" && Object.is(a.value, b.value);

const loopCount = (e: Expr) => {
  let n = 0;
  someNode(e, (x) => {
    if (x.kind === "build" || x.kind === "ifold" || x.kind === "while") n++;
    return false;
  });
  return n;
};

/** The lets of `e` with its tail named by a let of its own (a fresh variable) when it is not an atom. */
function namedTail(e: Expr, name: string): { bindings: Binding[]; tail: Atom } {
  const { bindings, tail } = splitLets(e);
  if (isAtom(tail)) return { bindings, tail };
  const v = freshVar(name, typeOf(tail));
  return { bindings: [...bindings, { v, rhs: tail }], tail: v };
}

class Siblings {
  private readonly defs = new Map<number, Expr>();
  private readonly facts = new Facts((a) => (a.kind === "var" ? this.defs.get(a.id) : undefined));
  /** How many loops enclose the chain being fused, and at which such depth each variable was bound (none: 0). */
  private loopDepth = 0;
  private readonly bindDepth = new Map<number, number>();
  fused = 0;

  scope(e: Expr): Expr {
    const { bindings, tail } = splitLets(e);
    const done = bindings.map(({ v, rhs }) => {
      const out = this.node(rhs);
      this.defs.set(v.id, out);
      this.bindDepth.set(v.id, this.loopDepth);
      return { v, rhs: out };
    });
    return wrapLets(this.chain(done), this.node(tail));
  }

  private node(e: Expr): Expr {
    switch (e.kind) {
      case "let":
        return this.scope(e);
      case "lam":
        return { ...e, body: this.scope(e.body) };
      case "if":
        return {
          ...e,
          then: this.inside(() => this.facts.assume(e.cond, true), e.then),
          else: this.inside(() => this.facts.assume(e.cond, false), e.else),
        };
      case "build":
      case "ifold": {
        this.loopDepth++;
        for (const v of e.kind === "ifold" ? [e.index, e.acc] : [e.index]) this.bindDepth.set(v.id, this.loopDepth);
        const body = this.inside(() => this.facts.enterLoop(e.index, e.kind === "build" ? e.size : e.count), e.body);
        this.loopDepth--;
        return { ...e, body };
      }
      case "while":
        return { ...e, cond: this.scope(e.cond), body: this.scope(e.body) };
      default:
        return e;
    }
  }

  private inside(learn: () => void, e: Expr): Expr {
    return this.facts.within(learn, () => this.scope(e));
  }

  /** The bindings of one chain, sibling pairs fused (the first of a pair takes the second's place too). */
  private chain(bindings: readonly Binding[]): Binding[] {
    const out = [...bindings];
    const invariant = new Map<Expr, boolean>();
    let attempts = 0;
    for (let i = 0; i < out.length; i++) {
      const a = out[i]!;
      if (a.rhs.kind !== "ifold" && a.rhs.kind !== "if") continue;
      for (let j = i + 1; j < out.length && j - i <= MAX_DISTANCE && attempts < MAX_ATTEMPTS; j++) {
        const b = out[j]!;
        if (!this.partners(a.rhs, b.rhs, invariant)) continue;
        attempts++;
        const moved = this.movable(out.slice(i + 1, j), a.v, b.rhs);
        if (moved === undefined) continue;
        const fused = this.fuse(a, b);
        if (fused === undefined) continue;
        for (const f of fused) this.defs.set(f.v.id, f.rhs);
        const between = out.slice(i + 1, j).filter((x) => !moved.includes(x));
        out.splice(i, j - i + 1, ...moved, ...fused, ...between);
        this.fused++;
        i += moved.length - 1; // the fused loop may take a third partner
        break;
      }
    }
    return out;
  }

  /**
   * The lets between a and b that b needs (directly or through each other), if they can all come before a: none uses
   * a, and none can fail (moving them before a never raises an error a would have come before).
   */
  private movable(between: readonly Binding[], a: Var, b: Expr): Binding[] | undefined {
    const need = new Set(freeVars(b).keys());
    const moved: Binding[] = [];
    for (let k = between.length - 1; k >= 0; k--) {
      const x = between[k]!;
      if (!need.has(x.v.id)) continue;
      if (mayFail(x.rhs, this.facts)) return undefined;
      moved.unshift(x);
      for (const id of freeVars(x.rhs).keys()) need.add(id);
    }
    return need.has(a.id) ? undefined : moved;
  }

  /** `known`: whether each right-hand side of the chain asked about is invariant in the innermost enclosing loop. */
  private partners(a: Expr, b: Expr, known: Map<Expr, boolean>): boolean {
    if (a.kind === "ifold" && b.kind === "ifold") {
      if (!sameAtom(a.count, b.count)) return false;
    } else if (a.kind === "if" && b.kind === "if") {
      if (!sameAtom(a.cond, b.cond)) return false;
    } else return false;
    if (this.loopDepth === 0) return true;
    // Variables made by fusion in the loop have no depth: they count as bound outside it (they always have).
    const invariant = (e: Expr) => {
      let out = known.get(e);
      if (out === undefined) {
        out = ![...freeVars(e).keys()].some((id) => (this.bindDepth.get(id) ?? 0) >= this.loopDepth);
        known.set(e, out);
      }
      return out;
    };
    return invariant(a) === invariant(b);
  }

  private fuse(a: Binding, b: Binding): Binding[] | undefined {
    const ab = freshVar("both", tupleOf([a.v.type, b.v.type]));
    const rhs =
      a.rhs.kind === "ifold" ? this.fuseLoops(a.rhs, b.rhs as Ifold, ab) : this.fuseBranches(a.rhs as If, b.rhs as If);
    if (rhs === undefined) return undefined;
    return [...rhs.before, { v: ab, rhs: rhs.expr }, { v: a.v, rhs: mkProj(0, ab) }, { v: b.v, rhs: mkProj(1, ab) }];
  }

  /** One loop for both, if CSE then removes a loop of b's body and what remains of b's body cannot fail. */
  private fuseLoops(a: Ifold, b: Ifold, ab: Var): { before: Binding[]; expr: Expr } | undefined {
    const state = freshVar("s", ab.type);
    const bodyB = substitute(b.body, new Map([[b.index.id, a.index]]));
    const first = namedTail(a.body, "x");
    const second = namedTail(bodyB, "y");
    const body = wrapLets(
      [{ v: a.acc, rhs: mkProj(0, state) }, { v: b.acc, rhs: mkProj(1, state) }, ...first.bindings, ...second.bindings],
      mkTuple([first.tail, second.tail]),
    );
    const shared = eliminateCommonSubexpressions({ name: "", params: [], body }).fn.body;
    if (loopCount(shared) >= loopCount(body)) return undefined;
    const own = new Set(second.bindings.map((x) => x.v.id));
    const init = freshVar("init", ab.type);
    const start = mkTuple([a.init, b.init]);
    const safe = this.facts.within(
      () => {
        this.facts.enterLoop(a.index, a.count);
        // Each loop's state keeps the shapes it kept in its own loop (the fused body computes it the same way).
        this.facts.enterState(a.acc, a.init, invariantShapes(a));
        this.facts.enterState(b.acc, b.init, invariantShapes(b));
      },
      () =>
        splitLets(shared).bindings.every(({ v, rhs }) => {
          this.defs.set(v.id, rhs);
          if (own.has(v.id) && mayFail(rhs, this.facts)) return false;
          this.learnFromReads(rhs);
          return true;
        }),
    );
    if (!safe) return undefined;
    const loop: Ifold = { ...a, init, acc: state, body: shared, type: ab.type };
    return { before: [{ v: init, rhs: start }], expr: loop };
  }

  /**
   * What a loop that has run tells: `build n (fun i -> ... a[i] ...)` (or an ifold) reading an array bound outside at
   * its own index, unconditionally, succeeded only if n <= length a. Later code may rely on it (an adjoint of a
   * accumulated at an index below n is in range).
   */
  private learnFromReads(e: Expr): void {
    if (e.kind !== "build" && e.kind !== "ifold") return;
    const count = e.kind === "build" ? e.size : e.count;
    const inside = new Set<number>();
    someNode(e.body, (x) => {
      if (x.kind === "let") inside.add(x.v.id);
      return false;
    });
    for (const { rhs } of splitLets(e.body).bindings) {
      if (rhs.kind !== "prim" || rhs.op !== "get") continue;
      const [arr, at] = rhs.args as [Atom, Atom];
      if (at.kind !== "var" || at.id !== e.index.id || arr.kind !== "var" || inside.has(arr.id)) continue;
      if (e.kind === "ifold" && arr.id === e.acc.id) continue;
      const length = freshVar("n", INT);
      this.defs.set(length.id, mkPrim("length", [arr]));
      this.facts.relate(count, "le", length);
    }
  }

  /** One conditional for both, if loops of their branches fuse and what remains of b's branches cannot fail. */
  private fuseBranches(a: If, b: If): { before: Binding[]; expr: Expr } | undefined {
    const before = this.fused;
    const then = this.branch(a.cond, true, a.then, b.then);
    const els = then && this.branch(a.cond, false, a.else, b.else);
    if (then === undefined || els === undefined || this.fused === before) {
      this.fused = before;
      return undefined;
    }
    return { before: [], expr: { ...a, then, else: els, type: tupleOf([a.type, b.type]) } };
  }

  private branch(cond: Atom, value: boolean, x: Expr, y: Expr): Expr | undefined {
    const first = namedTail(x, "x");
    const second = namedTail(y, "y");
    const joined = wrapLets([...first.bindings, ...second.bindings], mkTuple([first.tail, second.tail]));
    const shared = eliminateCommonSubexpressions({ name: "", params: [], body: joined }).fn.body;
    const own = new Set(second.bindings.map((z) => z.v.id));
    return this.facts.within(
      () => this.facts.assume(cond, value),
      () => {
        const { bindings, tail } = splitLets(shared);
        for (const { v, rhs } of bindings) this.defs.set(v.id, rhs);
        const out = this.chain(bindings);
        const safe = out.every(({ v, rhs }) => !own.has(v.id) || !mayFail(rhs, this.facts));
        return safe ? wrapLets(out, tail) : undefined;
      },
    );
  }
}
