// Reverse-mode AD as a transformation of first-order IR (after forward-ad and inlining): the primal code runs as
// written, then a reverse sweep walks its lets backwards, adding to the adjoint of each operand its partial derivative
// (src/ad/derivatives.ts, shared with forward mode) times the adjoint of the result. The output is ordinary IR.
//
// Control flow and loops (paper 004 §3, paper 001):
//  - `if`: the reverse takes the branch the primal took; the branch's primal is recomputed there, then reversed.
//  - `build n f`: iterations are independent, so the reverse is a loop over i that recomputes f i and reverses it with
//    the adjoint of element i, carrying the adjoints of f's free variables as the loop state (./reverse-build.ts).
//  - `ifold f init n`: the states before each iteration are saved on a tape (an array written with `setAt` in the
//    primal loop, only when the reverse needs them), then a loop from the last iteration to the first recomputes the
//    body from its saved state and reverses it, carrying the adjoint of the state and of the body's free variables.
// Arrays (paper 003 §4): a read `a[i]` adds its adjoint into the adjoint of a with `addAt`, which compiled code does
// in place (src/codegen/ownership.ts), so a read costs O(1) in the reverse sweep, not a one-hot vector. A row
// `m[i]` is an alias of m at path (i): reads of the row add into m's adjoint at (i, j), never building a row adjoint.
//
// Only *active* variables (those depending on a differentiated input, with Doubles in their type) get adjoints.

import { AnfBuilder, litIndex, mkIfold, mkPrim, mkProj, nested, splitLets, type Binding } from "../ir/builder.js";
import { freeVars, isFreeIn, someNode } from "../ir/free.js";
import { isTapeOp } from "../prims/tape.js";
import { reverseCall, TapedSweep } from "./reverse-calls.js";
import {
  freshVar,
  isAtom,
  lit,
  mkTuple,
  typeOf,
  type Atom,
  type Call,
  type Expr,
  type If,
  type Ifold,
  type Prim,
  type Var,
} from "../ir/ir.js";
import { copyFresh } from "../ir/rename.js";
import { PRIMS } from "../prims/table.js";
import { fail } from "../syntax/diagnostics.js";
import { arrayOf, BOOL, DOUBLE, INT, isScalar, tupleOf, typeEq } from "../types/types.js";
import { activeComponents, letActivity } from "./activity.js";
import { narrowResiduals } from "./residual-narrowing.js";
import { primalIf, reverseIf, type IfResiduals } from "./reverse-if.js";
import { ShapeStability } from "./shape-stability.js";
import {
  costly,
  elementAt,
  emptyTape,
  forwardOrder,
  hoistResiduals,
  projectionsOf,
  prunedKeeping,
  readingResiduals,
  stateAdjointInvariant,
  stateIndependent,
  zeroScalar,
} from "./reverse-support.js";
import { prepareBuild, reverseBuild } from "./reverse-build.js";
import { allFlags, invariantShapePaths } from "../ir/invariant-shapes.js";
import { adjTuple, addAdjoints, materialize, onlyComponent, partsOf, zeroOf, type Adj } from "./adjoints.js";
import { scaleTerm } from "./derivatives.js";
import { hasTangent } from "./dual-types.js";
import type { ProgramFunctions } from "./functions.js";

/** A let of the primal, as the reverse sweep visits it. */
export interface Step {
  readonly v: Var;
  readonly rhs: Expr;
  /**
   * For an active ifold or build: its reverse loop, prepared when the primal was emitted (which decides what the
   * primal stores for it: an ifold's tape, a build's residuals).
   */
  readonly loop?: ReverseLoop;
}

export interface ReverseLoop {
  /** For a loop whose taped state may change shape: the reverse loop that recomputes states, run when not `regular`. */
  readonly fallback?: { readonly state: Var; readonly index: Var; readonly body: Expr; readonly regular: Var };
  /** A build's reverse reads the adjoint of its result through this placeholder, replaced when it is emitted. */
  readonly seed?: Var;
  readonly state: Var;
  readonly index: Var;
  readonly body: Expr;
  readonly targets: readonly Var[];
}

interface Alias {
  readonly root: Var;
  readonly path: readonly Atom[];
}

/** Emits into `b` the primal of `body` and its reverse sweep for the cotangent `seed` of its result. */
export function reverseSweep(
  body: Expr,
  active: readonly Var[],
  seed: Atom,
  b: AnfBuilder,
  functions?: ProgramFunctions,
): { value: Atom; adjoint: (v: Var) => Atom } {
  const r = new Reverse();
  r.functions = functions;
  for (const v of active) if (hasTangent(v.type)) r.active.add(v.id);
  if (someNode(body, (e) => e.kind === "prim" && isTapeOp(e.op))) reverseOverTapes(body);
  if (functions !== undefined && someNode(body, (e) => e.kind === "call")) {
    // Calls pass a tape (./reverse-calls.ts); the primal and the reverse share this scope, so only the taped `if`s'
    // branches push and pop.
    const local = new AnfBuilder();
    const sweep = new TapedSweep(r, functions, local.prim("newTape", [litIndex(0)], "tape"));
    const { steps, result } = sweep.forward(body, local);
    sweep.tapeB = sweep.tapeF;
    r.contribute(result, seed, local);
    sweep.backward(steps, local);
    const value = b.emit(sweep.finish(local.finish(result))) as Atom;
    return { value, adjoint: (v) => materialize(r.adjointOf(v), v.type, v, b) };
  }
  const { steps, result } = r.forward(body, b);
  r.contribute(result, seed, b);
  r.backward(steps, b);
  return { value: result, adjoint: (v) => materialize(r.adjointOf(v), v.type, v, b) };
}

/**
 * Reverse mode over code that keeps a tape: the derivative of a reverse-mode derivative through recursion. The error
 * points at a recursive call in that code (the user's call, whose span the derivatives' calls keep).
 */
function reverseOverTapes(body: Expr): never {
  let at: Call | undefined;
  someNode(body, (e) => {
    if (e.kind === "call" && e.span !== undefined) at = e;
    return at !== undefined;
  });
  return fail(
    "unsupported",
    "reverse mode cannot differentiate a reverse-mode derivative of a recursive function (reverse over reverse)",
    at?.span,
    { hint: "nest forward mode outside instead (a Hessian is forward over reverse)" },
  );
}

export class Reverse {
  readonly active = new Set<number>();
  /** The program's functions, whose reverse-mode derivatives calls use (./reverse-calls.ts). */
  functions: ProgramFunctions | undefined;
  /** The residuals of the active `if`s the forward walk emitted (./reverse-if.ts). */
  private readonly ifResiduals = new Map<If, IfResiduals>();
  /** Active tuples of which only some components are active (./activity.ts). */
  readonly components = new Map<number, ReadonlySet<number>>();
  private readonly adj = new Map<number, Adj>();
  private readonly alias = new Map<number, Alias>();
  /** The primal definition of each variable emitted by a forward walk. */
  private readonly defs = new Map<number, Expr>();
  /**
   * True while walking code whose loops run in the primal anyway and whose records the enclosing loop stores (a
   * build's element): a loop then records its costly values even when it tapes no state (a reduction).
   */
  private runsAnyway = false;

  adjointOf(v: Var): Adj {
    return this.adj.get(v.id);
  }

  /** Sets v's adjoint (an accumulator passed through a call, ./reverse-calls.ts). */
  setAdjoint(v: Var, a: Atom): void {
    this.adj.set(v.id, a);
  }

  /** Whether v is a row of another array, whose adjoint takes v's contributions. */
  isAlias(v: Var): boolean {
    return this.alias.has(v.id);
  }

  private adjOfAtom(a: Atom): Adj {
    return a.kind === "var" ? this.adj.get(a.id) : undefined;
  }

  isActive(a: Atom): a is Var {
    return a.kind === "var" && this.active.has(a.id);
  }

  /** Emits the primal lets of `e` into `b`; returns them (with the result) for the reverse sweep. */
  forward(e: Expr, b: AnfBuilder): { steps: Step[]; result: Atom } {
    const steps: Step[] = [];
    while (e.kind === "let") {
      this.step(e.v, e.rhs, b, steps);
      e = e.body;
    }
    if (isAtom(e)) return { steps, result: e };
    const out = freshVar("r", typeOf(e));
    this.step(out, e, b, steps);
    return { steps, result: out };
  }

  /** Emits the primal of `let v = rhs` into `b`, recording its step. */
  step(v: Var, rhs: Expr, b: AnfBuilder, steps: Step[]): void {
    this.defs.set(v.id, rhs);
    if (rhs.kind === "lam" || rhs.kind === "app" || rhs.kind === "jvp")
      fail(
        "unsupported",
        "reverse mode needs a first-order program: a function value remains after inlining",
        undefined,
        {
          found: rhs.kind === "lam" ? "a lambda" : "a call of an unknown function",
        },
      );
    if (!letActivity(this, v, rhs)) {
      b.bindVar(v, rhs);
      steps.push({ v, rhs });
      return;
    }
    this.active.add(v.id);
    if (rhs.kind === "prim" && rhs.op === "get" && v.type.k === "array")
      this.alias.set(v.id, this.extend(rhs.args[0]!, rhs.args[1]!));
    if (rhs.kind === "if") {
      const stored = primalIf(v, rhs, b);
      if (stored !== undefined) this.ifResiduals.set(rhs, stored);
      steps.push({ v, rhs });
      return;
    }
    if (rhs.kind === "ifold") {
      steps.push({ v, rhs, loop: this.prepareIfold(v, rhs, b) });
      return;
    }
    if (rhs.kind === "build") {
      steps.push({ v, rhs, loop: prepareBuild(this, v, rhs, b) });
      return;
    }
    b.bindVar(v, rhs);
    steps.push({ v, rhs });
  }

  /** The alias of `arr[i]`: arr's root and path, one index longer. */
  private extend(arr: Atom, i: Atom): Alias {
    const a = arr as Var;
    const base = this.alias.get(a.id) ?? { root: a, path: [] };
    return { root: base.root, path: [...base.path, i] };
  }

  backward(steps: readonly Step[], b: AnfBuilder): void {
    for (let k = steps.length - 1; k >= 0; k--) {
      const { v, rhs, loop } = steps[k]!;
      if (!this.active.has(v.id)) continue;
      const vb = this.adj.get(v.id);
      if (vb === undefined) continue;
      this.reverse(v, rhs, vb, b, loop);
    }
  }

  /** Adds `c` to the adjoint of `a` (nothing if a is not active, or c is zero). */
  contribute(a: Atom, c: Adj, b: AnfBuilder): void {
    if (!this.isActive(a) || c === undefined) return;
    const al = this.alias.get(a.id);
    if (al !== undefined) {
      this.accumulateAt(al.root, al.path, materialize(c, a.type, a, b), b);
      return;
    }
    this.adj.set(a.id, addAdjoints(this.adj.get(a.id), c, a.type, b));
  }

  /** adjoint(root)[path] += value, in place in compiled code. */
  private accumulateAt(root: Var, path: readonly Atom[], value: Atom, b: AnfBuilder): void {
    const cur = this.adj.get(root.id) as Atom | undefined;
    const acc = cur ?? b.prim("zerosLike", [root], `d${root.name}`);
    const at = path.length === 1 ? path[0]! : b.tuple(path, "at");
    this.adj.set(root.id, b.prim("addAt", [acc, at, value], `d${root.name}`));
  }

  private reverse(v: Var, rhs: Expr, vb: Adj, b: AnfBuilder, loop: ReverseLoop | undefined): void {
    switch (rhs.kind) {
      case "var":
        return this.contribute(rhs, vb, b);
      case "lit":
        return;
      case "tuple": {
        const parts = partsOf(vb, v.type, b);
        rhs.elems.forEach((a, k) => this.contribute(a, parts[k], b));
        return;
      }
      case "proj": {
        const t = rhs.arg.type;
        if (t.k !== "tuple") throw new Error("reverse: proj of a non-tuple");
        return this.contribute(rhs.arg, onlyComponent(rhs.index, t.elems.length, vb), b);
      }
      case "prim":
        return this.prim(v, rhs, vb, b);
      case "if":
        return reverseIf(this, rhs, vb, b, this.ifResiduals.get(rhs));
      case "build":
        return reverseBuild(this, rhs, vb as Atom, b, loop);
      case "ifold":
        return this.reverseIfold(v, rhs, vb, b, loop!);
      case "call":
        return reverseCall(this, v, rhs, vb, b);
      default:
        throw new Error(`reverse: unexpected ${rhs.kind}`);
    }
  }

  private prim(v: Var, e: Prim, vb: Adj, b: AnfBuilder): void {
    const rule = PRIMS[e.op].derivative;
    const args = e.args;
    switch (rule.kind) {
      case "partials":
        rule.partials.forEach((p, i) => {
          const a = args[i]!;
          if (!this.isActive(a)) return;
          const { term, negate } = scaleTerm(p.scale(args, v, b), vb as Atom, b, `d${a.name}`);
          this.contribute(a, negate ? b.prim("neg", [term], `d${a.name}`) : term, b);
        });
        return;
      case "select": {
        const first = rule.firstChosen(args, b);
        const zero = lit(0, DOUBLE);
        const [x, y] = args as [Atom, Atom];
        if (this.isActive(x))
          this.contribute(
            x,
            b.if(
              first,
              () => vb as Atom,
              () => zero,
              `d${x.name}`,
            ),
            b,
          );
        if (this.isActive(y))
          this.contribute(
            y,
            b.if(
              first,
              () => zero,
              () => vb as Atom,
              `d${y.name}`,
            ),
            b,
          );
        return;
      }
      case "zero-tangent":
      case "no-tangent":
        return;
      case "structural":
        return this.structural(v, e, vb, b);
    }
  }

  private structural(v: Var, e: Prim, adj: Adj, b: AnfBuilder): void {
    const [a0, a1, a2] = e.args as [Atom, Atom, Atom];
    if (e.op === "get") {
      if (this.alias.has(v.id) || !this.isActive(a0)) return; // a row: its reads went to the root already
      const al = this.extend(a0, a1);
      this.accumulateAt(al.root, al.path, materialize(adj, v.type, v, b), b);
      return;
    }
    const vb = adj as Atom; // the result of an update is an array: its adjoint is an atom
    switch (e.op) {
      // The element's adjoint is read before vb is passed on (or cleared in place) as the array's.
      case "setAt":
        if (this.isActive(a2)) this.contribute(a2, elementAt(vb, a1, b), b);
        if (this.isActive(a0)) {
          // Zeros shaped like the replaced element: like the adjoint's element there (the same shape, as the update
          // requires), so that neither the primal array (which a loop would have to tape) nor a2 (which may be costly
          // to recompute) is needed.
          const zero = a2.type.k === "array" ? zeroOf(a2.type, elementAt(vb, a1, b), b) : zeroOf(a2.type, a2, b);
          this.contribute(a0, b.prim("setAt", [vb, a1, zero], `d${a0.name}`), b);
        }
        return;
      case "record":
        // Like setAt (an empty tape's adjoint is never read: the tape a loop records into starts inactive).
        if (this.isActive(a2)) this.contribute(a2, elementAt(vb, a1, b), b);
        if (this.isActive(a0)) {
          const zero = a2.type.k === "array" ? zeroOf(a2.type, elementAt(vb, a1, b), b) : zeroOf(a2.type, a2, b);
          this.contribute(a0, b.prim("setAt", [vb, a1, zero], `d${a0.name}`), b);
        }
        return;
      case "addAt":
        if (this.isActive(a2)) this.contribute(a2, elementAt(vb, a1, b), b);
        this.contribute(a0, vb, b);
        return;
      case "addArray":
        this.contribute(a0, vb, b);
        this.contribute(a1, vb, b);
        return;
      case "field": {
        // The array of tuples whose component k is vb and whose other components are zeros.
        if (!this.isActive(a0) || a0.type.k !== "array" || a0.type.elem.k !== "tuple") return;
        const comps = a0.type.elem.elems;
        const k = a1.kind === "lit" ? (a1.value as number) : -1;
        const n = b.prim("length", [a0], "n");
        const whole = b.build(
          n,
          (i, bb) => {
            const elem = bb.prim("get", [a0, i], "x");
            return mkTuple(
              comps.map((t, j) => (j === k ? bb.prim("get", [vb, i], "d") : zeroOf(t, bb.proj(j, elem, "x"), bb))),
            );
          },
          `d${a0.name}`,
        );
        this.contribute(a0, whole, b);
        return;
      }
      default:
        return; // length, zerosLike: no adjoint flows
    }
  }

  /** The active variables free in `e` (except `bound`) whose adjoints a reverse of `e` updates: aliases by their root. */
  targetsOf(exprs: readonly Expr[], bound: readonly Var[] = []): Var[] {
    const out = new Map<number, Var>();
    for (const e of exprs)
      for (const v of freeVars(e).values()) {
        if (!this.active.has(v.id) || bound.some((x) => x.id === v.id)) continue;
        const root = this.alias.get(v.id)?.root ?? v;
        out.set(root.id, root);
      }
    return [...out.values()];
  }

  /** The targets' adjoints as one atom (a tuple when there are several), zeros where absent. */
  pack(targets: readonly Var[], b: AnfBuilder): Atom {
    const parts = targets.map((t) => materialize(this.adj.get(t.id), t.type, t, b));
    return parts.length === 1 ? parts[0]! : b.tuple(parts, "dacc");
  }

  /** Sets the targets' adjoints to the components of `packed` (as `pack` made it). */
  unpack(targets: readonly Var[], packed: Atom, b: AnfBuilder, offset = 0, total = targets.length): void {
    targets.forEach((t, k) => this.adj.set(t.id, total === 1 ? packed : b.proj(offset + k, packed, `d${t.name}`)));
  }

  /** Runs `write` with the targets' adjoints saved, restoring them afterwards. */
  saving<T>(targets: readonly Var[], write: () => T): T {
    const saved = targets.map((t) => this.adj.get(t.id));
    const result = write();
    targets.forEach((t, k) => this.adj.set(t.id, saved[k]));
    return result;
  }

  /** Runs `f` with the loops it prepares known to run in a primal that runs anyway (see `runsAnyway`). */
  runningAnyway<T>(f: () => T): T {
    const before = this.runsAnyway;
    this.runsAnyway = true;
    try {
      return f();
    } finally {
      this.runsAnyway = before;
    }
  }

  /**
   * When the primal reaches an active ifold: prepare its reverse loop (a function of the loop's state: the adjoint of
   * the ifold's state, then the targets' adjoints) and emit the primal. Each component of the state has its own tape,
   * written only if the reverse reads that component's values (the reverse of `setAt out i x` needs nothing of `out`,
   * so a scan taping its output array would cost O(n²)); shapes come from the final state, which has the same ones.
   */
  private prepareIfold(v: Var, e: Ifold, b: AnfBuilder): ReverseLoop {
    const targets = this.targetsOf([e.body], [e.acc, e.index]);
    const stateType = e.acc.type;
    const parts = stateType.k === "tuple" ? stateType.elems : [stateType];
    // The state components that depend on the inputs: only they get adjoints.
    const varied = activeComponents(this, v, parts.length);
    const tapes = parts.map((t, k) => freshVar(`tape${k}`, arrayOf(t)));
    const state = freshVar(
      "dstate",
      targets.length === 0 ? stateType : tupleOf([stateType, ...targets.map((t) => t.type)]),
    );
    const k = freshVar("k", INT);
    // A state whose shape changes from one iteration to the next (a growing vector) cannot be taped in a regular
    // array: the reverse then recomputes the state before iteration i from the start, O(i) (correct, quadratic).
    // A state component the body only updates keeps its shape; any other array component is taped only while its
    // shape stays the initial one (checked as the primal runs: `regular`); otherwise the tape cannot hold it, and the
    // reverse recomputes the state before iteration i from the start instead, O(i) (correct, quadratic).
    const flags = invariantShapePaths(e);
    const preserved = parts.map((_, c) => allFlags(typeof flags === "boolean" ? flags : (flags[c] ?? false)));
    const guarded = preserved.map((x) => !x);
    const regular = freshVar("regular", BOOL);
    const recomputedState = (bb: AnfBuilder, i: Atom, c: number): Atom => {
      const again = copyFresh(e) as Ifold;
      const s = bb.bind("state", mkIfold(again.init, i, again.acc, again.index, again.body));
      return stateType.k === "tuple" ? bb.proj(c, s, "s") : s;
    };
    /** The reverse loop's body: the state before iteration i from its tapes, or (`recompute`) from the start. */
    const reverseBody = (
      recompute: boolean,
      state: Var,
      k: Var,
    ): { body: Expr; bindings: readonly Binding[]; copy: Ifold } => {
      const copy = copyFresh(e) as Ifold;
      let bindings: readonly Binding[] = [];
      let last: Atom | undefined;
      const body = this.saving(targets, () =>
        // The iteration's index stays bound even if the recomputation does not read it: residuals read with it later.
        prunedKeeping(
          nested((bb) => {
            last = bb.prim("sub", [e.count, litIndex(1)], "last");
            bb.bindVar(copy.index, mkPrim("sub", [last, k]));
            const saved = parts.map((_, c) =>
              recompute ? recomputedState(bb, copy.index, c) : bb.prim("get", [tapes[c]!, copy.index], "s"),
            );
            bb.bindVar(copy.acc, stateType.k === "tuple" ? mkTuple(saved) : saved[0]!);
            this.activateState(copy.acc, varied);
            saved.forEach((x, c) => {
              if (x.kind === "var" && hasTangent(x.type) && varied.has(c)) this.active.add(x.id);
            });
            const seed = targets.length === 0 ? state : bb.proj(0, state, "ds");
            this.unpack(targets, state, bb, 1, targets.length + 1);
            const recomputed = stateType.k === "tuple" ? projectionsOf(copy.body, copy.acc, saved) : copy.body;
            const mark = bb.size;
            const { steps, result } = this.forward(recomputed, bb);
            bindings = bb.bindingsFrom(mark);
            this.contribute(result, seed, bb);
            this.backward(steps, bb);
            // The state's adjoint: what reached the whole state, plus what reached its saved parts.
            const viaParts =
              stateType.k === "tuple" ? adjTuple(saved.map((x) => this.adjOfAtom(x))) : this.adjOfAtom(saved[0]!);
            const dacc = materialize(addAdjoints(this.adj.get(copy.acc.id), viaParts, stateType, bb), stateType, v, bb);
            if (targets.length === 0) return dacc;
            return mkTuple([dacc, ...targets.map((t) => materialize(this.adj.get(t.id), t.type, t, bb))]);
          }),
          [copy.index, last],
        ),
      );
      return { body, bindings, copy };
    };
    const taping = reverseBody(false, state, k);
    let body = taping.body;
    const copy = taping.copy;
    const recomputedBindings = taping.bindings;
    // Residuals: values the reverse reads that are costly to recompute (see `costly`: transcendental scalars, loops,
    // branches, builds), stored per iteration by the primal loop instead — only when that loop runs anyway to tape
    // the state (a reduction's primal loop is usually dead), and, for arrays, only when their shape is the same in
    // every iteration (./shape-stability.ts). The primal loop then runs the forward walk of its body (so that loops
    // inside it keep their own tapes and residuals), whose lets correspond one to one to the recomputation's.
    const live = new Set(splitLets(body).bindings.map((x) => x.v.id));
    const stateTaped = tapes.some((tp) => isFreeIn(tp, body));
    const walk = stateTaped || this.runsAnyway ? this.primalWalk(e, recomputedBindings, varied) : undefined;
    let residuals = (walk?.pairs ?? []).flatMap(({ recomputed, primal }) =>
      costly(recomputed.rhs) &&
      live.has(recomputed.v.id) &&
      (isScalar(recomputed.v.type) || walk!.stability.stable(primal))
        ? [
            {
              copy: recomputed.v,
              original: primal,
              tape: freshVar(`${recomputed.v.name}s`, arrayOf(recomputed.v.type)),
            },
          ]
        : [],
    );
    let walkBody = walk?.loop.body;
    if (residuals.length > 0) {
      body = readingResiduals(body, new Map(residuals.map((r) => [r.copy.id, r.tape])), copy.index);
      // A residual only needed to recompute another stored one is not read any more: it is not stored either.
      residuals = residuals.filter((r) => isFreeIn(r.tape, body));
      // One read only in part records only the components read.
      ({ body, loopBody: walkBody, residuals } = narrowResiduals(body, walkBody!, residuals, copy.index));
    }
    const taped = tapes.flatMap((tp, c) => (isFreeIn(tp, body) ? [{ tape: tp, component: c }] : []));
    const order = (x: Expr, st: Var, i: Var) =>
      stateAdjointInvariant(x, st, targets.length > 0) ? forwardOrder(x, i) : x;
    // When a taped component may change shape, a second reverse loop recomputing the states is chosen at run time.
    const checked = taped.some(({ component }) => guarded[component]);
    let fallback: ReverseLoop["fallback"];
    if (checked) {
      const [state2, k2] = [freshVar("dstate", state.type), freshVar("k", INT)];
      fallback = { state: state2, index: k2, body: order(reverseBody(true, state2, k2).body, state2, k2), regular };
    }
    const reverseLoop: ReverseLoop = { state, index: k, body: order(body, state, k), targets, fallback };
    // Residuals that do not depend on the state are computed before the loop, by a build over its iterations (which
    // writes them in place, even into an enclosing build's storage); the loop body reads them. Others are recorded.
    let loop = residuals.length > 0 ? { ...walk!.loop, body: walkBody! } : { acc: e.acc, index: e.index, body: e.body };
    const early =
      residuals.length > 0
        ? stateIndependent(
            loop.body,
            loop.acc,
            residuals.map((r) => r.original),
          )
        : new Set<number>();
    const hoisted = residuals.filter((r) => early.has(r.original.id));
    residuals = residuals.filter((r) => !early.has(r.original.id));
    if (hoisted.length > 0)
      loop = {
        ...loop,
        body: hoistResiduals(
          loop,
          e.count,
          hoisted,
          b,
          residuals.map((r) => r.original),
        ),
      };
    if (taped.length === 0 && residuals.length === 0) {
      b.bindVar(v, mkIfold(e.init, e.count, loop.acc, loop.index, loop.body, e.span));
      return reverseLoop;
    }
    // The primal loop, also writing each taped component of the state: tape[i] is the state before iteration i, so
    // tape[0] is the initial state and iteration i writes its result at i + 1 (n + 1 entries). Writing the result,
    // after the body, lets the body update the state in place before the tape copies it. Residual i is written at i.
    const part = (bb: AnfBuilder, x: Atom, c: number) => (stateType.k === "tuple" ? bb.proj(c, x, "x") : x);
    const entries = b.prim("add", [e.count, litIndex(1)], "n");
    // Only entry 0 needs the initial state: a scalar tape starts as zeros (a bare allocation) with it at 0.
    const tape0 = taped.map(({ tape, component }) => {
      const first = part(b, e.init, component);
      const elem = tape.type.k === "array" ? tape.type.elem : tape.type;
      // An array state's tape is allocated by recording entry 0 (no copies of the initial state in the others).
      if (!isScalar(elem)) return b.prim("record", [emptyTape(b, elem), litIndex(0), first, entries], "tape0");
      return b.prim("setAt", [b.build(entries, () => zeroScalar(elem), "tape0"), litIndex(0), first], "tape0");
    });
    const residual0 = residuals.map((r) =>
      isScalar(r.copy.type)
        ? b.build(e.count, () => zeroScalar(r.copy.type), `${r.copy.name}s`)
        : emptyTape(b, r.copy.type),
    );
    const st = freshVar(
      "st",
      tupleOf([
        stateType,
        ...taped.map(({ tape }) => tape.type),
        ...residuals.map((r) => r.tape.type),
        ...(checked ? [BOOL] : []),
      ]),
    );
    const loopBody = nested((bb) => {
      bb.bindVar(loop.acc, mkProj(0, st));
      const next = bb.bind("s", loop.body);
      const at = bb.prim("add", [loop.index, litIndex(1)], "at");
      let ok: Atom = lit(true, BOOL);
      const written = taped.map(({ component }, j) => {
        const tape = bb.proj(j + 1, st, "tape");
        const value = part(bb, next, component);
        if (!guarded[component]) return bb.prim("setAt", [tape, at, value], "tape");
        // Written only while the state keeps the initial shape; once it does not, `regular` is false for good.
        const same = bb.prim("sameShape", [part(bb, e.init, component), value], "same");
        ok = ok.kind === "lit" ? same : bb.prim("and", [ok, same], "same");
        return bb.if(
          same,
          (x) => x.prim("setAt", [tape, at, value], "tape"),
          () => tape,
          "tape",
        );
      });
      const kept = residuals.map((r, j) => {
        const tape = bb.proj(taped.length + j + 1, st, "r");
        return isScalar(r.copy.type)
          ? bb.prim("setAt", [tape, loop.index, r.original], "r")
          : bb.prim("record", [tape, loop.index, r.original, e.count], "r");
      });
      const flag = checked
        ? [bb.prim("and", [bb.proj(taped.length + residuals.length + 1, st, "regular"), ok], "regular")]
        : [];
      return mkTuple([next, ...written, ...kept, ...flag]);
    });
    const init0 = [e.init, ...tape0, ...residual0, ...(checked ? [lit(true, BOOL)] : [])];
    const all = b.bind(v.name, mkIfold(b.tuple(init0, "st0"), e.count, st, loop.index, loopBody, e.span));
    b.bindVar(v, mkProj(0, all));
    taped.forEach(({ tape }, j) => b.bindVar(tape, mkProj(j + 1, all)));
    residuals.forEach((r, j) => b.bindVar(r.tape, mkProj(taped.length + j + 1, all)));
    if (checked) b.bindVar(regular, mkProj(taped.length + residuals.length + 1, all));
    return reverseLoop;
  }

  /**
   * The forward walk of another copy of a loop's body, as the primal loop will run it, with its lets paired one to one
   * with the recomputation's (same program, same walk); undefined if they do not pair up.
   */
  private primalWalk(
    e: Ifold,
    recomputed: readonly Binding[],
    varied: ReadonlySet<number>,
  ):
    | {
        loop: { acc: Var; index: Var; body: Expr };
        pairs: { recomputed: Binding; primal: Var }[];
        stability: ShapeStability;
      }
    | undefined {
    const p = copyFresh(e) as Ifold;
    this.activateState(p.acc, varied);
    const b = new AnfBuilder();
    const { result } = this.forward(p.body, b);
    const body = b.finish(result);
    const primal = splitLets(body).bindings;
    if (primal.length !== recomputed.length) return undefined;
    const pairs = recomputed.map((x, j) => ({ recomputed: x, primal: primal[j]!.v }));
    if (pairs.some(({ recomputed: x, primal: y }) => !typeEq(x.v.type, y.type))) return undefined;
    // The state's shape is stable if the body keeps it so, assuming it is (else nothing of it is).
    // Only state components the body provably keeps in shape (updated, never rebuilt) count as stable.
    const stability = new ShapeStability(body, p.acc, p.index, invariantShapePaths({ ...p, body }));
    return { loop: { acc: p.acc, index: p.index, body }, pairs, stability };
  }

  /** Marks a loop state active, with its varied components when they are not all of them. */
  private activateState(acc: Var, varied: ReadonlySet<number>): void {
    this.active.add(acc.id);
    if (acc.type.k === "tuple" && varied.size < acc.type.elems.length) this.components.set(acc.id, varied);
  }

  private reverseIfold(v: Var, e: Ifold, vb: Adj, b: AnfBuilder, loop: ReverseLoop): void {
    const targets = loop.targets;
    const ds = materialize(vb, v.type, v, b);
    const init =
      targets.length === 0
        ? ds
        : b.tuple([ds, ...targets.map((t) => materialize(this.adj.get(t.id), t.type, t, b))], "dstate0");
    const taped = mkIfold(init, e.count, loop.state, loop.index, loop.body);
    const f = loop.fallback;
    const res = b.bind(
      "dstate",
      f === undefined
        ? taped
        : {
            kind: "if",
            cond: f.regular,
            then: taped,
            else: mkIfold(init, e.count, f.state, f.index, f.body),
            type: taped.type,
          },
    );
    if (targets.length === 0) {
      this.contribute(e.init, res, b);
      return;
    }
    // The targets' adjoints first: the initial state may be one of them too.
    this.unpack(targets, res, b, 1, targets.length + 1);
    this.contribute(e.init, b.proj(0, res, "dinit"), b);
  }
}
