// The parallel plan: the function's top level (its let chain, and the branches of top-level ifs whose condition the
// host knows) becomes a sequence of host steps and kernels. Fusion has already decided what a kernel is: a top-level
// build is one map kernel (a thread per element of its flattened chain), a sum, max or min loop one reduction, an
// accumulation loop (reverse mode's sweep over points, ../opt/accumulation.ts) one scatter kernel adding atomically;
// sizes, counts and conditions the host can compute are computed on the host (./host.ts), allocations of known size
// made by the host; whatever else is at the top level runs on one thread, consecutive lets in one segment kernel.
//
// Values cross kernels through the environment words (scalars, and the slots of arrays made on the device) or the
// host's parameters; arrays themselves stay in the heap. Every check in these kernels, and every failure of the host's
// arithmetic, sends the call to the sequential plan (./serial.ts), which reports the first error in order.

import { freeVars, useCounts } from "../ir/free.js";
import { typeOf, type Atom, type Expr, type If, type IrFunction, type Let, type Var } from "../ir/ir.js";
import { ownership, type Ownership } from "../lowering/ownership.js";
import { leafStarts, leavesOf } from "../lowering/leaves.js";
import { buildChain } from "../lowering/build-forms.js";
import { varName } from "../codegen/writer.js";
import type { ScalarKind } from "../runtime/value.js";
import type { Type } from "../types/types.js";
import { shapeSize } from "../runtime/value.js";
import { envLoad, envStore, kernelModule, param } from "./kernel.js";
import { hostOp } from "./host.js";
import { kernelEmitter, literalText, loadVars, ONE, storeEnv, type Loc } from "./kernels.js";
import { planBuild, planReduction, planScatter } from "./loops.js";
import {
  HostFailure,
  offsetPositions,
  slotKinds,
  type HostState,
  type KernelInfo,
  type Plan,
  type Step,
} from "./plan.js";

/** Whether every slot of `loc` is known to the host. */
export function onHost(this: void, loc: Loc): boolean {
  return loc.every((s) => s.from !== "env");
}

/** A host value's reader (a slot known to the host). */
export function hostRead(this: void, src: Loc[number]): (h: HostState) => number {
  if (src.from === "literal") return () => (typeof src.value === "boolean" ? (src.value ? 1 : 0) : src.value);
  if (src.from === "param") return (h) => h.values[src.at]!;
  throw new Error("webgpu: the host reads a value only the device has");
}

/** Whether `rhs` makes a new array of zeros (which no other variable shares). */
function freshArray(rhs: Expr): boolean {
  if (rhs.kind === "prim") return rhs.op === "zerosLike";
  if (rhs.kind !== "build") return false;
  const levels = buildChain(rhs);
  const terminal = levels[levels.length - 1]!.build.body;
  return terminal.kind === "lit" && terminal.value === 0;
}

export class Planner {
  readonly kernels: KernelInfo[] = [];
  readonly paramKinds: ScalarKind[] = [];
  envCount = 0;
  steps: Step[] = [];
  private readonly locs = new Map<number, Loc>();
  /** The components of variables bound to tuples (to find an accumulator's own variable). */
  readonly tuples = new Map<number, readonly Atom[]>();
  /** Data parameters of arrays the host allocated and zeroed (zerosLike), by variable. */
  readonly freshZeros = new Set<number>();
  /** Variables bound to new arrays of zeros wherever they are computed (zerosLike, builds of 0.), by variable. */
  readonly freshArrays = new Set<number>();
  readonly owned: Ownership;
  readonly uses: Map<number, number>;

  constructor(private readonly fn: IrFunction) {
    this.owned = ownership(fn);
    this.uses = useCounts(fn.body);
  }

  plan(): Plan {
    const argParams: (number | undefined)[] = [];
    for (const p of this.fn.params) {
      const offsets = offsetPositions(p.type);
      const loc = slotKinds(p.type).map((kind, i): Loc[number] => {
        if (offsets.has(i)) {
          argParams.push(undefined);
          return { from: "literal", value: 0 };
        }
        const at = this.param(kind);
        argParams.push(at);
        return { from: "param", at };
      });
      this.locs.set(p.id, loc);
    }
    const result = this.expr(this.fn.body);
    return {
      kernels: this.kernels,
      steps: this.steps,
      paramCount: this.paramKinds.length,
      argParams,
      paramKinds: this.paramKinds,
      envCount: this.envCount,
      result,
      resultType: typeOf(this.fn.body),
      paramTypes: this.fn.params.map((p) => p.type),
      sites: [],
    };
  }

  param(kind: ScalarKind): number {
    return this.paramKinds.push(kind) - 1;
  }

  env = (): number => this.envCount++;

  locOf = (v: Var): Loc => {
    const loc = this.locs.get(v.id);
    if (loc === undefined) throw new Error(`webgpu: no location for ${varName(v.id)}`);
    return loc;
  };

  hasLoc(v: Var): boolean {
    return this.locs.has(v.id);
  }

  atomLoc(a: Atom): Loc {
    if (a.kind === "lit") return [{ from: "literal", value: a.value }];
    return this.locOf(a);
  }

  kernel(wgsl: string, what: string): number {
    return this.kernels.push({ wgsl, what }) - 1;
  }

  // ---- the top level ----

  /** Plans `e` (a let chain at the top level) and returns where its value's slots are. */
  private expr(e: Expr): Loc {
    const pending: Let[] = [];
    for (; e.kind === "let"; e = e.body) {
      if (freshArray(e.rhs)) this.freshArrays.add(e.v.id);
      if (e.rhs.kind === "tuple") this.tuples.set(e.v.id, e.rhs.elems);
      if (!this.mayPlan(e.rhs, pending)) {
        pending.push(e);
        continue;
      }
      // The lets before run first, in a segment of their own; undone when this let is not planned after all.
      const mark = this.mark();
      if (pending.length > 0) this.segment(pending, e);
      const loc = this.rhs(e.v, e.rhs);
      if (loc === undefined) {
        this.undo(mark, pending);
        pending.push(e);
        continue;
      }
      this.locs.set(e.v.id, loc);
      pending.length = 0;
    }
    if (pending.length > 0) this.segment(pending, e);
    if (e.kind === "var" || e.kind === "lit") return this.atomLoc(e);
    if (e.kind === "tuple") return e.elems.flatMap((a) => this.atomLoc(a));
    const v: Var = { kind: "var", id: -1, name: "result", type: typeOf(e) };
    return this.rhs(v, e) ?? this.segmentValue(e);
  }

  private mark(): { steps: number; kernels: number; env: number } {
    return { steps: this.steps.length, kernels: this.kernels.length, env: this.envCount };
  }

  private undo(mark: { steps: number; kernels: number; env: number }, pending: readonly Let[]): void {
    this.steps.length = mark.steps;
    this.kernels.length = mark.kernels;
    this.envCount = mark.env;
    for (const l of pending) this.locs.delete(l.v.id);
  }

  /**
   * Whether planning `rhs` may give something better than leaving it to the segment of the lets before it (which it
   * would end): renaming and host arithmetic only on values the host or earlier kernels made.
   */
  private mayPlan(rhs: Expr, pending: readonly Let[]): boolean {
    if (pending.length === 0) return true;
    const inPending = (a: Atom) => a.kind === "var" && pending.some((l) => l.v.id === a.id);
    switch (rhs.kind) {
      case "var":
        return !inPending(rhs);
      case "lit":
        return true;
      case "tuple":
        return !rhs.elems.some(inPending);
      case "proj":
        return !inPending(rhs.arg);
      case "prim":
        return (
          !rhs.args.some(inPending) && (hostOp(rhs) !== undefined || rhs.op === "zerosLike" || rhs.op === "length")
        );
      case "build":
      case "ifold":
        return !inPending(rhs.kind === "build" ? rhs.size : rhs.count);
      case "if":
        return !inPending(rhs.cond);
      default:
        return false;
    }
  }

  /** Where the value of `rhs` (bound to v) is, once planned; undefined when it is left to a segment. */
  private rhs(v: Var, rhs: Expr): Loc | undefined {
    switch (rhs.kind) {
      case "var":
      case "lit":
        return this.atomLoc(rhs);
      case "tuple":
        this.tuples.set(v.id, rhs.elems);
        return rhs.elems.flatMap((a) => this.atomLoc(a));
      case "proj": {
        const t = rhs.arg.type;
        if (t.k !== "tuple") return undefined;
        const start = t.elems.slice(0, rhs.index).reduce((n, et) => n + slotKinds(et).length, 0);
        return this.atomLoc(rhs.arg).slice(start, start + slotKinds(rhs.type).length);
      }
      case "prim":
        return this.prim(v, rhs);
      case "build":
        return planBuild(this, rhs);
      case "ifold":
        return planReduction(this, rhs) ?? planScatter(this, rhs);
      case "if":
        return this.branch(rhs);
      default:
        return undefined;
    }
  }

  // ---- host steps ----

  private prim(v: Var, p: Extract<Expr, { kind: "prim" }>): Loc | undefined {
    const args = p.args.map((a) => this.atomLoc(a));
    if (p.op === "length") return [args[0]![2]!];
    if (p.op === "zerosLike") return this.zeros(v, args[0]!, p.args[0]!.type);
    if (p.op === "get" && p.type.k === "array") return this.view(args[0]!, args[1]!, p.args[0]!.type);
    const op = hostOp(p);
    if (op === undefined || !args.every(onHost)) return undefined;
    const reads = args.map((l) => hostRead(l[0]!));
    const at = this.param(slotKinds(p.type)[0]!);
    this.steps.push({ kind: "host", run: (h) => void (h.values[at] = op(reads.map((r) => r(h)))) });
    return [{ from: "param", at }];
  }

  /**
   * A row of an array the host knows (`m[i]`, an array itself): the same data at offset + i * (the row's size),
   * checked on the host (a HostFailure when out of range, which the sequential plan reports).
   */
  private view(arr: Loc, index: Loc, t: Type): Loc | undefined {
    if (!onHost(arr) || !onHost(index)) return undefined;
    const leaves = leavesOf(t);
    const starts = leafStarts(leaves);
    const i = hostRead(index[0]!);
    const length = hostRead(arr[2]!);
    const loc: Loc[number][] = [];
    leaves.forEach((l, k) => {
      const [data, offset, , ...inner] = arr.slice(starts[k], starts[k]! + 2 + l.rank);
      const readOffset = hostRead(offset!);
      const readInner = inner.map(hostRead);
      const at = this.param("int");
      this.steps.push({
        kind: "host",
        run: (h) => {
          const j = i(h);
          if (!(j >= 0 && j < length(h))) throw new HostFailure("index out of range");
          h.values[at] = readOffset(h) + j * readInner.reduce((n, d) => n * d(h), 1);
        },
      });
      loc.push(data!, { from: "param", at }, ...inner);
    });
    return loc;
  }

  /** Arrays of zeros the host allocates and clears (every dimension known to it). */
  private zeros(v: Var, like: Loc, t: Type): Loc | undefined {
    const leaves = leavesOf(t);
    const starts = leafStarts(leaves);
    const dims = leaves.map((l, k) => like.slice(starts[k]! + 2, starts[k]! + 2 + l.rank));
    if (!dims.every(onHost)) return undefined;
    const loc: Loc[number][] = [];
    leaves.forEach((_, k) => {
      const at = this.param("int");
      const reads = dims[k]!.map(hostRead);
      this.steps.push({
        kind: "host",
        run: (h) => {
          const n = shapeSize(reads.map((r) => r(h)));
          h.values[at] = h.allocate(n);
          h.clear(h.values[at], n);
        },
      });
      loc.push({ from: "param", at }, { from: "literal", value: 0 }, ...dims[k]!);
    });
    this.freshZeros.add(v.id);
    return loc;
  }

  // ---- branches the host chooses ----

  private branch(e: If): Loc | undefined {
    const cond = this.atomLoc(e.cond);
    if (!onHost(cond)) return undefined;
    const readCond = hostRead(cond[0]!);
    const outer = this.steps;
    const arm = (body: Expr): { steps: Step[]; loc: Loc } => {
      this.steps = [];
      const loc = this.expr(body);
      return { steps: this.steps, loc };
    };
    const yes = arm(e.then);
    const no = arm(e.else);
    this.steps = outer;
    const kinds = slotKinds(e.type);
    const moves: { slot: number; env: number }[] = [];
    const loc = kinds.map((kind, i): Loc[number] => {
      const [a, b] = [yes.loc[i]!, no.loc[i]!];
      if (JSON.stringify(a) === JSON.stringify(b)) return a;
      if (a.from !== "env" && b.from !== "env") {
        const at = this.param(kind);
        for (const [arm, src] of [
          [yes, a],
          [no, b],
        ] as const) {
          const read = hostRead(src);
          arm.steps.push({ kind: "host", run: (h) => void (h.values[at] = read(h)) });
        }
        return { from: "param", at };
      }
      const at = this.env();
      moves.push({ slot: i, env: at });
      return { from: "env", at };
    });
    if (moves.length > 0)
      for (const arm of [yes, no]) {
        const em = kernelEmitter();
        const stores = moves.map(({ slot, env }) => {
          const src = arm.loc[slot]!;
          const kind = kinds[slot]!;
          const value =
            src.from === "literal"
              ? literalText(src.value, kind)
              : src.from === "param"
                ? param(src.at, kind)
                : envLoad(src.at, kind);
          return envStore(env, kind, value);
        });
        for (const line of stores) em.out.line(line);
        const kernel = this.kernel(kernelModule(em, ONE), "the value of the branch taken");
        arm.steps.push({ kind: "dispatch", kernel, groups: () => [1, 1, 1] });
      }
    this.steps.push({ kind: "if", cond: (h) => readCond(h) !== 0, then: yes.steps, else: no.steps });
    return loc;
  }

  // ---- segments: one thread ----

  /**
   * The emitter of a one-thread kernel: it updates arrays in place where the whole function's ownership analysis
   * allows (as the sequential plan does), since its lets run in the function's order.
   */
  private segmentEmitter() {
    const em = kernelEmitter();
    em.inPlace = this.owned.inPlace;
    em.copyOnEntry = this.owned.copyOnEntry;
    return em;
  }

  /** The lets `pending` (followed by `rest`) as one kernel on one thread; the values `rest` reads go to the env. */
  private segment(pending: readonly Let[], rest: Expr): void {
    const em = this.segmentEmitter();
    const bound = new Set(pending.map((l) => l.v.id));
    const free = new Map<number, Var>();
    for (const l of pending) for (const [id, v] of freeVars(l.rhs)) if (!bound.has(id)) free.set(id, v);
    loadVars(em, free.values(), this.locOf);
    for (const l of pending) em.letBinding(l);
    const live = freeVars(rest);
    for (const l of pending) {
      if (!live.has(l.v.id)) continue;
      this.locs.set(l.v.id, storeEnv(em, em.atom(l.v), slotKinds(l.v.type), this.env));
    }
    const kernel = this.kernel(kernelModule(em, ONE), `${pending.length} lets on one thread`);
    this.steps.push({ kind: "dispatch", kernel, groups: () => [1, 1, 1] });
  }

  /** The final expression of a let chain on one thread, its value to the env. */
  private segmentValue(e: Expr): Loc {
    const em = this.segmentEmitter();
    loadVars(em, freeVars(e).values(), this.locOf);
    const loc = storeEnv(em, em.expr(e, em.fresh()), slotKinds(typeOf(e)), this.env);
    const kernel = this.kernel(kernelModule(em, ONE), "the result, on one thread");
    this.steps.push({ kind: "dispatch", kernel, groups: () => [1, 1, 1] });
    return loc;
  }
}
