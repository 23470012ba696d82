// Binomial checkpointing (Griewank 1992; Griewank & Walther's Revolve, ACM TOMS 2000): reversing n steps of a loop
// with room for s stored states, recomputing the others from the nearest stored one.
//
// The schedule used here, as a stack of snapshots (position p, state before step p), the step to reverse next i:
//  - if the top snapshot is at i, or there is no free slot: advance from the top snapshot to i (no step when it is
//    at i), reverse step i, and pop the snapshot if it was at i;
//  - otherwise advance m = split(i - p + 1, free) steps from it and push the state reached.
// This is Revolve's recursion written as a loop: reversing steps [p, q) with c free slots stores p + m, reverses
// [p + m, q) with c - 1 slots, then [p, p + m) with c. With s slots (the bottom one holds the initial state) and r
// the least number of repetitions with beta(s, r) = C(s + r, s) >= n, it advances t(n) = r n - beta(s + 1, r - 1)
// steps, the least any schedule can (Griewank's theorem; test/reverse/revolve.test.ts checks it against a search).
// The primal loop makes the first pushes as it runs (`firstSnapshot`/`nextSnapshot`).
//
// Every number here is computed in Doubles, in the same operations as the IR `splitIr` emits, so that every back end
// (and this reference) makes the same schedule; a split is always clamped into [1, L - 1], so a rounding at sizes
// beyond 2^53 could only make the schedule slower, never wrong.

import { AnfBuilder, litDouble, litIndex } from "../ir/builder.js";
import { mkTuple, type Atom } from "../ir/ir.js";

/**
 * How many steps to advance from a snapshot before storing the next, to reverse `length` (>= 2) steps that start at
 * the snapshot with `free` (>= 1) slots left: the least optimal split, max(beta(S, r - 2), L - beta(S - 1, r)) with
 * S = free + 1 and r the least with beta(S, r) >= L, clamped into [1, L - 1].
 */
export function revolveSplit(length: number, free: number): number {
  const S = free + 1;
  // beta(S, r) = C(S + r, S), stepped by beta(S, r + 1) = beta(S, r) (S + r + 1) / (r + 1); beta(S, -1) = 0.
  let [r, before, prev, cur] = [0, 0, 0, 1];
  while (cur < length) {
    const r1 = r + 1;
    [r, before, prev, cur] = [r1, prev, cur, (cur * (S + r1)) / r1];
  }
  // beta(S - 1, r) = beta(S, r) S / (S + r).
  const m = Math.floor(Math.max(before, length - (cur * S) / (S + r)));
  return Math.min(length - 1, Math.max(1, m));
}

/** The position of the next snapshot after one at p, for n steps and `free` slots left; -1 when there is none. */
export function nextSnapshot(p: number, n: number, free: number): number {
  return n - p >= 2 && free >= 1 ? p + revolveSplit(n - p, free) : -1;
}

/** What reversing n steps with s slots costs: the steps advanced after the primal loop, and the most slots used. */
export interface RevolveCost {
  /** Steps recomputed by the reverse pass (the primal loop runs n and stores the first snapshots as it goes). */
  readonly advances: number;
  /** The most snapshots held at once (at most s). */
  readonly peakSnapshots: number;
  /** The positions the primal loop stores, after position 0. */
  readonly firstSweep: readonly number[];
}

/** Runs the schedule (without the steps themselves): what the reverse of an n-step loop with s slots recomputes. */
export function revolveCost(n: number, s: number): RevolveCost {
  const pos = [0];
  const firstSweep: number[] = [];
  for (let next = nextSnapshot(0, n, s - 1); next >= 0; next = nextSnapshot(next, n, s - pos.length)) {
    pos.push(next);
    firstSweep.push(next);
  }
  let [advances, peak] = [0, pos.length];
  for (let i = n - 1; i >= 0;) {
    const p = pos[pos.length - 1]!;
    const free = s - pos.length;
    if (p === i || free === 0) {
      advances += i - p;
      if (p === i) pos.pop();
      i--;
    } else {
      const m = revolveSplit(i - p + 1, free);
      advances += m;
      pos.push(p + m);
      peak = Math.max(peak, pos.length);
    }
  }
  return { advances, peakSnapshots: peak, firstSweep };
}

/** The least number of steps any schedule advances to reverse n steps with s slots (Griewank): r n - beta(s+1, r-1). */
export function revolveMinimum(n: number, s: number): number {
  const beta = (a: number, r: number) => {
    let x = 1;
    for (let k = 1; k <= r; k++) x = (x * (a + k)) / k;
    return r < 0 ? 0 : x;
  };
  let r = 0;
  while (beta(s, r) < n) r++;
  return r * n - beta(s + 1, r - 1);
}

/** Emits `revolveSplit length free` (Index atoms, length >= 2, free >= 1) into b: the same Double operations. */
export function splitIr(b: AnfBuilder, length: Atom, free: Atom): Atom {
  const S = b.prim("toDouble", [b.prim("add", [free, litIndex(1)], "S")], "S");
  const L = b.prim("toDouble", [length], "L");
  // (r, beta(S, r - 2), beta(S, r - 1), beta(S, r)) while beta(S, r) < L.
  const start = b.tuple([litDouble(0), litDouble(0), litDouble(0), litDouble(1)], "binom0");
  const binom = b.while(
    start,
    (st, bb) => bb.prim("lt", [bb.proj(3, st, "cur"), L], "more"),
    (st, bb) => {
      const [r, prev, cur] = [bb.proj(0, st, "r"), bb.proj(2, st, "prev"), bb.proj(3, st, "cur")];
      const r1 = bb.prim("add", [r, litDouble(1)], "r1");
      const next = bb.prim("div", [bb.prim("mul", [cur, bb.prim("add", [S, r1], "k")], "num"), r1], "beta");
      return mkTuple([r1, prev, cur, next]);
    },
    "binom",
    "binom",
  );
  if (binom.type.k !== "tuple" || !binom.type.elems.every((t) => t.k === "double"))
    throw new Error("revolve: the binomial state is not four Doubles");
  const [r, before, cur] = [b.proj(0, binom, "r"), b.proj(1, binom, "before"), b.proj(3, binom, "cur")];
  const lower = b.prim("div", [b.prim("mul", [cur, S], "num"), b.prim("add", [S, r], "den")], "beta");
  const m = b.prim("floor", [b.prim("max", [before, b.prim("sub", [L, lower], "rest")], "m")], "m");
  const top = b.prim("toDouble", [b.prim("sub", [length, litIndex(1)], "top")], "top");
  const clamped = b.prim("min", [top, b.prim("max", [litDouble(1), m], "m")], "m");
  return b.prim("toIndex", [clamped], "split");
}

/** Emits `nextSnapshot p n free` (Index atoms): p + split(n - p, free), or -1 when n - p < 2 or no slot is free. */
export function nextSnapshotIr(b: AnfBuilder, p: Atom, n: Atom, free: Atom): Atom {
  const left = b.prim("sub", [n, p], "left");
  const splits = b.prim("and", [b.prim("ge", [left, litIndex(2)], "long"), b.prim("ge", [free, litIndex(1)], "room")]);
  return b.if(
    splits,
    (bb) => bb.prim("add", [p, splitIr(bb, left, free)], "next"),
    () => litIndex(-1),
    "next",
  );
}
