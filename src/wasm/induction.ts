// Strength reduction of quadratic index arithmetic in counted loops. A packed triangle's position, as in GMM's
// `lowerAt d r c = d + c (2d - c - 1) / 2 + (r - c - 1)` read in a loop over c, costs a multiplication, a division and
// five additions per iteration; it is a polynomial of degree two in c, so each iteration can take it from the last
// with two additions (forward differences: f += d1; d1 += d2). GMM d64's objective: 18.1 -> 16.1 ms.
//
// The chain is the loop body's (top-level) Index lets made by +, -, *, negation and division by 2 from the loop index,
// literals and variables bound outside the loop. Every iteration computes the same values as before, bit for bit, when
//   - no step of the chain wraps around 32 bits for any index of the loop (then each let is an exact polynomial of the
//     index): checked before the loop against a limit on the numbers it starts from, found when compiling, and
//   - each divided value is even at every index (a polynomial's parity repeats with period 2: checked at the loop's
//     first two indexes), so the division is exact and the quotient a polynomial too.
// The values at the first three indexes are computed by the chain itself; when a condition fails, the loop runs as
// before (it is written twice: a branch per iteration instead made GMM's loop slower than no stepping at all, and
// so did stepping only what reduction modulo 2^32 keeps, the dividend, with no condition: two more values live in
// the loop). Only loops three deep are stepped (indexLoop below): elsewhere the second copy costs compile time
// for little.

import { freeVars } from "../ir/free.js";
import type { Atom, Expr, Let, Prim, Var } from "../ir/ir.js";
import { i32, op } from "./instructions.js";
import type { Code } from "./encoder.js";
import type { WasmEmitter } from "./emit.js";
import { slotCode, type WSlot } from "./slots.js";

/**
 * The loops around a loop whose index arithmetic is stepped by differences (./induction.ts): the loop is written
 * twice (stepped, and as before should the numbers be too large), worth it where it runs for each iteration of
 * several loops around it (GMM's triangular product inside the loops over points, components and rows), not for a
 * loop run a few times per call (the same product for each component's mean: module 4% larger, nothing faster).
 */
const STEPPED_DEPTH = 3;

/**
 * `for (index = start; index < count; index++) write()` for a loop whose body is `body` (an ifold's or a fold's in
 * lanes, `inLanes` its values that vary by lane): with its quadratic index arithmetic stepped by differences when it
 * has some, three loops deep and outside the plain loops that finish what lanes left (Stepping.afterLanes).
 */
export function indexLoop(
  em: WasmEmitter,
  index: Var,
  count: WSlot,
  body: Expr,
  write: () => void,
  start?: WSlot,
  inLanes: (id: number) => boolean = () => false,
): void {
  const plan =
    em.stepping.remainders === 0 && em.loopDepth >= STEPPED_DEPTH
      ? inductionPlan(body, index, (id) => em.isBound(id), inLanes)
      : undefined;
  if (plan !== undefined) {
    em.stepping.loops.add(body);
    inductionLoop(em, plan, index, count, start ?? { value: 0, type: "i32" }, write);
    return;
  }
  em.countedLoop(em.loopVariable(index, count), count, write, start);
}

/** What an emitter knows of stepped loops while it writes code. */
export class Stepping {
  /**
   * The lets of a loop's index arithmetic stepped by differences, while its body is written: each bound to its
   * variable's slot, or null when nothing but the chain reads it (not written at all).
   */
  readonly lets = new Map<number, WSlot | null>();

  /** The bodies of the loops stepping index arithmetic (their number is shown in the code listing). */
  readonly loops = new Set<Expr>();

  /**
   * How many plain loops finishing what SIMD lanes left (fewer iterations than a group's lanes) are around the code
   * being written: no index arithmetic stepped in them, as it would be written twice for little.
   */
  remainders = 0;

  /** The slot a let is bound to while its loop is written stepped (null: not written), else undefined. */
  slotOf(v: Var): WSlot | null | undefined {
    return this.lets.get(v.id);
  }

  /** Writes a loop (`write`), as such a plain loop when it continues from `start`, where lanes stopped. */
  afterLanes(start: WSlot | undefined, write: () => void): void {
    if (start === undefined) return write();
    this.remainders++;
    try {
      write();
    } finally {
      this.remainders--;
    }
  }
}

/** The ops a chain is made of, and Index division by the literal 2. */
const RING: ReadonlySet<string> = new Set(["add", "sub", "mul", "neg"]);

/** The leading lets of a loop body that compute a polynomial of its index, and which of them the rest reads. */
export interface InductionPlan {
  readonly chain: readonly Let[];
  /** Degree in the index of each let of the chain, by id (0: the same at every index). */
  readonly degree: ReadonlyMap<number, number>;
  /** The lets of the chain read by the rest of the body: each becomes a variable stepped by differences. */
  readonly kept: readonly Var[];
  /** The variables from outside the loop that the chain reads. */
  readonly reads: readonly Var[];
  /** No step wraps around while the index and those variables are within [-limit, limit] (magnitudeLimit). */
  readonly limit: number;
}

/**
 * The plan for a loop body over `index` (`outside`: bound before the loop), when a value the body reads is of degree 2
 * (affine positions cost one addition already); undefined otherwise.
 */
function inductionPlan(
  body: Expr,
  index: Var,
  outside: (id: number) => boolean,
  excluded: (id: number) => boolean = () => false,
): InductionPlan | undefined {
  const degree = new Map<number, number>([[index.id, 1]]);
  // Values of positive degree that depend on a division: a dividend must not be one (c (c - 1) / 2 is even or odd
  // with period 4, not 2; the parity check would not hold).
  const divided = new Set<number>();
  const chain: Let[] = [];
  const read = new Set<number>();
  let e = body;
  const argDegree = (a: Atom): number | undefined =>
    a.kind === "lit" ? (a.type.k === "int" ? 0 : undefined) : (degree.get(a.id) ?? (outside(a.id) ? 0 : undefined));
  const fromDivision = (a: Atom): boolean => a.kind === "var" && divided.has(a.id);
  for (; e.kind === "let"; e = e.body) {
    const rhs = e.rhs;
    const d = excluded(e.v.id) ? undefined : chainDegree(rhs, argDegree);
    if (d === undefined || (rhs.kind === "prim" && rhs.op === "div" && fromDivision(rhs.args[0]!))) {
      // Not of the chain (a lane's value, a read, a division of a quotient): the rest of the body, which may read it.
      for (const id of freeVars(rhs).keys()) read.add(id);
      continue;
    }
    if (d > 0 && rhs.kind === "prim" && (rhs.op === "div" || rhs.args.some(fromDivision))) divided.add(e.v.id);
    degree.set(e.v.id, d);
    chain.push(e);
  }
  for (const id of freeVars(e).keys()) read.add(id);
  const kept = chain.filter((l) => read.has(l.v.id) && degree.get(l.v.id)! > 0).map((l) => l.v);
  if (!kept.some((v) => degree.get(v.id) === 2)) return undefined;
  const reads = new Map<number, Var>();
  for (const l of chain)
    for (const a of (l.rhs as Prim).args) if (a.kind === "var" && !degree.has(a.id)) reads.set(a.id, a);
  const limit = magnitudeLimit(chain, index);
  return limit === undefined ? undefined : { chain, degree, kept, reads: [...reads.values()], limit };
}

/** The degree of a let of the chain (at most 2), or undefined when it is not one. */
function chainDegree(rhs: Expr, argDegree: (a: Atom) => number | undefined): number | undefined {
  if (rhs.kind !== "prim" || rhs.type.k !== "int" || rhs.tangent !== undefined) return undefined;
  const degrees = rhs.args.map(argDegree);
  if (degrees.some((d) => d === undefined)) return undefined;
  const [a, b] = degrees as number[];
  let d: number;
  if (RING.has(rhs.op)) d = rhs.op === "mul" ? a! + b! : rhs.op === "neg" ? a! : Math.max(a!, b!);
  else if (rhs.op === "div" && isTwo(rhs.args[1]!)) d = a!;
  else return undefined;
  return d <= 2 ? d : undefined;
}

const isTwo = (a: Atom): boolean => a.kind === "lit" && a.value === 2;

/**
 * `for (index = start; index < count; index++) write()` with the plan's kept lets stepped by differences; `write`
 * writes the body (whose chain lets then bind to the stepped values, ./emit.ts letBinding). The loop is written twice:
 * stepped when the conditions hold (always, in practice), as before when they do not; a branch per iteration instead
 * cost more than the arithmetic it saved.
 */
function inductionLoop(
  em: WasmEmitter,
  plan: InductionPlan,
  index: Var,
  count: WSlot,
  start: WSlot,
  write: () => void,
): void {
  const fb = em.fb;
  const limit = plan.limit;
  // The chain at start + j: the kept values, and the dividends of the divisions whose degree is positive.
  const at = (j: number) => {
    const kept: WSlot[] = [];
    const dividends: WSlot[] = [];
    em.scoped(() => {
      em.bind(index, [em.define("i32", op("i32.add", slotCode(start), i32(j)))]);
      for (const l of plan.chain) {
        em.letBinding(l);
        const rhs = l.rhs as Prim;
        if (rhs.op === "div" && plan.degree.get(l.v.id)! > 0) dividends.push(copy(em, em.atom(rhs.args[0]!)[0]!));
      }
      for (const v of plan.kept) kept.push(copy(em, em.atom(v)[0]!));
    });
    return { kept, dividends };
  };
  // No step wraps around: every number the chain starts from (the index's first and last, the variables it reads)
  // within the limit; `x + limit <= 2 limit` unsigned is -limit <= x <= limit.
  const leaves = [start, count, ...plan.reads.map((v) => em.atom(v)[0]!)];
  let ok: Code = i32(1);
  for (const leaf of leaves)
    ok = op("i32.and", ok, op("i32.le_u", op("i32.add", slotCode(leaf), i32(limit)), i32(2 * limit)));
  const points = [at(0), at(1)];
  // Parity: a dividend even at two consecutive indexes is even at every index (it wraps only as a whole number of
  // 2^32, which keeps its parity).
  points[0]!.dividends.forEach((d, k) => {
    const both = op("i32.or", slotCode(d), slotCode(points[1]!.dividends[k]!));
    ok = op("i32.and", ok, op("i32.eqz", op("i32.and", both, i32(1))));
  });
  fb.if(ok);
  em.scoped(() => {
    points.push(at(2));
    const steps = plan.kept.map((_, k) => {
      const [f0, f1, f2] = points.map((p) => slotCode(p.kept[k]!)) as [Code, Code, Code];
      const value = em.define("i32", f0);
      const first = em.define("i32", op("i32.sub", f1, f0));
      const second = em.define("i32", op("i32.sub", op("i32.sub", f2, f1), slotCode(first)));
      return { value, first, second };
    });
    // A let of degree 0 is written as before (the same at every index; the rest may read it).
    const stepped = plan.chain.filter((l) => plan.degree.get(l.v.id)! > 0);
    const i = em.loopVariable(index, count);
    em.countedLoop(
      i,
      count,
      () => {
        for (const l of stepped) {
          const k = plan.kept.indexOf(l.v);
          em.stepping.lets.set(l.v.id, k >= 0 ? steps[k]!.value : null);
        }
        try {
          write();
        } finally {
          for (const l of stepped) em.stepping.lets.delete(l.v.id);
        }
        for (const s of steps) {
          em.set(s.value, op("i32.add", slotCode(s.value), slotCode(s.first)));
          em.set(s.first, op("i32.add", slotCode(s.first), slotCode(s.second)));
        }
      },
      start,
    );
  });
  fb.else();
  em.scoped(() => em.countedLoop(em.loopVariable(index, count), count, write, start));
  fb.end();
}

const copy = (em: WasmEmitter, s: WSlot): WSlot => em.define("i32", slotCode(s));

/**
 * The largest power of two M (to 2^30) such that, when the index and every variable the chain reads are within
 * [-M, M], no value of the chain exceeds 2^31 - 1 in magnitude (|a + b| <= |a| + |b|, |a b| = |a| |b|): then each is
 * an exact polynomial of the index. Undefined when not even M = 1 does (literals large enough to wrap on their own).
 */
function magnitudeLimit(chain: readonly Let[], index: Var): number | undefined {
  const fits = (m: number): boolean => {
    const bounds = new Map<number, number>([[index.id, m]]);
    const boundOf = (a: Atom): number => (a.kind === "lit" ? Math.abs(a.value as number) : (bounds.get(a.id) ?? m));
    for (const l of chain) {
      const rhs = l.rhs as Prim;
      const [a, b] = rhs.args.map(boundOf) as [number, number];
      const bound = rhs.op === "mul" ? a * b : rhs.op === "neg" || rhs.op === "div" ? a : a + b;
      if (bound > 2 ** 31 - 1) return false;
      bounds.set(l.v.id, bound);
    }
    return true;
  };
  if (!fits(1)) return undefined;
  let m = 1;
  while (m < 2 ** 30 && fits(m * 2)) m *= 2;
  return m;
}
