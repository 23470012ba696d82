// Loops a back end can run several iterations at once (SIMD lanes), found on the IR: a `build` whose element, or an
// `ifold` whose step `acc ⊕ x`, is computed from its index by elementwise arithmetic. For each value of the body
// this says whether it varies with the index (computed per lane) or is the same in every iteration (uniform:
// computed once per group of lanes, as ordinary code); varying values are Doubles and Bools made by arithmetic,
// comparisons, exp/log and the other scalar functions, `if` on a varying condition (both branches computed, the lane's
// own selected), and reads `a[i + c]` of a vector bound outside the loop at the index plus a literal (consecutive
// elements: one vector load).
//
// Nothing changes the order of a sum: a reduction computes its terms per lane and adds them to the accumulator one
// after the other, as the loop does, so results are bit for bit those of the plain loop. A back end runs lanes up to
// the largest count at which no read is out of range (every array read at i + c has more than m - 1 + c elements,
// every checkIndex bound likewise), then the plain loop from there: an index error is raised by the plain loop at the
// same iteration, with the same message, as without lanes.
//
// Outer lanes: the body may itself hold a loop `ifold (fun s b -> ...) init n` on a Double state (a sum over b), with
// n and so b the same in every lane: each lane is one output's own state, the inner loop runs once for all lanes, and
// its uniform values (`x[b]`, checks of b) are ordinary code once per step. Each lane takes its steps in b order, as
// the plain loop does. Its steps read rows of a matrix M bound outside: `row[i + c]` with `row = M[u]` at a uniform
// index u (b, or anything computed from it: consecutive elements), or `row[u]` with `row = M[i + c]`, a row per lane
// (one element of each lane's row, the index u checked once against their common length). Every row has M's
// dimension 1 as its length (arrays are regular), which bounds the lanes before the loop, as M's dimension 0 does.
//
// Triangular loops (gmm's Q v): an inner loop's count may be `i + c` (lane q's count the first lane's plus q: the first
// lane's steps run for all lanes, then the later lanes' further steps, masked), and a read may be at `i + u + c`, u a
// uniform Index computed anywhere before it (a shifted index: consecutive elements, but not bounded before the loop).
// Shifted reads are checked per group as the lanes go; a failure stops the lanes at that group before anything of it
// is written, and the plain loop recomputes it from there, raising the error it raises without lanes. After such an
// inner loop no let may fail (a lane whose loop ended first would otherwise raise after the others' later steps).

import { binders, forEachNode, freeVars } from "../ir/free.js";
import { freshVar, typeOf, type Atom, type Expr, type Ifold, type Let, type Prim, type Var } from "../ir/ir.js";
import type { PrimName } from "../prims/names.js";
import { PRIMS, primMayFail } from "../prims/table.js";

/** Per-lane functions of Doubles (and Bools), by arity. */
const UNARY_REAL: ReadonlySet<PrimName> = new Set<PrimName>([
  "neg",
  "sqrt",
  "abs",
  "floor",
  "exp",
  "log",
  "sin",
  "cos",
  "tan",
  "tanh",
  "stopGradient",
]);
const BINARY_REAL: ReadonlySet<PrimName> = new Set<PrimName>(["add", "sub", "mul", "div", "max", "min", "pow"]);
const COMPARISONS: ReadonlySet<PrimName> = new Set<PrimName>(["lt", "gt", "le", "ge", "eq", "ne"]);
/** The operators of a reduction `acc ⊕ x` run in lanes (each term still added in order). */
const REDUCTIONS: ReadonlySet<PrimName> = new Set<PrimName>(["add", "mul", "max", "min"]);

/** A bound on the lanes: the loop reads up to index + offset below `length` (an array's length or an Index atom). */
export interface LaneBound {
  /** The array read (its dimension `dim`, 0 unless given), or an Index atom (a checkIndex's bound). */
  readonly length: { readonly array: Var; readonly dim?: number } | { readonly atom: Atom };
  readonly offset: number;
}

export interface LanePlan {
  readonly index: Var;
  /** Let-bound variables (and the index) whose value differs between lanes. */
  readonly varying: ReadonlySet<number>;
  /** Varying Index variables that are the loop index plus a literal: id -> the literal (the index itself: 0). */
  readonly offsets: ReadonlyMap<number, number>;
  readonly bounds: readonly LaneBound[];
  /**
   * The loops nested in the body that run across the lanes (outer lanes): each ifold with the body to write in lanes
   * (its tail named by a let when it was not an atom).
   */
  readonly folds: ReadonlyMap<Ifold, Expr>;
  /** Variables holding a row per lane, `M[i + c]`, by id. */
  readonly laneRows: ReadonlyMap<number, LaneRow>;
  /**
   * Varying Index variables `i + u + c`, u a uniform Index (computed anywhere before, even in a nested loop's step)
   * and c a literal, by id. Their reads cannot be bounded before the loop: each group checks them as it goes, and
   * on a failure the lanes stop at that group (nothing of it written), whose rows the plain loop recomputes.
   */
  readonly shifted: ReadonlySet<number>;
  /** Whether a loop across the lanes has the count `i + c` (a different count per lane): then one group at a time. */
  readonly varyingCount: boolean;
  /** Whether a lane value is computed by exp or log, whose vector code is a long chain of dependent operations. */
  readonly transcendental: boolean;
}

/** A row per lane: `M[i + c]` of a matrix of Doubles M bound outside the loop. */
export interface LaneRow {
  readonly matrix: Var;
  readonly offset: number;
}

/** A build's plan, with the element expression to write in lanes (its tail named by a let when it was not an atom). */
export interface BuildPlan extends LanePlan {
  readonly body: Expr;
}

/** A reduction loop: `ifold (fun acc i -> ... in acc ⊕ x) init n` on a Double state. */
export interface ReductionPlan extends LanePlan {
  readonly op: "add" | "mul" | "max" | "min";
  /** The lets before the step, and the term x. */
  readonly lets: readonly Let[];
  readonly term: Atom;
}

/** The lane plan of a build's element `element` (a Double, or a tuple of Doubles), if it can run in lanes. */
export function buildLanes(index: Var, element: Expr, outside: (id: number) => boolean): BuildPlan | undefined {
  const body = withNamedTail(element);
  const a = new Analysis(index, outside);
  if (!a.body(body, false)) return undefined;
  let tail = body;
  while (tail.kind === "let") tail = tail.body;
  const doubleAtom = (x: Expr) => (x.kind === "var" || x.kind === "lit") && x.type.k === "double";
  if (!doubleAtom(tail) && !(tail.kind === "tuple" && tail.elems.length > 0 && tail.elems.every(doubleAtom)))
    return undefined;
  return { ...a.plan(), body };
}

/** `e` with a Double tail that is not an atom (`... in 2. * x`) bound by a let of its own (`... in let y = 2. * x in
 * y`), the form the analysis and the lanes take; the lets and their right-hand sides are the same objects. */
function withNamedTail(e: Expr): Expr {
  const lets: Let[] = [];
  let tail = e;
  for (; tail.kind === "let"; tail = tail.body) lets.push(tail);
  if ((tail.kind !== "prim" && tail.kind !== "if" && tail.kind !== "ifold") || typeOf(tail).k !== "double") return e;
  const named = freshVar("lane", tail.type);
  let out: Expr = { kind: "let", v: named, rhs: tail, body: named };
  for (let k = lets.length - 1; k >= 0; k--) out = { ...lets[k]!, body: out };
  return out;
}

/** The reduction plan of an ifold, if its step is `acc ⊕ x` with x computed in lanes and acc used nowhere else. */
export function reductionLanes(e: Ifold, outside: (id: number) => boolean): ReductionPlan | undefined {
  if (e.acc.type.k !== "double") return undefined;
  const lets: Let[] = [];
  let tail = e.body;
  for (; tail.kind === "let"; tail = tail.body) lets.push(tail);
  // `let r = acc ⊕ x in r` as well as `acc ⊕ x`.
  const last = lets[lets.length - 1];
  if (tail.kind === "var" && last !== undefined && last.v.id === tail.id) {
    lets.pop();
    tail = last.rhs;
  }
  if (tail.kind !== "prim" || !REDUCTIONS.has(tail.op) || tail.tangent !== undefined) return undefined;
  const [x, y] = tail.args as [Atom, Atom];
  const isAcc = (a: Atom) => a.kind === "var" && a.id === e.acc.id;
  const term = isAcc(x) && !isAcc(y) ? y : isAcc(y) && !isAcc(x) ? x : undefined;
  if (term === undefined) return undefined;
  // The accumulator appears only in the step.
  if (lets.some((l) => freeVars(l.rhs).has(e.acc.id)) || (term.kind === "var" && term.id === e.acc.id))
    return undefined;
  const a = new Analysis(e.index, outside);
  for (const l of lets) if (!a.let(l, false)) return undefined;
  if (term.kind === "var" && !a.atomOk(term)) return undefined;
  return { ...a.plan(), op: tail.op as ReductionPlan["op"], lets, term };
}

/**
 * An in-place update loop `ifold (fun a k -> ... in addAt a p x) a0 n` (reverse mode's `dW[i][k] += x[k] * dt`): a
 * Double array state, the path p its rank of Indexes ending at the index (plus a literal) after uniform ones, and x
 * computed in lanes. Each iteration adds to a different element, so a group of lanes is one load, add and store per
 * leaf, each element's one addition as the loop does it.
 */
export interface UpdatePlan extends LanePlan {
  /** The lets before the update (a path tuple's own let left out), the update and its path. */
  readonly lets: readonly Let[];
  readonly update: Prim;
  /** The uniform indexes of the path before the last, and the last's offset from the loop index. */
  readonly prefix: readonly Atom[];
  readonly offset: number;
  readonly value: Atom;
}

/** The update plan of an ifold, if it is an in-place update at the loop index that can run in lanes. */
export function updateLanes(e: Ifold, outside: (id: number) => boolean): UpdatePlan | undefined {
  let rank = 0;
  for (let t = e.acc.type; t.k === "array"; t = t.elem) rank++;
  let elem = e.acc.type;
  while (elem.k === "array") elem = elem.elem;
  if (rank === 0 || elem.k !== "double") return undefined;
  const lets: Let[] = [];
  let tail = e.body;
  for (; tail.kind === "let"; tail = tail.body) lets.push(tail);
  const last = lets[lets.length - 1];
  if (tail.kind === "var" && last !== undefined && last.v.id === tail.id) {
    lets.pop();
    tail = last.rhs;
  }
  if (tail.kind !== "prim" || tail.op !== "addAt") return undefined;
  const [target, path, value] = tail.args as [Atom, Atom, Atom];
  if (target.kind !== "var" || target.id !== e.acc.id || value.type.k !== "double") return undefined;
  if (lets.some((l) => freeVars(l.rhs).has(e.acc.id)) || (value.kind === "var" && value.id === e.acc.id))
    return undefined;
  // The path: the index itself (a vector), or a tuple of the state's rank bound in the body.
  let indexes: readonly Atom[] = [path];
  const pathLet = path.kind === "var" && path.type.k === "tuple" ? lets.find((l) => l.v.id === path.id) : undefined;
  if (path.type.k === "tuple") {
    if (pathLet?.rhs.kind !== "tuple") return undefined;
    indexes = pathLet.rhs.elems;
    const pathId = pathLet.v.id;
    if (lets.some((l) => l !== pathLet && freeVars(l.rhs).has(pathId))) return undefined;
  }
  if (indexes.length !== rank) return undefined;
  const a = new Analysis(e.index, outside);
  const body = lets.filter((l) => l !== pathLet);
  for (const l of body) if (!a.let(l, false)) return undefined;
  if (value.kind === "var" && !a.atomOk(value)) return undefined;
  const prefix = indexes.slice(0, -1);
  const offset = a.offsetOf(indexes[rank - 1]!);
  if (offset === undefined || offset < 0 || !prefix.every((x) => a.availableBefore(x))) return undefined;
  // The update's own bound: the index (plus its offset) below the state's last dimension.
  a.bound({ length: { array: e.acc, dim: rank - 1 }, offset });
  return { ...a.plan(), lets: body, update: tail, prefix, offset, value };
}

/** The analysis of a loop body's lets for lanes: which values vary, the bounds of their reads (./update-lanes.ts). */
export class Analysis {
  private readonly varying = new Set<number>();
  private readonly offsets = new Map<number, number>();
  private readonly bounds: LaneBound[] = [];
  private readonly folds = new Map<Ifold, Expr>();
  /** Uniform rows `M[u]` of a matrix M bound outside the loop, by id: M (its dimension 1 is their length). */
  private readonly rows = new Map<number, Var>();
  /** Rows `M[i + c]` (a row per lane) of a matrix M bound outside the loop, by id: M and c. */
  private readonly laneRows = new Map<number, LaneRow>();
  /** Variables bound in the body (uniform or not): they are not available before the loop. */
  private readonly inside = new Set<number>();
  private readonly shifted = new Set<number>();
  private varyingCount = false;
  private transcendental = false;
  /** How many loops across the lanes enclose the current let. */
  private foldDepth = 0;

  constructor(
    private readonly index: Var,
    /** Whether a variable is bound outside the loop (available before it). */
    private readonly outside: (id: number) => boolean,
  ) {
    this.varying.add(index.id);
    this.offsets.set(index.id, 0);
  }

  plan(): LanePlan {
    return {
      index: this.index,
      varying: this.varying,
      offsets: this.offsets,
      bounds: this.bounds,
      folds: this.folds,
      laneRows: this.laneRows,
      shifted: this.shifted,
      varyingCount: this.varyingCount,
      transcendental: this.transcendental,
    };
  }

  private isVarying(a: Atom): boolean {
    return a.kind === "var" && this.varying.has(a.id);
  }

  atomOk(a: Atom): boolean {
    // An Index that varies only as an offset of the index, or a row per lane, is not a lane value by itself.
    return !(a.kind === "var" && (this.offsets.has(a.id) || this.laneRows.has(a.id) || this.shifted.has(a.id)));
  }

  /** The lets of `e` and its tail; inside a branch computed for every lane, nothing may fail. */
  body(e: Expr, inBranch: boolean): boolean {
    for (; e.kind === "let"; e = e.body) if (!this.let(e, inBranch)) return false;
    if (e.kind === "var" || e.kind === "lit") return this.atomOk(e);
    if (e.kind === "tuple") return e.elems.every((a) => this.atomOk(a));
    return false;
  }

  let(l: Let, inBranch: boolean): boolean {
    this.inside.add(l.v.id);
    // After a loop whose count differs between lanes, the lanes whose loop ended first wait for the others: an error
    // the plain loop would raise in such a lane's later lets would come after the others' steps. So none may fail.
    if (this.varyingCount && this.mayFail(l.rhs)) return false;
    // The length of a row per lane is the same in every lane (M's dimension 1): uniform.
    if (this.rowLength(l.rhs) !== undefined) return true;
    const free = freeVars(l.rhs);
    const varies = [...free.keys()].some((id) => this.varying.has(id));
    if (!varies) {
      // Uniform: ordinary code, once per group of lanes. In a branch it runs for every lane: only what cannot fail.
      if (!inBranch) {
        this.row(l);
        return true;
      }
      return (
        (l.rhs.kind === "prim" && !primMayFail(l.rhs.op, l.rhs.type)) || l.rhs.kind === "var" || l.rhs.kind === "lit"
      );
    }
    this.varying.add(l.v.id);
    return this.varyingRhs(l, inBranch);
  }

  /** Whether a let's right-hand side may raise an error (reads bounded before the loop do not). */
  private mayFail(e: Expr): boolean {
    if (e.kind === "var" || e.kind === "lit" || e.kind === "tuple") return false;
    if (e.kind !== "prim") return true;
    if (e.op === "get") {
      const at = e.args[1]!;
      return !(at.kind === "var" && this.offsets.has(at.id));
    }
    return primMayFail(e.op, e.type);
  }

  private varyingRhs(l: Let, inBranch: boolean): boolean {
    const e = l.rhs;
    if (e.kind === "if") {
      if (!this.isVarying(e.cond) || (e.type.k !== "double" && e.type.k !== "bool")) return false;
      return this.body(e.then, true) && this.body(e.else, true);
    }
    if (e.kind === "var") return this.atomOk(e) && e.type.k !== "int";
    if (e.kind === "ifold") return !inBranch && this.fold(e);
    if (e.kind !== "prim") return false;
    return this.prim(l.v, e, inBranch);
  }

  private prim(v: Var, e: Prim, inBranch: boolean): boolean {
    const [a, b] = e.args as [Atom, Atom];
    const types = e.args.map((x) => x.type.k);
    if (e.op === "get") return this.read(v, a, b, e.type, inBranch);
    if (e.op === "checkIndex") {
      // j = checkIndex (i + c) n with n uniform: the same lane index, one more bound.
      const c = a.kind === "var" ? this.offsets.get(a.id) : undefined;
      if (c === undefined || c < 0 || inBranch || !this.availableBefore(b)) return false;
      this.offsets.set(v.id, c);
      this.bounds.push({ length: { atom: b }, offset: c });
      return true;
    }
    if (e.type.k === "int") {
      // i + c, c + i, i - c with c a literal: another offset of the index.
      const lit = (x: Atom) => (x.kind === "lit" && typeof x.value === "number" ? x.value : undefined);
      // i + u, u + i, i - u with u a uniform Index (i itself possibly shifted already): a shifted index.
      const shiftable = (x: Atom) => x.kind === "var" && (this.offsets.has(x.id) || this.shifted.has(x.id));
      const uniform = (x: Atom | undefined) => x !== undefined && x.type.k === "int" && !this.isVarying(x);
      const isShifted = (x: Atom | undefined) => x !== undefined && x.kind === "var" && this.shifted.has(x.id);
      if (
        ((e.op === "add" || e.op === "sub") && shiftable(a) && uniform(b) && (isShifted(a) || lit(b) === undefined)) ||
        (e.op === "add" && shiftable(b) && uniform(a) && (isShifted(b) || lit(a) === undefined))
      ) {
        this.shifted.add(v.id);
        return true;
      }
      const ca = a.kind === "var" ? this.offsets.get(a.id) : undefined;
      const cb = b !== undefined && b.kind === "var" ? this.offsets.get(b.id) : undefined;
      let c: number | undefined;
      if (e.op === "add" && ca !== undefined && lit(b) !== undefined) c = ca + lit(b)!;
      else if (e.op === "add" && cb !== undefined && lit(a) !== undefined) c = cb + lit(a)!;
      else if (e.op === "sub" && ca !== undefined && lit(b) !== undefined) c = ca - lit(b)!;
      if (c === undefined || !Number.isSafeInteger(c) || Math.abs(c) > 1 << 20) return false;
      this.offsets.set(v.id, c);
      return true;
    }
    if (e.op === "toDouble") return a.kind === "var" && this.offsets.has(a.id);
    // (The other transcendentals are scalar calls per lane: more groups only make the code longer.)
    if (e.op === "exp" || e.op === "log") this.transcendental = true;
    if (UNARY_REAL.has(e.op)) return types[0] === "double" && this.atomOk(a);
    if (BINARY_REAL.has(e.op)) return types[0] === "double" && this.atomOk(a) && this.atomOk(b);
    if (COMPARISONS.has(e.op)) {
      if (types[0] === "int")
        return [a, b].every((x) => !this.isVarying(x) || (x.kind === "var" && this.offsets.has(x.id)));
      return this.atomOk(a) && this.atomOk(b);
    }
    if (e.op === "and" || e.op === "or" || e.op === "not") return true;
    return false;
  }

  /**
   * A loop `ifold (fun s b -> body) init n` on a Double state whose value varies (outer lanes): the count the same in
   * every lane and the index b too (one ordinary loop over b for all lanes), the state a lane value, each lane's
   * steps its own (a sum still added in b order).
   */
  private fold(e: Ifold): boolean {
    if (e.acc.type.k !== "double" || !this.atomOk(e.init)) return false;
    // A count `i + c` (lane q's the first lane's + q), at the body's top level only: the first lane's steps for all
    // lanes, then each later lane's last steps, masked. One such loop per body.
    const countOffset = e.count.kind === "var" ? this.offsets.get(e.count.id) : undefined;
    const varyingCount = this.isVarying(e.count);
    if (varyingCount && (countOffset === undefined || countOffset < 0 || this.foldDepth > 0 || this.varyingCount))
      return false;
    this.inside.add(e.index.id);
    this.inside.add(e.acc.id);
    this.varying.add(e.acc.id);
    const body = withNamedTail(e.body);
    this.foldDepth++;
    const ok = this.body(body, false);
    this.foldDepth--;
    if (!ok) return false;
    this.folds.set(e, body);
    if (varyingCount) this.varyingCount = true;
    return true;
  }

  /** The lane row whose `length` `e` is, if it is one. */
  rowLength(e: Expr): LaneRow | undefined {
    if (e.kind !== "prim" || e.op !== "length") return undefined;
    const row = e.args[0]!;
    return row.kind === "var" ? this.laneRows.get(row.id) : undefined;
  }

  /** Notes a uniform `row = M[u]` of a matrix of Doubles bound outside the loop (its reads at i + c run in lanes). */
  private row(l: Let): void {
    const e = l.rhs;
    if (e.kind !== "prim" || e.op !== "get") return;
    const m = e.args[0]!;
    const t = m.type;
    if (m.kind === "var" && t.k === "array" && t.elem.k === "array" && t.elem.elem.k === "double")
      if (this.availableBefore(m)) this.rows.set(l.v.id, m);
  }

  /**
   * `a[i + c]` of a vector bound outside the loop, or of a uniform row of a matrix bound outside: a load of
   * consecutive elements. `M[i + c]` of a matrix of Doubles bound outside: a row per lane, read at uniform indexes u
   * (`row[u]`: an element of each lane's row, checked against M's dimension 1 once for all).
   */
  private read(v: Var, arr: Atom, at: Atom, t: Prim["type"], inBranch: boolean): boolean {
    if (inBranch || arr.kind !== "var") return false;
    const row = this.laneRows.get(arr.id);
    if (row !== undefined) return t.k === "double" && !this.isVarying(at);
    if (at.kind === "var" && this.shifted.has(at.id)) {
      // A vector bound outside, or a uniform row: consecutive elements, checked as the lanes go.
      if (t.k !== "double") return false;
      return (
        this.rows.has(arr.id) || (arr.type.k === "array" && arr.type.elem.k === "double" && this.availableBefore(arr))
      );
    }
    const c = at.kind === "var" ? this.offsets.get(at.id) : undefined;
    if (c === undefined || c < 0) return false;
    const matrix = this.rows.get(arr.id);
    if (matrix !== undefined && t.k === "double") {
      this.bounds.push({ length: { array: matrix, dim: 1 }, offset: c });
      return true;
    }
    if (arr.type.k !== "array" || !this.availableBefore(arr)) return false;
    if (t.k === "array" && t.elem.k === "double") {
      this.laneRows.set(v.id, { matrix: arr, offset: c });
      this.bounds.push({ length: { array: arr }, offset: c });
      return true;
    }
    if (t.k !== "double") return false;
    this.bounds.push({ length: { array: arr }, offset: c });
    return true;
  }

  bound(b: LaneBound): void {
    this.bounds.push(b);
  }

  /** Notes a variable bound in the body outside any let (an inner loop's index): uniform, not available before. */
  enter(v: Var): void {
    this.inside.add(v.id);
  }

  /** Whether a variable is a lane value (or the loop index plus a literal, or shifted). */
  varies(id: number): boolean {
    return this.varying.has(id);
  }

  /** Whether a variable is a shifted index `i + u + c`. */
  isShiftedIndex(a: Atom): boolean {
    return a.kind === "var" && this.shifted.has(a.id);
  }

  /** The offset from the loop index of an Index atom that is one (the index plus a literal). */
  offsetOf(a: Atom): number | undefined {
    return a.kind === "var" ? this.offsets.get(a.id) : undefined;
  }

  availableBefore(a: Atom): boolean {
    return a.kind === "lit" || (this.outside(a.id) && !this.inside.has(a.id));
  }
}

/**
 * A loop whose step combines terms computed in lanes with a small scalar step on the state, in order: the terms (a
 * nested loop each: a distance to each centroid) for a group of lanes at once, then the step for each lane one after
 * the other, as the loop takes them. `ifold (fun s j -> let x = <loop over l> in (min (fst s) x, if .. then snd s else
 * j)) z n`: a min with the index of its element (../ad/selection-folds.ts), or any scalar step the reduction plan does
 * not cover. Terms in lanes cannot fail (the lanes stop below any out-of-range read); the step's errors come in order.
 */
export interface CombinePlan extends LanePlan {
  /** The lets that do not depend on the state, computed in lanes (reordered in front: pure, and none can fail). */
  readonly lets: readonly Let[];
  /** The Doubles of those lets the step reads that differ between lanes: extracted lane by lane. */
  readonly terms: readonly Var[];
  /** The step: the lets that depend on the state, and the tail, written as scalar code once per lane. */
  readonly step: Expr;
}

/** Lets of the step written once per lane: a bound on the code they add. */
const MAX_STEP_LETS = 12;

/** The combine plan of an ifold, if its state-independent lets hold a loop across lanes and its step is small. */
export function combineLanes(e: Ifold, outside: (id: number) => boolean): CombinePlan | undefined {
  const independent: Let[] = [];
  const dependent: Let[] = [];
  const onState = new Set<number>([e.acc.id]);
  let tail = e.body;
  for (; tail.kind === "let"; tail = tail.body) {
    const reads = [...freeVars(tail.rhs).keys()];
    if (reads.some((id) => onState.has(id))) {
      onState.add(tail.v.id);
      dependent.push(tail);
    } else independent.push(tail);
  }
  if (independent.length === 0 || dependent.length > MAX_STEP_LETS) return undefined;
  const scalarStep = (x: Expr): boolean =>
    x.kind === "var" ||
    x.kind === "lit" ||
    x.kind === "tuple" ||
    x.kind === "proj" ||
    (x.kind === "prim" && PRIMS[x.op].domain === "scalar") ||
    (x.kind === "if" && scalarBranch(x.then) && scalarBranch(x.else));
  const scalarBranch = (x: Expr): boolean => {
    for (; x.kind === "let"; x = x.body) if (!scalarStep(x.rhs)) return false;
    return scalarStep(x);
  };
  if (!dependent.every((l) => scalarStep(l.rhs)) || !scalarStep(tail)) return undefined;
  const a = new Analysis(e.index, outside);
  for (const l of independent) if (!a.let(l, false)) return undefined;
  const plan = a.plan();
  if (plan.folds.size === 0) return undefined;
  const independentIds = new Set(independent.map((l) => l.v.id));
  const terms = new Map<number, Var>();
  const stepReads = [...dependent.map((l) => l.rhs), tail];
  for (const x of stepReads)
    for (const v of freeVars(x).values()) {
      if (!independentIds.has(v.id) || !plan.varying.has(v.id)) continue;
      // A varying value the step reads must be a lane's Double (an offset index or a row per lane is not).
      if (v.type.k !== "double" || !a.atomOk(v)) return undefined;
      terms.set(v.id, v);
    }
  let step: Expr = tail;
  for (let k = dependent.length - 1; k >= 0; k--) step = { ...dependent[k]!, body: step };
  return { ...plan, lets: independent, terms: [...terms.values()], step };
}

/** The lanes of a reduction or combine loop on its own (everything it does not bind is bound outside it). */
function ownLanes(e: Ifold): LanePlan | undefined {
  const inside = new Set<number>([e.acc.id, e.index.id]);
  forEachNode(e.body, (n) => binders(n).forEach((v) => inside.add(v.id)));
  const outside = (id: number) => !inside.has(id);
  return reductionLanes(e, outside) ?? combineLanes(e, outside);
}

/**
 * `plan`, unless it reads a row per lane (a load per lane, one group) around a loop that runs in lanes of its own on
 * consecutive elements (several groups; a matrix read through its transpose, ../lowering/transpose-rows.ts): then
 * the inner loop takes the lanes. k-means' cost: lanes over the centroids for each point, not over the points.
 */
export function unlessInnerLanes<P extends LanePlan>(plan: P | undefined): P | undefined {
  if (plan === undefined || plan.laneRows.size === 0) return plan;
  for (const fold of plan.folds.keys()) {
    const inner = ownLanes(fold);
    if (inner !== undefined && inner.laneRows.size === 0 && inner.folds.size > 0) return undefined;
  }
  return plan;
}
