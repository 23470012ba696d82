// Reverse mode through calls of the program's functions (recursion). Paper 004 §3's stacks of recorded values, one
// stack (a tape, src/prims/tape.ts) threaded through the calls: for a call y = f(x) with an active argument, the
// primal calls f_fwd(x, tape), which runs f and pushes what f's reverse needs; the reverse calls
// f_bwd(ȳ, x̄, tape), which pops it (./reverse-functions.ts). f_fwd pushes after its own calls' pushes, and f_bwd pops
// before its own calls' pops, which it makes in the reverse order of the calls: the tape is used in LIFO order for
// any call tree, so the gradient costs a constant factor of the primal, however deep the recursion.
//
// `TapedSweep` is the reverse sweep of a body whose calls pass the tape: its top level, and the `if`s whose branches
// make calls (a branch's primal pushes what the branch's reverse needs, and its reverse pops it, so the reverse takes
// the branch the primal took without recomputing it). Everything else is the ordinary sweep (./reverse.ts); a call it
// meets (inside a loop) is reversed by f_vjp instead, which runs f_fwd on a tape of its own, then f_bwd.
//
// Adjoints pass through calls as accumulators: f_bwd takes the adjoint of each active argument so far and returns it
// with f's contributions added (an array adjoint is updated in place by compiled code, see IrFunction.owned), so the
// reverse of a call costs what the call's own reverse costs, not the size of its array arguments.

import { AnfBuilder, mkProj, wrapLets, type Binding } from "../ir/builder.js";
import { freeVars, mapNode, someNode } from "../ir/free.js";
import { freshVar, isAtom, mkTuple, typeOf, type Atom, type Call, type Expr, type If, type Var } from "../ir/ir.js";
import { mkTapePop } from "../ir/builder.js";
import { TAPE, tupleOf, type Type } from "../types/types.js";
import { isTapeOp } from "../prims/tape.js";
import { fail } from "../syntax/diagnostics.js";
import { copyFresh } from "../ir/rename.js";
import { letActivity } from "./activity.js";
import { materialize, zeroOf, type Adj } from "./adjoints.js";
import { hasTangent } from "./dual-types.js";
import type { ProgramFunctions } from "./functions.js";
import { tapeFunctions, vjpFunction } from "./reverse-functions.js";
import type { Reverse, Step } from "./reverse.js";

/** Which arguments of a call are active (by position): the parameters f's reverse gives adjoints to. */
export function activeMask(r: Reverse, args: readonly Atom[]): boolean[] {
  return args.map((a) => hasTangent(a.type) && r.isActive(a));
}

/**
 * The accumulators a reverse function takes for a call's active arguments (their adjoints so far, zeros for a literal,
 * an alias or an argument passed twice), and how to take back what it returns.
 */
function accumulators(
  r: Reverse,
  args: readonly Atom[],
  mask: readonly boolean[],
  b: AnfBuilder,
): { passed: Atom[]; receive(results: readonly Atom[]): void } {
  const used = new Set<number>();
  const passed: Atom[] = [];
  const own: boolean[] = [];
  const active = args.filter((_, i) => mask[i]) as Var[];
  for (const a of active) {
    const whole = !r.isAlias(a) && !used.has(a.id);
    used.add(a.id);
    own.push(whole);
    passed.push(whole ? materialize(r.adjointOf(a), a.type, a, b) : zeroOf(a.type, a, b));
  }
  return {
    passed,
    receive: (results) =>
      active.forEach((a, k) => {
        if (own[k]) r.setAdjoint(a, results[k]!);
        else r.contribute(a, results[k], b);
      }),
  };
}

/** The parts of a reverse function's result: `count` adjoints, then (`withTape`) the tape. */
function resultParts(b: AnfBuilder, result: Atom, count: number, withTape: boolean): Atom[] {
  const total = count + (withTape ? 1 : 0);
  if (total === 1) return [result];
  return Array.from({ length: total }, (_, k) => b.proj(k, result, k === count ? "tape" : "dacc"));
}

/**
 * The reverse of `let v = f args` outside the taped part of a sweep (inside a loop): f_vjp recomputes f, then reverses
 * it.
 */
export function reverseCall(r: Reverse, v: Var, e: Call, vb: Adj, b: AnfBuilder): void {
  if (r.functions === undefined) throw new Error(`reverse: a call of ${e.fn} without the program's functions`);
  const mask = activeMask(r, e.args);
  if (!mask.some((m) => m)) return;
  const vjp = vjpFunction(r.functions, e.fn, mask);
  const ct = materialize(vb, v.type, v, b);
  const acc = accumulators(r, e.args, mask, b);
  const args = [...e.args, ct, ...acc.passed];
  const out = b.bind(`d${v.name}`, { kind: "call", fn: vjp.name, args, type: vjp.type, ...span(e) });
  acc.receive(resultParts(b, out, acc.passed.length, false));
}

/** A let of a taped body, as its reverse visits it. */
type TapedStep =
  | { readonly kind: "plain"; readonly step: Step }
  | {
      readonly kind: "call";
      readonly v: Var;
      readonly e: Call;
      readonly mask: readonly boolean[];
      readonly bwd: string;
      readonly bwdType: Type;
    }
  | { readonly kind: "if"; readonly v: Var; readonly e: If; readonly branches: readonly Branch[] };

/**
 * One branch of a taped `if`: its primal's steps and result, what it binds, and the let its pushes are written into.
 */
interface Branch {
  readonly steps: readonly TapedStep[];
  readonly result: Atom;
  readonly bound: ReadonlySet<number>;
  readonly placeholder: Var;
  readonly tape: Atom;
}

const makesCalls = (e: Expr) => someNode(e, (n) => n.kind === "call");

/**
 * The reverse sweep of a body whose calls pass a tape. `tapeF` is the tape as the primal code leaves it so far, `tapeB`
 * as the reverse code leaves it. The primal of a taped `if` ends each branch with a push of what that branch's reverse
 * reads; which values those are is only known once the reverse is written, so the push is a placeholder let, written
 * by `finish`.
 */
export class TapedSweep {
  tapeF: Atom;
  tapeB: Atom;
  private readonly pushes = new Map<number, { readonly tape: Atom; readonly residuals: readonly Var[] }>();

  constructor(
    private readonly r: Reverse,
    private readonly functions: ProgramFunctions,
    tape: Atom,
  ) {
    this.tapeF = tape;
    this.tapeB = tape;
  }

  /** Emits the primal of `e` into `b`; returns its steps and result, and the variables `b` bound meanwhile. */
  forward(e: Expr, b: AnfBuilder): { steps: TapedStep[]; result: Atom; bound: Set<number> } {
    const mark = b.size;
    const steps: TapedStep[] = [];
    while (e.kind === "let") {
      this.step(e.v, e.rhs, b, steps);
      e = e.body;
    }
    let result: Atom;
    if (isAtom(e)) result = e;
    else {
      result = freshVar("r", typeOf(e));
      this.step(result, e, b, steps);
    }
    return { steps, result, bound: new Set(b.bindingsFrom(mark).map((x) => x.v.id)) };
  }

  private step(v: Var, rhs: Expr, b: AnfBuilder, steps: TapedStep[]): void {
    const r = this.r;
    const active = hasTangent(v.type) && letActivity(r, v, rhs);
    if (rhs.kind === "call" && active) {
      const mask = activeMask(r, rhs.args);
      const { fwd, bwd, fwdType, bwdType } = tapeFunctions(this.functions, rhs.fn, mask);
      const args = [...rhs.args, this.tapeF];
      const out = b.bind(`${v.name}_fwd`, { kind: "call", fn: fwd, args, type: fwdType, ...span(rhs) });
      b.bindVar(v, mkProj(0, out));
      this.tapeF = b.proj(1, out, "tape");
      r.active.add(v.id);
      steps.push({ kind: "call", v, e: rhs, mask, bwd, bwdType });
      return;
    }
    if (rhs.kind === "if" && active && makesCalls(rhs)) {
      const start = this.tapeF;
      const branches = [rhs.then, rhs.else].map((x): { branch: Branch; body: Expr } => {
        const bb = new AnfBuilder();
        this.tapeF = start;
        const { steps: inner, result, bound } = this.forward(x, bb);
        const placeholder = freshVar("tape", TAPE);
        const tape = this.tapeF;
        bb.bindVar(placeholder, tape);
        return {
          branch: { steps: inner, result, bound, placeholder, tape },
          body: bb.finish(mkTuple([result, placeholder])),
        };
      });
      const all = b.bind(`${v.name}_if`, {
        kind: "if",
        cond: rhs.cond,
        then: branches[0]!.body,
        else: branches[1]!.body,
        type: tupleOf([v.type, TAPE]),
      });
      b.bindVar(v, mkProj(0, all));
      this.tapeF = b.proj(1, all, "tape");
      r.active.add(v.id);
      steps.push({ kind: "if", v, e: rhs, branches: branches.map((x) => x.branch) });
      return;
    }
    const plain: Step[] = [];
    r.step(v, rhs, b, plain);
    for (const step of plain) steps.push({ kind: "plain", step });
  }

  /** Emits into `b` the reverse of `steps`, last first. */
  backward(steps: readonly TapedStep[], b: AnfBuilder): void {
    for (let k = steps.length - 1; k >= 0; k--) {
      const s = steps[k]!;
      if (s.kind === "plain") this.r.backward([s.step], b);
      else if (s.kind === "call") this.reverseCall(s, b);
      else this.reverseIf(s, b);
    }
  }

  /** f_bwd pops what f_fwd pushed: it runs even when ȳ is zero. */
  private reverseCall(s: TapedStep & { kind: "call" }, b: AnfBuilder): void {
    const ct = materialize(this.r.adjointOf(s.v), s.v.type, s.v, b);
    const acc = accumulators(this.r, s.e.args, s.mask, b);
    const args = [ct, ...acc.passed, this.tapeB];
    const out = b.bind(`d${s.v.name}`, { kind: "call", fn: s.bwd, args, type: s.bwdType, ...span(s.e) });
    const parts = resultParts(b, out, acc.passed.length, true);
    this.tapeB = parts[parts.length - 1]!;
    acc.receive(parts.slice(0, -1));
  }

  /**
   * The reverse of a taped `if`: the branch the primal took (whose pushes it pops), returning the adjoints of the outer
   * variables the branches use, and the tape.
   */
  private reverseIf(s: TapedStep & { kind: "if" }, b: AnfBuilder): void {
    const r = this.r;
    const vb = r.adjointOf(s.v);
    const targets = r.targetsOf([s.e.then, s.e.else]);
    const before = this.tapeB;
    const bodies = s.branches.map((br) =>
      r.saving(targets, () => {
        const bb = new AnfBuilder();
        const after = freshVar("tape", TAPE);
        this.tapeB = after;
        if (vb !== undefined) r.contribute(br.result, vb, bb);
        this.backward(br.steps, bb);
        const result = targets.length > 0 ? bb.tuple([r.pack(targets, bb), this.tapeB], "dif") : this.tapeB;
        const body = bb.finish(result);
        // What this branch's reverse reads of what its primal computed travels on the tape.
        const residuals = [...freeVars(body).values()].filter((x) => br.bound.has(x.id));
        this.pushes.set(br.placeholder.id, { tape: br.tape, residuals });
        return popping(residuals, before, after, body);
      }),
    );
    const type = typeOf(bodies[0]!);
    const out = b.bind("dif", { kind: "if", cond: s.e.cond, then: bodies[0]!, else: bodies[1]!, type });
    if (targets.length === 0) {
      this.tapeB = out;
      return;
    }
    r.unpack(targets, b.proj(0, out, "dacc"), b);
    this.tapeB = b.proj(1, out, "tape");
  }

  /** The primal code `e` with the pushes of the taped `if`s' branches written in. */
  finish(e: Expr): Expr {
    if (this.pushes.size === 0) return e;
    const rewrite = (x: Expr): Expr => {
      const bindings: Binding[] = [];
      while (x.kind === "let") {
        const push = this.pushes.get(x.v.id);
        if (push === undefined) bindings.push({ v: x.v, rhs: rewriteNode(x.rhs) });
        else bindings.push(...pushing(push.residuals, push.tape, x.v));
        x = x.body;
      }
      return wrapLets(bindings, rewriteNode(x));
    };
    const rewriteNode = (x: Expr): Expr => (x.kind === "let" ? rewrite(x) : mapNode(x, (a) => a, rewrite));
    return rewrite(e);
  }
}

const span = (e: Call): { span?: NonNullable<Call["span"]> } => (e.span ? { span: e.span } : {});

/** `let into = tapePush tape (residuals)` (or `let into = tape` when there are none). */
export function pushing(residuals: readonly Var[], tape: Atom, into: Var): Binding[] {
  if (residuals.length === 0) return [{ v: into, rhs: tape }];
  if (residuals.length === 1)
    return [{ v: into, rhs: { kind: "prim", op: "tapePush", args: [tape, residuals[0]!], type: TAPE } }];
  const packed = freshVar("saved", tupleOf(residuals.map((x) => x.type)));
  return [
    { v: packed, rhs: mkTuple(residuals) },
    { v: into, rhs: { kind: "prim", op: "tapePush", args: [tape, packed], type: TAPE } },
  ];
}

/**
 * `body` after `residuals` are popped off `tape`, leaving the tape `after`. The popped values are bound to fresh
 * variables that replace the residuals in `body` (the primal that pushed them binds the residuals already, and a
 * variable is bound once in a function).
 */
export function popping(residuals: readonly Var[], tape: Atom, after: Var, body: Expr): Expr {
  if (residuals.length === 0) return wrapLets([{ v: after, rhs: tape }], body);
  const type = residuals.length === 1 ? residuals[0]!.type : tupleOf(residuals.map((x) => x.type));
  const popped = freshVar("popped", tupleOf([type, TAPE]));
  const again = residuals.map((x) => freshVar(x.name, x.type));
  const bindings: Binding[] = [
    { v: popped, rhs: mkTapePop(tape, type) },
    { v: after, rhs: mkProj(1, popped) },
  ];
  if (residuals.length === 1) bindings.push({ v: again[0]!, rhs: mkProj(0, popped) });
  else {
    const saved = freshVar("saved", type);
    bindings.push({ v: saved, rhs: mkProj(0, popped) });
    again.forEach((x, k) => bindings.push({ v: x, rhs: mkProj(k, saved) }));
  }
  return wrapLets(bindings, copyFresh(body, new Map(residuals.map((x, k) => [x.id, again[k]!]))));
}

/**
 * Whether `body` or a function it calls, directly or not, keeps a tape: a reverse-mode derivative's calls inside loops
 * call f_vjp, whose tape is its own, so `body` itself may show none.
 */
export function reachesTapes(body: Expr, functions: ProgramFunctions | undefined): boolean {
  const seen = new Set<string>();
  const reaches = (e: Expr): boolean =>
    someNode(e, (n) => {
      if (n.kind === "prim") return isTapeOp(n.op);
      if (n.kind !== "call" || functions === undefined || seen.has(n.fn)) return false;
      seen.add(n.fn);
      return reaches(functions.get(n.fn).body);
    });
  return reaches(body);
}

/**
 * Reverse mode over code that keeps a tape: the derivative of a reverse-mode derivative through recursion. The error
 * points at a recursive call in that code (the user's call, whose span the derivatives' calls keep).
 */
export function reverseOverTapes(body: Expr): never {
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
