// Dependency sets of the sparsity analysis (./analysis.ts): which input positions a Double can depend on (first
// order), and which pairs of input positions its second derivative can involve (second order, for Hessians).
//
// A set is built lazily, as a graph of unions that shares its parts: adding a term to a sum of n terms is one node,
// not a copy of n positions, so a sum's dependency set costs O(n) to build however it is accumulated. Sets are read
// (`DepsReader`) only where the pattern needs them: each output scalar, each product of the Hessian.

/** A dependency set (non-empty; the empty set is `undefined` where sets are optional). */
export abstract class Deps {
  /** The last reading that visited this node (see DepsReader). */
  mark = 0;
}

/** One input position. */
export class Leaf extends Deps {
  constructor(readonly position: number) {
    super();
  }
}

/** The union of two sets. */
export class Union extends Deps {
  constructor(
    readonly a: Deps,
    readonly b: Deps,
  ) {
    super();
  }
}

/** Every input position: what the analysis says when it cannot tell. */
export class AllDeps extends Deps {}
export const ALL = new AllDeps();

/** a ∪ b (undefined is the empty set). */
export function union(a: Deps | undefined, b: Deps | undefined): Deps | undefined {
  if (a === undefined || a === b) return b;
  if (b === undefined) return a;
  if (a === ALL || b === ALL) return ALL;
  return new Union(a, b);
}

/** A set of pairs of positions (symmetric: (i, j) stands for (j, i) too). */
export abstract class PairDeps {
  mark = 0;
}

/** Every (i, j) with i in a and j in b: the second derivative of a product of something of a by something of b. */
export class Pairs extends PairDeps {
  constructor(
    readonly a: Deps,
    readonly b: Deps,
  ) {
    super();
  }
}

export class PairUnion extends PairDeps {
  constructor(
    readonly a: PairDeps,
    readonly b: PairDeps,
  ) {
    super();
  }
}

export class AllPairs extends PairDeps {}
export const ALL_PAIRS = new AllPairs();

export function pairUnion(a: PairDeps | undefined, b: PairDeps | undefined): PairDeps | undefined {
  if (a === undefined || a === b) return b;
  if (b === undefined) return a;
  if (a === ALL_PAIRS || b === ALL_PAIRS) return ALL_PAIRS;
  return new PairUnion(a, b);
}

/** The pairs a × b (none when either is empty). */
export function pairs(a: Deps | undefined, b: Deps | undefined): PairDeps | undefined {
  if (a === undefined || b === undefined) return undefined;
  if (a === ALL || b === ALL) return ALL_PAIRS;
  return new Pairs(a, b);
}

/** Marks are unique across readers: a node visited by one reading is unvisited for every later one. */
let lastMark = 0;

/** Reads sets of positions below `size` (every reading walks the nodes it has not seen during that reading). */
export class DepsReader {
  private readonly seen: Int32Array;
  private readonly stack: Deps[] = [];

  constructor(readonly size: number) {
    this.seen = new Int32Array(size);
  }

  /** The positions of `d`, unsorted, appended to `out`; false (and nothing appended) when `d` contains ALL. */
  positions(d: Deps | undefined, out: number[]): boolean {
    if (d === undefined) return true;
    const mark = ++lastMark;
    const start = out.length;
    const stack = this.stack;
    stack.length = 0;
    stack.push(d);
    while (stack.length > 0) {
      const node = stack.pop()!;
      if (node.mark === mark) continue;
      node.mark = mark;
      if (node instanceof Leaf) {
        if (this.seen[node.position] !== mark) {
          this.seen[node.position] = mark;
          out.push(node.position);
        }
      } else if (node instanceof Union) {
        stack.push(node.b, node.a);
      } else {
        out.length = start;
        return false;
      }
    }
    return true;
  }

  /** Whether every position of `a` is in `b`. */
  subset(a: Deps | undefined, b: Deps | undefined): boolean {
    if (a === undefined || a === b || b === ALL) return true;
    if (b === undefined) return false;
    const inB: number[] = [];
    if (!this.positions(b, inB)) return true;
    const members = new Set(inB);
    const inA: number[] = [];
    if (!this.positions(a, inA)) return false;
    return inA.every((p) => members.has(p));
  }
}

/**
 * The pairs of `h` as per-row column lists (both (i, j) and (j, i)), unsorted and possibly repeated; undefined when
 * `h` contains every pair (or more than `limit` pairs would be listed: then the pattern is as good as dense).
 */
export function pairRows(h: PairDeps | undefined, size: number, limit: number): number[][] | undefined {
  const rows: number[][] = Array.from({ length: size }, () => []);
  if (h === undefined) return rows;
  const reader = new DepsReader(size);
  const mark = ++lastMark;
  const stack: PairDeps[] = [h];
  let listed = 0;
  const a: number[] = [];
  const b: number[] = [];
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (node.mark === mark) continue;
    node.mark = mark;
    if (node instanceof PairUnion) {
      stack.push(node.b, node.a);
      continue;
    }
    if (!(node instanceof Pairs)) return undefined;
    a.length = 0;
    b.length = 0;
    if (!reader.positions(node.a, a)) return undefined;
    const second = node.b === node.a ? a : b;
    if (second === b && !reader.positions(node.b, b)) return undefined;
    listed += 2 * a.length * second.length;
    if (listed > limit) return undefined;
    for (const i of a)
      for (const j of second) {
        rows[i]!.push(j);
        rows[j]!.push(i);
      }
  }
  return rows;
}
