// Loops run in SIMD lanes (two f64 lanes, or four f32 lanes in a float32 function): the wasm side of the lane plans
// of src/lowering/lanes.ts. A plan's varying values live in v128 locals; its uniform lets are ordinary code (the
// emitter's), once per group of lanes. Reads `a[i + c]` are one vector load; exp and log one call for all the
// groups (./simd-math.ts), sin, cos, tan, tanh and pow V8's own per lane; an `if` computes both branches and selects.
// The lanes run up to the bound the plan gives (no read out of range); the caller runs the plain loop from there. An
// ifold nested in the body (outer lanes) is a loop of its own over its index, for all lanes at once: its state a v128
// local, one lane per output (a sum's step one vector addition). Such plans run several groups of lanes side by side
// (each value a local per group), so that several chains of additions overlap; single groups then finish the lanes.
// An inner loop whose count is the lane index plus a literal runs the first lane's count for all lanes, then one masked
// step per further lane. A read at a shifted index (i + u + c) is checked before its load: on a failure the lanes stop
// at the current group (./lane-loops.ts runInLanes' block) and the plain loop takes over from its first iteration.

import { tangentPositions } from "../ir/ir.js";
import type { Atom, Expr, Ifold, Let, Prim } from "../ir/ir.js";
import type { LanePlan } from "../lowering/lanes.js";
import type { Code } from "./encoder.js";
import {
  call,
  extractLane,
  f32,
  f64,
  i32,
  i32x4,
  load,
  localGet,
  localSet,
  op,
  replaceLane,
  type OpName,
} from "./instructions.js";
import type { WasmEmitter } from "./emit.js";
import { indexLoop } from "./induction.js";
import { address, iadd, iconst, imul, islot, slotCode, type WSlot } from "./slots.js";

/**
 * A varying value: v128 locals of reals or of lane masks (one per group of lanes), the loop index plus a constant, or a
 * row per lane (of the matrix at `data`; each group's lane 0 row starts at element `starts[g]`, the next lanes'
 * `stride` elements apart).
 */
type LaneValue =
  | { readonly kind: "real" | "mask"; readonly locals: readonly number[] }
  | { readonly kind: "index"; readonly offset: number; readonly shift?: WSlot }
  | { readonly kind: "row"; readonly data: WSlot; readonly starts: readonly WSlot[]; readonly stride: WSlot };

/** The number of lanes of a real type. */
export const laneCount = (real: "f64" | "f32"): number => (real === "f64" ? 2 : 4);

/** The label of the block around the lanes' loops (./lane-loops.ts runInLanes): a failed check leaves by it. */
export const LANES_STOP = "lanesStop";

export class Lanes {
  readonly lanes: number;
  private readonly values = new Map<number, LaneValue>();
  private readonly shape: "f64x2" | "f32x4";
  /** The index of each group's first lane. */
  private readonly starts: readonly WSlot[];

  constructor(
    readonly em: WasmEmitter,
    readonly plan: LanePlan,
    /** The index of the first lane of the current groups (an i32 local). */
    readonly at: WSlot,
    /** How many groups of lanes, one after the other from `at`. */
    readonly groups: number,
    /** The iteration the lanes run up to (a local): a failed check of a shifted read sets it to `at` and stops. */
    readonly stop: WSlot,
  ) {
    this.lanes = laneCount(em.real);
    this.shape = em.real === "f64" ? "f64x2" : "f32x4";
    this.values.set(plan.index.id, { kind: "index", offset: 0 });
    this.starts = Array.from({ length: groups }, (_, g) =>
      g === 0 ? at : em.index(iadd(islot(at), iconst(g * this.lanes))),
    );
  }

  /**
   * The number of iterations that run in lanes: n, lowered so that no read is out of range (a multiple of `width`,
   * the lanes of all groups; `room` bounds it further, e.g. a build chain's buffer).
   */
  static bound(em: WasmEmitter, plan: LanePlan, n: WSlot, room?: WSlot, width = laneCount(em.real)): WSlot {
    return Lanes.reach(em, plan, n, room, width).bound;
  }

  /**
   * `bound` (above) and `limit`: the iterations whose reads are all in range, before rounding down to whole groups
   * (0 when negative). A group at limit - lanes reads within range too (a build's last, overlapping group).
   */
  static reach(
    em: WasmEmitter,
    plan: LanePlan,
    n: WSlot,
    room?: WSlot,
    width = laneCount(em.real),
  ): { limit: WSlot; bound: WSlot } {
    const limit = em.define("i32", slotCode(n));
    const lower = (l: Code) => em.set(limit, op("select", l, slotCode(limit), op("i32.lt_s", l, slotCode(limit))));
    for (const b of plan.bounds) {
      const length =
        "array" in b.length ? em.atom(b.length.array)[2 + (b.length.dim ?? 0)]! : em.atom(b.length.atom)[0]!;
      lower(op("i32.sub", slotCode(length), i32(b.offset)));
    }
    if (room !== undefined) lower(slotCode(room));
    // Negative (an array shorter than an offset) is no lanes; then whole groups only.
    em.set(limit, op("select", slotCode(limit), i32(0), op("i32.gt_s", slotCode(limit), i32(0))));
    return { limit, bound: em.define("i32", op("i32.and", slotCode(limit), i32(-width))) };
  }

  /** Writes the lets of a body; returns the lanes of its value: per group, one v128 per Double leaf of the tail. */
  body(e: Expr): Code[][] {
    for (; e.kind === "let"; e = e.body) this.let(e);
    const tail = e;
    return this.eachGroup((g) => (tail.kind === "tuple" ? tail.elems : [tail as Atom]).map((a) => this.real(a, g)));
  }

  let(l: Let): void {
    if (!this.plan.varying.has(l.v.id)) {
      // The length of a row per lane: M's dimension 1, the same in every lane.
      const e = l.rhs;
      const row =
        e.kind === "prim" && e.op === "length" && e.args[0]!.kind === "var"
          ? this.values.get(e.args[0]!.id)
          : undefined;
      if (row?.kind === "row") this.em.bind(l.v, [row.stride]);
      else this.em.letBinding(l);
      return;
    }
    this.values.set(l.v.id, this.rhs(l.rhs));
  }

  private eachGroup<T>(f: (g: number) => T): T[] {
    return Array.from({ length: this.groups }, (_, g) => f(g));
  }

  /** New v128 locals holding each group's `code` (written group by group: `code` may write statements first). */
  private keep(kind: "real" | "mask", code: (g: number) => Code): LaneValue {
    const locals = this.eachGroup((g) => {
      const value = code(g);
      const local = this.em.fb.local("v128");
      this.em.fb.emit(localSet(local, value));
      return local;
    });
    return { kind, locals };
  }

  private rhs(e: Expr): LaneValue {
    if (e.kind === "var") return this.values.get(e.id)!;
    if (e.kind === "ifold") return this.fold(e);
    if (e.kind === "if") {
      const mask = this.eachGroup((g) => this.mask(e.cond, g));
      const isMask = e.type.k === "bool";
      const yes = this.branch(e.then, isMask);
      const no = this.branch(e.else, isMask);
      return this.keep(isMask ? "mask" : "real", (g) => op("v128.bitselect", yes[g]!, no[g]!, mask[g]!));
    }
    if (e.kind !== "prim") throw new Error(`wasm: ${e.kind} in a lane plan`);
    return this.prim(e);
  }

  /**
   * A loop across the lanes (outer lanes): its count and index are the same in every lane, so one loop over the index
   * takes every lane's step at once, the state v128 locals (each lane's own steps, in order: the plain loop's).
   */
  private fold(e: Ifold): LaneValue {
    const body = this.plan.folds.get(e);
    if (body === undefined) throw new Error("wasm: an ifold the lane plan did not take");
    const em = this.em;
    const varying = e.count.kind === "var" ? this.values.get(e.count.id) : undefined;
    // A count `i + c`: the first lane's (then each later lane's further steps, below); else the same for all lanes.
    const count =
      varying?.kind === "index" ? em.index(iadd(islot(this.starts[0]!), iconst(varying.offset))) : em.atom(e.count)[0]!;
    if (varying === undefined) em.checkCount(count, "ifold count", e.span);
    const state = this.keep("real", (g) => this.real(e.init, g)) as { kind: "real"; locals: readonly number[] };
    this.values.set(e.acc.id, state);
    // Counted once, in the single groups' loop (runInLanes writes one for every plan).
    if (this.groups === 1) {
      em.laneLoops++;
      em.outerLaneLoops++;
    }
    em.scoped(() =>
      indexLoop(
        em,
        e.index,
        count,
        body,
        () => this.body(body).forEach(([next], g) => em.fb.emit(localSet(state.locals[g]!, next!))),
        undefined,
        (id) => this.plan.varying.has(id),
      ),
    );
    if (varying?.kind !== "index") return state;
    // Lane q of group g takes g * lanes + q more steps: step count + j for the lanes past j, the others keeping their
    // state (groups wholly past j take it unmasked, groups wholly before it not at all).
    for (let j = 0; j + 1 < this.lanes * this.groups; j++)
      em.scoped(() => {
        em.bind(e.index, [em.define("i32", op("i32.add", slotCode(count), i32(j)))]);
        this.body(body).forEach(([next], g) => {
          const first = g * this.lanes;
          const local = state.locals[g]!;
          if (first > j) em.fb.emit(localSet(local, next!));
          else if (first + this.lanes - 1 > j) {
            const later = op("i32x4.gt_s", IOTA, op("i32x4.splat", i32(j - first)));
            const mask = em.real === "f64" ? op("i64x2.extend_low_i32x4_s", later) : later;
            em.fb.emit(localSet(local, op("v128.bitselect", next!, localGet(local), mask)));
          } else em.fb.emit(op("drop", next!));
        });
      });
    return state;
  }

  private branch(e: Expr, isMask: boolean): Code[] {
    for (; e.kind === "let"; e = e.body) this.let(e);
    const tail = e as Atom;
    return this.eachGroup((g) => (isMask ? this.mask(tail, g) : this.real(tail, g)));
  }

  /** Group g's lanes of a Double atom (a uniform one splatted). */
  real(a: Atom, g: number): Code {
    if (a.kind === "var") {
      const v = this.values.get(a.id);
      if (v !== undefined && (v.kind === "real" || v.kind === "mask")) return localGet(v.locals[g]!);
    }
    return op(this.em.real === "f64" ? "f64x2.splat" : "f32x4.splat", slotCode(this.em.atom(a)[0]!));
  }

  /** Group g's lane mask of a Bool atom (all ones for true; a uniform one splatted). */
  mask(a: Atom, g: number): Code {
    if (a.kind === "var") {
      const v = this.values.get(a.id);
      if (v !== undefined && (v.kind === "real" || v.kind === "mask")) return localGet(v.locals[g]!);
    }
    const b = op("i32.sub", i32(0), slotCode(this.em.atom(a)[0]!));
    return this.em.real === "f64" ? op("i64x2.splat", op("i64.extend_i32_s", b)) : op("i32x4.splat", b);
  }

  /** Group g's Index lanes (i32x4) of an offset of the index or a uniform Index. */
  private indexLanes(a: Atom, g: number): Code {
    const v = a.kind === "var" ? this.values.get(a.id) : undefined;
    if (v?.kind === "index")
      return op("i32x4.add", op("i32x4.splat", iadd(islot(this.starts[g]!), iconst(v.offset)).code), IOTA);
    return op("i32x4.splat", slotCode(this.em.atom(a)[0]!));
  }

  private op(name: string): OpName {
    return `${this.shape}.${name}` as OpName;
  }

  /** The lanes of an offset or shifted index: lane q's value is the group's first lane + q + offset + shift. */
  indexValue(a: Atom): { readonly offset: number; readonly shift?: WSlot } {
    const v = a.kind === "var" ? this.values.get(a.id) : undefined;
    if (v?.kind !== "index") throw new Error("wasm: not an index of the lanes");
    return v;
  }

  /** The offset from the loop index of an Index atom of the plan (the index plus a literal). */
  private offset(x: Atom): number {
    return (this.values.get((x as { id: number }).id) as { offset: number }).offset;
  }

  private prim(e: Prim): LaneValue {
    const [a, b] = e.args as [Atom, Atom];
    const real = (code: (g: number) => Code) => this.keep("real", code);
    const unary = (name: string) => real((g) => op(this.op(name), this.real(a, g)));
    const binary = (name: string) => real((g) => op(this.op(name), this.real(a, g), this.real(b, g)));
    switch (e.op) {
      case "get":
        return this.get(e, a, b);
      case "checkIndex":
      case "add":
      case "sub": {
        if (e.type.k !== "int") return binary(e.op);
        if (e.op === "checkIndex") return { kind: "index", offset: this.offset(a) };
        const aIndex = a.kind === "var" && this.values.get(a.id)?.kind === "index";
        const [x, y] = aIndex ? [a, b] : [b, a];
        const index = this.values.get((x as { id: number }).id) as { offset: number; shift?: WSlot };
        // The other operand: a literal (the offset) or a uniform Index (the shift, a local of this group).
        if (y.kind === "lit") {
          const c = y.value as number;
          return { kind: "index", offset: index.offset + (e.op === "sub" ? -c : c), shift: index.shift };
        }
        const u = slotCode(this.em.atom(y)[0]!);
        const before = index.shift === undefined ? i32(0) : slotCode(index.shift);
        const shift = this.em.define("i32", op(e.op === "sub" ? "i32.sub" : "i32.add", before, u));
        return { kind: "index", offset: index.offset, shift };
      }
      case "toDouble": {
        const convert = this.em.real === "f64" ? "f64x2.convert_low_i32x4_s" : "f32x4.convert_i32x4_s";
        return real((g) => op(convert, this.indexLanes(a, g)));
      }
      case "lt":
      case "gt":
      case "le":
      case "ge":
      case "eq":
      case "ne":
        return this.keep("mask", (g) => this.compare(e, a, b, g));
      case "and":
        return this.keep("mask", (g) => op("v128.and", this.mask(a, g), this.mask(b, g)));
      case "or":
        return this.keep("mask", (g) => op("v128.or", this.mask(a, g), this.mask(b, g)));
      case "not":
        return this.keep("mask", (g) => op("v128.not", this.mask(a, g)));
      case "stopGradient":
        return real((g) => this.real(a, g));
      case "neg":
      case "sqrt":
      case "abs":
      case "floor":
        return unary(e.op);
      case "exp":
      case "log": {
        // One call for all the groups (./simd-math.ts), its results popped last first.
        const fb = this.em.fb;
        fb.emit(call(this.em.helpers.lanes(e.op, this.groups), ...this.eachGroup((g) => this.real(a, g))));
        const locals = this.eachGroup(() => fb.local("v128"));
        for (let g = this.groups - 1; g >= 0; g--) fb.emit(localSet(locals[g]!, []));
        return { kind: "real", locals };
      }
      case "sin":
      case "cos":
      case "tan":
      case "tanh":
        return real((g) => this.perLane((x) => call(this.em.helpers.math[e.op as "sin"], x), [this.real(a, g)]));
      case "pow":
        return real((g) =>
          this.perLane((x, y) => call(this.em.helpers.math.pow, x, y!), [this.real(a, g), this.real(b, g)]),
        );
      case "mul":
      case "div": {
        const tangents = tangentPositions(e);
        if (tangents.length === 0) return binary(e.op);
        // A zero tangent is a symbolic zero (Prim.tangent): 0 in that lane, whatever the other operand.
        const zero = this.em.real === "f64" ? op("f64x2.splat", f64(0)) : op("f32x4.splat", f32(0));
        return real((g) => {
          const plain = op(this.op(e.op), this.real(a, g), this.real(b, g));
          const isZero = tangents
            .map((k) => op(this.op("eq"), this.real(e.args[k]!, g), zero))
            .reduce((x, y) => op("v128.or", x, y));
          return op("v128.bitselect", zero, plain, isZero);
        });
      }
      case "max":
      case "min":
        return binary(e.op);
      default:
        break;
    }
    throw new Error(`wasm: ${e.op} in a lane plan`);
  }

  /** `a[i + c]` (consecutive elements: one vector load), `M[i + c]` (a row per lane), or `row[u]` of such a row. */
  private get(e: Prim, a: Atom, b: Atom): LaneValue {
    const row = a.kind === "var" ? this.values.get(a.id) : undefined;
    if (row?.kind === "row") return this.gather(row, b, e);
    const shift = this.em.real === "f64" ? 3 : 2;
    if (e.type.k === "array") {
      // Where each group's lane 0 row starts; each lane's is M's dimension 1 further.
      const [data, offset, , stride] = this.em.atom(a) as [WSlot, WSlot, WSlot, WSlot];
      const c = this.offset(b);
      const starts = this.starts.map((at) =>
        this.em.index(iadd(islot(offset), imul(iadd(islot(at), iconst(c)), islot(stride)))),
      );
      return { kind: "row", data, starts, stride };
    }
    const [data, offset, length] = this.em.atom(a) as [WSlot, WSlot, WSlot];
    const c = this.offset(b);
    const moved = (this.values.get((b as { id: number }).id) as { shift?: WSlot }).shift;
    if (moved !== undefined) return this.shiftedLoad(data, offset, length, c, moved);
    // Group g's elements are g * lanes after group 0's: one address, each group's load at its own constant offset
    // (a register per group for the address of each read ran out of registers in GMM's triangular product).
    const first = iadd(iadd(islot(offset), islot(this.starts[0]!)), iconst(c));
    return this.keep("real", (g) => load("v128.load", address(data, first, shift), (g * this.lanes) << shift));
  }

  /**
   * `a[i + u + c]`: consecutive elements from the group's first lane's, checked here (`0 <= first` and `first +
   * lanes <= length`); on a failure the lanes stop at this group, nothing of it written, and the plain loop raises
   * the error at the element it would have.
   */
  private shiftedLoad(data: WSlot, offset: WSlot, length: WSlot, c: number, moved: WSlot): LaneValue {
    const em = this.em;
    const shift = em.real === "f64" ? 3 : 2;
    // The groups' elements are consecutive (group g's first lane is g * lanes after the first's): one check for all.
    const first = em.define("i32", iadd(iadd(islot(this.at), islot(moved)), iconst(c)).code);
    const last = op("i32.sub", slotCode(length), i32(this.lanes * this.groups));
    em.fb.if(op("i32.or", op("i32.lt_s", slotCode(first), i32(0)), op("i32.gt_s", slotCode(first), last)));
    em.set(this.stop, slotCode(this.at));
    em.fb.br(LANES_STOP);
    em.fb.end();
    return this.keep("real", (g) =>
      load("v128.load", address(data, iadd(islot(offset), islot(first)), shift), (g * this.lanes) << shift),
    );
  }

  /**
   * `row[u]` of a row per lane at a uniform index u: one element of each lane's row, u checked against the rows'
   * length (M's dimension 1) as the plain loop checks it at each element.
   */
  private gather(row: { data: WSlot; starts: readonly WSlot[]; stride: WSlot }, u: Atom, e: Prim): LaneValue {
    const em = this.em;
    const at = em.atom(u)[0]!;
    em.boundsCheck(at, row.stride, e.span);
    const f64 = em.real === "f64";
    const shift = f64 ? 3 : 2;
    return this.keep("real", (g) => {
      const first = em.index(iadd(islot(row.starts[g]!), islot(at)));
      let lanes = load(f64 ? "v128.load64_zero" : "v128.load32_zero", address(row.data, islot(first), shift));
      for (let q = 1; q < this.lanes; q++) {
        const element = address(row.data, iadd(islot(first), imul(iconst(q), islot(row.stride))), shift);
        lanes = replaceLane(this.shape, lanes, q, load(f64 ? "f64.load" : "f32.load", element));
      }
      return lanes;
    });
  }

  private compare(e: Prim, a: Atom, b: Atom, g: number): Code {
    if (e.args[0]!.type.k === "double") return op(this.op(e.op), this.real(a, g), this.real(b, g));
    if (e.args[0]!.type.k === "bool") {
      const eq = op(this.em.real === "f64" ? "i64x2.eq" : "i32x4.eq", this.mask(a, g), this.mask(b, g));
      return e.op === "eq" ? eq : op("v128.not", eq);
    }
    // Index lanes: 32-bit masks, widened to the 64-bit lanes of f64.
    const [x, y] = [this.indexLanes(a, g), this.indexLanes(b, g)];
    const m =
      e.op === "ne"
        ? op("v128.not", op("i32x4.eq", x, y))
        : op(`i32x4.${e.op === "eq" ? "eq" : `${e.op}_s`}` as OpName, x, y);
    return this.em.real === "f64" ? op("i64x2.extend_low_i32x4_s", m) : m;
  }

  /** A function of f64 applied lane by lane (f32 lanes widened and rounded). */
  private perLane(f: (x: Code, y?: Code) => Code, args: readonly Code[]): Code {
    const locals = args.map((c) => {
      const l = this.em.fb.local("v128");
      this.em.fb.emit(localSet(l, c));
      return l;
    });
    let out: Code = localGet(locals[0]!);
    for (let q = 0; q < this.lanes; q++) {
      const lane = locals.map((l) =>
        this.em.real === "f64"
          ? extractLane("f64x2", localGet(l), q)
          : op("f64.promote_f32", extractLane("f32x4", localGet(l), q)),
      );
      const y = f(lane[0]!, lane[1]);
      out = replaceLane(this.shape, out, q, this.em.real === "f64" ? y : op("f32.demote_f64", y));
    }
    return out;
  }
}

/** i32 lanes 0, 1, 2, 3. */
const IOTA: Code = (() => {
  const v = i32x4(0);
  const bytes = [...v];
  // Lane k holds k: bytes 4k..4k+3 of the constant (after the 0xfd 0x0c prefix, two bytes).
  for (let k = 0; k < 4; k++) bytes[2 + 4 * k] = k;
  return bytes;
})();
