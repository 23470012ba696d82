// Rows per lane read through a transposed copy, for the SIMD lanes of ./lanes.ts. A build whose lanes read M[i + c][u]
// (one element of each lane's row: a load per lane, as in `build n (fun i -> vectorDot W[i] x)`) reads MT[u][i + c]
// instead: consecutive elements of a row of MT, the transpose of M, one vector load; the lanes then run as outer lanes
// over uniform rows, several groups side by side. MT is computed once, at the top of the function, so this is done
// only where it pays: M is a parameter or a let at the top of the function, and the build is inside a loop (a network's
// layer applied to each sample of a batch), so the copy is read many times for the one it costs.
//
// Same values (the same elements, read in the same order) and the same errors: `M[i + c]` becomes `checkIndex (i + c)
// (length M)` with the read's span (the same message, first, as before); `row[u]` becomes `MT[u]` with its own span
// (u below M's row length, as before: MT has one row per column of M), then `MT[u][i + c]`, in range. MT is built only
// when M has rows, so computing it never fails.

import { AnfBuilder, mkBuild, mkIf, mkPrim, splitLets, wrapLets, type Binding } from "../ir/builder.js";
import { binders, forEachNode } from "../ir/free.js";
import { freshVar, type Atom, type Build, type Expr, type IrFunction, type Var } from "../ir/ir.js";
import type { Span } from "../syntax/source.js";
import { INT } from "../types/types.js";
import { buildLanes, type LaneRow } from "./lanes.js";

/** M -> its transpose and the lets computing it. */
interface Transposed {
  readonly mt: Var;
  /** M's length (its number of rows), bound with MT. */
  readonly rows: Atom;
  readonly bindings: readonly Binding[];
}

export function transposeLaneRows(fn: IrFunction): IrFunction {
  const t = new TransposeRows(fn);
  const { bindings, tail } = splitLets(fn.body);
  const top = bindings.map(({ v, rhs }) => {
    const out = t.node(rhs, 0);
    t.atTop(v);
    return { v, rhs: out };
  });
  const last = t.node(tail, 0);
  if (t.made.size === 0) return fn;
  // Each transpose right after its matrix: at the start for a parameter, after its let for a top-level one.
  const placed: Binding[] = [];
  const after = (id: number) => t.made.get(id)?.bindings ?? [];
  for (const p of fn.params) placed.push(...after(p.id));
  for (const b of top) placed.push(b, ...after(b.v.id));
  return { ...fn, body: wrapLets(placed, last) };
}

class TransposeRows {
  readonly made = new Map<number, Transposed>();
  /** Variables bound at the top of the function (parameters and its outermost lets): computed on every call. */
  private readonly top = new Set<number>();
  /** Variables in scope, by id. */
  private readonly bound = new Set<number>();

  constructor(fn: IrFunction) {
    for (const p of fn.params) this.atTop(p);
  }

  atTop(v: Var): void {
    this.top.add(v.id);
    this.bound.add(v.id);
  }

  /** A node rewritten; `depth` counts the loops around it. */
  node(e: Expr, depth: number): Expr {
    switch (e.kind) {
      case "let":
        return this.scope(e, depth);
      case "if":
        return { ...e, then: this.scope(e.then, depth), else: this.scope(e.else, depth) };
      case "lam":
        return { ...e, body: this.scope(e.body, depth, [e.param]) };
      case "ifold":
        return { ...e, body: this.scope(e.body, depth + 1, [e.index, e.acc]) };
      case "while":
        return { ...e, cond: this.scope(e.cond, depth + 1, [e.acc]), body: this.scope(e.body, depth + 1, [e.acc]) };
      case "build": {
        const inner = { ...e, body: this.scope(e.body, depth + 1, [e.index]) };
        return depth > 0 ? (this.rowsTransposed(inner) ?? inner) : inner;
      }
      default:
        return e;
    }
  }

  /** A nested let chain (a branch or a loop body, its binders given). */
  private scope(e: Expr, depth: number, binders: readonly Var[] = []): Expr {
    for (const b of binders) this.bound.add(b.id);
    const { bindings, tail } = splitLets(e);
    const out = bindings.map(({ v, rhs }) => {
      const next = this.node(rhs, depth);
      this.bound.add(v.id);
      return { v, rhs: next };
    });
    return wrapLets(out, this.node(tail, depth));
  }

  /** The build with its rows per lane read through transposes, if it has any and each can be. */
  private rowsTransposed(b: Build): Build | undefined {
    const inside = new Set<number>();
    forEachNode(b.body, (n) => binders(n).forEach((v) => inside.add(v.id)));
    const plan = buildLanes(b.index, b.body, (id) => this.bound.has(id) && !inside.has(id) && id !== b.index.id);
    if (plan === undefined || plan.laneRows.size === 0) return undefined;
    for (const row of plan.laneRows.values()) if (!this.top.has(row.matrix.id)) return undefined;
    const rows = new Map<number, RowRead>();
    const { bindings, tail } = splitLets(b.body);
    for (const { v, rhs } of bindings) {
      const row = plan.laneRows.get(v.id);
      if (row !== undefined && rhs.kind === "prim" && rhs.op === "get")
        rows.set(v.id, { row, at: rhs.args[1]!, span: rhs.span });
    }
    // Every row per lane is read at the top of the element (the lanes analysis allows it nowhere else in practice).
    if (rows.size !== plan.laneRows.size) return undefined;
    const rewrite = new RowReads(rows, (m) => this.transpose(m));
    const body = rewrite.expr(wrapLets(bindings, tail));
    return rewrite.ok ? { ...b, body } : undefined;
  }

  /** M's transpose (made once): `if 0 < length M then build (length M[0]) (fun k -> build (length M) ...)`. */
  private transpose(m: Var): Transposed {
    const known = this.made.get(m.id);
    if (known !== undefined) return known;
    const zero = { kind: "lit", value: 0, type: INT } as const;
    const b = new AnfBuilder();
    const rowsOfM = b.prim("length", [m], "rows");
    const hasRows = b.prim("lt", [zero, rowsOfM], "hasRows");
    const mt = freshVar(`${m.name}T`, m.type);
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
      return fb.finish(mkBuild(cols, k, mkBuild(rowsOfM, j, inner)));
    })();
    b.bindVar(mt, mkIf(hasRows, full, empty));
    const done: Transposed = { mt, rows: rowsOfM, bindings: splitLets(b.finish(mt)).bindings };
    this.made.set(m.id, done);
    return done;
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

  private nested(e: Expr): Expr {
    switch (e.kind) {
      case "if":
        return { ...e, then: this.expr(e.then), else: this.expr(e.else) };
      case "build":
      case "ifold":
      case "lam":
        return { ...e, body: this.expr(e.body) };
      case "while":
        return { ...e, cond: this.expr(e.cond), body: this.expr(e.body) };
      default:
        return e;
    }
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
    if (this.usesRow(rhs) && rhs.kind !== "if" && rhs.kind !== "build" && rhs.kind !== "ifold" && rhs.kind !== "while")
      this.ok = false;
    return [{ v, rhs: this.nested(rhs) }];
  }

  /** Whether a node (not looking into nested scopes) uses a row per lane other than as rewritten above. */
  private usesRow(e: Expr): boolean {
    const atoms: Atom[] =
      e.kind === "prim"
        ? [...e.args]
        : e.kind === "tuple"
          ? [...e.elems]
          : e.kind === "var"
            ? [e]
            : e.kind === "proj"
              ? [e.arg]
              : e.kind === "if"
                ? [e.cond]
                : e.kind === "build"
                  ? [e.size]
                  : e.kind === "ifold"
                    ? [e.init, e.count]
                    : [];
    return atoms.some((a) => a.kind === "var" && this.rows.has(a.id));
  }
}
