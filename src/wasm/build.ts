// `build` as loops writing into arrays allocated in the arena, in destination-passing style (paper 000 §4.2): the
// JavaScript back end's scheme (src/codegen/build.ts, which explains chains, first descents and shape records), with
// the forms recognised by the shared lowering stage (src/lowering/build-forms.ts). A chain's buffers are locals
// holding addresses, each with a capacity in elements: a write past it (possible only while an irregular build runs
// on, before its error is raised at the end of its loop) is skipped, as JavaScript skips a write past a typed array.

import { freeVars } from "../ir/free.js";
import { freshVar, mkLet, typeOf, type Build, type Expr, type Let, type Prim, type Var } from "../ir/ir.js";
import {
  buildChain,
  copyOf,
  leavesZeros,
  oneHotTerminal,
  zeroBranch,
  zeroFilled,
  type ZeroBranch,
} from "../lowering/build-forms.js";
import { elemKind, leafSlotCount, leafStarts, leavesOf } from "../lowering/leaves.js";
import type { Code } from "./encoder.js";
import { i32, localGet, localSet, op, store } from "./instructions.js";
import { savedSlot, type WasmEmitter, type WSlots } from "./emit.js";
import { allocate, copyLeaf } from "./memory.js";
import { buildLanes } from "../lowering/lanes.js";
import { Lanes } from "./simd.js";
import { runInLanes } from "./lane-loops.js";
import { holdsLoop } from "./outline.js";
import {
  address,
  elementShift,
  i32Const,
  iadd,
  imul,
  ishl,
  islot,
  product,
  slotCode,
  slotKey,
  ZERO,
  type IExpr,
  type WSlot,
} from "./slots.js";

/** A copy build `build n (fun i -> xs[i])` as one memory.copy; the first index out of range is reported as the loop
 * would. */
function emitCopy(em: WasmEmitter, b: Build, get: Prim): WSlots {
  const n = em.atom(b.size)[0]!;
  em.checkCount(n, "build size", b.span);
  const [data, offset, length] = em.atom(get.args[0]!) as [WSlot, WSlot, WSlot];
  if (em.key(n) !== em.key(length))
    em.failIf(op("i32.gt_s", slotCode(n), slotCode(length)), [savedSlot(length)], ([len]) =>
      em.helpers.raise.indexOutOfRange(len!, len!, get.span),
    );
  return [copyLeaf(em, "double", data, offset, [n]), ZERO, n];
}

/**
 * What to do with each element of a one-dimensional build of Doubles as it is written: a reduction of the array that
 * follows the build (./emit.ts fuses the two loops; only for a build that `takesFold`).
 */
export interface ElementFold {
  scalar(value: WSlot): void;
  lanes(values: readonly Code[]): void;
  /** Taking an element twice in a row changes nothing (max, min): the build's last group of lanes may overlap. */
  readonly idempotent: boolean;
}

/** Whether emitBuild writes `b` element by element, so that a fold can see each (not a copy or a zero fill). */
export function takesFold(b: Build): boolean {
  return (
    copyOf(b) === undefined &&
    zeroFilled(b) === undefined &&
    buildChain(b).length === 1 &&
    b.type.k === "array" &&
    b.type.elem.k === "double"
  );
}

/**
 * The buffer of a build writing into the dead Vector `a` it reads elementwise (ownership's buildInto): a's own when
 * it holds at least n elements; otherwise a new one (the build's reads of a then raise their error, but a branch
 * that does not read a[i] must not write past a's end).
 */
function overwrite(em: WasmEmitter, a: Var, n: WSlot): WSlot {
  const [data, offset, length] = em.atom(a) as [WSlot, WSlot, WSlot];
  const shift = elementShift("double", em.real);
  const buffer = em.define("i32", i32(0));
  const fb = em.fb;
  fb.if(op("i32.ge_s", slotCode(length), slotCode(n)));
  em.set(buffer, address(data, islot(offset), shift));
  fb.else();
  em.set(buffer, slotCode(allocate(em, "double", [n], false)));
  fb.end();
  em.buildsInPlace++;
  return buffer;
}

/**
 * Where a build may write its one leaf instead of a fresh array (a parallel part writing rows straight into the
 * site's destination, ./parallel.ts): `used` says whether it did.
 */
export interface BuildInto {
  readonly address: WSlot;
  used: boolean;
}

export function emitBuild(em: WasmEmitter, outer: Build, fold?: ElementFold, into?: BuildInto): WSlots {
  const copied = copyOf(outer);
  if (copied !== undefined) return emitCopy(em, outer, copied);
  // `build n (fun _ -> 0)`: a cleared allocation is all there is to do.
  const zeros = zeroFilled(outer);
  if (zeros !== undefined) {
    const n = em.atom(outer.size)[0]!;
    em.checkCount(n, "build size", outer.span);
    return [allocate(em, zeros, [n], true), ZERO, n];
  }
  const fb = em.fb;
  const levels = buildChain(outer);
  const folding = fold !== undefined;
  if (folding && !takesFold(outer)) throw new Error("emitBuild: a fold given for a build that does not take one");
  const k = levels.length - 1;
  const terminal = levels[k]!.build.body;
  const termLeaves = leavesOf(typeOf(terminal));
  const termArrays = termLeaves.filter((l) => l.rank > 0);
  // Dimensions of a terminal element's array leaves, one after another (the part of a record below the n_j).
  const termDimCount = termArrays.reduce((n, l) => n + l.rank, 0);
  const sparseTerminal = leavesZeros(levels);

  const buffers: WSlot[] = []; // one address per terminal leaf
  const capacities: WSlot[] = []; // their sizes in elements
  const sizes: WSlot[] = []; // n_j
  const indices: WSlot[] = []; // t_j
  const runStarts: WSlot[] = []; // b_j: linear index (among level j's elements) of the current run's element 0
  const records: WSlot[][] = []; // R_j

  const elementIndex = (j: number): IExpr => iadd(islot(runStarts[j]!), islot(indices[j]!));
  const firstDescent = (upTo: number): Code =>
    op(
      "i32.eqz",
      indices
        .slice(0, upTo + 1)
        .map(slotCode)
        .reduce((a, b) => op("i32.or", a, b)),
    );
  const allocateAll = (elementSize: (leaf: number) => WSlot) =>
    termLeaves.forEach((leaf, l) => {
      const factors = [...sizes, elementSize(l)];
      if (into !== undefined && termLeaves.length === 1) {
        // The caller's memory, cleared first where the terminal writes only some elements.
        const capacity = product(factors);
        if (sparseTerminal) {
          const bytes = ishl(capacity, elementShift(elemKind(leaf), em.real)).code;
          fb.emit(op("memory.fill", slotCode(into.address), i32(0), bytes));
        }
        em.set(buffers[l]!, slotCode(into.address));
        em.set(capacities[l]!, capacity.code);
        into.used = true;
        return;
      }
      em.set(buffers[l]!, slotCode(allocate(em, elemKind(leaf), factors, sparseTerminal)));
      em.set(capacities[l]!, product(factors).code);
    });

  const level = (j: number): void => {
    const b = levels[j]!.build;
    const n = em.atom(b.size)[0]!;
    sizes.push(n);
    em.checkCount(n, "build size", b.span);
    const scalarOnly = k === 0 && termArrays.length === 0;
    if (j === 0)
      termLeaves.forEach((leaf) => {
        if (scalarOnly) {
          const dead = em.buildInto.get(outer);
          buffers.push(dead === undefined ? allocate(em, elemKind(leaf), [n], sparseTerminal) : overwrite(em, dead, n));
          capacities.push(n);
        } else {
          buffers.push(em.define("i32", i32(0)));
          capacities.push(em.define("i32", i32(0)));
        }
      });
    const recordLength = k - j + termDimCount;
    const record = Array.from({ length: recordLength }, () => em.define("i32", i32(0)));
    const found = Array.from({ length: recordLength }, () => em.define("i32", i32(0)));
    const bad = recordLength > 0 ? em.define("i32", i32(-1)) : ZERO;
    records.push(record);
    em.markDimensionSlots(record);
    runStarts.push(j === 0 ? ZERO : em.index(imul(elementIndex(j - 1), islot(n))));
    if (j === k && termArrays.length === 0 && k > 0) {
      fb.if(firstDescent(k - 1));
      allocateAll(() => i32Const(1));
      fb.end();
    }

    const t = em.loopVariable(b.index, n);
    indices.push(t);
    // (A fold sees every element: the one-hot form writes only one.)
    const sparse = j === k && !folding ? oneHotTerminal(b) : undefined;
    if (sparse !== undefined) {
      // The buffers are fresh (all zeros): only the hot element is written, and its value computed only there.
      const hot = em.atom(sparse.at)[0]!;
      fb.if(op("i32.lt_u", slotCode(hot), slotCode(n)));
      em.set(t, slotCode(hot));
      terminalWrite(em.expr(sparse.value));
      fb.end();
      indices.pop();
      return;
    }
    const start = j === k ? elementsInLanes(b, n) : undefined;
    // The lets that begin an element, and what comes after them: the next level, or the terminal's value (`tail`).
    const lets: Let[] = j < k ? [...levels[j]!.lets] : [];
    let tail = terminal;
    if (j === k) for (; tail.kind === "let"; tail = tail.body) lets.push(tail);
    const zb = j === k && termLeaves.length === 1 && termArrays.length === 1 ? zeroBranch(tail) : undefined;
    // An element of a loop at the top that runs loops, none of them in lanes: its lets, and a terminal's value too
    // (bound to `value`), are a function of their own called once per element (./outline.ts).
    const withValue = j === k && zb === undefined;
    const inFunction =
      j === 0 &&
      start === undefined &&
      em.atTop() &&
      em.bounds.isDimension(slotKey(n)) &&
      (lets.some((l) => holdsLoop(l.rhs)) || (withValue && holdsLoop(tail)));
    const value = inFunction && withValue ? freshVar("element", typeOf(tail)) : undefined;
    const outlined = value === undefined ? lets : [...lets, mkLet(value, tail, value)];
    const rest = j < k ? levels[j + 1]!.build : (value ?? tail);
    const bindLets = (): boolean => {
      if (inFunction && em.outlineLets?.(outlined, liveAfter(outlined, rest)) === true) return true;
      for (const l of lets) em.letBinding(l);
      return false;
    };
    const loop = () =>
      em.countedLoop(
        t,
        n,
        () => {
          let element: WSlots;
          if (j < k) {
            bindLets();
            level(j + 1);
            element = [sizes[j + 1]!, ...records[j + 1]!];
          } else if (zb === undefined) {
            const slots = bindLets() ? em.atom(value!) : em.expr(tail);
            element = terminalWrite(slots);
            if (folding) fold.scalar(slots[0]!);
          } else {
            bindLets();
            element = zeroOrValue(zb);
          }
          if (recordLength > 0) {
            fb.if(op("i32.eqz", slotCode(t)));
            record.forEach((r, q) => em.set(r, slotCode(element[q]!)));
            fb.else();
            const differs = element
              .map((x, q) => op("i32.ne", slotCode(x), slotCode(record[q]!)))
              .reduce((a, c) => op("i32.or", a, c));
            fb.if(op("i32.and", op("i32.lt_s", slotCode(bad), i32(0)), differs));
            em.set(bad, slotCode(t));
            found.forEach((f, q) => em.set(f, slotCode(element[q]!)));
            fb.end();
            fb.end();
          }
        },
        start,
      );
    em.stepping.afterLanes(start, loop);
    if (recordLength > 0) {
      const elemType = b.type.k === "array" ? b.type.elem : b.type;
      em.failIf(op("i32.ge_s", slotCode(bad), i32(0)), [bad, ...record, ...found].map(savedSlot), ([index, ...dims]) =>
        em.helpers.raise.irregular(
          b.span,
          elemType,
          k - j,
          index!,
          dims.slice(0, recordLength),
          dims.slice(recordLength),
        ),
      );
    }
    indices.pop();
  };

  // A terminal of Doubles computed elementwise (src/lowering/lanes.ts): groups of elements in SIMD lanes, stored
  // with one vector store per leaf, up to the bound the plan allows; the plain loop continues from the returned index.
  const elementsInLanes = (b: Build, n: WSlot): WSlot | undefined => {
    if (termArrays.length > 0 || termLeaves.some((l) => l.kind !== "double")) return undefined;
    const plan = buildLanes(b.index, terminal, (id) => em.isBound(id) && id !== b.index.id);
    if (plan === undefined) return undefined;
    em.laneLoops++;
    // A chain's later runs write at runStart + t: within the buffer only (an irregular chain may overrun it).
    const room =
      k === 0 ? undefined : em.define("i32", op("i32.sub", slotCode(capacities[0]!), slotCode(runStarts[k]!)));
    const { limit, bound: m } = Lanes.reach(em, plan, n, room);
    const shift = elementShift("double", em.real);
    // The last group may overlap the one before (./lane-loops.ts runInLanes) unless computing an element twice is
    // seen: a fold of the elements as they are made takes it twice (harmless for max and min: logsumexp's maximum
    // over GMM's components), and a build overwriting the dead vector it reads (ownership's buildInto) would read
    // the element it already wrote.
    const overlapLast = (folding && !fold.idempotent) || em.buildInto.has(outer) ? undefined : limit;
    runInLanes(
      em,
      plan,
      m,
      (at, groups) => {
        const written = new Lanes(em, plan, at, groups, m);
        // Group g's elements are g * lanes after group 0's: one address, a constant offset per group.
        const where = iadd(islot(runStarts[k]!), islot(at));
        written.body(plan.body).forEach((leaves, g) => {
          const values = leaves.map((v) => {
            const local = fb.local("v128");
            fb.emit(localSet(local, v));
            return localGet(local);
          });
          const bytes = (g * written.lanes) << shift;
          values.forEach((v, l) => fb.emit(store("v128.store", address(buffers[l]!, where, shift), v, bytes)));
          if (folding) fold.lanes(values);
        });
      },
      undefined,
      overlapLast,
    );
    return m;
  };

  // `if c then A else build m (fun _ -> 0.)`: the zeros are already in the fresh buffer, so that branch only gives
  // the element's size (for the allocation and the shape check), and the copy is skipped when the data is null (0).
  const zeroOrValue = (zb: ZeroBranch): WSlots => {
    const [d, o, m] = [em.define("i32", i32(0)), em.define("i32", i32(0)), em.define("i32", i32(0))];
    const cond = em.atom(zb.cond)[0]!;
    fb.if(zb.zeroWhen ? op("i32.eqz", slotCode(cond)) : slotCode(cond));
    const v = em.expr(zb.value);
    em.set(d, slotCode(v[0]!));
    em.set(o, slotCode(v[1]!));
    em.set(m, slotCode(v[2]!));
    fb.else();
    const size = em.atom(zb.zero.size)[0]!;
    em.checkCount(size, "build size", zb.zero.span);
    em.set(m, slotCode(size));
    fb.end();
    return terminalWrite([d, o, m], d);
  };

  // Writes the terminal value `v` at element index e_k; returns the dimensions of its array leaves.
  const terminalWrite = (v: WSlots, nonNull?: WSlot): WSlots => {
    const starts = leafStarts(termLeaves);
    const at = em.index(elementIndex(k));
    const elementSizes = termLeaves.map((leaf, l) =>
      leaf.rank === 0 ? i32Const(1) : em.index(product(v.slice(starts[l]! + 2, starts[l]! + leafSlotCount(leaf)))),
    );
    if (termArrays.length > 0) {
      fb.if(firstDescent(k));
      allocateAll((l) => elementSizes[l]!);
      fb.end();
    }
    const dims: WSlot[] = [];
    termLeaves.forEach((leaf, l) => {
      const s = starts[l]!;
      const shift = elementShift(elemKind(leaf), em.real);
      if (leaf.rank === 0) {
        const value = slotCode(v[s]!);
        const write = store(
          leaf.kind === "double"
            ? em.real === "f64"
              ? "f64.store"
              : "f32.store"
            : leaf.kind === "int"
              ? "i32.store"
              : "i32.store8",
          address(buffers[l]!, islot(at), shift),
          value,
        );
        // Only an irregular chain writes past its buffer (k > 0); a single build's index is below its size.
        if (k === 0) fb.emit(write);
        else {
          fb.if(op("i32.lt_u", slotCode(at), slotCode(capacities[l]!)));
          fb.emit(write);
          fb.end();
        }
        return;
      }
      const size = elementSizes[l]!;
      const from = em.index(imul(islot(at), islot(size)));
      // Clipped to the buffer, which only an irregular build (an error raised when its loop ends) can overrun.
      const fits = op("i32.lt_u", slotCode(from), slotCode(capacities[l]!));
      fb.if(nonNull === undefined ? fits : op("i32.and", op("i32.ne", slotCode(nonNull), i32(0)), fits));
      const room = op("i32.sub", slotCode(capacities[l]!), slotCode(from));
      const count = op("select", slotCode(size), room, op("i32.lt_u", slotCode(size), room));
      fb.emit(
        op(
          "memory.copy",
          address(buffers[l]!, islot(from), shift),
          address(v[s]!, islot(v[s + 1]!), shift),
          op("i32.shl", count, i32(shift)),
        ),
      );
      fb.end();
      dims.push(...v.slice(s + 2, s + leafSlotCount(leaf)));
    });
    return dims;
  };

  level(0);

  // The result: buffer, offset 0, then [n0, the n_j of B0's first element, its terminal leaf's dimensions].
  const common = records[0]!.slice(0, k);
  let termDims = records[0]!.slice(k);
  return termLeaves.flatMap((leaf, l) => {
    const own = termDims.slice(0, leaf.rank);
    termDims = termDims.slice(leaf.rank);
    return [buffers[l]!, ZERO, sizes[0]!, ...common, ...own];
  });
}

/** The variables bound by `lets` that `rest` reads, in the order they are bound. */
function liveAfter(lets: readonly Let[], rest: Expr): Var[] {
  const read = freeVars(rest);
  return lets.map((l) => l.v).filter((v) => read.has(v.id));
}
