// A sparse Jacobian or Hessian request, for the library and the CLI alike: the pattern found by the analysis at the
// call's shapes and Index values (./analysis.ts), the colouring and the mode (./colouring.ts), the colour arguments
// the compressed program (./compressed-programs.ts) takes, and from that program's result the matrix in compressed
// sparse row form (./decompress.ts). A plan is made once per argument shapes and Index values; every call with the
// same ones runs the compressed program and gathers.
//
// Rows and columns are numbered as the dense Jacobian's (the CLI's `smooth jacobian`): rows are the output's scalars
// (leaves of a tuple in order, arrays row-major), columns the differentiated arguments' scalars, argument after
// argument, each row-major. A Hessian's rows and columns are both the latter.

import { valueSize, type Mode, type Subject } from "../api/derivatives.js";
import { doubleRank } from "../ad/seed.js";
import { typeOf, type IrFunction } from "../ir/ir.js";
import { shapeSize, type DenseArray, type Value } from "../runtime/value.js";
import type { Span } from "../syntax/source.js";
import { fail } from "../syntax/diagnostics.js";
import { showType, type Type } from "../types/types.js";
import { hessianAlgebra, jacobianAlgebra } from "./algebra.js";
import { Analysis } from "./analysis.js";
import {
  columnColouring,
  maxRowLength,
  rowColouring,
  starColouring,
  trivialColouring,
  type Colouring,
} from "./colouring.js";
import { entrySources, gather, type Compression } from "./decompress.js";
import { DepsReader } from "./deps.js";
import { densePattern, density, entries, hessianPattern, isDense, jacobianPattern, transpose } from "./pattern.js";
import type { Pattern } from "./pattern.js";
import { abstractOf, GiveUp, Lattice, type Abs } from "./values.js";

/** A sparse matrix in compressed sparse row form, with how it was computed. */
export interface SparseMatrix {
  /** [rows, columns]. */
  readonly shape: readonly [number, number];
  /** rows + 1 offsets: row r's entries are at rowPointers[r] .. rowPointers[r + 1] - 1 of the two arrays below. */
  readonly rowPointers: Int32Array;
  /** Each entry's column, ascending within a row. */
  readonly columnIndexes: Int32Array;
  /** Each entry's value (an entry the analysis could not rule out may be 0). */
  readonly values: Float64Array;
  readonly info: SparseInfo;
}

export interface SparseInfo {
  /** forward: column compression (one tangent per colour); reverse: row compression (one sweep per colour). */
  readonly mode: Mode;
  /** How many passes the compressed evaluation made. */
  readonly colours: number;
  /** Entries stored / (rows · columns). */
  readonly density: number;
  /** Set when the pattern is dense: why (the analysis' reason, or the density), and that no compression was done. */
  readonly note?: string;
}

export type SparseKind = "jacobian" | "hessian";

export interface SparseRequest {
  readonly kind: SparseKind;
  readonly subject: Subject;
  /** How messages name the request: "jacobian(`f`) with sparse", "smooth jacobian --sparse". */
  readonly context: string;
  /** The primal, first-order (forward-ad and inlining done), whose pattern is found. */
  readonly firstOrder: IrFunction;
  readonly argTypes: readonly Type[];
  readonly values: readonly Value[];
  readonly wrt: readonly number[];
  /** The primal's result at these values (asked only when the analysis cannot tell the output's shape). */
  output(): Value;
  readonly requested?: Mode;
}

export interface SparsePlan {
  readonly kind: SparseKind;
  readonly pattern: Pattern;
  readonly mode: Mode;
  readonly colouring: Colouring;
  readonly compression: Compression;
  readonly info: SparseInfo;
  /** The compressed program's extra arguments: the colours (shaped like the seeded values), then their count. */
  readonly colourArguments: readonly Value[];
  /** Per colour, how many scalars the compressed program returns. */
  readonly passLength: number;
  readonly sources: Int32Array;
  /** For messages about later calls. */
  readonly describe: { readonly what: string; readonly context: string; readonly span?: Span };
}

/** Each differentiated argument is a Double or an array of Doubles (what the colours are shaped like). */
function checkSeedable(req: SparseRequest): void {
  for (const k of req.wrt) {
    const t = req.argTypes[k]!;
    if (doubleRank(t) === undefined)
      fail(
        "unsupported",
        `${req.context} needs ${req.subject.argument(k)} to be a Double or an array of Doubles`,
        req.subject.span,
        {
          expected: "Double, Vector, Matrix, ...",
          found: showType(t),
          hint: "differentiate with respect to such arguments (argnums), or use the dense Jacobian",
        },
      );
  }
}

/** The pattern of the request, or a dense one with the reason the analysis gave up. */
function findPattern(req: SparseRequest, columns: number, outputType: Type): { pattern: Pattern; gaveUp?: string } {
  const algebra = req.kind === "hessian" ? hessianAlgebra() : jacobianAlgebra();
  const lattice = new Lattice(algebra, new DepsReader(columns));
  // Positions are numbered argument after argument in wrt's order, each argument row-major.
  const args: Abs[] = req.firstOrder.params.map((_, k) => abstractOf(req.values[k]!, req.argTypes[k]!));
  let offset = 0;
  for (const k of req.wrt) {
    const base = offset;
    args[k] = abstractOf(req.values[k]!, req.argTypes[k]!, (j) => algebra.input(base + j));
    offset += valueSize(req.values[k]!);
  }
  try {
    const out = new Analysis(lattice, req.firstOrder).run(req.firstOrder, args);
    if (req.kind === "hessian") return { pattern: hessianPattern(out, algebra, columns) };
    return { pattern: jacobianPattern(out, outputType, () => req.output(), algebra, columns) };
  } catch (e) {
    if (!(e instanceof GiveUp)) throw e;
    const rows = req.kind === "hessian" ? columns : valueSize(req.output());
    return { pattern: densePattern(rows, columns), gaveUp: e.message };
  }
}

/** A Jacobian's output is a Double, an array of Doubles, or a tuple of them (its rows: the leaves in order). */
function checkOutput(req: SparseRequest, t: Type): void {
  const ok = (u: Type): boolean => doubleRank(u) !== undefined || (u.k === "tuple" && u.elems.every(ok));
  if (!ok(t))
    fail(
      "unsupported",
      `${req.context} needs ${req.subject.label} to return Doubles, arrays of Doubles, or tuples of them`,
      req.subject.span,
      {
        expected: "Double, Vector, Matrix, ... (or a tuple of them)",
        found: showType(t),
      },
    );
}

/** An Index value shaped like `like` (a Double or a dense array) holding `colours[offset ...]`. */
function colourValue(like: Value, colours: Int32Array, offset: number): Value {
  if (typeof like === "number") return colours[offset]!;
  const shape = (like as DenseArray).shape;
  const data = colours.slice(offset, offset + shapeSize(shape));
  return { tag: "dense", elemKind: "int", shape, data };
}

/** The colouring and mode of a Jacobian's pattern: the fewer passes, forward on a tie (or as requested). */
function jacobianColouring(
  req: SparseRequest,
  pattern: Pattern,
  reverseOk: boolean,
): { mode: Mode; colouring: Colouring } {
  if (req.requested === "reverse" && !reverseOk)
    fail(
      "unsupported",
      `${req.context} in reverse mode needs ${req.subject.label} to return a Double or an array of Doubles`,
      req.subject.span,
    );
  const dense = isDense(pattern);
  const forward = (): Colouring => (dense ? trivialColouring(pattern.columns) : columnColouring(pattern));
  const reverse = (): Colouring => (dense ? trivialColouring(pattern.rows) : rowColouring(pattern));
  if (req.requested === "forward") return { mode: "forward", colouring: forward() };
  if (req.requested === "reverse") return { mode: "reverse", colouring: reverse() };
  if (dense)
    return reverseOk && pattern.rows < pattern.columns
      ? { mode: "reverse", colouring: reverse() }
      : { mode: "forward", colouring: forward() };
  const byColumns = forward();
  // A row colouring needs at least as many colours as a column has entries: skip it when that is already more.
  if (!reverseOk || maxRowLength(transpose(pattern)) >= byColumns.count)
    return { mode: "forward", colouring: byColumns };
  const byRows = reverse();
  return byRows.count < byColumns.count
    ? { mode: "reverse", colouring: byRows }
    : { mode: "forward", colouring: byColumns };
}

/** The pattern, colouring and mode of a request, and what its compressed program takes. */
export function planSparse(req: SparseRequest): SparsePlan {
  checkSeedable(req);
  const outputType = typeOf(req.firstOrder.body);
  if (req.kind === "jacobian") checkOutput(req, outputType);
  const columns = req.wrt.reduce((n, k) => n + valueSize(req.values[k]!), 0);
  const { pattern, gaveUp } = findPattern(req, columns, outputType);
  const { mode, colouring } =
    req.kind === "hessian"
      ? { mode: "forward" as const, colouring: isDense(pattern) ? trivialColouring(columns) : starColouring(pattern) }
      : jacobianColouring(req, pattern, doubleRank(outputType) !== undefined);
  const compression: Compression = req.kind === "hessian" ? "star" : mode === "forward" ? "columns" : "rows";
  const colourArguments: Value[] = [];
  if (mode === "forward") {
    let offset = 0;
    for (const k of req.wrt) {
      colourArguments.push(colourValue(req.values[k]!, colouring.colours, offset));
      offset += valueSize(req.values[k]!);
    }
  } else colourArguments.push(colourValue(req.output(), colouring.colours, 0));
  colourArguments.push(colouring.count);
  const dense = mode === "forward" ? pattern.columns : pattern.rows;
  const what = `the ${req.kind === "hessian" ? "Hessian" : "Jacobian"} of ${req.subject.label}`;
  const share = `${entries(pattern)} of ${pattern.rows} × ${pattern.columns} entries (${(100 * density(pattern)).toFixed(1)}%)`;
  const note =
    gaveUp !== undefined
      ? `the sparsity analysis could not tell which entries of ${what} are zero (${gaveUp}): every entry is computed and stored`
      : dense > 0 && colouring.count >= dense
        ? `${what} is dense: ${share} may be non-zero, so compression saves nothing and it is computed as a dense one`
        : undefined;
  return {
    kind: req.kind,
    pattern,
    mode,
    colouring,
    compression,
    info: { mode, colours: colouring.count, density: density(pattern), ...(note === undefined ? {} : { note }) },
    colourArguments,
    passLength: compression === "rows" ? pattern.columns : pattern.rows,
    sources: entrySources(pattern, colouring, compression),
    describe: { what, context: req.context, span: req.subject.span },
  };
}

/** The compressed program's result (a build over the colours) as B[k · passLength + i]. */
function passes(plan: SparsePlan, v: Value): Float64Array {
  const count = plan.colouring.count;
  const leaves: DenseArray[] = [];
  const collect = (x: Value) => {
    if (typeof x !== "object" || (x.tag !== "dense" && x.tag !== "tuparr"))
      throw new Error("a compressed derivative program returned something other than an array");
    if (x.tag === "dense") leaves.push(x);
    else x.fields.forEach(collect);
  };
  if (count > 0) collect(v);
  const sizes = leaves.map((l) => shapeSize(l.shape) / count);
  const length = sizes.reduce((a, b) => a + b, 0);
  if (length !== plan.passLength && count > 0) {
    const { what, context, span } = plan.describe;
    fail(
      "shape",
      `${context}: ${what} has ${length} ${plan.compression === "rows" ? "columns" : "rows"} at this call, but ${plan.passLength} when its sparsity pattern was found for arguments of these shapes`,
      span,
      { hint: "the shape of its result depends on the values of its Doubles, which a sparse derivative cannot follow" },
    );
  }
  if (leaves.length === 1) return leaves[0]!.data as Float64Array;
  const out = new Float64Array(count * length);
  let offset = 0;
  leaves.forEach((leaf, f) => {
    const size = sizes[f]!;
    for (let k = 0; k < count; k++)
      out.set((leaf.data as Float64Array).subarray(k * size, (k + 1) * size), k * length + offset);
    offset += size;
  });
  return out;
}

/** The sparse matrix from the compressed program's result. */
export function sparseResult(plan: SparsePlan, compressed: Value, borrowed?: { values: Float64Array }): SparseMatrix {
  const { pattern } = plan;
  // Borrowed: the pattern's own arrays and one values array per plan, rewritten by every call (the caller reads the
  // result before calling again); otherwise fresh arrays the caller owns.
  return {
    shape: [pattern.rows, pattern.columns],
    rowPointers: borrowed ? pattern.rowPointers : pattern.rowPointers.slice(),
    columnIndexes: borrowed ? pattern.columnIndexes : pattern.columnIndexes.slice(),
    values: gather(passes(plan, compressed), plan.sources, borrowed?.values),
    info: plan.info,
  };
}
