// Which values computed in a loop body have the same shape in every iteration (conservatively). Reverse mode stores
// such values of a loop's primal run (residuals) in a tape allocated when the first one is recorded, instead of
// recomputing them in the reverse loop; a value whose shape may change (a triangular loop's `build i ...`) is
// recomputed, so a tape is never irregular.
//
// A value's shape is stable when it is a scalar, is bound outside the loop, or is built from stable shapes and fixed
// sizes: `build n f` with n fixed and f's elements stable; a row `a[i]` of a stable array (rows of a regular array
// share one shape, whatever i is); an update of a stable array; a loop whose state keeps a stable shape (assumed,
// then checked: the greatest fixpoint). An Index value is fixed when it is the same in every iteration: bound
// outside, a literal, the length of a stable array, or arithmetic on fixed values.

import { splitLets } from "../ir/builder.js";
import type { Atom, Expr, Var } from "../ir/ir.js";
import { isScalar } from "../types/types.js";
import { PRIMS } from "../prims/table.js";
import { allFlags, invariantShapePaths, type ShapeFlags } from "../ir/invariant-shapes.js";

interface Facts {
  /** Loop-local variables: whether their shape is stable and (for Index) their value fixed. */
  readonly shape: Map<number, boolean>;
  readonly fixed: Map<number, boolean>;
}

export class ShapeStability {
  private readonly facts: Facts = { shape: new Map(), fixed: new Map() };
  /** Whether the body's result (the next state) has a stable shape. */
  readonly result: boolean;

  /**
   * Analyses a loop body whose state `acc` and index `index` are bound by the loop; `accStable` says, per component
   * of the state, that its shape never changes (proved by the caller, e.g. the body only updates it); afterwards
   * `stable(v)` answers for the body's variables.
   */
  constructor(body: Expr, acc: Var, index: Var, accStable: ShapeFlags) {
    this.facts.shape.set(index.id, true);
    this.facts.fixed.set(index.id, false);
    this.facts.shape.set(acc.id, allFlags(accStable));
    this.facts.fixed.set(acc.id, false);
    this.places.set(acc.id, accStable);
    this.result = this.scope(body);
  }

  /** Loop states (this loop's and inner loops') and their parts: per place, its shape never changes in the loop. */
  private readonly places = new Map<number, ShapeFlags>();

  stable(a: Atom): boolean {
    if (a.kind !== "var" || isScalar(a.type)) return true;
    return this.facts.shape.get(a.id) ?? true; // not bound in the loop: the same value every iteration
  }

  private fixed(a: Atom): boolean {
    if (a.kind !== "var") return true;
    return this.facts.fixed.get(a.id) ?? true;
  }

  /** Records the facts of a scope's lets; returns whether its result's shape is stable. */
  private scope(e: Expr): boolean {
    const { bindings, tail } = splitLets(e);
    for (const { v, rhs } of bindings) {
      // A part of a loop state: its own places.
      const parent = rhs.kind === "proj" && rhs.arg.kind === "var" ? this.places.get(rhs.arg.id) : undefined;
      if (parent !== undefined && rhs.kind === "proj")
        this.places.set(v.id, typeof parent === "boolean" ? parent : (parent[rhs.index] ?? false));
      this.facts.shape.set(v.id, isScalar(v.type) || this.shapeStable(rhs));
      this.facts.fixed.set(v.id, v.type.k === "int" && this.valueFixed(rhs));
    }
    return this.shapeStable(tail);
  }

  private shapeStable(e: Expr): boolean {
    switch (e.kind) {
      case "var":
      case "lit":
        return this.stable(e);
      case "prim":
        if (isScalar(e.type)) return true;
        if (PRIMS[e.op].shapeOfFirst === true) return this.stable(e.args[0]!);
        // A residual tape: n elements shaped like the value (once the first is recorded; only reverse mode writes
        // these, and only records into them, so the empty first state is never measured).
        if (e.op === "record") return this.fixed(e.args[3]!) && this.stable(e.args[2]!);
        return false;
      case "tuple":
        return e.elems.every((a) => this.stable(a));
      case "proj": {
        const parts = e.arg.kind === "var" ? this.places.get(e.arg.id) : undefined;
        if (parts !== undefined)
          return isScalar(e.type) || (typeof parts === "boolean" ? parts : allFlags(parts[e.index] ?? false));
        return this.stable(e.arg);
      }
      case "if":
        return this.scope(e.then) && this.scope(e.else);
      case "build":
        this.facts.fixed.set(e.index.id, false);
        return this.scope(e.body) && this.fixed(e.size);
      case "ifold": {
        // A component the body only updates keeps the initial value's shape; a tape recorded into ends as
        // [count, the recorded values' shape]; anything else may change.
        const comps = e.type.k === "tuple" ? e.type.elems : [e.type];
        const flags = invariantShapePaths(e);
        const preserved = comps.map((_, k) => allFlags(typeof flags === "boolean" ? flags : (flags[k] ?? false)));
        this.places.set(e.acc.id, flags);
        this.facts.shape.set(e.acc.id, allFlags(flags));
        this.facts.fixed.set(e.index.id, false);
        this.facts.fixed.set(e.acc.id, false);
        this.scope(e.body);
        const { bindings, tail } = splitLets(e.body);
        const def = (a: Atom) => (a.kind === "var" ? bindings.find((x) => x.v.id === a.id)?.rhs : undefined);
        const last = tail.kind === "var" ? def(tail) : undefined;
        const results: readonly (Atom | undefined)[] =
          tail.kind === "tuple"
            ? tail.elems
            : last?.kind === "tuple"
              ? last.elems
              : e.type.k === "tuple" || (tail.kind !== "var" && tail.kind !== "lit")
                ? []
                : [tail];
        const recorded = (a: Atom | undefined): boolean => {
          const d = a === undefined ? undefined : def(a);
          return (
            d?.kind === "prim" &&
            d.op === "record" &&
            this.fixed(d.args[3]!) &&
            this.stable(d.args[2]!) &&
            this.fixed(e.count)
          );
        };
        // With a fixed count, a component whose every new value has a stable shape ends stable too (all runs take the
        // initial value, or all take a new one).
        return (
          this.stable(e.init) &&
          comps.every(
            (_, k) =>
              preserved[k] ||
              recorded(results[k]) ||
              (this.fixed(e.count) && results[k] !== undefined && this.stable(results[k])),
          )
        );
      }
      default:
        return false;
    }
  }

  private valueFixed(e: Expr): boolean {
    switch (e.kind) {
      case "var":
      case "lit":
        return this.fixed(e);
      case "prim":
        if (e.op === "length") return this.stable(e.args[0]!);
        return PRIMS[e.op].domain === "scalar" && e.args.every((a) => this.fixed(a));
      default:
        return false;
    }
  }
}
