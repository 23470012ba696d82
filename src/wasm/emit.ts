// The wasm back end's statements for core IR: each expression becomes instructions of the function being written
// plus the slots (./slots.ts) holding its value. Atoms, tuples, projections, `length` and `field` cost nothing: they
// only rename slots. The structure follows the JavaScript back end's (src/codegen/emit.ts), and the decisions that
// are not about the target language come from the shared lowering stage (src/lowering/): in-place updates and copies
// on entry (ownership.ts), the leaf layout (leaves.ts), index checks that cannot fail (bounds.ts), the forms of build.
//
// Errors. A failed check stores the numbers its message needs (as f64) in the error area of linear memory, the
// number of its error site in the global `ek`, and traps (`unreachable`): the call leaves wasm at once, from any
// depth, and ./runtime.ts raises the site's SmoothError — the interpreter's kind, message and span — from those
// numbers. A trap costs nothing until it happens, and the check's cold branch holds no call.

import { MAX_ARRAY_ELEMENTS } from "../runtime/limits.js";
import { CHECKPOINTED_FLAG } from "../runtime/memory-budget.js";
import { fail } from "../syntax/diagnostics.js";
import type { Span } from "../syntax/source.js";
import type { Type } from "../types/types.js";
import { freshVar, mkLet, tangentPositions } from "../ir/ir.js";
import type { Atom, Build, Expr, If, Ifold, Let, Prim, Proj, Var, While } from "../ir/ir.js";
import {
  componentSlots,
  elemKind,
  invariantDimensionSlots,
  leafSlotCount,
  leafStarts,
  leavesOf,
  slotCount,
} from "../lowering/leaves.js";
import { BoundsFacts } from "../lowering/bounds.js";
import type { Fresh } from "../lowering/ownership.js";
import type { Code, FunctionBuilder, ValType } from "./encoder.js";
import { globalGet, globalSet, i32, load, localSet, op, seq, store, unreachable } from "./instructions.js";
import { releasesIterations } from "../lowering/regions.js";
import type { ScalarKind } from "../runtime/value.js";
import {
  address,
  elementShift,
  iadd,
  imul,
  indexLiteral,
  islot,
  product,
  scalarType,
  type IExpr,
  isLocal,
  sameSlot,
  slotCode,
  slotKey,
  slotTypes,
  type Real,
  type WSlot,
} from "./slots.js";
import { WASM_LOWERING } from "./lowering.js";
import { emitBuild } from "./build.js";
import { buildThenFold } from "./build-then-fold.js";
import { copyLeaf, type Helpers } from "./memory.js";
import { combineLanes, reductionLanes, unlessInnerLanes, updateLanes } from "../lowering/lanes.js";
import { combineInLanes } from "./combine-lanes.js";
import { tupleUpdateInLanes } from "./update-lanes.js";
import { tupleUpdateLanes, type TupleUpdatePlan } from "../lowering/update-lanes.js";
import { reduceInLanes, updateInLanes } from "./lane-loops.js";
import { holdsLoop } from "./outline.js";
import { indexLoop, Stepping } from "./induction.js";

export type WSlots = readonly WSlot[];

/** Raises the SmoothError of an error site from the numbers its check saved. */
export type RaiseError = (saved: readonly number[]) => never;

/** A number a failing check saves for its message: an i32, f32 or f64 expression. */
export interface Saved {
  readonly code: Code;
  readonly type: ValType;
}

export const savedSlot = (s: WSlot): Saved => ({ code: slotCode(s), type: s.type });

export class WasmEmitter {
  private readonly env = new Map<number, WSlots>();
  readonly bounds: BoundsFacts;
  /** The error sites, numbered from 1 (the value of `ek` when one fails). */
  sites: RaiseError[] = [];
  /** The most numbers one error site saves (the error area's size). */
  savedCount = 1;
  inPlace: ReadonlySet<Prim> = new Set();
  /** Builds that write into a dead array they read elementwise (ownership's buildInto). */
  buildInto: ReadonlyMap<Build, Var> = new Map();
  /** How many of those were written (shown in the code listing, checked by tests). */
  buildsInPlace = 0;
  copyOnEntry: ReadonlyMap<Ifold | While, Fresh> = new Map();
  /** How many loops run in SIMD lanes (builds and reductions; shown in the code listing, checked by tests). */
  laneLoops = 0;
  /** How many of those loops run across the lanes of the loop around them (outer lanes, ./simd.ts). */
  outerLaneLoops = 0;
  /** How many folds run in the loop of the build they read (buildThenFold; shown in the code listing). */
  fusedFolds = 0;
  /** Writes `e` when it is a build or a sum that runs across threads (./parallel.ts): its slots, or undefined. */
  parallelSite?: (e: Build | Ifold) => WSlots | undefined;
  /**
   * Writes a loop as a function of its own, called on chunks of iterations (./outline.ts), its state set up; false
   * when it cannot (nothing written).
   */
  outline?: (e: Ifold, count: WSlot, state: WSlots) => boolean;
  /**
   * Binds the variables `live` of the lets that begin an element of a loop at the top, written as a function of its
   * own called once per element (./outline.ts); false when it cannot (nothing written).
   */
  outlineLets?: (lets: readonly Let[], live: readonly Var[]) => boolean;
  /**
   * Binds the variables `live` of the lets of a branch taken when `flag` is true, written as a function of its own
   * called before the `if` (./outline.ts); false when it cannot (nothing written).
   */
  outlineBranch?: (flag: WSlot, lets: readonly Let[], live: readonly Var[]) => boolean;
  /** How many loops were written as functions of their own (./outline.ts; shown in the code listing). */
  outlined = 0;
  /** How many branches of a checkpointable loop's flag are functions of their own (./outline.ts). */
  checkpointBranches = 0;
  /** How many loops the code being written is inside (a function of a loop body's own starts inside one). */
  loopDepth = 0;
  /** Whether the one loop around the code being written is a top-level loop of a few iterations (literal count). */
  private inFewAtTop = false;

  constructor(
    readonly fb: FunctionBuilder,
    readonly helpers: Helpers,
    readonly real: Real,
    /** Byte address of the error area (saved numbers, 8 bytes each). */
    readonly errorArea: number,
  ) {
    this.bounds = new BoundsFacts(fb, indexLiteral);
  }

  /** A new local of type t. */
  local(t: ValType): WSlot {
    return { local: this.fb.local(t), type: t };
  }

  /** A new local holding the value of `code`. */
  define(t: ValType, code: Code): WSlot {
    const s = this.fb.local(t);
    this.fb.emit(localSet(s, code));
    return { local: s, type: t };
  }

  /** Sets the local slot `s` to `code`. */
  set(s: WSlot, code: Code): void {
    if (!isLocal(s)) throw new Error("wasm: assignment to a constant slot");
    this.fb.emit(localSet(s.local, code));
  }

  /** A new i32 local holding `code`, or the constant itself when it is one. */
  index(e: IExpr): WSlot {
    if (e.slot !== undefined) return e.slot;
    return e.value !== undefined ? { value: e.value, type: "i32" } : this.define("i32", e.code);
  }

  key(s: WSlot): string {
    return slotKey(s);
  }

  bind(v: Var, slots: WSlots): void {
    if (slots.length !== slotCount(v.type)) throw new Error(`wasm: ${slots.length} slots bound to v${v.id}`);
    if (this.env.has(v.id)) throw new Error(`wasm: variable v${v.id} is bound twice`);
    this.env.set(v.id, slots);
    this.bindLog?.push(v.id);
  }

  /** Whether a variable is bound here (in scope at the current point of the code). */
  isBound(id: number): boolean {
    return this.env.has(id);
  }

  private bindLog: number[] | undefined;

  /**
   * Runs `write`, then forgets the variables it bound: for code written twice, such as a loop body written once for
   * SIMD lanes and once more for the remaining iterations.
   */
  scoped(write: () => void): void {
    const outer = this.bindLog;
    const log: number[] = [];
    this.bindLog = log;
    try {
      write();
    } finally {
      this.bindLog = outer;
      for (const id of log) this.env.delete(id);
    }
  }

  /** Records that the dimension slots among `slots` (of type t) hold dimensions (never negative). */
  markDimensions(slots: WSlots, t: Type, only?: ReadonlySet<string>): void {
    const leaves = leavesOf(t);
    leafStarts(leaves).forEach((s, l) => {
      for (let d = 0; d < leaves[l]!.rank; d++) {
        const k = slotKey(slots[s + 2 + d]!);
        if (only === undefined || only.has(k)) this.bounds.dimension(k);
      }
    });
  }

  markDimensionSlots(slots: WSlots): void {
    for (const s of slots) this.bounds.dimension(slotKey(s));
  }

  /** A new i32 loop variable bound to `v`, running over [0, bound). */
  loopVariable(v: Var, bound: WSlot): WSlot {
    const s = this.local("i32");
    this.bind(v, [s]);
    this.bounds.loopVariable(slotKey(s), slotKey(bound));
    return s;
  }

  atom(a: Atom): WSlots {
    if (a.kind === "lit") return [this.literal(a.value, a.type)];
    const slots = this.env.get(a.id);
    if (slots === undefined) throw new Error(`wasm: unbound variable v${a.id}`);
    return slots;
  }

  literal(value: number | boolean, t: Type): WSlot {
    switch (t.k) {
      case "bool":
        return { value: value === true ? 1 : 0, type: "i32" };
      case "int":
        if (typeof value !== "number" || (value | 0) !== value) throw new Error(`wasm: Index literal ${String(value)}`);
        return { value, type: "i32" };
      case "double":
        if (typeof value !== "number") throw new Error(`wasm: Double literal ${String(value)}`);
        return { value: this.real === "f32" ? Math.fround(value) : value, type: this.real };
      default:
        throw new Error(`wasm: literal of type ${t.k}`);
    }
  }

  letBinding(l: Let): void {
    const stepped = this.stepping.slotOf(l.v);
    if (stepped === undefined) this.bind(l.v, this.expr(l.rhs));
    else if (stepped !== null) this.bind(l.v, [stepped]);
  }

  /** Index arithmetic stepped by differences in the loops being written (./induction.ts). */
  readonly stepping = new Stepping();

  /** Writes the instructions of `e` and returns its slots. */
  expr(e: Expr): WSlots {
    switch (e.kind) {
      case "var":
      case "lit":
        return this.atom(e);
      case "let": {
        let cur: Expr = e;
        while (cur.kind === "let") {
          const next: Expr = cur.body;
          const site = cur.rhs.kind === "build" || cur.rhs.kind === "ifold" ? this.parallelSite?.(cur.rhs) : undefined;
          if (site !== undefined) {
            this.bind(cur.v, site);
            cur = next;
            continue;
          }
          if (next.kind === "let" && buildThenFold(this, cur, next)) {
            cur = next.body;
            continue;
          }
          this.letBinding(cur);
          cur = cur.body;
        }
        return this.expr(cur);
      }
      case "prim":
        return this.prim(e);
      case "tuple":
        return e.elems.flatMap((a) => this.atom(a));
      case "proj":
        return this.proj(e);
      case "if":
        return this.if(e);
      case "build":
        return this.parallelSite?.(e) ?? emitBuild(this, e);
      case "ifold":
        return this.parallelSite?.(e) ?? this.ifold(e);
      case "while":
        return this.while(e);
      case "jvp":
        throw new Error("wasm: a jvp node reached the code generator (the forward-ad pass expands them)");
      case "call":
        throw new Error(
          "wasm: a call reached the wasm back end (programs with recursive functions compile to JavaScript)",
        );
      case "lam":
      case "app":
      case "custom":
        return fail(
          "unsupported",
          `cannot compile a function value here (a ${e.kind === "lam" ? "lambda" : e.kind === "app" ? "call" : "function with a custom derivative"})`,
          undefined,
          { hint: "the compiled back end takes first-order programs: functions must be inlined away first" },
        );
    }
  }

  /**
   * If `failed` (an i32 condition), raise the error of a new site: the numbers `values` are saved for `raise`, which
   * ./runtime.ts calls after the trap.
   */
  failIf(failed: Code, values: readonly Saved[], raise: RaiseError): void {
    const site = this.sites.push(raise);
    this.savedCount = Math.max(this.savedCount, values.length);
    this.fb.if(failed);
    values.forEach((v, q) => {
      const asF64 =
        v.type === "f64" ? v.code : v.type === "f32" ? op("f64.promote_f32", v.code) : op("f64.convert_i32_s", v.code);
      this.fb.emit(store("f64.store", i32(this.errorArea + 8 * q), asF64));
    });
    this.fb.emit(globalSet(this.helpers.errorSite, i32(site)), unreachable);
    this.fb.end();
  }

  /** A size or count must not be negative (and a build's not over the array limit): the interpreter's error. */
  checkCount(n: WSlot, what: "build size" | "ifold count", span: Span | undefined): void {
    if (this.bounds.nonNegative(slotKey(n))) return;
    const negative = op("i32.lt_s", slotCode(n), i32(0));
    const test = what === "build size" ? op("i32.gt_u", slotCode(n), i32(MAX_ARRAY_ELEMENTS)) : negative;
    // For a build, `n > MAX` unsigned is also true of every negative n.
    this.failIf(test, [savedSlot(n)], ([count]) => this.helpers.raise.badCount(what, count!, span));
  }

  /** Checks `0 <= i < length` (the part not already known), else the interpreter's index error at `span`. */
  boundsCheck(i: WSlot, length: WSlot, span: Span | undefined): void {
    const check = this.bounds.indexCheck(slotKey(i), slotKey(length));
    if (check === "none") return;
    // Unsigned, `i < length` also says i >= 0 (length is never negative).
    const failed =
      check === "upper" ? op("i32.ge_s", slotCode(i), slotCode(length)) : op("i32.ge_u", slotCode(i), slotCode(length));
    this.failIf(failed, [savedSlot(i), savedSlot(length)], ([index, n]) =>
      this.helpers.raise.indexOutOfRange(index!, n!, span),
    );
  }

  /** A primitive, as the wasm lowering table (./lowering.ts) writes it. */
  private prim(e: Prim): WSlots {
    const lowering = WASM_LOWERING[e.op];
    if ("slots" in lowering) return lowering.slots(this, e);
    const args = e.args.map((a) => this.atom(a)[0]!);
    const types = e.args.map((a) => a.type);
    const type = slotTypes(e.type, this.real)[0]!;
    const plain = lowering.expr(this, args, types);
    let result: WSlot;
    const tangents = tangentPositions(e).map((k) => args[k]!);
    if (tangents.length > 0) {
      // A zero tangent is a symbolic zero (Prim.tangent): the product is 0 even for an infinite or NaN partial.
      const zero = this.literal(0, e.type);
      const eq = this.real === "f64" ? "f64.eq" : "f32.eq";
      const checks = tangents.filter(isLocal).map((t) => op(eq, slotCode(t), slotCode(zero)));
      if (tangents.some((t) => !isLocal(t) && t.value === 0)) result = zero;
      else if (checks.length === 0) result = this.define(type, plain);
      else {
        const isZero = checks.reduce((x, y) => op("i32.or", x, y));
        result = this.define(type, op("select", slotCode(zero), plain, isZero));
      }
    } else result = this.define(type, plain);
    this.learnRange(e, args, result);
    return [result];
  }

  /** Index arithmetic that keeps a known range: the reverse sweep's `last - k` and `i + 1`, and `min 8 m`. */
  private learnRange(e: Prim, args: WSlots, result: WSlot): void {
    // `min 8 m`, the number of chunks of an accumulation (src/opt/chunk-accumulations.ts): a loop over it is few.
    if (e.type.k === "int" && e.op === "min")
      this.bounds.minimum(slotKey(args[0]!), slotKey(args[1]!), slotKey(result));
    if (e.type.k !== "int" || (e.op !== "sub" && e.op !== "add")) return;
    this.bounds.arithmetic(e.op, slotKey(args[0]!), slotKey(args[1]!), slotKey(result));
  }

  /** `get`: the element's slots, a view of the array's leaves for an array element (no copy); bounds-checked. */
  get(e: Prim): WSlots {
    const [arr, index] = e.args as [Atom, Atom];
    const a = this.atom(arr);
    const i = this.atom(index)[0]!;
    this.boundsCheck(i, a[2]!, e.span); // dimension 0 of the first leaf: every leaf has the same
    const leaves = leavesOf(arr.type);
    return leafStarts(leaves).flatMap((start, k) => {
      const leaf = leaves[k]!;
      const [data, offset, , ...inner] = a.slice(start, start + leafSlotCount(leaf)) as [WSlot, WSlot, WSlot];
      const at = this.elementIndex(offset, i, inner);
      if (leaf.rank === 1)
        return [this.define(scalarType(elemKind(leaf), this.real), this.loadElement(elemKind(leaf), data, at))];
      return [data, this.index(at), ...inner];
    });
  }

  /** offset + i * (product of the inner dimensions): the element index of row i. */
  elementIndex(offset: WSlot, i: WSlot, inner: WSlots): IExpr {
    return iadd(islot(offset), imul(islot(i), product(inner)));
  }

  /** The scalar at element index `at` of the data at `data`, as a local's value (a Bool read as 0 or 1). */
  loadElement(kind: ScalarKind, data: WSlot, at: IExpr): Code {
    return loadScalar(kind, this.real, data, at);
  }

  private proj(e: Proj): WSlots {
    const t = e.arg.type;
    if (t.k !== "tuple") throw new Error("wasm: proj of a non-tuple");
    const { start, end } = componentSlots(t, e.index);
    return this.atom(e.arg).slice(start, end);
  }

  private if(e: If): WSlots {
    const cond = this.atom(e.cond)[0]!;
    // Both branches are written first, so that slots on which they agree (an outer variable, a constant offset 0)
    // need no local of their own: the then branch's assignments go in where it ends once the else branch is written.
    const fb = this.fb;
    const outlined = this.checkpointedBranch(e, cond);
    fb.if(slotCode(cond));
    const yes = outlined ?? this.expr(e.then);
    const thenEnd = fb.position;
    fb.else();
    const no = this.expr(e.else);
    const types = slotTypes(e.type, this.real);
    const result = types.map((t, i) => (sameSlot(yes[i]!, no[i]!) ? yes[i]! : this.local(t)));
    const own = new Set(result.filter((s, i) => !sameSlot(s, yes[i]!) || !sameSlot(s, no[i]!)).map(slotKey));
    // Only the locals made here: a shared slot may be, say, a build size that is only known to be >= 0 in here.
    this.markDimensions(result, e.type, own);
    const assign = (slots: WSlots): Code =>
      seq(
        ...result.flatMap((r, i) =>
          own.has(slotKey(r)) && isLocal(r) ? [localSet(r.local, slotCode(slots[i]!))] : [],
        ),
      );
    fb.insert(thenEnd, assign(yes));
    fb.emit(assign(no));
    fb.end();
    return result;
  }

  /**
   * The then branch of a checkpointable loop's `if` on its flag (CHECKPOINTED_FLAG, src/ad/reverse-checkpoint.ts),
   * when it runs loops at the top: written as a function of its own, called before the `if` (./outline.ts says why);
   * its slots, or undefined (nothing written). It runs only when the tapes would not fit; written in the `if`, it made
   * V8's code for the taped branch's loops 1.6 times slower (ode's gradient).
   */
  private checkpointedBranch(e: If, flag: WSlot): WSlots | undefined {
    const c = e.cond;
    if (c.kind !== "var" || c.name !== CHECKPOINTED_FLAG || !this.atTop() || !holdsLoop(e.then)) return undefined;
    const lets: Let[] = [];
    let tail = e.then;
    for (; tail.kind === "let"; tail = tail.body) lets.push(tail);
    const value = freshVar(CHECKPOINTED_FLAG, e.type);
    if (this.outlineBranch?.(flag, [...lets, mkLet(value, tail, value)], [value]) !== true) return undefined;
    return this.atom(value);
  }

  /** targets := values, simultaneously: every value is pushed on the operand stack before any target is set. */
  assign(targets: WSlots, values: WSlots): void {
    const pairs = targets.map((t, i) => [t, values[i]!] as const).filter(([t, v]) => !sameSlot(t, v));
    for (const [, v] of pairs) this.fb.emit(slotCode(v));
    for (let k = pairs.length - 1; k >= 0; k--) {
      const t = pairs[k]![0];
      if (!isLocal(t)) throw new Error("wasm: loop state in a constant slot");
      this.fb.emit(localSet(t.local, seq()));
    }
  }

  /** The initial state's slots, with the array leaves that ownership.ts asks to copy replaced by fresh copies. */
  private copiedOnEntry(e: Ifold | While, init: WSlot[]): WSlot[] {
    const copy = this.copyOnEntry.get(e);
    if (copy === undefined) return init;
    let at = 0;
    const visit = (t: Type, c: Fresh): void => {
      if (t.k === "tuple") {
        t.elems.forEach((u, k) => visit(u, typeof c === "boolean" ? c : (c[k] ?? false)));
        return;
      }
      for (const l of leavesOf(t)) {
        if (c === true && l.rank > 0) {
          const [data, offset, ...dims] = init.slice(at, at + leafSlotCount(l));
          init[at] = copyLeaf(this, elemKind(l), data!, offset!, dims);
          init[at + 1] = iconstSlot(0);
        }
        at += leafSlotCount(l);
      }
    };
    visit(e.acc.type, copy);
    return init;
  }

  /** The mutable locals of a loop's state, from `init`; dimensions that never change stay the initial value's. */
  private loopState(e: Ifold | While): WSlots {
    const init = this.copiedOnEntry(e, [...this.atom(e.init)]);
    const fixed = invariantDimensionSlots(e);
    const types = slotTypes(e.acc.type, this.real);
    const state = init.map((s, q) => (fixed.has(q) ? s : this.define(types[q]!, slotCode(s))));
    this.markDimensions(state, e.acc.type);
    this.bind(e.acc, state);
    return state;
  }

  /** An ifold as one thread runs it (a parallel sum site's code on one thread). */
  ifold(e: Ifold): WSlots {
    const count = this.atom(e.count)[0]!;
    this.checkCount(count, "ifold count", e.span);
    // A reduction whose terms run in SIMD lanes (src/lowering/lanes.ts): the lanes first, then the plain loop.
    const outside = (id: number) => this.isBound(id);
    const lanes = unlessInnerLanes(reductionLanes(e, outside));
    const state = this.loopState(e);
    let start = lanes === undefined ? undefined : reduceInLanes(this, lanes, count, state[0]!);
    if (lanes !== undefined) this.laneLoops++;
    // An update at the loop index, in place (reverse mode's `dW[i][k] += x[k] * dt`): groups of elements at once.
    const update = lanes === undefined ? updateLanes(e, outside) : undefined;
    if (update !== undefined && this.inPlace.has(update.update)) {
      start = updateInLanes(this, update, count, state);
      this.laneLoops++;
    }
    // A small scalar step on terms computed in lanes (a min and the index of its element): terms per group, steps
    // lane by lane.
    // Adjoint arrays of a tuple state updated at the loop index, directly or by an inner loop (reverse mode's).
    const tuple = start === undefined && update === undefined ? tupleUpdateLanes(e, outside) : undefined;
    if (tuple !== undefined && this.updatesInPlace(tuple)) {
      start = tupleUpdateInLanes(this, tuple, count, state, e);
      this.laneLoops++;
    }
    const combine =
      start === undefined && update === undefined && tuple === undefined
        ? unlessInnerLanes(combineLanes(e, outside))
        : undefined;
    if (combine !== undefined) {
      start = combineInLanes(this, combine, count, state);
      this.laneLoops++;
    }
    // A loop at the top (atTop) over the elements of an array whose body runs loops, none of it in lanes: a function
    // of its own (./outline.ts).
    const outline = start === undefined && this.atTop() && this.bounds.isDimension(slotKey(count)) && holdsLoop(e.body);
    if (outline && this.outline?.(e, count, state) === true) return state;
    const region = this.region(e);
    this.stepping.afterLanes(start, () =>
      indexLoop(
        this,
        e.index,
        count,
        e.body,
        () => {
          const next = this.expr(e.body);
          this.assign(state, region?.end(next) ?? next);
        },
        start,
      ),
    );
    return state;
  }

  /**
   * For a loop whose iterations give back what they allocate (src/lowering/regions.ts), in the main arena: the heap's
   * top before the loop is its mark; `end`, at the end of an iteration, once the loop has allocated more than
   * REGION_BYTES since the mark, moves the next state's arrays allocated since to the mark (copied above everything
   * first, then down, so that no array overwrites another still to move) and gives back the memory after them.
   */
  private region(e: Ifold | While): { end(next: WSlots): WSlots } | undefined {
    const heap = this.helpers.heap;
    if (heap === undefined || !releasesIterations(e, this.inPlace)) return undefined;
    const leaves = leavesOf(e.acc.type);
    const starts = leafStarts(leaves);
    const arrays = leaves.flatMap((l, k) => (l.rank > 0 ? [{ leaf: l, at: starts[k]! }] : []));
    const mark = this.define("i32", globalGet(heap));
    const fb = this.fb;
    return {
      end: (next) => {
        const out = [...next];
        const views = arrays.map(({ leaf, at }) => {
          const data = this.define("i32", slotCode(next[at]!));
          const offset = this.define("i32", slotCode(next[at + 1]!));
          out[at] = data;
          out[at + 1] = offset;
          const dims = next.slice(at + 2, at + 2 + leaf.rank);
          return { leaf, data, offset, dims, fresh: this.local("i32"), copy: this.local("i32") };
        });
        fb.if(op("i32.gt_u", op("i32.sub", globalGet(heap), slotCode(mark)), i32(REGION_BYTES)));
        for (const v of views) {
          this.set(v.fresh, op("i32.ge_u", slotCode(v.data), slotCode(mark)));
          fb.if(slotCode(v.fresh));
          this.set(v.copy, slotCode(copyLeaf(this, elemKind(v.leaf), v.data, v.offset, v.dims)));
          fb.end();
        }
        const to = this.define("i32", slotCode(mark));
        for (const v of views) {
          const shift = elementShift(elemKind(v.leaf), this.real);
          fb.if(slotCode(v.fresh));
          const bytes = op("i32.shl", product(v.dims).code, i32(shift));
          fb.emit(op("memory.copy", slotCode(to), slotCode(v.copy), bytes));
          this.set(v.data, slotCode(to));
          this.set(v.offset, i32(0));
          // The next array starts 16-byte aligned, as the arena's do.
          this.set(to, op("i32.and", op("i32.add", op("i32.add", slotCode(to), bytes), i32(15)), i32(-16)));
          fb.end();
        }
        fb.emit(globalSet(heap, slotCode(to)));
        fb.end();
        return out;
      },
    };
  }

  /**
   * Whether a loop written here is at the top: in no loop, or in a top-level loop of a few iterations (the chunks of
   * an accumulation, src/opt/chunk-accumulations.ts, run on the calling thread, each a loop over the points).
   */
  atTop(): boolean {
    return this.loopDepth === 0 || (this.loopDepth === 1 && this.inFewAtTop);
  }

  /** Whether every update of a tuple update plan is in place, and no inner loop copies its state on entry. */
  private updatesInPlace(plan: TupleUpdatePlan): boolean {
    return plan.leaves.every(
      (l) =>
        l.kind === "keep" || (this.inPlace.has(l.update) && (l.kind === "direct" || !this.copyOnEntry.has(l.fold))),
    );
  }

  /** `for (i = start; i < n; i += step) body()`, with i a local the caller made. */
  countedLoop(i: WSlot, n: WSlot, body: () => void, start: WSlot = { value: 0, type: "i32" }, step = 1): void {
    const fb = this.fb;
    this.set(i, slotCode(start));
    fb.block("exit");
    fb.loop("next");
    fb.brIf("exit", op("i32.ge_s", slotCode(i), slotCode(n)));
    const few = this.inFewAtTop;
    this.inFewAtTop =
      this.loopDepth === 0 &&
      (("value" in n && n.value <= FEW_ITERATIONS) || (this.bounds.atMost(slotKey(n)) ?? Infinity) <= FEW_ITERATIONS);
    this.loopDepth++;
    body();
    this.loopDepth--;
    this.inFewAtTop = few;
    this.set(i, op("i32.add", slotCode(i), i32(step)));
    fb.br("next");
    fb.end();
    fb.end();
  }

  /** `for (;;) { c = cond; if (!c) break; state = body }`: the condition is evaluated before every iteration. */
  private while(e: While): WSlots {
    const state = this.loopState(e);
    const region = this.region(e);
    const fb = this.fb;
    fb.block("exit");
    fb.loop("next");
    this.loopDepth++;
    const go = this.expr(e.cond)[0]!;
    fb.brIf("exit", op("i32.eqz", slotCode(go)));
    const next = this.expr(e.body);
    this.assign(state, region?.end(next) ?? next);
    this.loopDepth--;
    fb.br("next");
    fb.end();
    fb.end();
    return state;
  }
}

const iconstSlot = (n: number): WSlot => ({ value: n, type: "i32" });
/** The bytes a loop allocates before its iterations give them back (src/lowering/regions.ts). */
const REGION_BYTES = 1 << 20;
/** A loop of at most this many iterations (a literal count) is "few": a loop in its body may be outlined. */
const FEW_ITERATIONS = 16;

/** The scalar at element index `at` of `data`: f64/f32 for a Double, i32 for an Index, 0 or 1 for a Bool. */
export function loadScalar(kind: ScalarKind, real: Real, data: WSlot, at: IExpr): Code {
  switch (kind) {
    case "double":
      return real === "f64" ? load("f64.load", address(data, at, 3)) : load("f32.load", address(data, at, 2));
    case "int":
      return load("i32.load", address(data, at, 2));
    case "bool":
      return op("i32.ne", load("i32.load8_u", address(data, at, 0)), i32(0));
  }
}
