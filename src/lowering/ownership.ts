// Which functional array updates (setAt, addAt, addArray: src/prims/updates.ts) and tape operations (tapePush,
// tapePop: src/prims/tape.ts) the compiled code may do in place.
//
// An update may overwrite its array operand `a` when nothing can observe the old value: `a` is *fresh* (its buffer
// was allocated by this function and reached `a` without being shared) and *owned* (this update is its only sharing
// use on any path, at the same loop depth as its binder: a use inside a loop that `a` is bound outside of runs many
// times). Reading a scalar element of `a` or its length, or copying `a` into another array (the value operand of an
// update), does not share it, nor does taking a row `a[i]` (or an element holding arrays, of an array of tuples) that
// is itself only read so; such reads only have to come before the update, even from inside a loop (nodes are
// numbered in evaluation order: a let's right-hand side before its body, a branch or loop's `end` after everything in
// it). Anything not proven so is copied first, so this analysis decides speed, never results.
//
// Fresh: the result of zerosLike, an update (a copy, or in place on a fresh owned operand), a build (builds allocate),
// an empty array (`build 0 ...`) wherever it is passed on;
// a tuple component, projection, `if` result or loop state component made only of fresh owned values. A loop's
// (ifold's or while's) state component is fresh when its initial value is and the body returns a fresh value for it
// assuming it is (a greatest fixpoint); when only its initial value is not, that value is copied once on entry to the
// loop.
// Parameters and `get` views are never fresh.
//
// Uses are counted per path: the branches of an `if` take the larger count, not the sum. A projection `proj(k, t)` is
// a use of component k only, so the components of a tuple of accumulators are owned separately; a use of the whole
// tuple is a use of every component.
//
// Calls (recursion): a function's *owned* parameters (IrFunction.owned: reverse mode's adjoint accumulators) are fresh
// in its body; a caller passes each an owned value, or the compiled code passes a copy (`copyArgs`); the result
// components the callee marks `ownedResults` are fresh for the caller, which the callee guarantees by copying those
// it cannot prove fresh before returning them (`resultCopies`).
//
// Tapes are values (the interpreter's are immutable lists), but compiled code keeps one mutable stack per tape
// (src/codegen/tape.ts) that pushes, pops and the functions given it change. Reverse mode uses tapes linearly; the
// optimiser need not keep that (CSE merges the `newTape`s of a Hessian's directions, then their identical forward
// sweeps, and one tape version reaches two pops). So a tape is fresh like an array and a tape operation an update, in
// place when the tape is owned, else on a copy; every tape parameter is owned and every result part holding a tape.

import { forEachNode, operands } from "../ir/free.js";
import {
  typeOf,
  type Atom,
  type Build,
  type Call,
  type Expr,
  type Ifold,
  type IrFunction,
  type Prim,
  type Var,
  type While,
} from "../ir/ir.js";
import type { Type } from "../types/types.js";
import type { PrimName } from "../prims/names.js";
import { PRIMS } from "../prims/table.js";
import { isTapeOp } from "../prims/tape.js";

/** setAt, addAt, addArray, record: the result is the first operand with elements changed (PrimRule.update). */
const isUpdate = (op: PrimName) => PRIMS[op].update !== undefined;
/** zerosLike and the updates: the result is a new array, or the owned operand updated in place (PrimRule.cost). */
const allocates = (op: PrimName) => PRIMS[op].cost === "array";
/**
 * Does a value of this type hold an array? An element `a[i]` of such a type (a row, or a tuple with an array in it, of
 * an array of tuples) is a view of a's storage, not a copy: what is done with it shares a.
 */
const holdsArray = (t: Type): boolean => t.k === "array" || (t.k === "tuple" && t.elems.some(holdsArray));

/** A use that no single-use test passes: inside a loop deeper than the binder. */
const MANY = 2;

type Counts = Map<string, number>;
const whole = (id: number) => `${id}`;
const component = (id: number, k: number) => `${id}.${k}`;

export interface Ownership {
  /** Updates that may overwrite their array operand. */
  readonly inPlace: Set<Prim>;
  /**
   * Loops whose state components (top level; the whole state when it is not a tuple) are copied once on entry: the
   * body updates them in place, but the initial value is shared (a view, a parameter). One copy instead of one per
   * iteration.
   */
  readonly copyOnEntry: Map<Ifold | While, Fresh>;
  /** Calls whose arguments at these positions (owned parameters) must be copied: the value passed is not owned. */
  readonly copyArgs: Map<Call, Set<number>>;
  /** For a function with `ownedResults`: the result components to copy before returning (not provably fresh). */
  resultCopies: readonly boolean[];
  /**
   * Builds of Doubles that may write their elements into an array they read only elementwise (`build n (fun i ->
   * .. a[i] ..)`, a Vector) that is fresh, owned and read nowhere after: element i is written after it is read, and
   * a is dead afterwards, so the build needs no new buffer (an elementwise map over a temporary, such as a
   * gradient's `build n (fun k -> e[k] * dt)`).
   */
  readonly buildInto: Map<Build, Var>;
}

/** The updates `fn` may make in place; `functions` are the program's (the callees' owned parameters and results). */
export function ownership(fn: IrFunction, functions: ReadonlyMap<string, IrFunction> = new Map()): Ownership {
  const uses = new Uses();
  for (const p of fn.params) uses.depthOf.set(p.id, 0);
  uses.walk(fn.body, 0, uses.counts);
  const result = noOwnership();
  const fresh = new Freshness(uses, result, functions);
  fn.params.forEach((p, i) => {
    if (ownsParameter(fn, i)) fresh.bindFresh(p.id, mutableFresh(p.type));
  });
  const out = fresh.result(fn.body, Number.MAX_SAFE_INTEGER);
  const owned = ownedResults(fn);
  if (owned !== undefined) {
    const types = resultParts(typeOf(fn.body), owned.length);
    const parts = owned.length === 1 ? [out] : typeof out === "boolean" ? owned.map(() => out) : out;
    result.resultCopies = owned.map((o, k) => o && hasMutable(types[k]!) && !allFresh(parts[k] ?? false));
  }
  return result;
}

/** Whether `f`'s parameter i is owned: updated in place by `f`, so its caller passes a value nothing else holds. */
const ownsParameter = (f: IrFunction, i: number): boolean => f.owned?.[i] === true || hasTape(f.params[i]!.type);

/**
 * Per part of `f`'s result (the components of a tuple, or the whole when one flag), whether the caller owns it:
 * `f.ownedResults`, and every part holding a tape. Undefined when there is none.
 */
function ownedResults(f: IrFunction): readonly boolean[] | undefined {
  const t = typeOf(f.body);
  const given = f.ownedResults;
  const parts = resultParts(t, given?.length ?? (t.k === "tuple" ? t.elems.length : 1));
  const owned = parts.map((p, k) => given?.[k] === true || hasTape(p));
  return owned.some((o) => o) ? owned : undefined;
}

/** The parts of a result of type `t` that `count` ownership flags are about. */
const resultParts = (t: Type, count: number): readonly Type[] => (count === 1 || t.k !== "tuple" ? [t] : t.elems);

const noOwnership = (): Ownership => ({
  inPlace: new Set(),
  copyOnEntry: new Map(),
  copyArgs: new Map(),
  resultCopies: [],
  buildInto: new Map(),
});

/** Every array in the value is fresh. */
function allFresh(f: Fresh): boolean {
  return typeof f === "boolean" ? f : f.every(allFresh);
}

class Uses {
  readonly counts: Counts = new Map();
  readonly depthOf = new Map<number, number>();
  /** Position of the latest scalar read of each variable. */
  private readonly lastRead = new Map<number, number>();
  /** Position of the latest use of each variable. */
  private readonly usePos = new Map<number, number>();
  /** Variables packed into a let-bound tuple -> that tuple's variable. */
  private readonly packedInto = new Map<number, number>();
  /** Views (rows `m[i]`, also of rows) -> the variable of the array they are part of. */
  private readonly viewRoot = new Map<number, number>();
  /** Evaluation-order position of each non-let node, and of the end of each branch or loop. */
  readonly pos = new Map<Expr, number>();
  readonly end = new Map<Expr, number>();
  /** The loop depth of each build. */
  readonly buildDepth = new Map<Build, number>();
  /** Variables bound to an empty array (`build 0 ...`), which holds nothing to share. */
  readonly empty = new Set<number>();
  private clock = 0;

  count(key: string): number {
    return this.counts.get(key) ?? 0;
  }

  /**
   * Where the value of the tuple bound to `id` is consumed: packing it into another tuple only passes it on, so the
   * position is that of the outermost tuple's use (a value packed and read afterwards is still owned when the read
   * comes before the package is consumed).
   */
  consumedAt(id: number): number | undefined {
    let q = id;
    for (let hops = 0; this.packedInto.has(q) && hops < 64; hops++) q = this.packedInto.get(q)!;
    return this.usePos.get(q);
  }

  /** No scalar read of `id` comes after position `at`. */
  readsBefore(id: number, at: number): boolean {
    const r = this.lastRead.get(id);
    return r === undefined || r < at;
  }

  /**
   * Adds the uses in `e` to `out`. Scopes write into their parent's counts, except the branches of an `if`, which
   * count apart and then add the larger count of each.
   */
  walk(e: Expr, depth: number, out: Counts): void {
    const add = (key: string, n: number) => out.set(key, (out.get(key) ?? 0) + n);
    const use = (a: Atom, k?: number) => {
      if (a.kind !== "var") return;
      this.usePos.set(a.id, this.clock);
      const n = (this.depthOf.get(a.id) ?? 0) === depth ? 1 : MANY;
      add(k === undefined ? whole(a.id) : component(a.id, k), n);
      // A whole use of a tuple uses each of its components too (counted per component, so that a whole use in one
      // branch and a projection in the other are still one use on each path).
      if (k === undefined && a.type.k === "tuple") a.type.elems.forEach((_, j) => add(component(a.id, j), n));
      // Any other use of a view (a row m[i]) shares the array it views.
      const root = this.viewRoot.get(a.id);
      if (root !== undefined) add(whole(root), (this.depthOf.get(root) ?? 0) === depth ? 1 : MANY);
    };
    while (e.kind === "let") {
      this.depthOf.set(e.v.id, depth);
      const r = e.rhs;
      if (r.kind === "build" && r.size.kind === "lit" && r.size.value === 0) this.empty.add(e.v.id);
      const a = r.kind === "prim" && r.op === "get" && holdsArray(r.type) ? r.args[0]! : undefined;
      if (r.kind === "tuple") for (const x of r.elems) if (x.kind === "var") this.packedInto.set(x.id, e.v.id);
      if (a?.kind === "var") {
        // A view: not a use of its array by itself; what is done with it counts (reads read the array too).
        this.viewRoot.set(e.v.id, this.viewRoot.get(a.id) ?? a.id);
        this.pos.set(r, this.clock++);
        use((r as Prim).args[1]!);
        this.end.set(r, this.clock++);
      } else this.walk(r, depth, out);
      e = e.body;
    }
    this.pos.set(e, this.clock++);
    switch (e.kind) {
      case "var":
      case "lit":
        use(e);
        break;
      case "proj":
        use(e.arg, e.index);
        break;
      case "prim": {
        // Reads: a scalar element or the length of an array; the values an update copies into its array.
        const at = this.pos.get(e)!;
        const read = (x: Atom) => {
          if (x.kind !== "var") return;
          for (const id of [x.id, this.viewRoot.get(x.id)])
            if (id !== undefined) this.lastRead.set(id, Math.max(this.lastRead.get(id) ?? -1, at));
        };
        if ((e.op === "get" && !holdsArray(e.type)) || e.op === "length") {
          read(e.args[0]!);
          e.args.slice(1).forEach((x) => use(x));
        } else if (isUpdate(e.op)) {
          use(e.args[0]!);
          e.args.slice(1).forEach((x) => (x.type.k === "array" ? read(x) : use(x)));
        } else e.args.forEach((x) => use(x));
        break;
      }
      case "tuple":
        e.elems.forEach((a) => use(a));
        break;
      case "call":
        e.args.forEach((a) => use(a));
        break;
      case "app":
        use(e.fn);
        use(e.arg);
        break;
      case "jvp":
        use(e.fn);
        break;
      case "lam":
        this.depthOf.set(e.param.id, depth + 1);
        this.walk(e.body, depth + 1, out);
        break;
      case "if": {
        use(e.cond);
        const t: Counts = new Map();
        const f: Counts = new Map();
        this.walk(e.then, depth, t);
        this.walk(e.else, depth, f);
        for (const key of new Set([...t.keys(), ...f.keys()])) add(key, Math.max(t.get(key) ?? 0, f.get(key) ?? 0));
        break;
      }
      case "build":
        use(e.size);
        this.buildDepth.set(e, depth);
        this.depthOf.set(e.index.id, depth + 1);
        this.walk(e.body, depth + 1, out);
        break;
      case "ifold":
        use(e.init);
        use(e.count);
        this.depthOf.set(e.acc.id, depth + 1);
        this.depthOf.set(e.index.id, depth + 1);
        this.walk(e.body, depth + 1, out);
        break;
      case "while":
        use(e.init);
        this.depthOf.set(e.acc.id, depth + 1);
        this.walk(e.cond, depth + 1, out);
        this.walk(e.body, depth + 1, out);
        break;
      case "custom":
        use(e.fn);
        e.rules.forEach((r) => use(r));
        break;
    }
    this.end.set(e, this.clock++);
  }
}

/** Freshness of a value: one flag for a non-tuple, one per component (recursively) for a tuple. */
export type Fresh = boolean | readonly Fresh[];

class Freshness {
  /** Variable id -> freshness of its value, for the variables bound in this walk; the others are the outer walk's. */
  private readonly fresh = new Map<number, Fresh>();

  constructor(
    private readonly uses: Uses,
    private readonly found: Ownership,
    private readonly functions: ReadonlyMap<string, IrFunction>,
    /** The walk of the code around a loop, when this one tries an assumption about the loop's state. */
    private readonly outer?: Freshness,
  ) {}

  /** The freshness of the value of a variable bound so far, if known. */
  freshOf(id: number): Fresh | undefined {
    return this.fresh.get(id) ?? this.outer?.freshOf(id);
  }

  bindFresh(id: number, f: Fresh): void {
    this.fresh.set(id, f);
  }

  /** `a` is fresh, shared by this use only, and read only before position `at`. */
  private owned(a: Atom, at: number): boolean {
    if (a.kind !== "var" || this.freshOf(a.id) !== true) return false;
    return this.uses.count(whole(a.id)) === 1 && this.uses.readsBefore(a.id, at);
  }

  /**
   * Freshness of an atom passed on whole at position `at` (to a tuple, a branch result, an ifold's init or result),
   * per component for a tuple: a component stays fresh when this is its only use (a whole use counts for every
   * component).
   */
  private passed(a: Atom, at: number): Fresh {
    if (a.kind !== "var") return false;
    // An empty array stays fresh however often it is passed on: no element of it can be overwritten (reverse mode
    // passes one empty tape where a tape is not needed, which CSE makes one value).
    if (this.uses.empty.has(a.id)) return mutableFresh(a.type);
    const f = this.freshOf(a.id);
    if (f === undefined || f === false || !this.uses.readsBefore(a.id, at)) return false;
    const wholeUses = this.uses.count(whole(a.id));
    if (typeof f === "boolean") return wholeUses === 1;
    return f.map((x, k) => (this.uses.count(component(a.id, k)) === 1 ? x : false));
  }

  /** Freshness of the value of `e` (walking its body, and recording the in-place updates found). */
  expr(e: Expr): Fresh {
    while (e.kind === "let") {
      this.fresh.set(e.v.id, this.node(e.rhs, e.v.id));
      e = e.body;
    }
    return this.node(e);
  }

  /** The freshness of a scope's result, which is passed on at `at` (the end of the enclosing branch or loop). */
  result(e: Expr, at: number): Fresh {
    const f = this.expr(e);
    let tail = e;
    while (tail.kind === "let") tail = tail.body;
    return tail.kind === "var" ? this.passed(tail, at) : f;
  }

  private node(e: Expr, boundTo?: number): Fresh {
    const at = this.uses.pos.get(e) ?? 0;
    switch (e.kind) {
      case "var":
      case "lit":
        return this.passed(e, at);
      case "prim":
        if ((isUpdate(e.op) || isTapeOp(e.op)) && e.op !== "newTape" && this.owned(e.args[0]!, at))
          this.found.inPlace.add(e);
        // A new tape, a push, or what a pop leaves is a tape nothing else holds; the value popped is shared.
        if (isTapeOp(e.op)) return e.op === "tapePop" ? [false, true] : true;
        return allocates(e.op);
      case "build": {
        this.expr(e.body);
        const into = this.overwritable(e);
        if (into !== undefined) this.found.buildInto.set(e, into);
        return true;
      }
      case "tuple":
        return e.elems.map((a) => this.passed(a, boundTo === undefined ? at : (this.uses.consumedAt(boundTo) ?? at)));
      case "proj": {
        const a = e.arg;
        if (a.kind !== "var" || !this.uses.readsBefore(a.id, at)) return false;
        const f = this.freshOf(a.id);
        const single = this.uses.count(component(a.id, e.index)) === 1;
        return single && Array.isArray(f) ? (f as readonly Fresh[])[e.index]! : false;
      }
      case "if": {
        const end = this.uses.end.get(e) ?? at;
        return both(this.result(e.then, end), this.result(e.else, end));
      }
      case "ifold":
      case "while":
        return this.loop(e, at);
      case "lam":
        this.expr(e.body);
        return false;
      case "call":
        return this.call(e, at);
      default:
        return false;
    }
  }

  /** A Vector that the build `b` of Doubles may write into (see Ownership.buildInto). */
  private overwritable(b: Build): Var | undefined {
    const isVector = (t: Type) => t.k === "array" && t.elem.k === "double";
    if (!isVector(b.type)) return undefined;
    const depth = this.uses.buildDepth.get(b);
    const end = this.uses.end.get(b);
    if (depth === undefined || end === undefined) return undefined;
    // Arrays read at the build's index, and every other occurrence of a variable in the body.
    const readAtIndex = new Map<number, Var>();
    const otherwise = new Set<number>();
    forEachNode(b.body, (n) => {
      if (n.kind === "prim" && n.op === "get" && n.args[1]!.kind === "var" && n.args[1]!.id === b.index.id) {
        const a = n.args[0]!;
        if (a.kind === "var") readAtIndex.set(a.id, a);
        return;
      }
      for (const a of operands(n)) if (a.kind === "var") otherwise.add(a.id);
    });
    for (const [id, a] of readAtIndex) {
      if (otherwise.has(id) || !isVector(a.type) || this.freshOf(id) !== true) continue;
      // Bound at the build's depth (not reused by a loop around it), never shared, not read after the build.
      if (this.uses.depthOf.get(id) !== depth || this.uses.count(whole(id)) !== 0) continue;
      if (this.uses.readsBefore(id, end + 1)) return a;
    }
    return undefined;
  }

  /** A call: owned parameters take owned values (or copies); the callee's owned results are fresh. */
  private call(e: Call, at: number): Fresh {
    const callee = this.functions.get(e.fn);
    if (callee === undefined) return false;
    e.args.forEach((a, i) => {
      if (!ownsParameter(callee, i) || !hasMutable(a.type)) return;
      if (a.kind === "var" && allFresh(this.passed(a, at)) && this.uses.count(whole(a.id)) === 1) return;
      let copies = this.found.copyArgs.get(e);
      if (copies === undefined) this.found.copyArgs.set(e, (copies = new Set()));
      copies.add(i);
    });
    const owned = ownedResults(callee);
    if (owned === undefined) return false;
    if (e.type.k !== "tuple" || owned.length === 1) return owned[0] === true && mutableFresh(e.type);
    return e.type.elems.map((t, k) => owned[k] === true && mutableFresh(t));
  }

  private loop(e: Ifold | While, at: number): Fresh {
    const init = this.passed(e.init, at);
    const end = this.uses.end.get(e) ?? at;
    // Greatest fixpoint: assume every array component of the state fresh, walk the body, keep what it preserves.
    let assumed: Fresh = mutableFresh(e.acc.type);
    for (let round = 0; round < 8; round++) {
      const trial = noOwnership();
      // The trial walk reads the freshness known here through `outer` (no copy per loop and round).
      const sub = new Freshness(this.uses, trial, this.functions, this);
      sub.fresh.set(e.acc.id, assumed);
      if (e.kind === "while") sub.expr(e.cond);
      const out = both(assumed, sub.result(e.body, end));
      if (same(out, assumed)) {
        // Components the body keeps fresh but whose initial value is shared are copied once, on entry.
        const copy = needsCopy(out, init);
        if (copy !== false) this.found.copyOnEntry.set(e, copy);
        trial.inPlace.forEach((p) => this.found.inPlace.add(p));
        trial.copyOnEntry.forEach((c, loop) => this.found.copyOnEntry.set(loop, c));
        trial.copyArgs.forEach((c, call) => this.found.copyArgs.set(call, c));
        trial.buildInto.forEach((a, b) => this.found.buildInto.set(b, a));
        sub.fresh.forEach((v, k) => this.fresh.set(k, v));
        return out;
      }
      assumed = out;
    }
    // Not converged (cannot happen: flags only go from true to false); nothing in place.
    return false;
  }
}

/** Whether a value of type `t` holds an array or a tape: something compiled code may change in place. */
function hasMutable(t: Type): boolean {
  return t.k === "array" || t.k === "tape" || (t.k === "tuple" && t.elems.some(hasMutable));
}

function hasTape(t: Type): boolean {
  return t.k === "tape" || (t.k === "tuple" && t.elems.some(hasTape));
}

/** True for every array or tape (component) of a type. */
function mutableFresh(t: Type): Fresh {
  if (t.k === "tuple") return t.elems.map(mutableFresh);
  return t.k === "array" || t.k === "tape";
}

/** Where `out` is fresh but `init` is not (per component, recursively): what must be copied for the state to be. */
function needsCopy(out: Fresh, init: Fresh): Fresh {
  if (out === true) return init !== true;
  if (typeof out === "boolean") return false;
  const parts = out.map((o, k) => needsCopy(o, typeof init === "boolean" ? false : (init[k] ?? false)));
  return parts.some((p) => p !== false) ? parts : false;
}

function both(a: Fresh, b: Fresh): Fresh {
  if (typeof a === "boolean" || typeof b === "boolean") return a === true && b === true;
  return a.map((x, k) => both(x, b[k] ?? false));
}

function same(a: Fresh, b: Fresh): boolean {
  if (typeof a === "boolean" || typeof b === "boolean") return a === b;
  return a.length === b.length && a.every((x, k) => same(x, b[k]!));
}
