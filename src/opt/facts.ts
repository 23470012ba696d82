// Facts known at a point of a program ("range facts"), for folding comparisons and proving indexes in range:
//  - inside `build n (fun i -> ...)` and `ifold f z n` with index i: 0 <= i < n, and n >= 1 (the body runs);
//  - inside a branch of `if c`: c is true (then) or false (else), and so is what c is defined as: `i = j`, `j < n`,
//    `a && b` true, `a || b` false, `not a`.
// Values are compared through their definitions (`sameValue`): binder ids are unique and the IR is pure, so two
// variables bound to the same primitive of the same values are equal, and since arrays are regular, `length a[k]` is
// the same for every k. Both variables being in scope means both definitions were evaluated, so neither failed.
//
// Facts are scoped: `mark` before entering a scope, `reset` after leaving it.

import { invariantShapes } from "../ir/invariant-shapes.js";
import { initialLeaf, leafKeeps } from "./state-leaves.js";
import type { Atom, Expr, Prim, Var } from "../ir/ir.js";

type Relation = "lt" | "le" | "eq" | "ne";

interface Known {
  readonly a: Atom;
  readonly rel: Relation;
  readonly b: Atom;
}

/** How deeply definitions are followed when comparing values (they are small; this only bounds the work). */
const MAX_DEPTH = 8;

/**
 * How many of the innermost conditions and relations a question consults: a chain of 10⁴ nested `else if`s would
 * otherwise make every question inside it scan all the conditions around it (quadratic in the nesting depth).
 */
const MAX_CONSULTED = 256;

export interface Mark {
  readonly loops: number;
  readonly conds: number;
  readonly relations: number;
  readonly states: number;
}

/** A loop state in scope: which of its top-level components keep their initial shape (../ir/invariant-shapes.ts). */
interface State {
  readonly acc: Var;
  readonly init: Atom;
  readonly invariant: readonly boolean[];
}

export class Facts {
  private readonly loops: { readonly index: Var; readonly bound: Atom }[] = [];
  private readonly conds: { readonly cond: Atom; readonly value: boolean }[] = [];
  private readonly relations: Known[] = [];
  private readonly states: State[] = [];
  private decidingGuard = false;

  constructor(private readonly definition: (a: Atom) => Expr | undefined) {}

  /** What `a` is let-bound to, if known here. */
  definitionOf(a: Atom): Expr | undefined {
    return this.definition(a);
  }

  mark(): Mark {
    return {
      loops: this.loops.length,
      conds: this.conds.length,
      relations: this.relations.length,
      states: this.states.length,
    };
  }

  reset(m: Mark): void {
    this.loops.length = m.loops;
    this.conds.length = m.conds;
    this.relations.length = m.relations;
    this.states.length = m.states;
  }

  /** `body()` with what `learn` adds known, forgotten again afterwards (a nested scope). */
  within<T>(learn: () => void, body: () => T): T {
    const m = this.mark();
    learn();
    const out = body();
    this.reset(m);
    return out;
  }

  /** Inside a loop over `index` in [0, bound). */
  enterLoop(index: Var, bound: Atom): void {
    this.loops.push({ index, bound });
  }

  /**
   * Inside an ifold whose state `acc` started from `init`: `invariant` says which top-level components (one entry for a
   * state that is not a tuple) keep the shape they started with in every iteration.
   */
  enterState(acc: Var, init: Atom, invariant: readonly boolean[]): void {
    this.states.push({ acc, init, invariant });
  }

  /**
   * An atom of the same shape as `a` (every dimension), found through definitions: zerosLike x is x's shape, an
   * update in shape (addAt, setAt) its array's, a component of a tuple the component's, a loop state (or a loop's
   * result) that keeps its shape its initial value's. `a` itself when nothing is known.
   */
  shapeRoot(a: Atom, depth = 0): Atom {
    if (a.kind !== "var" || depth > 4 * MAX_DEPTH) return a;
    const state = this.states.find((s) => s.acc.id === a.id);
    if (state !== undefined)
      return state.invariant.length === 1 && state.invariant[0] ? this.shapeRoot(state.init, depth + 1) : a;
    const d = this.definition(a);
    if (d === undefined) return a;
    if (d.kind === "var") return this.shapeRoot(d, depth + 1);
    if (d.kind === "prim" && (d.op === "zerosLike" || d.op === "addAt" || d.op === "setAt"))
      return this.shapeRoot(d.args[0]!, depth + 1);
    if (d.kind === "ifold" && d.type.k !== "tuple" && invariantShapes(d)[0]) return this.shapeRoot(d.init, depth + 1);
    if (d.kind === "proj") {
      const c = this.component(d.arg, d.index, depth + 1);
      return c === undefined ? a : this.shapeRoot(c, depth + 1);
    }
    return a;
  }

  /** An atom of the shape of component k of the tuple `t`, if known. */
  private component(t: Atom, k: number, depth: number): Atom | undefined {
    if (t.kind !== "var" || depth > 4 * MAX_DEPTH) return undefined;
    const state = this.states.find((s) => s.acc.id === t.id);
    if (state !== undefined) return state.invariant[k] ? this.component(state.init, k, depth + 1) : undefined;
    const d = this.definition(t);
    if (d?.kind === "tuple") return d.elems[k];
    if (d?.kind === "var") return this.component(d, k, depth + 1);
    if (d?.kind === "ifold" && d.type.k === "tuple" && invariantShapes(d)[k])
      return this.component(d.init, k, depth + 1);
    return undefined;
  }

  /** `cond` has the value `value` here (inside a branch of `if cond`). */
  assume(cond: Atom, value: boolean, depth = 0): void {
    if (cond.kind === "lit" || depth > MAX_DEPTH) return;
    this.conds.push({ cond, value });
    const def = this.definition(cond);
    if (def?.kind === "if") {
      // The lowering of `c1 && c2` is `if c1 then c2 else false`, and of `c1 || c2` is `if c1 then true else c2`.
      const thenAtom = atomTail(def.then);
      const elseAtom = atomTail(def.else);
      if (value && isLit(elseAtom, false)) {
        this.assume(def.cond, true, depth + 1);
        if (thenAtom) this.assume(thenAtom, true, depth + 1);
      } else if (!value && isLit(thenAtom, true)) {
        this.assume(def.cond, false, depth + 1);
        if (elseAtom) this.assume(elseAtom, false, depth + 1);
      }
      return;
    }
    if (def?.kind !== "prim") return;
    const [x, y] = def.args as [Atom, Atom];
    switch (def.op) {
      case "not":
        return this.assume(x, !value, depth + 1);
      case "and":
        if (value) {
          this.assume(x, true, depth + 1);
          this.assume(y, true, depth + 1);
        }
        return;
      case "or":
        if (!value) {
          this.assume(x, false, depth + 1);
          this.assume(y, false, depth + 1);
        }
        return;
      default:
        break;
    }
    if (def.args.length !== 2 || x.type.k !== "int") return;
    const add = (a: Atom, rel: Relation, b: Atom): void => {
      this.relations.push({ a, rel, b });
    };
    // Integers are totally ordered, so a false comparison is the opposite one.
    switch (def.op) {
      case "lt":
        return value ? add(x, "lt", y) : add(y, "le", x);
      case "le":
        return value ? add(x, "le", y) : add(y, "lt", x);
      case "gt":
        return value ? add(y, "lt", x) : add(x, "le", y);
      case "ge":
        return value ? add(y, "le", x) : add(x, "lt", y);
      case "eq":
        return add(x, value ? "eq" : "ne", y);
      case "ne":
        return add(x, value ? "ne" : "eq", y);
      default:
        return;
    }
  }

  /** True when `a` and `b` provably hold the same value (of any type). */
  sameValue(a: Atom, b: Atom, depth = 0): boolean {
    if (a.kind === "lit" || b.kind === "lit") {
      return a.kind === "lit" && b.kind === "lit" && Object.is(a.value, b.value) && a.type.k === b.type.k;
    }
    if (a.id === b.id) return true;
    if (depth > MAX_DEPTH) return false;
    const da = this.definition(a);
    const db = this.definition(b);
    // `sameSize n m` is n, and m too (it fails otherwise): the prelude's shape checks keep the range facts.
    const checked = (d: typeof da, other: Atom) =>
      d?.kind === "prim" &&
      d.op === "sameSize" &&
      (this.sameValue(d.args[0]!, other, depth + 1) || this.sameValue(d.args[1]!, other, depth + 1));
    if (checked(da, b) || checked(db, a)) return true;
    if (da === undefined || db === undefined) return false;
    if (da.kind === "proj" && db.kind === "proj")
      return da.index === db.index && this.sameValue(da.arg, db.arg, depth + 1);
    if (da.kind !== "prim" || db.kind !== "prim" || da.op !== db.op || da.args.length !== db.args.length) return false;
    if (da.op === "length") {
      const ra = this.rowOf(da.args[0]!);
      const rb = this.rowOf(db.args[0]!);
      if (ra && rb && this.sameValue(ra, rb, depth + 1)) return true;
    }
    return da.args.every((x, i) => this.sameValue(x, db.args[i]!, depth + 1));
  }

  /**
   * For `x` bound to `a[k]`: the array a (a row of a regular array has the same length whatever k is). Also through a
   * guard whose condition is decided here, `if 0 < length a then a[0] else ...` (how code moved out of a loop reads a
   * row: ../licm.ts).
   */
  private rowOf(x: Atom | Expr, depth = 0): Atom | undefined {
    const d = x.kind === "var" ? this.definition(x) : x.kind === "lit" ? undefined : x;
    if (d?.kind === "prim" && d.op === "get") return d.args[0];
    // Deciding the guard compares Indexes, which may ask for rows again: one level of guards only.
    if (d?.kind !== "if" || depth > MAX_DEPTH || this.decidingGuard) return undefined;
    this.decidingGuard = true;
    const c = this.decided(d.cond);
    this.decidingGuard = false;
    if (c === undefined) return undefined;
    let tail = c ? d.then : d.else;
    while (tail.kind === "let") tail = tail.body;
    return this.rowOf(tail, depth + 1);
  }

  /** The value of a Bool atom when a condition we are under, or the range facts, decide it. */
  private decided(c: Atom): boolean | undefined {
    const k = this.known(c);
    if (k !== undefined) return k;
    const d = this.definition(c);
    if (d?.kind !== "prim" || d.args.length !== 2 || d.args[0]!.type.k !== "int") return undefined;
    return this.compare(d.op, d.args[0]!, d.args[1]!);
  }

  private recentRelations(): readonly Known[] {
    const n = this.relations.length;
    return n <= MAX_CONSULTED ? this.relations : this.relations.slice(n - MAX_CONSULTED);
  }

  /** The atoms known equal to `a` here: `a` itself and those of equations `a = b` among the facts. */
  private equals(a: Atom): Atom[] {
    const out = [a];
    for (const r of this.recentRelations()) {
      if (r.rel !== "eq") continue;
      if (this.sameValue(r.a, a)) out.push(r.b);
      else if (this.sameValue(r.b, a)) out.push(r.a);
    }
    return out;
  }

  /** `b` is `length arr` (or the same value); arrays of one shape (`shapeRoot`) have one length. */
  isLengthOf(b: Atom, arr: Atom): boolean {
    const root = this.shapeRoot(arr);
    const built = this.definition(root);
    if (built?.kind === "build" && this.sameValue(b, built.size)) return true;
    const d = this.definition(b);
    // `sameSize n m` is n, and m too (it fails otherwise): a loop over it stays in range of either array.
    if (d?.kind === "prim" && d.op === "sameSize")
      return this.isLengthOf(d.args[0]!, arr) || this.isLengthOf(d.args[1]!, arr);
    if (d?.kind !== "prim" || d.op !== "length") return false;
    const x = d.args[0]!;
    if (this.sameValue(x, arr) || this.sameValue(this.shapeRoot(x), root)) return true;
    const rx = this.rowOf(x);
    const ra = this.rowOf(arr) ?? this.rowOf(root);
    return rx !== undefined && ra !== undefined && this.sameValue(rx, ra);
  }

  /** Provably a < b (Index). `b` is given as a test, so that "the length of this array" can be asked too. */
  private below(a: Atom, isB: (x: Atom) => boolean, depth: number): boolean {
    if (depth > 2) return false;
    for (const x of this.equals(a)) {
      if (x.kind === "var") {
        for (const l of this.loops)
          if (l.index.id === x.id && (isB(l.bound) || this.boundBy(l.bound, isB))) return true;
        const d = this.definition(x);
        if (d?.kind === "prim" && d.op === "checkIndex" && isB(d.args[1]!)) return true;
        if (d?.kind === "proj" && this.indexLeafBelow(x, isB, depth)) return true;
      }
      for (const r of this.recentRelations()) {
        if (!this.sameValue(r.a, x)) continue;
        if (r.rel === "lt" && (isB(r.b) || this.atMost(r.b, isB, depth + 1))) return true;
        if (r.rel === "le" && this.below(r.b, isB, depth + 1)) return true;
      }
    }
    // 0 < n when n bounds a loop we are in (its body runs).
    if (a.kind === "lit" && (a.value as number) <= 0) return this.loops.some((l) => isB(l.bound));
    return false;
  }

  /**
   * `x` is a leaf of a loop's final state that each iteration passes on or sets to the loop index (the index an
   * argmin selects), so it is its initial value or an index of the loop: below the loop's count when that is.
   */
  private indexLeafBelow(x: Atom, isB: (x: Atom) => boolean, depth: number): boolean {
    const path: number[] = [];
    let d = this.definition(x);
    while (d?.kind === "proj" && path.length < 8) {
      path.unshift(d.index);
      d = this.definition(d.arg);
    }
    if (d?.kind !== "ifold" || !isB(d.count)) return false;
    const loop = d;
    const init = initialLeaf(loop, path, (a) => this.definition(a));
    if (init === undefined) return false;
    const initBelow =
      init.kind === "lit"
        ? (init.value as number) < 0 && this.isNonNegative(loop.count)
        : this.below(init, isB, depth + 1);
    return initBelow && leafKeeps(loop, path, (a) => a.kind === "var" && a.id === loop.index.id);
  }

  /** A relation `a <= b` among the facts with isB(b): a loop index below a is below isB's bound too. */
  private boundBy(a: Atom, isB: (x: Atom) => boolean): boolean {
    return this.recentRelations().some((r) => r.rel === "le" && this.sameValue(r.a, a) && isB(r.b));
  }

  /** Records `a rel b` as known here (Index atoms), e.g. what an evaluation that succeeded implies. */
  relate(a: Atom, rel: "lt" | "le", b: Atom): void {
    this.relations.push({ a, rel, b });
  }

  /** Provably a <= b, for a bound of a relation (a small, cheap check). */
  private atMost(a: Atom, isB: (x: Atom) => boolean, depth: number): boolean {
    return isB(a) || this.below(a, isB, depth);
  }

  lessThan(a: Atom, b: Atom): boolean {
    if (a.kind === "lit" && b.kind === "lit") return (a.value as number) < (b.value as number);
    return this.below(a, (x) => this.sameValue(x, b), 0);
  }

  lessOrEqual(a: Atom, b: Atom): boolean {
    if (a.kind === "lit" && b.kind === "lit") return (a.value as number) <= (b.value as number);
    if (this.sameValue(a, b) || this.lessThan(a, b)) return true;
    if (a.kind === "lit" && (a.value as number) <= 0 && this.isNonNegative(b)) return true;
    return this.recentRelations().some((r) => r.rel === "le" && this.sameValue(r.a, a) && this.sameValue(r.b, b));
  }

  isNonNegative(a: Atom): boolean {
    for (const x of this.equals(a)) {
      if (x.kind === "lit") {
        if ((x.value as number) >= 0) return true;
        continue;
      }
      if (this.loops.some((l) => l.index.id === x.id)) return true;
      const d = this.definition(x);
      if (d?.kind === "prim" && (d.op === "length" || d.op === "checkIndex")) return true;
      if (d?.kind === "prim" && d.op === "sameSize" && this.isNonNegative(d.args[0]!)) return true;
      for (const r of this.recentRelations()) {
        if (
          r.rel !== "eq" &&
          this.sameValue(r.b, x) &&
          r.a.kind === "lit" &&
          (r.a.value as number) >= (r.rel === "lt" ? -1 : 0)
        )
          return true;
      }
    }
    return false;
  }

  /** 0 <= j < n, provably. */
  inRange(j: Atom, n: Atom): boolean {
    return this.isNonNegative(j) && this.lessThan(j, n);
  }

  /** 0 <= j < the length of the rows of the matrix m, provably (arrays are regular: all rows have one length). */
  inRangeOfRows(j: Atom, m: Atom): boolean {
    const root = this.shapeRoot(m);
    const isRowLength = (x: Atom): boolean => {
      const d = this.definition(x);
      if (d?.kind === "prim" && d.op === "sameSize") return isRowLength(d.args[0]!) || isRowLength(d.args[1]!);
      if (d?.kind !== "prim" || d.op !== "length") return false;
      const row = this.rowOf(d.args[0]!);
      return row !== undefined && this.sameValue(this.shapeRoot(row), root);
    };
    return this.isNonNegative(j) && this.below(j, isRowLength, 0);
  }

  /** 0 <= j < length arr, provably. */
  inRangeOf(j: Atom, arr: Atom): boolean {
    return this.isNonNegative(j) && this.below(j, (x) => this.isLengthOf(x, arr), 0);
  }

  /** The value of an Index comparison `op a b` when the facts decide it. */
  compare(op: string, a: Atom, b: Atom): boolean | undefined {
    switch (op) {
      case "eq":
        if (this.sameValue(a, b) || this.equals(a).some((x) => this.sameValue(x, b))) return true;
        if (
          this.recentRelations().some(
            (r) =>
              r.rel === "ne" &&
              ((this.sameValue(r.a, a) && this.sameValue(r.b, b)) ||
                (this.sameValue(r.a, b) && this.sameValue(r.b, a))),
          )
        ) {
          return false;
        }
        return this.lessThan(a, b) || this.lessThan(b, a) ? false : undefined;
      case "ne": {
        const eq = this.compare("eq", a, b);
        return eq === undefined ? undefined : !eq;
      }
      case "lt":
        return this.lessThan(a, b) ? true : this.lessOrEqual(b, a) ? false : undefined;
      case "le":
        return this.lessOrEqual(a, b) ? true : this.lessThan(b, a) ? false : undefined;
      case "gt":
        return this.compare("lt", b, a);
      case "ge":
        return this.compare("le", b, a);
      default:
        return undefined;
    }
  }

  /** The value of a Bool primitive when a condition we are under is the same primitive of the same values. */
  knownPrim(p: Prim): boolean | undefined {
    for (let k = this.conds.length - 1; k >= Math.max(0, this.conds.length - MAX_CONSULTED); k--) {
      const f = this.conds[k]!;
      const d = this.definition(f.cond);
      if (d?.kind === "prim" && d.op === p.op && d.args.every((x, i) => this.sameValue(x, p.args[i]!))) return f.value;
    }
    return undefined;
  }

  /** The value of a Bool atom when a condition we are under decides it. */
  known(c: Atom): boolean | undefined {
    if (c.kind === "lit") return c.value as boolean;
    for (let k = this.conds.length - 1; k >= Math.max(0, this.conds.length - MAX_CONSULTED); k--) {
      const f = this.conds[k]!;
      if (this.sameValue(f.cond, c)) return f.value;
    }
    return undefined;
  }
}

/** The atom an expression ends with when it is just an atom (no lets), else undefined. */
function atomTail(e: Expr): Atom | undefined {
  return e.kind === "var" || e.kind === "lit" ? e : undefined;
}

const isLit = (a: Atom | undefined, v: boolean | number) => a?.kind === "lit" && a.value === v;
