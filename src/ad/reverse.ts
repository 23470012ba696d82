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
//    body from its saved state and reverses it, carrying the adjoint of the state and of the body's free variables
//    (./reverse-ifold.ts).
// Arrays (paper 003 §4): a read `a[i]` adds its adjoint into the adjoint of a with `addAt`, which compiled code does
// in place (src/codegen/ownership.ts), so a read costs O(1) in the reverse sweep, not a one-hot vector. A row
// `m[i]` is an alias of m at path (i): reads of the row add into m's adjoint at (i, j), never building a row adjoint.
//
// Only *active* variables (those depending on a differentiated input, with Doubles in their type) get adjoints.

import { AnfBuilder, litIndex } from "../ir/builder.js";
import { freeVars, someNode } from "../ir/free.js";
import { reachesTapes, reverseCall as reverseFunctionCall, reverseOverTapes, TapedSweep } from "./reverse-calls.js";
import {
  freshVar,
  isAtom,
  lit,
  mkTuple,
  typeOf,
  type Atom,
  type Expr,
  type If,
  type Prim,
  type Var,
} from "../ir/ir.js";
import { PRIMS } from "../prims/table.js";
import { fail } from "../syntax/diagnostics.js";
import { DOUBLE } from "../types/types.js";
import { letActivity } from "./activity.js";
import { primalIf, reverseIf, type IfResiduals } from "./reverse-if.js";
import { elementAt } from "./reverse-support.js";
import { prepareBuild, reverseBuild } from "./reverse-build.js";
import { prepareIfold, reverseIfold } from "./reverse-ifold.js";
import { whileAsIfold } from "./reverse-while.js";
import { primalCall, reverseCall, type CallResiduals } from "./reverse-call.js";
import { capturedByCustomRule } from "./custom.js";
import { addAdjoints, materialize, onlyComponent, partsOf, zeroOf, type Adj } from "./adjoints.js";
import { scaleTerm } from "./derivatives.js";
import { hasTangent } from "./dual-types.js";
import type { ProgramFunctions } from "./functions.js";
import { rewriteSelectionFolds } from "./selection-folds.js";
import type { Checkpoint } from "./reverse-checkpoint.js";
import { liftCheckpointCaptures } from "./checkpoint-captures.js";

/** A let of the primal, as the reverse sweep visits it. */
export interface Step {
  readonly v: Var;
  readonly rhs: Expr;
  /**
   * For an active ifold or build: its reverse loop, prepared when the primal was emitted (which decides what the
   * primal stores for it: an ifold's tape, a build's residuals).
   */
  readonly loop?: ReverseLoop;
  /** For an active call of a customVjp function: its bwd rule and the residuals its fwd rule returned. */
  readonly call?: CallResiduals;
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
  /** An ifold's state component the reverse carries as its last state component, restored by undo logs. */
  readonly carried?: number;
  /** The checkpointed form of an ifold's reverse, chosen when its tapes would not fit (./reverse-checkpoint.ts). */
  readonly checkpoint?: Checkpoint;
}

interface Alias {
  readonly root: Var;
  readonly path: readonly Atom[];
}

/**
 * Emits into `b` the primal of `body` and its reverse sweep for the cotangent `seed` of its result. `outer` tells what
 * variables bound outside `body` are defined as (functions with custom rules: ./custom.ts).
 */
export function reverseSweep(
  body: Expr,
  active: readonly Var[],
  seed: Atom,
  b: AnfBuilder,
  outer: (v: Var) => Expr | undefined = () => undefined,
  functions?: ProgramFunctions,
): { value: Atom; adjoint: (v: Var) => Atom } {
  body = liftCheckpointCaptures(rewriteSelectionFolds(body), active);
  const r = new Reverse(outer);
  r.functions = functions;
  for (const v of active) if (hasTangent(v.type)) r.active.add(v.id);
  if (reachesTapes(body, functions)) reverseOverTapes(body);
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

  constructor(private readonly outer: (v: Var) => Expr | undefined = () => undefined) {}

  adjointOf(v: Var): Adj {
    return this.adj.get(v.id);
  }

  /** What a variable of the code being reversed (or around it) is defined as, when known. */
  definition(v: Var): Expr | undefined {
    return this.defs.get(v.id) ?? this.outer(v);
  }

  /** Sets v's adjoint (an accumulator passed through a call, ./reverse-calls.ts). */
  setAdjoint(v: Var, a: Atom): void {
    this.adj.set(v.id, a);
  }

  /** Whether v is a row of another array, whose adjoint takes v's contributions. */
  isAlias(v: Var): boolean {
    return this.alias.has(v.id);
  }

  adjointOfAtom(a: Atom): Adj {
    return a.kind === "var" ? this.adj.get(a.id) : undefined;
  }

  isActive(a: Atom): a is Var {
    return a.kind === "var" && this.active.has(a.id);
  }

  /** How many forward walks are running: 1 in the code being differentiated, more inside its loops and branches. */
  private walks = 0;

  /** Whether the forward walk is in the differentiated code itself, not in a loop's body (or a build's element). */
  get atTop(): boolean {
    return this.walks <= 1;
  }

  /** Emits the primal lets of `e` into `b`; returns them (with the result) for the reverse sweep. */
  forward(e: Expr, b: AnfBuilder): { steps: Step[]; result: Atom } {
    const steps: Step[] = [];
    this.walks++;
    try {
      while (e.kind === "let") {
        this.step(e.v, e.rhs, b, steps);
        e = e.body;
      }
      if (isAtom(e)) return { steps, result: e };
      const out = freshVar("r", typeOf(e));
      this.step(out, e, b, steps);
      return { steps, result: out };
    } finally {
      this.walks--;
    }
  }

  /** Emits the primal of `let v = rhs` into `b`, recording its step. */
  step(v: Var, rhs: Expr, b: AnfBuilder, steps: Step[]): void {
    this.defs.set(v.id, rhs);
    if (rhs.kind === "jvp")
      fail("unsupported", "reverse mode needs a first-order program: a derivative of an unknown function remains");
    // Functions (those with custom rules, and the lambdas they are made of) are primal code: a custom function's rules
    // say how its result depends on its argument, so it must not capture a value that depends on the input.
    // (A checkpointed function is reversed in place, where its captures are in scope: ./reverse-call.ts.)
    if (rhs.kind === "custom" && rhs.mode !== "checkpoint") {
      const captured = this.capturedActive(rhs);
      if (captured !== undefined) capturedByCustomRule(rhs, captured);
    }
    if (rhs.kind === "lam" || rhs.kind === "custom" || !letActivity(this, v, rhs)) {
      b.bindVar(v, rhs);
      steps.push({ v, rhs });
      return;
    }
    this.active.add(v.id);
    if (rhs.kind === "app") {
      steps.push({ v, rhs, call: primalCall(v, rhs, b, (g) => this.definition(g)) });
      return;
    }
    if (rhs.kind === "while") {
      const { loop, value } = whileAsIfold(rhs, b);
      letActivity(this, v, loop);
      steps.push({ v, rhs: loop, loop: prepareIfold(this, v, loop, b, value) });
      return;
    }
    if (rhs.kind === "prim" && rhs.op === "get" && v.type.k === "array")
      this.alias.set(v.id, this.extend(rhs.args[0]!, rhs.args[1]!));
    if (rhs.kind === "if") {
      const stored = primalIf(v, rhs, b);
      if (stored !== undefined) this.ifResiduals.set(rhs, stored);
      steps.push({ v, rhs });
      return;
    }
    if (rhs.kind === "ifold") {
      steps.push({ v, rhs, loop: prepareIfold(this, v, rhs, b) });
      return;
    }
    if (rhs.kind === "build") {
      steps.push({ v, rhs, loop: prepareBuild(this, v, rhs, b) });
      return;
    }
    b.bindVar(v, rhs);
    steps.push({ v, rhs });
  }

  /** An active variable a custom function uses, directly or through the lambdas it is made of. */
  private capturedActive(e: Expr): Var | undefined {
    const seen = new Set<number>();
    const pending = [...freeVars(e).values()];
    for (let x = pending.pop(); x !== undefined; x = pending.pop()) {
      if (seen.has(x.id)) continue;
      seen.add(x.id);
      if (this.active.has(x.id)) return x;
      const d = this.defs.get(x.id);
      if (d?.kind === "lam" || d?.kind === "custom") pending.push(...freeVars(d).values());
    }
    return undefined;
  }

  /** The alias of `arr[i]`: arr's root and path, one index longer. */
  private extend(arr: Atom, i: Atom): Alias {
    const a = arr as Var;
    const base = this.alias.get(a.id) ?? { root: a, path: [] };
    return { root: base.root, path: [...base.path, i] };
  }

  backward(steps: readonly Step[], b: AnfBuilder): void {
    for (let k = steps.length - 1; k >= 0; k--) {
      const { v, rhs, loop, call } = steps[k]!;
      if (!this.active.has(v.id)) continue;
      const vb = this.adj.get(v.id);
      if (vb === undefined) continue;
      this.reverse(v, rhs, vb, b, loop, call);
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

  private reverse(
    v: Var,
    rhs: Expr,
    vb: Adj,
    b: AnfBuilder,
    loop: ReverseLoop | undefined,
    call: CallResiduals | undefined,
  ): void {
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
        return reverseIfold(this, v, rhs, vb, b, loop!);
      case "call":
        return reverseFunctionCall(this, v, rhs, vb, b);
      case "app":
        return reverseCall(this, v, rhs, vb, b, call);
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
          if (!this.isActive(a) || p.constant) return;
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

  /**
   * The active variables free in `e` (except `bound`) whose adjoints a reverse of `e` updates: aliases by their root.
   */
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

  /** Whether the loops being prepared run in a primal that runs anyway (see `runsAnyway`). */
  get isRunningAnyway(): boolean {
    return this.runsAnyway;
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
}
