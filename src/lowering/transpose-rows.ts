// Rows per lane read through a transposed copy, for the SIMD lanes of ./lanes.ts. A build whose lanes read M[i + c][u]
// (one element of each lane's row: a load per lane, as in `build n (fun i -> vectorDot W[i] x)`) reads MT[u][i + c]
// instead: consecutive elements of a row of MT, the transpose of M, one vector load; the lanes then run as outer lanes
// over uniform rows, several groups side by side. MT is computed once per call, in front of the loop nest at the top of
// the function that holds the build: M is a parameter or a top-level let, and the build is inside a loop (a
// network's layer applied to each sample of a batch, a mixture's components for each point).
//
// Only where it pays: the copy costs M's elements once, and the loop nest reads the rows of M (count of the build)
// times (counts of the loops around it) times. When that is fewer than M's rows (a few rows of a large matrix), the
// nest runs as it was: the decision is made at run time, on the counts (`if pays then <nest reading MT> else <nest>`).
//
// Same values (the same elements, read in the same order) and the same errors: `M[i + c]` becomes `checkIndex (i + c)
// (length M)` with the read's span (the same message, first, as before); `row[u]` becomes `MT[u]` with its own span
// (u below M's row length, as before: MT has one row per column of M), then `MT[u][i + c]`, in range. MT is built only
// when M has rows, so computing it never fails; neither does deciding whether it pays.

import { AnfBuilder, mkBuild, mkIf, mkPrim, splitLets, wrapLets, type Binding } from "../ir/builder.js";
import { mapNode, operands } from "../ir/free.js";
import { freshVar, typeOf, type Atom, type Build, type Expr, type Ifold, type IrFunction, type Var } from "../ir/ir.js";
import { copyFresh } from "../ir/rename.js";
import type { Span } from "../syntax/source.js";
import { BOOL, DOUBLE, INT } from "../types/types.js";
import { buildLanes, combineLanes, reductionLanes, type LanePlan, type LaneRow } from "./lanes.js";

/** The variables M's transpose and M's length (its number of rows) are bound to. */
interface Transposed {
  readonly mt: Var;
  readonly rows: Var;
}

/** A build rewritten to read transposes: its matrices, and the loop counts whose product is how often it runs. */
interface Site {
  readonly matrices: readonly Var[];
  readonly counts: readonly Atom[];
}

export function transposeLaneRows(fn: IrFunction): IrFunction {
  const t = new TransposeRows(fn);
  const { bindings, tail } = splitLets(fn.body);
  const last = freshVar("result", typeOf(tail));
  const top = isAtomExpr(tail) ? bindings : [...bindings, { v: last, rhs: tail }];
  const placed: Binding[] = [];
  let changed = false;
  for (const { v, rhs } of top) {
    const { expr, sites } = t.topLevel(rhs);
    t.atTop(v);
    if (sites.length === 0) {
      placed.push({ v, rhs });
      continue;
    }
    changed = true;
    const b = new AnfBuilder();
    const pays = t.pays(sites, b);
    for (const m of new Set(sites.flatMap((s) => s.matrices))) t.transpose(m, pays, b);
    // Fresh binders for the copy that reads the transposes: binders stay unique in the function.
    b.bindVar(v, mkIf(pays, copyFresh(expr), rhs));
    placed.push(...splitLets(b.finish(v)).bindings);
  }
  if (!changed) return fn;
  return { ...fn, body: wrapLets(placed, isAtomExpr(tail) ? tail : last) };
}

const isAtomExpr = (e: Expr): e is Atom => e.kind === "var" || e.kind === "lit";

class TransposeRows {
  private made = new Map<number, Transposed>();
  private sites: Site[] = [];
  /** The counts of the loops around the node being rewritten (undefined: a while loop's, unknown). */
  private readonly counts: (Atom | undefined)[] = [];
  /** Variables bound at the top of the function (parameters and its outermost lets): computed on every call. */
  private readonly top = new Set<number>();
  /**
   * Variables met so far, by id, each with its order (binders are unique): those in scope, and those of scopes left,
   * which nothing can name any more. A loop's own variables are those ordered from the loop's start on, so which
   * variables are outside a loop is known without walking its body again (once per loop around it).
   */
  private readonly bound = new Map<number, number>();

  private bind(v: Var): void {
    if (!this.bound.has(v.id)) this.bound.set(v.id, this.bound.size);
  }

  constructor(fn: IrFunction) {
    for (const p of fn.params) this.atTop(p);
  }

  atTop(v: Var): void {
    this.top.add(v.id);
    this.bind(v);
  }

  /** A top-level right-hand side with its builds reading transposes, and the sites rewritten. */
  topLevel(e: Expr): { expr: Expr; sites: readonly Site[] } {
    this.sites = [];
    this.made = new Map();
    const expr = this.node(e);
    return { expr, sites: this.sites };
  }

  /** `pays`: every site reads its matrices' rows at least as many times as they have rows (a Bool, bound in `b`). */
  pays(sites: readonly Site[], b: AnfBuilder): Atom {
    let all: Atom = { kind: "lit", value: true, type: BOOL };
    for (const site of sites) {
      let reads: Atom = { kind: "lit", value: 1, type: DOUBLE };
      // In Doubles: a product of counts does not wrap around.
      for (const c of site.counts) reads = b.prim("mul", [reads, b.prim("toDouble", [c], "count")], "reads");
      for (const m of site.matrices) {
        const rows = b.prim("toDouble", [b.prim("length", [m], "rows")], "rows");
        all = b.prim("and", [all, b.prim("le", [rows, reads], "pays")], "pays");
      }
    }
    return all;
  }

  /** A node rewritten. */
  node(e: Expr): Expr {
    switch (e.kind) {
      case "let":
        return this.scope(e);
      case "if":
        return { ...e, then: this.scope(e.then), else: this.scope(e.else) };
      case "lam":
        return { ...e, body: this.scope(e.body, [e.param]) };
      case "ifold": {
        const start = this.bound.size;
        const inner = { ...e, body: this.inLoop(e.count, () => this.scope(e.body, [e.index, e.acc])) };
        return this.counts.length > 0 ? (this.foldRowsTransposed(inner, start) ?? inner) : inner;
      }
      case "while":
        return this.inLoop(undefined, () => ({
          ...e,
          cond: this.scope(e.cond, [e.acc]),
          body: this.scope(e.body, [e.acc]),
        }));
      case "build": {
        const start = this.bound.size;
        const inner = { ...e, body: this.inLoop(e.size, () => this.scope(e.body, [e.index])) };
        return this.counts.length > 0 ? (this.rowsTransposed(inner, start) ?? inner) : inner;
      }
      default:
        return e;
    }
  }

  private inLoop<T>(count: Atom | undefined, f: () => T): T {
    this.counts.push(count);
    const out = f();
    this.counts.pop();
    return out;
  }

  /** A nested let chain (a branch or a loop body, its binders given). */
  private scope(e: Expr, binders: readonly Var[] = []): Expr {
    for (const b of binders) this.bind(b);
    const { bindings, tail } = splitLets(e);
    const out = bindings.map(({ v, rhs }) => {
      const next = this.node(rhs);
      this.bind(v);
      return { v, rhs: next };
    });
    return wrapLets(out, this.node(tail));
  }

  /** Computed at the top of the function: a literal, a parameter or a top-level let. */
  private atTopLevel(a: Atom | undefined): a is Atom {
    return a !== undefined && (a.kind === "lit" || this.top.has(a.id));
  }

  /** The build with its rows per lane read through transposes, if it has any and each can be. */
  private rowsTransposed(b: Build, start: number): Build | undefined {
    const body = this.transposedBody(b.body, b.size, start, (outside) => buildLanes(b.index, b.body, outside));
    return body && { ...b, body };
  }

  /**
   * Likewise a reduction or combine loop running outer lanes (a loop inside it: a min over the centroids, each a sum
   * over a row per lane; the wasm emitter then gives it the lanes rather than a loop around it, ./lanes.ts
   * `unlessInnerLanes`). A plain sum inside a build is left to the build's lanes (a vector-matrix product's columns).
   */
  private foldRowsTransposed(e: Ifold, start: number): Ifold | undefined {
    const plan = (outside: (id: number) => boolean) => {
      const p = reductionLanes(e, outside) ?? combineLanes(e, outside);
      return p !== undefined && p.folds.size > 0 ? p : undefined;
    };
    const body = this.transposedBody(e.body, e.count, start, plan);
    return body && { ...e, body };
  }

  /**
   * A loop body (its loop's count given, and `start`: the order of the loop's first variable) with its rows per lane
   * read through transposes.
   */
  private transposedBody(
    body: Expr,
    count: Atom,
    start: number,
    lanes: (outside: (id: number) => boolean) => LanePlan | undefined,
  ): Expr | undefined {
    const plan = lanes((id) => (this.bound.get(id) ?? start) < start);
    if (plan === undefined || plan.laneRows.size === 0) return undefined;
    for (const row of plan.laneRows.values()) if (!this.top.has(row.matrix.id)) return undefined;
    // How often the nest reads M's rows must be known before it runs: every count around it computed at the top.
    const counts = [...this.counts, count];
    if (!counts.every((c) => this.atTopLevel(c))) return undefined;
    const rows = new Map<number, RowRead>();
    const { bindings, tail } = splitLets(body);
    for (const { v, rhs } of bindings) {
      const row = plan.laneRows.get(v.id);
      if (row !== undefined && rhs.kind === "prim" && rhs.op === "get")
        rows.set(v.id, { row, at: rhs.args[1]!, span: rhs.span });
    }
    // Every row per lane is read at the top of the element (the lanes analysis allows it nowhere else in practice).
    if (rows.size !== plan.laneRows.size) return undefined;
    const rewrite = new RowReads(rows, (m) => this.transposeOf(m));
    const rewritten = rewrite.expr(wrapLets(bindings, tail));
    if (!rewrite.ok) return undefined;
    this.sites.push({ matrices: [...new Set([...rows.values()].map((r) => r.row.matrix))], counts });
    return rewritten;
  }

  /** The variables M's transpose and M's length will be bound to (their lets are written by `transpose`). */
  private transposeOf(m: Var): Transposed {
    const known = this.made.get(m.id);
    if (known !== undefined) return known;
    const made: Transposed = { mt: freshVar(`${m.name}T`, m.type), rows: freshVar("rows", INT) };
    this.made.set(m.id, made);
    return made;
  }

  /** `MT = if pays && 0 < length M then build (length M[0]) (fun k -> build (length M) ...) else []`, into `b`. */
  transpose(m: Var, pays: Atom, b: AnfBuilder): void {
    const { mt, rows } = this.transposeOf(m);
    const zero = { kind: "lit", value: 0, type: INT } as const;
    b.bindVar(rows, mkPrim("length", [m]));
    const hasRows = b.prim("and", [pays, b.prim("lt", [zero, rows], "hasRows")], "transposed");
    const element = m.type.k === "array" && m.type.elem.k === "array" ? m.type.elem.elem : m.type;
    const empty = mkBuild(
      zero,
      freshVar("k", INT),
      mkBuild(zero, freshVar("j", INT), { kind: "lit", value: 0, type: element }),
    );
    const full = (() => {
      const fb = new AnfBuilder();
      const first = fb.prim("get", [m, zero], "row");
      const cols = fb.prim("length", [first], "cols");
      const k = freshVar("k", INT);
      const j = freshVar("j", INT);
      const inner = (() => {
        const ib = new AnfBuilder();
        const rowJ = ib.prim("get", [m, j], "row");
        return ib.finish(mkPrim("get", [rowJ, k]));
      })();
      return fb.finish(mkBuild(cols, k, mkBuild(rows, j, inner)));
    })();
    b.bindVar(mt, mkIf(hasRows, full, empty));
  }
}

interface RowRead {
  readonly row: LaneRow;
  /** The index the row was read at (the build's index plus a literal). */
  readonly at: Atom;
  readonly span: Span | undefined;
}

/** Rewrites the reads of rows per lane in a build's element (see the top of the file). */
class RowReads {
  ok = true;

  constructor(
    private readonly rows: ReadonlyMap<number, RowRead>,
    private readonly transpose: (m: Var) => Transposed,
  ) {}

  expr(e: Expr): Expr {
    const { bindings, tail } = splitLets(e);
    const out: Binding[] = [];
    for (const { v, rhs } of bindings) out.push(...this.binding(v, rhs));
    if (this.usesRow(tail)) this.ok = false;
    return wrapLets(out, this.nested(tail));
  }

  /** A node with its nested scopes rewritten. */
  private nested(e: Expr): Expr {
    return e.kind === "let"
      ? this.expr(e)
      : mapNode(
          e,
          (x) => x,
          (body) => this.expr(body),
        );
  }

  private binding(v: Var, rhs: Expr): Binding[] {
    const own = this.rows.get(v.id);
    if (own !== undefined) {
      // `row = M[i + c]`: the check of that read, first, as before.
      const rows = this.transpose(own.row.matrix).rows;
      return [{ v: freshVar("checked", INT), rhs: mkPrim("checkIndex", [own.at, rows], own.span) }];
    }
    if (rhs.kind === "prim" && (rhs.op === "get" || rhs.op === "length") && rhs.args[0]!.kind === "var") {
      const read = this.rows.get(rhs.args[0]!.id);
      if (read !== undefined) {
        const mt = this.transpose(read.row.matrix).mt;
        if (rhs.op === "length") return [{ v, rhs: mkPrim("length", [mt]) }];
        // `row[u]` -> `MT[u][i + c]`: u checked against MT's rows (M's row length) with the read's span.
        const column = freshVar("column", read.row.matrix.type.k === "array" ? read.row.matrix.type.elem : mt.type);
        return [
          { v: column, rhs: mkPrim("get", [mt, rhs.args[1]!], rhs.span) },
          { v, rhs: mkPrim("get", [column, read.at]) },
        ];
      }
    }
    // Any other use of a row (a loop's initial state, a call's argument, a tuple) would lose its definition.
    if (this.usesRow(rhs)) this.ok = false;
    return [{ v, rhs: this.nested(rhs) }];
  }

  /** Whether a node (not looking into nested scopes) uses a row per lane other than as rewritten above. */
  private usesRow(e: Expr): boolean {
    return operands(e).some((a) => a.kind === "var" && this.rows.has(a.id));
  }
}
