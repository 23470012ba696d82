// Loops run in SIMD lanes (two f64 lanes, or four f32 lanes in a float32 function): the wasm side of the lane plans
// of src/lowering/lanes.ts. A plan's varying values live in v128 locals; its uniform lets are ordinary code (the
// emitter's), once per group of lanes. Reads `a[i + c]` are one vector load; exp and log are the two-lane functions of
// ./simd-math.ts, sin, cos, tan, tanh and pow V8's own per lane; an `if` computes both branches and selects. The lanes
// run up to the bound the plan gives (no read out of range); the caller runs the plain loop from there. An ifold
// nested in the body (outer lanes) is a loop of its own over its index, for all lanes at once: its state a v128 local,
// one lane per output (a sum's step one vector addition).

import type { Atom, Expr, Ifold, Let, Prim } from "../ir/ir.js";
import type { LanePlan, ReductionPlan, UpdatePlan } from "../lowering/lanes.js";
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
  shuffle,
  store,
  type OpName,
} from "./instructions.js";
import { expF64x2, logF64x2 } from "./simd-math.js";
import type { WasmEmitter } from "./emit.js";
import { address, iadd, iconst, imul, islot, product, slotCode, type IExpr, type WSlot } from "./slots.js";

/**
 * A varying value: a v128 local of reals or of lane masks, the loop index plus a constant, or a row per lane (of the
 * matrix at `data`, lane 0's row starting at element `start`, the next lanes' `stride` elements apart).
 */
type LaneValue =
  | { readonly kind: "real" | "mask"; readonly local: number }
  | { readonly kind: "index"; readonly offset: number }
  | { readonly kind: "row"; readonly data: WSlot; readonly start: WSlot; readonly stride: WSlot };

/** The number of lanes of a real type. */
export const laneCount = (real: "f64" | "f32"): number => (real === "f64" ? 2 : 4);

export class Lanes {
  readonly lanes: number;
  private readonly values = new Map<number, LaneValue>();
  private readonly shape: "f64x2" | "f32x4";

  constructor(
    readonly em: WasmEmitter,
    readonly plan: LanePlan,
    /** The index of the first lane of the current group (an i32 local). */
    readonly at: WSlot,
  ) {
    this.lanes = laneCount(em.real);
    this.shape = em.real === "f64" ? "f64x2" : "f32x4";
    this.values.set(plan.index.id, { kind: "index", offset: 0 });
  }

  /**
   * The number of iterations that run in lanes: n, lowered so that no read is out of range (a multiple of the lane
   * count; `room` bounds it further, e.g. a build chain's buffer).
   */
  static bound(em: WasmEmitter, plan: LanePlan, n: WSlot, room?: WSlot): WSlot {
    const lanes = laneCount(em.real);
    const m = em.define("i32", slotCode(n));
    const lower = (limit: Code) => em.set(m, op("select", limit, slotCode(m), op("i32.lt_s", limit, slotCode(m))));
    for (const b of plan.bounds) {
      const length =
        "array" in b.length ? em.atom(b.length.array)[2 + (b.length.dim ?? 0)]! : em.atom(b.length.atom)[0]!;
      lower(op("i32.sub", slotCode(length), i32(b.offset)));
    }
    if (room !== undefined) lower(slotCode(room));
    // Negative (an array shorter than an offset) is no lanes; then whole groups only.
    em.set(m, op("i32.and", op("select", slotCode(m), i32(0), op("i32.gt_s", slotCode(m), i32(0))), i32(-lanes)));
    return m;
  }

  /** Writes the lets of a body; returns the lanes of its value: one v128 per Double leaf of the tail. */
  body(e: Expr): Code[] {
    for (; e.kind === "let"; e = e.body) this.let(e);
    if (e.kind === "tuple") return e.elems.map((a) => this.real(a));
    return [this.real(e as Atom)];
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

  /** A new v128 local holding `code`. */
  private keep(kind: "real" | "mask", code: Code): LaneValue {
    const local = this.em.fb.local("v128");
    this.em.fb.emit(localSet(local, code));
    return { kind, local };
  }

  private rhs(e: Expr): LaneValue {
    if (e.kind === "var") return this.values.get(e.id)!;
    if (e.kind === "ifold") return this.fold(e);
    if (e.kind === "if") {
      const mask = this.mask(e.cond);
      const yes = this.branch(e.then, e.type.k === "bool");
      const no = this.branch(e.else, e.type.k === "bool");
      return this.keep(e.type.k === "bool" ? "mask" : "real", op("v128.bitselect", yes, no, mask));
    }
    if (e.kind !== "prim") throw new Error(`wasm: ${e.kind} in a lane plan`);
    return this.prim(e);
  }

  /**
   * A loop across the lanes (outer lanes): its count and index are the same in every lane, so one loop over the index
   * takes every lane's step at once, the state a v128 local (each lane's own steps, in order: the plain loop's).
   */
  private fold(e: Ifold): LaneValue {
    const body = this.plan.folds.get(e);
    if (body === undefined) throw new Error("wasm: an ifold the lane plan did not take");
    const em = this.em;
    const count = em.atom(e.count)[0]!;
    em.checkCount(count, "ifold count", e.span);
    const state = this.keep("real", this.real(e.init));
    this.values.set(e.acc.id, state);
    const b = em.loopVariable(e.index, count);
    em.laneLoops++;
    em.outerLaneLoops++;
    em.countedLoop(b, count, () => em.fb.emit(localSet((state as { local: number }).local, this.body(body)[0]!)));
    return state;
  }

  private branch(e: Expr, isMask: boolean): Code {
    for (; e.kind === "let"; e = e.body) this.let(e);
    return isMask ? this.mask(e as Atom) : this.real(e as Atom);
  }

  /** The lanes of a Double atom (a uniform one splatted). */
  real(a: Atom): Code {
    if (a.kind === "var") {
      const v = this.values.get(a.id);
      if (v !== undefined && (v.kind === "real" || v.kind === "mask")) return localGet(v.local);
    }
    return op(this.em.real === "f64" ? "f64x2.splat" : "f32x4.splat", slotCode(this.em.atom(a)[0]!));
  }

  /** The lane mask of a Bool atom (all ones for true; a uniform one splatted). */
  mask(a: Atom): Code {
    if (a.kind === "var") {
      const v = this.values.get(a.id);
      if (v !== undefined && (v.kind === "real" || v.kind === "mask")) return localGet(v.local);
    }
    const b = op("i32.sub", i32(0), slotCode(this.em.atom(a)[0]!));
    return this.em.real === "f64" ? op("i64x2.splat", op("i64.extend_i32_s", b)) : op("i32x4.splat", b);
  }

  /** The Index lanes (i32x4) of an offset of the index or a uniform Index. */
  private indexLanes(a: Atom): Code {
    const v = a.kind === "var" ? this.values.get(a.id) : undefined;
    if (v?.kind === "index")
      return op("i32x4.add", op("i32x4.splat", iadd(islot(this.at), iconst(v.offset)).code), IOTA);
    return op("i32x4.splat", slotCode(this.em.atom(a)[0]!));
  }

  private op(name: string): OpName {
    return `${this.shape}.${name}` as OpName;
  }

  private prim(e: Prim): LaneValue {
    const [a, b] = e.args as [Atom, Atom];
    const real = (code: Code) => this.keep("real", code);
    switch (e.op) {
      case "get": {
        const row = a.kind === "var" ? this.values.get(a.id) : undefined;
        if (row?.kind === "row") return real(this.gather(row, b, e));
        if (e.type.k === "array") {
          // M[i + c]: where lane 0's row starts; each lane's is M's dimension 1 further.
          const [data, offset, , stride] = this.em.atom(a) as [WSlot, WSlot, WSlot, WSlot];
          const c = (this.values.get((b as { id: number }).id) as { offset: number }).offset;
          const start = this.em.index(iadd(islot(offset), imul(iadd(islot(this.at), iconst(c)), islot(stride))));
          return { kind: "row", data, start, stride };
        }
        const [data, offset] = this.em.atom(a) as [WSlot, WSlot];
        const v = this.values.get((b as { id: number }).id) as { offset: number };
        const index = iadd(iadd(islot(offset), islot(this.at)), iconst(v.offset));
        return real(load("v128.load", address(data, index, this.em.real === "f64" ? 3 : 2)));
      }
      case "checkIndex":
      case "add":
      case "sub": {
        if (e.type.k !== "int") return real(op(this.op(e.op), this.real(a), this.real(b)));
        const lit = (x: Atom) => (x as { value: number }).value;
        const off = (x: Atom) => (this.values.get((x as { id: number }).id) as { offset: number }).offset;
        if (e.op === "checkIndex") return { kind: "index", offset: off(a) };
        const aIndex = a.kind === "var" && this.values.get(a.id)?.kind === "index";
        return { kind: "index", offset: e.op === "sub" ? off(a) - lit(b) : aIndex ? off(a) + lit(b) : off(b) + lit(a) };
      }
      case "toDouble": {
        const lanes = this.indexLanes(a);
        return real(op(this.em.real === "f64" ? "f64x2.convert_low_i32x4_s" : "f32x4.convert_i32x4_s", lanes));
      }
      case "lt":
      case "gt":
      case "le":
      case "ge":
      case "eq":
      case "ne":
        return this.keep("mask", this.compare(e, a, b));
      case "and":
        return this.keep("mask", op("v128.and", this.mask(a), this.mask(b)));
      case "or":
        return this.keep("mask", op("v128.or", this.mask(a), this.mask(b)));
      case "not":
        return this.keep("mask", op("v128.not", this.mask(a)));
      case "stopGradient":
        return real(this.real(a));
      case "neg":
      case "sqrt":
      case "abs":
      case "floor":
        return real(op(this.op(e.op), this.real(a)));
      case "exp":
      case "log":
        return real(this.inline(e.op, this.real(a)));
      case "sin":
      case "cos":
      case "tan":
      case "tanh":
        return real(this.perLane((x) => call(this.em.helpers.math[e.op as "sin"], x), [this.real(a)]));
      case "pow":
        return real(this.perLane((x, y) => call(this.em.helpers.math.pow, x, y!), [this.real(a), this.real(b)]));
      case "mul":
      case "div": {
        const plain = op(this.op(e.op), this.real(a), this.real(b));
        if (e.tangent === undefined) return real(plain);
        // A zero tangent is a symbolic zero (Prim.tangent): 0 in that lane, whatever the other operand.
        const t = this.real(e.args[e.tangent]!);
        const zero = this.em.real === "f64" ? op("f64x2.splat", f64(0)) : op("f32x4.splat", f32(0));
        return real(op("v128.bitselect", zero, plain, op(this.op("eq"), t, zero)));
      }
      case "max":
      case "min":
        return real(op(this.op(e.op), this.real(a), this.real(b)));
      default:
        break;
    }
    throw new Error(`wasm: ${e.op} in a lane plan`);
  }

  /**
   * `row[u]` of a row per lane at a uniform index u: one element of each lane's row, u checked against the rows'
   * length (M's dimension 1) as the plain loop checks it at each element.
   */
  private gather(row: { data: WSlot; start: WSlot; stride: WSlot }, u: Atom, e: Prim): Code {
    const em = this.em;
    const at = em.atom(u)[0]!;
    em.boundsCheck(at, row.stride, e.span);
    const f64 = em.real === "f64";
    const shift = f64 ? 3 : 2;
    const first = em.index(iadd(islot(row.start), islot(at)));
    let lanes = load(f64 ? "v128.load64_zero" : "v128.load32_zero", address(row.data, islot(first), shift));
    for (let q = 1; q < this.lanes; q++) {
      const element = address(row.data, iadd(islot(first), imul(iconst(q), islot(row.stride))), shift);
      lanes = replaceLane(this.shape, lanes, q, load(f64 ? "f64.load" : "f32.load", element));
    }
    return lanes;
  }

  private compare(e: Prim, a: Atom, b: Atom): Code {
    if (e.args[0]!.type.k === "double") return op(this.op(e.op), this.real(a), this.real(b));
    if (e.args[0]!.type.k === "bool") {
      const eq = op(this.em.real === "f64" ? "i64x2.eq" : "i32x4.eq", this.mask(a), this.mask(b));
      return e.op === "eq" ? eq : op("v128.not", eq);
    }
    // Index lanes: 32-bit masks, widened to the 64-bit lanes of f64.
    const [x, y] = [this.indexLanes(a), this.indexLanes(b)];
    const m =
      e.op === "ne"
        ? op("v128.not", op("i32x4.eq", x, y))
        : op(`i32x4.${e.op === "eq" ? "eq" : `${e.op}_s`}` as OpName, x, y);
    return this.em.real === "f64" ? op("i64x2.extend_low_i32x4_s", m) : m;
  }

  /**
   * exp or log of the lanes, written here rather than called (./simd-math.ts): inside the loop the engine keeps its
   * constants in registers. Four f32 lanes go through the f64 function in two halves, widened and rounded back.
   */
  private inline(f: "exp" | "log", x: Code): Code {
    const fb = this.em.fb;
    const write = f === "exp" ? expF64x2 : logF64x2;
    const input = fb.local("v128");
    fb.emit(localSet(input, x));
    if (this.em.real === "f64") {
      write(fb, input);
      return [];
    }
    const halves = [localGet(input), shuffle(localGet(input), localGet(input), HIGH_HALF)].map((h) => {
      const wide = fb.local("v128");
      fb.emit(localSet(wide, op("f64x2.promote_low_f32x4", h)));
      write(fb, wide);
      const narrow = fb.local("v128");
      fb.emit(localSet(narrow, op("f32x4.demote_f64x2_zero", [])));
      return localGet(narrow);
    });
    return shuffle(halves[0]!, halves[1]!, [0, 1, 2, 3, 4, 5, 6, 7, 16, 17, 18, 19, 20, 21, 22, 23]);
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

/**
 * The SIMD part of a reduction `acc ⊕ x` (the state's slot `acc`): x for a group of lanes at a time, added to acc
 * lane by lane, in order. Returns the iteration the plain loop continues from.
 */
export function reduceInLanes(em: WasmEmitter, plan: ReductionPlan, n: WSlot, acc: WSlot): WSlot {
  const m = Lanes.bound(em, plan, n);
  const at = em.local("i32");
  const step = `${em.real}.${plan.op}` as OpName;
  em.countedLoop(
    at,
    m,
    () =>
      em.scoped(() => {
        const lanes = new Lanes(em, plan, at);
        for (const l of plan.lets) lanes.let(l);
        const term = em.fb.local("v128");
        em.fb.emit(localSet(term, lanes.real(plan.term)));
        for (let q = 0; q < lanes.lanes; q++)
          em.set(acc, op(step, slotCode(acc), extractLane(em.real === "f64" ? "f64x2" : "f32x4", localGet(term), q)));
      }),
    undefined,
    laneCount(em.real),
  );
  return m;
}

/**
 * The SIMD part of an in-place update loop `addAt a (u.., k + c) x` (the state's slots `state`: data, offset, dims): a
 * group of elements of the row at the uniform indexes u.. is loaded, x's lanes added, and stored. Lanes run only when
 * the uniform indexes are in range (else the plain loop raises the error at the first iteration, as without lanes).
 * Returns the iteration the plain loop continues from.
 */
export function updateInLanes(em: WasmEmitter, plan: UpdatePlan, n: WSlot, state: readonly WSlot[]): WSlot {
  const [data, offset, ...dims] = state as [WSlot, WSlot, ...WSlot[]];
  const m = Lanes.bound(em, plan, n);
  let base: IExpr = islot(offset);
  plan.prefix.forEach((u, d) => {
    const at = em.atom(u)[0]!;
    // Out of range (negative is a large unsigned): no lanes.
    em.set(m, op("select", slotCode(m), i32(0), op("i32.lt_u", slotCode(at), slotCode(dims[d]!))));
    base = iadd(base, imul(islot(at), product(dims.slice(d + 1))));
  });
  const row = em.index(iadd(base, iconst(plan.offset)));
  const shape = em.real === "f64" ? "f64x2" : "f32x4";
  const at = em.local("i32");
  em.countedLoop(
    at,
    m,
    () =>
      em.scoped(() => {
        const lanes = new Lanes(em, plan, at);
        for (const l of plan.lets) lanes.let(l);
        const x = lanes.real(plan.value);
        const addr = em.define("i32", address(data, iadd(islot(row), islot(at)), em.real === "f64" ? 3 : 2));
        em.fb.emit(store("v128.store", slotCode(addr), op(`${shape}.add`, load("v128.load", slotCode(addr)), x)));
      }),
    undefined,
    laneCount(em.real),
  );
  return m;
}

/** The bytes of lanes 2 and 3 of an f32x4 moved to lanes 0 and 1. */
const HIGH_HALF = [8, 9, 10, 11, 12, 13, 14, 15, 8, 9, 10, 11, 12, 13, 14, 15];

/** i32 lanes 0, 1, 2, 3. */
const IOTA: Code = (() => {
  const v = i32x4(0);
  const bytes = [...v];
  // Lane k holds k: bytes 4k..4k+3 of the constant (after the 0xfd 0x0c prefix, two bytes).
  for (let k = 0; k < 4; k++) bytes[2 + 4 * k] = k;
  return bytes;
})();
