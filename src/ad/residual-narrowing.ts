// Residuals stored whole but read in part. A loop's reverse often reads only some components of a tuple residual (of
// an inner loop's result: its tapes and residuals, not its final state) or some fields of an array of tuples (of a
// build's residual: the stored partial derivatives, not the values). Recording only the components read saves a copy
// per iteration; for LSTM's layer loop nested in its time loop that is a third of what the primal loop records.

import { AnfBuilder, litIndex, mkPrim, mkProj, splitLets, wrapLets, type Binding } from "../ir/builder.js";
import { forEachNode, mapNode, operands } from "../ir/free.js";
import { freshVar, type Atom, type Expr, type Var } from "../ir/ir.js";
import { arrayOf, tupleOf, type Type } from "../types/types.js";

/** Component steps from a value: a tuple's component (proj) or an array of tuples' field. */
type Path = readonly number[];

export interface StoredResidual {
  /** The residual's variable in the reverse's recomputation (its name and type name the tape). */
  readonly copy: Var;
  /** The residual's variable in the primal loop's body. */
  readonly original: Var;
  /** The array the primal records it into; the reverse reads element i. */
  readonly tape: Var;
}

const isArrayOfTuples = (t: Type) => t.k === "array" && t.elem.k === "tuple";

/** The component of type t at step k. */
function stepType(t: Type, k: number): Type {
  if (t.k === "tuple") return t.elems[k]!;
  if (t.k === "array" && t.elem.k === "tuple") return arrayOf(t.elem.elems[k]!);
  throw new Error("residual narrowing: no component of a non-tuple");
}

/** The parent and step of a let's right-hand side that projects one component, if it does. */
function projection(rhs: Expr): { of: Atom; step: number } | undefined {
  if (rhs.kind === "proj") return { of: rhs.arg, step: rhs.index };
  if (rhs.kind === "prim" && rhs.op === "field" && isArrayOfTuples(rhs.args[0]!.type) && rhs.args[1]!.kind === "lit")
    return { of: rhs.args[0]!, step: rhs.args[1]!.value as number };
  return undefined;
}

/** The component paths of a root that a body reads (see `readPaths`); undefined when the root itself is read. */
type ReadPaths = { paths: Map<number, Path>; leaves: Path[] } | undefined;

/**
 * For each of `roots`, the component paths of it that `body` reads: the variables bound to its components (by id,
 * with their paths), and the minimal set of paths read whole (undefined when the root itself is). One walk of the body
 * for all the roots: a loop body of n lets has about n residuals.
 */
function readPaths(body: Expr, roots: readonly Var[]): Map<number, ReadPaths> {
  /** Variable id -> the root it is a component of (by id) and its path from it. */
  const paths = new Map<number, { root: number; path: Path }>(roots.map((r) => [r.id, { root: r.id, path: [] }]));
  const projections = new Set<Expr>();
  const whole = new Map<number, Path[]>(roots.map((r) => [r.id, []]));
  forEachNode(body, (node) => {
    if (node.kind === "let") {
      const p = projection(node.rhs);
      const parent = p?.of.kind === "var" ? paths.get(p.of.id) : undefined;
      if (p !== undefined && parent !== undefined) {
        paths.set(node.v.id, { root: parent.root, path: [...parent.path, p.step] });
        projections.add(node.rhs);
      }
      return;
    }
    if (projections.has(node)) return;
    for (const a of operands(node)) {
      const at = a.kind === "var" ? paths.get(a.id) : undefined;
      if (at !== undefined) whole.get(at.root)!.push(at.path);
    }
  });
  const byRoot = new Map<number, Map<number, Path>>(roots.map((r) => [r.id, new Map()]));
  for (const [id, { root, path }] of paths) byRoot.get(root)!.set(id, path);
  const key = (p: Path) => p.join(".");
  const out = new Map<number, ReadPaths>();
  for (const r of roots) {
    const read = whole.get(r.id)!;
    if (read.some((p) => p.length === 0)) {
      out.set(r.id, undefined);
      continue;
    }
    const unique = [...new Map(read.map((p) => [key(p), p])).values()];
    const leaves = unique.filter((q) => !unique.some((p) => isPrefix(p, q))).sort((a, b) => (key(a) < key(b) ? -1 : 1));
    out.set(r.id, { paths: byRoot.get(r.id)!, leaves });
  }
  return out;
}

/** p is a proper prefix of q. */
const isPrefix = (p: Path, q: Path) => p.length < q.length && p.every((x, i) => x === q[i]);

/** Every leaf of t (all components, recursively through tuples and arrays of tuples). */
function leafCount(t: Type): number {
  if (t.k === "tuple") return t.elems.reduce((n, e) => n + leafCount(e), 0);
  if (t.k === "array" && t.elem.k === "tuple") return t.elem.elems.reduce((n, e) => n + leafCount(arrayOf(e)), 0);
  return 1;
}

/** How many leaves the paths cover. */
function covered(t: Type, leaves: readonly Path[]): number {
  return leaves.reduce((n, p) => n + leafCount(p.reduce(stepType, t)), 0);
}

/**
 * Narrows each residual the reverse loop `body` reads only in part: the primal loop body (`loopBody`, where each
 * residual's `original` is a top-level let) also binds the tuple of the components read, which is what gets recorded,
 * and the reverse reads those components from it. `index` is the reverse body's iteration (the element it reads).
 */
export function narrowResiduals(
  body: Expr,
  loopBody: Expr,
  residuals: readonly StoredResidual[],
  index: Atom,
): { body: Expr; loopBody: Expr; residuals: StoredResidual[] } {
  // Only a residual with components can be read in part; the others (most: scalars) are looked at no further.
  const tapes = new Set(residuals.filter((r) => leafCount(r.copy.type) > 1).map((r) => r.tape.id));
  if (tapes.size === 0) return { body, loopBody, residuals: [...residuals] };
  // The first let of the body reading each tape, and the paths read of each, found once for all the residuals (each
  // narrowing below changes only what reads its own tape).
  const reads = new Map<number, Var>();
  for (const x of splitLets(body).bindings) {
    const a = x.rhs.kind === "prim" && x.rhs.op === "get" ? x.rhs.args[0]! : undefined;
    if (a?.kind === "var" && tapes.has(a.id) && !reads.has(a.id)) reads.set(a.id, x.v);
  }
  const readOf = readPaths(body, [...reads.values()]);
  const { bindings, tail } = splitLets(loopBody);
  const position = new Map(bindings.map((x, k) => [x.v.id, k]));
  /** Lets added after the loop body's let at a position: the last residual's first, as if each were added in turn. */
  const after = new Map<number, Binding[]>();
  const out: StoredResidual[] = [];
  for (const r of residuals) {
    const read = reads.get(r.tape.id);
    const found = read === undefined ? undefined : readOf.get(read.id);
    const at = position.get(r.original.id);
    if (
      read === undefined ||
      found === undefined ||
      at === undefined ||
      covered(r.copy.type, found.leaves) === leafCount(r.copy.type)
    ) {
      out.push(r);
      continue;
    }
    const { paths, leaves } = found;
    const types = leaves.map((p) => p.reduce(stepType, r.copy.type));
    const single = leaves.length === 1;
    const narrowType = single ? types[0]! : tupleOf(types);
    const tape = freshVar(r.tape.name, arrayOf(narrowType));
    const element = freshVar(read.name, narrowType);
    body = readingNarrowed(body, { read, element, tape, index, paths, leaves, single });
    const b = new AnfBuilder();
    const leafAtoms = leaves.map((p) =>
      p.reduce<Atom>(
        (x, k) => (x.type.k === "tuple" ? b.proj(k, x, "part") : b.prim("field", [x, litIndex(k)], "part")),
        r.original,
      ),
    );
    const stored = single ? leafAtoms[0]! : b.tuple(leafAtoms, r.original.name);
    const extra = b.finish(stored);
    after.set(at, [...splitLets(extra).bindings, ...(after.get(at) ?? [])]);
    const original = stored.kind === "var" ? stored : r.original;
    out.push({ copy: freshVar(r.copy.name, narrowType), original, tape });
  }
  if (after.size > 0)
    loopBody = wrapLets(
      bindings.flatMap((x, k) => [x, ...(after.get(k) ?? [])]),
      tail,
    );
  return { body, loopBody, residuals: out };
}

/**
 * `body` reading `element` (of the narrowed tape) in place of `read`: a component read whole becomes a projection of
 * it (or it, when there is one), and the projections that only led there are dropped.
 */
function readingNarrowed(
  body: Expr,
  n: { read: Var; element: Var; tape: Var; index: Atom; paths: Map<number, Path>; leaves: Path[]; single: boolean },
): Expr {
  const key = (p: Path) => p.join(".");
  const leafAt = new Map(n.leaves.map((p, j) => [key(p), j]));
  const subst = new Map<number, Atom>();
  const atom = (a: Atom): Atom => (a.kind === "var" ? (subst.get(a.id) ?? a) : a);
  const rewrite = (e: Expr): Expr => {
    if (e.kind !== "let") return mapNode(e, atom, rewrite);
    const { bindings, tail } = splitLets(e);
    const kept: Binding[] = [];
    for (const x of bindings) {
      if (x.v.id === n.read.id) {
        kept.push({ v: n.element, rhs: mkPrim("get", [n.tape, n.index]) });
        continue;
      }
      const p = n.paths.get(x.v.id);
      if (p !== undefined) {
        const j = leafAt.get(key(p));
        if (j !== undefined) {
          if (n.single) subst.set(x.v.id, n.element);
          else kept.push({ v: x.v, rhs: mkProj(j, n.element) });
          continue;
        }
        if (n.leaves.some((q) => isPrefix(p, q))) continue; // only leads to components read whole
        // Deeper than a component read whole: a projection of it, kept.
      }
      kept.push({ v: x.v, rhs: rewrite(x.rhs) });
    }
    return wrapLets(kept, rewrite(tail));
  };
  return rewrite(body);
}
