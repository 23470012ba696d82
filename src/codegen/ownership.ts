// Which functional array updates (setAt, addAt, addArray: src/prims/updates.ts) the compiled code may do in place.
//
// An update may overwrite its array operand `a` when nothing can observe the old value: `a` is *fresh* (its buffer
// was allocated by this function and reached `a` without being shared) and *owned* (this update is its only use on
// any path, at the same loop depth as its binder: a use inside a loop that `a` is bound outside of runs many times).
// Anything not proven so is copied first, so this analysis decides speed, never results.
//
// Fresh: the result of zerosLike, an update (a copy, or in place on a fresh owned operand), a build (builds allocate);
// a tuple component, projection, `if` result or ifold state component made only of fresh owned values. An ifold's
// state component is fresh when its initial value is and the body returns a fresh value for it assuming it is
// (a greatest fixpoint). Parameters and `get` views are never fresh.
//
// Uses are counted per path: the branches of an `if` take the larger count, not the sum. A projection `proj(k, t)` is
// a use of component k only, so the components of a tuple of accumulators are owned separately.

import type { Atom, Expr, IrFunction, Prim } from "../ir/ir.js";

const UPDATES = new Set(["setAt", "addAt", "addArray"]);
const ALLOCATES = new Set(["zerosLike", ...UPDATES]);
/** A use that no single-use test passes: inside a loop deeper than the binder. */
const MANY = 2;

type Counts = Map<string, number>;
const whole = (id: number) => `${id}`;
const component = (id: number, k: number) => `${id}.${k}`;

export function inPlaceUpdates(fn: IrFunction): Set<Prim> {
  const depthOf = new Map<number, number>();
  for (const p of fn.params) depthOf.set(p.id, 0);
  const counts = countUses(fn.body, 0, depthOf);
  const result = new Set<Prim>();
  new Freshness(counts, result).expr(fn.body);
  return result;
}

/** Use counts per variable (and per tuple component), per path; uses from deeper loops count as MANY. */
function countUses(e: Expr, depth: number, depthOf: Map<number, number>): Counts {
  const out: Counts = new Map();
  const add = (key: string, n: number) => out.set(key, (out.get(key) ?? 0) + n);
  const use = (a: Atom, k?: number) => {
    if (a.kind !== "var") return;
    const n = (depthOf.get(a.id) ?? 0) === depth ? 1 : MANY;
    add(k === undefined ? whole(a.id) : component(a.id, k), n);
  };
  const merge = (c: Counts) => c.forEach((n, key) => add(key, n));
  while (e.kind === "let") {
    depthOf.set(e.v.id, depth);
    merge(countUses(e.rhs, depth, depthOf));
    e = e.body;
  }
  switch (e.kind) {
    case "var":
    case "lit":
      use(e);
      break;
    case "proj":
      use(e.arg, e.index);
      break;
    case "prim":
      e.args.forEach((a) => use(a));
      break;
    case "tuple":
      e.elems.forEach((a) => use(a));
      break;
    case "app":
      use(e.fn);
      use(e.arg);
      break;
    case "jvp":
      use(e.fn);
      break;
    case "lam":
      depthOf.set(e.param.id, depth + 1);
      merge(countUses(e.body, depth + 1, depthOf));
      break;
    case "if": {
      use(e.cond);
      const [t, f] = [countUses(e.then, depth, depthOf), countUses(e.else, depth, depthOf)];
      for (const key of new Set([...t.keys(), ...f.keys()])) add(key, Math.max(t.get(key) ?? 0, f.get(key) ?? 0));
      break;
    }
    case "build":
      use(e.size);
      depthOf.set(e.index.id, depth + 1);
      merge(countUses(e.body, depth + 1, depthOf));
      break;
    case "ifold":
      use(e.init);
      use(e.count);
      depthOf.set(e.acc.id, depth + 1);
      depthOf.set(e.index.id, depth + 1);
      merge(countUses(e.body, depth + 1, depthOf));
      break;
  }
  return out;
}

/** Freshness of a value: one flag for a non-tuple, one per top-level component for a tuple. */
type Fresh = boolean | readonly boolean[];

class Freshness {
  /** Variable id -> freshness of its value. */
  private readonly fresh = new Map<number, Fresh>();

  constructor(
    private readonly counts: Counts,
    private readonly inPlace: Set<Prim>,
  ) {}

  private count(key: string): number {
    return this.counts.get(key) ?? 0;
  }

  /** `a` is fresh and this is its only use (used whole). */
  private ownedWhole(a: Atom): boolean {
    if (a.kind !== "var" || this.fresh.get(a.id) !== true) return false;
    let n = this.count(whole(a.id));
    // A tuple used whole uses every component.
    if (a.type.k === "tuple") for (let k = 0; k < a.type.elems.length; k++) n += this.count(component(a.id, k));
    return n === 1;
  }

  /**
   * Freshness of an atom passed on whole (to a tuple, a branch result, an ifold's init or result), per component for a
   * tuple: a component stays fresh when this is the only use of it (a whole use counts for every component).
   */
  private passed(a: Atom): Fresh {
    if (a.kind !== "var") return false;
    const f = this.fresh.get(a.id);
    if (f === undefined || f === false) return false;
    const wholeUses = this.count(whole(a.id));
    if (typeof f === "boolean") return wholeUses === 1;
    return f.map((x, k) => x && wholeUses + this.count(component(a.id, k)) === 1);
  }

  /** Freshness of the value of `e` (walking its body, and recording the in-place updates found). */
  expr(e: Expr): Fresh {
    while (e.kind === "let") {
      this.fresh.set(e.v.id, this.node(e.rhs));
      e = e.body;
    }
    return this.node(e);
  }

  private node(e: Expr): Fresh {
    switch (e.kind) {
      case "var":
      case "lit":
        return this.passed(e);
      case "prim":
        if (UPDATES.has(e.op) && this.ownedWhole(e.args[0]!)) this.inPlace.add(e);
        return ALLOCATES.has(e.op);
      case "build":
        this.expr(e.body);
        return true;
      case "tuple":
        return e.elems.map((a) => this.passed(a) === true);
      case "proj": {
        const a = e.arg;
        if (a.kind !== "var") return false;
        const f = this.fresh.get(a.id);
        const single = this.count(whole(a.id)) === 0 && this.count(component(a.id, e.index)) === 1;
        return single && Array.isArray(f) && f[e.index] === true;
      }
      case "if": {
        const [t, f] = [this.expr(e.then), this.expr(e.else)];
        return both(t, f);
      }
      case "ifold":
        return this.ifold(e);
      case "lam":
        this.expr(e.body);
        return false;
      default:
        return false;
    }
  }

  private ifold(e: Extract<Expr, { kind: "ifold" }>): Fresh {
    const init = this.passed(e.init);
    // Greatest fixpoint: assume the state fresh where the init is, walk the body, keep what the body preserves.
    let assumed: Fresh = init;
    for (let round = 0; round < 8; round++) {
      const trial = new Set<Prim>();
      const sub = new Freshness(this.counts, trial);
      sub.fresh.clear();
      this.fresh.forEach((v, k) => sub.fresh.set(k, v));
      sub.fresh.set(e.acc.id, assumed);
      const out = both(assumed, sub.expr(e.body));
      if (same(out, assumed)) {
        trial.forEach((p) => this.inPlace.add(p));
        sub.fresh.forEach((v, k) => this.fresh.set(k, v));
        return out;
      }
      assumed = out;
    }
    // Not converged (cannot happen: flags only go from true to false); nothing in place.
    this.fresh.set(e.acc.id, false);
    this.expr(e.body);
    return false;
  }
}

function both(a: Fresh, b: Fresh): Fresh {
  if (typeof a === "boolean" || typeof b === "boolean") return a === true && b === true;
  return a.map((x, k) => x && b[k] === true);
}

function same(a: Fresh, b: Fresh): boolean {
  if (typeof a === "boolean" || typeof b === "boolean") return a === b;
  return a.length === b.length && a.every((x, k) => x === b[k]);
}
