// WGSL statements for first-order IR, one kernel's code at a time: the same structure as the JavaScript back end's
// emitter (src/codegen/emit.ts), over the same leaf layout (src/lowering/leaves.ts), bounds facts and ownership. A
// slot is a WGSL `let`/`var` name or a literal; an array leaf's data slot is the word address of its allocation in
// the heap (one storage buffer of u32 words, f32 and i32 bitcast, Bool 0/1), its offset the position of element 0.
//
// Failed checks. A check that fails stores its site's number and the numbers the message needs in the control words
// and returns from the kernel (every kernel starts by returning when a site is set); the host raises the site's
// SmoothError (src/webgpu/run.ts). In a kernel that runs elements in parallel, a failed check only marks the
// run as failed: the host runs the program again as one sequential kernel, which finds the first error in the order
// the other back ends do (errors are rare; the parallel plan is for programs that run).

import { MAX_ARRAY_ELEMENTS } from "../runtime/limits.js";
import { fail } from "../syntax/diagnostics.js";
import type { Span } from "../syntax/source.js";
import { arrayOf, BOOL, DOUBLE, INT, type Type } from "../types/types.js";
import { isZeroLiteral, symbolicZero, tangentPositions } from "../ir/ir.js";
import type { Atom, Expr, If, Ifold, Let, Prim, Proj, Var, While } from "../ir/ir.js";
import {
  elemKind,
  invariantDimensionSlots,
  leafSlotCount,
  leafStarts,
  leavesOf,
  slotCount,
  type Leaf,
} from "../lowering/leaves.js";
import { BoundsFacts } from "../lowering/bounds.js";
import type { Fresh } from "../lowering/ownership.js";
import { CodeWriter, slotNames, varName } from "../codegen/writer.js";
import type { ScalarKind } from "../runtime/value.js";
import { fromWord, HELPER_NEEDS, nonNegativeLiteral, SCALAR_TYPE, toWord, wgslLiteral, ZERO } from "./wgsl.js";
import type { HelperName } from "./wgsl.js";
import { WGSL_LOWERING } from "./lowering.js";
import { emitBuild } from "./build.js";
import { CONTROL, type ErrorSite, type SavedKind } from "./control.js";

export type Slots = readonly string[];

/** How a kernel reaches the heap: plain words, or atomic ones (a kernel whose threads add into shared arrays). */
export type HeapMode = "plain" | "atomic";

export class WgslEmitter {
  readonly out: CodeWriter;
  readonly bounds: BoundsFacts;
  private readonly env = new Map<number, Slots>();
  private temps = 0;
  /** The helper functions this kernel's code calls. */
  readonly helpers = new Set<HelperName>();
  /** The array updates that may overwrite their operand (src/lowering/ownership.ts); the others copy it first. */
  inPlace: ReadonlySet<Prim> = new Set();
  /** Loops whose shared initial state components are copied once on entry (ownership.ts). */
  copyOnEntry: ReadonlyMap<Ifold | While, Fresh> = new Map();
  /** How the code leaves the kernel (or the function it is written in) when a check fails. */
  exit = "return;";
  /**
   * The data slots of arrays that threads of this kernel add into together (an accumulation loop's state): every
   * addAt and addArray on them is made in place, atomically.
   */
  readonly shared = new Set<string>();

  constructor(
    /** The error sites of the whole program (shared by its kernels): a site's number is its position + 1. */
    readonly sites: ErrorSite[],
    /** Whether this kernel runs elements in parallel: a failed check then marks the run for a sequential rerun. */
    readonly parallel: boolean,
    readonly heap: HeapMode = "plain",
    indent = 1,
  ) {
    this.out = new CodeWriter(indent);
    this.bounds = new BoundsFacts(this.out, nonNegativeLiteral);
  }

  fresh(): string {
    return `t${++this.temps}`;
  }

  use(helper: HelperName): void {
    this.helpers.add(helper);
    for (const h of HELPER_NEEDS[helper] ?? []) this.helpers.add(h);
  }

  bind(v: Var, slots: Slots): void {
    if (slots.length !== slotCount(v.type)) throw new Error(`webgpu: ${slots.length} slots bound to ${varName(v.id)}`);
    if (this.env.has(v.id)) throw new Error(`webgpu: variable ${varName(v.id)} is bound twice`);
    this.env.set(v.id, slots);
  }

  isBound(v: Var): boolean {
    return this.env.has(v.id);
  }

  markDimensions(slots: Slots, t: Type, only?: ReadonlySet<string>): void {
    const leaves = leavesOf(t);
    leafStarts(leaves).forEach((s, l) => {
      for (let d = 0; d < leaves[l]!.rank; d++) {
        const name = slots[s + 2 + d]!;
        if (only === undefined || only.has(name)) this.bounds.dimension(name);
      }
    });
  }

  markDimensionNames(names: Slots): void {
    for (const n of names) this.bounds.dimension(n);
  }

  loopVariable(v: Var, bound: string): string {
    const name = varName(v.id);
    this.bind(v, [name]);
    this.bounds.loopVariable(name, bound);
    return name;
  }

  atom(a: Atom): Slots {
    if (a.kind === "lit") return [wgslLiteral(a.value, a.type)];
    const slots = this.env.get(a.id);
    if (slots === undefined) throw new Error(`webgpu: unbound variable ${varName(a.id)}`);
    return slots;
  }

  letBinding(l: Let): void {
    this.bind(l.v, this.expr(l.rhs, varName(l.v.id)));
  }

  // ---- the heap ----

  /** The scalar of `kind` at word address `at`. */
  load(kind: ScalarKind, at: string): string {
    return fromWord(kind, this.heap === "atomic" ? `atomicLoad(&H[${at}])` : `H[${at}]`);
  }

  /** Stores a scalar of `kind` at word address `at`. */
  store(kind: ScalarKind, at: string, value: string): void {
    const word = toWord(kind, value);
    this.out.line(this.heap === "atomic" ? `atomicStore(&H[${at}], ${word});` : `H[${at}] = ${word};`);
  }

  /** Adds a Double or Index at word address `at` (atomically where threads share the heap). */
  addTo(kind: ScalarKind, at: string, value: string): void {
    if (kind === "bool") return;
    if (this.heap === "atomic") {
      if (kind === "int") this.out.line(`atomicAdd(&H[${at}], bitcast<u32>(${value}));`);
      else this.out.line(`atomic_add_f32(${at}, ${value});`);
      return;
    }
    this.store(kind, at, `${this.load(kind, at)} + ${value}`);
  }

  /**
   * A new array of `n` words (a device allocation: the heap's top moves down), zero-filled unless the code writes every
   * element before reading any. Running out of heap returns from the kernel; the host retries with a larger heap.
   */
  allocate(n: string, zeroed: boolean): string {
    const name = this.fresh();
    this.out.line(`let ${name} = alloc(${n});`);
    this.out.line(`if (${name} < 0) { ${this.exit} }`);
    if (zeroed) this.fill(name, n, "0u");
    return name;
  }

  /** Sets words [at, at + n) to `word`. */
  fill(at: string, n: string, word: string): void {
    const q = this.fresh();
    this.out.line(
      `for (var ${q} = 0; ${q} < ${n}; ${q}++) { ${this.heap === "atomic" ? `atomicStore(&H[${at} + ${q}], ${word})` : `H[${at} + ${q}] = ${word}`}; }`,
    );
  }

  /** Copies n words from `from` to `to`. */
  copyWords(to: string, from: string, n: string): void {
    const q = this.fresh();
    const read = this.heap === "atomic" ? `atomicLoad(&H[${from} + ${q}])` : `H[${from} + ${q}]`;
    this.out.line(
      `for (var ${q} = 0; ${q} < ${n}; ${q}++) { ${this.heap === "atomic" ? `atomicStore(&H[${to} + ${q}], ${read})` : `H[${to} + ${q}] = ${read}`}; }`,
    );
  }

  // ---- checks ----

  /**
   * `if (failed)` the error `raise` makes of the saved values (each a slot of the given kind): the site's number and
   * the values go to the control words, and the kernel returns.
   */
  failIf(failed: string, values: readonly { slot: string; kind: SavedKind }[], site: Omit<ErrorSite, "kinds">): void {
    if (this.parallel) {
      this.out.line(`if (${failed}) { atomicStore(&C[${CONTROL.parallelFailure}], 1u); ${this.exit} }`);
      return;
    }
    const number = this.sites.push({ ...site, kinds: values.map((v) => v.kind) });
    const saves = values.map((v, q) => `atomicStore(&C[${CONTROL.saved + q}], ${toWord(v.kind, v.slot)}); `).join("");
    this.out.line(`if (${failed}) { ${saves}atomicStore(&C[${CONTROL.site}], ${number}u); ${this.exit} }`);
  }

  /** A size or count must not be negative (nor a size above the array limit): the interpreter's error otherwise. */
  checkCount(n: string, what: "build size" | "ifold count", span: Span | undefined): void {
    if (this.bounds.nonNegative(n) && what === "ifold count") return;
    const test =
      what === "build size"
        ? this.bounds.nonNegative(n)
          ? `${n} > ${MAX_ARRAY_ELEMENTS}`
          : `${n} < 0 || ${n} > ${MAX_ARRAY_ELEMENTS}`
        : `${n} < 0`;
    this.failIf(test, [{ slot: n, kind: "int" }], { error: { kind: "badCount", what }, span });
  }

  /** Checks `0 <= i < length` (the part not already known), else the interpreter's index error at `span`. */
  boundsCheck(i: string, length: string, span: Span | undefined): void {
    const check = this.bounds.indexCheck(i, length);
    if (check === "none") return;
    const fails = check === "upper" ? `${i} >= ${length}` : `!(${i} >= 0 && ${i} < ${length})`;
    this.failIf(
      fails,
      [
        { slot: i, kind: "int" },
        { slot: length, kind: "int" },
      ],
      { error: { kind: "indexOutOfRange" }, span },
    );
  }

  // ---- expressions ----

  /** Emits the statements of `e` and returns its slots; new locals are named after `base`. */
  expr(e: Expr, base: string): Slots {
    switch (e.kind) {
      case "var":
      case "lit":
        return this.atom(e);
      case "let": {
        let cur: Expr = e;
        while (cur.kind === "let") {
          this.letBinding(cur);
          cur = cur.body;
        }
        return this.expr(cur, base);
      }
      case "prim":
        return this.prim(e, base);
      case "tuple":
        return e.elems.flatMap((a) => this.atom(a));
      case "proj":
        return this.proj(e);
      case "if":
        return this.if(e, base);
      case "build":
        return emitBuild(this, e, base);
      case "ifold":
        return this.ifold(e);
      case "while":
        return this.while(e);
      case "call":
        return fail("unsupported", "the webgpu back end cannot compile recursive functions", e.span, {
          hint: "run the program on a CPU back end (wasm, js)",
        });
      case "jvp":
        throw new Error("webgpu: a jvp node reached the code generator (the forward-ad pass expands them)");
      case "lam":
      case "app":
      case "custom":
        return fail("unsupported", "cannot compile a function value here", undefined, {
          hint: "the compiled back end takes first-order programs: functions must be inlined away first",
        });
    }
  }

  private prim(e: Prim, base: string): Slots {
    const lowering = WGSL_LOWERING[e.op];
    if ("slots" in lowering) return lowering.slots(this, e, base);
    this.learnRange(e, base);
    const args = e.args.map((a) => this.atom(a)[0]!);
    const types = e.args.map((a) => a.type);
    const plain = lowering.expr(this, args, types, e);
    const tangents = tangentPositions(e);
    if (tangents.length > 0) {
      // A zero tangent is a symbolic zero (Prim.tangent): the product is 0 even for an infinite or NaN partial.
      const checks = tangents.filter((k) => e.args[k]!.kind !== "lit").map((k) => `${args[k]} == 0.0f`);
      const value = symbolicZero(e, (k) => isZeroLiteral(e.args[k]!))
        ? "0.0f"
        : checks.length > 0
          ? `select(${plain}, 0.0f, ${checks.join(" || ")})`
          : plain;
      this.out.line(`let ${base} = ${value};`);
      return [base];
    }
    this.out.line(`let ${base} = ${plain};`);
    return [base];
  }

  /** `get`: the element's slots, a view of the array's leaves for an array element (no copy); bounds-checked. */
  get(e: Prim, base: string): Slots {
    const [arr, index] = e.args as [Atom, Atom];
    const a = this.atom(arr);
    const i = this.atom(index)[0]!;
    this.boundsCheck(i, a[2]!, e.span);
    const names = slotNames(base, e.type);
    const leaves = leavesOf(arr.type);
    const starts = leafStarts(leaves);
    const elemStarts = leafStarts(leavesOf(e.type));
    return leaves.flatMap((leaf, k) => {
      const [data, offset, , ...inner] = a.slice(starts[k], starts[k]! + leafSlotCount(leaf));
      const at = plus(plus(data!, offset!), times([i, ...inner]));
      const name = names[elemStarts[k]!]!;
      if (leaf.rank === 1) {
        this.out.line(`let ${name} = ${this.load(elemKind(leaf), at)};`);
        return [name];
      }
      const viewOffset = names[elemStarts[k]! + 1]!;
      this.out.line(`let ${viewOffset} = ${plus(offset!, times([i, ...inner]))};`);
      return [data!, viewOffset, ...inner];
    });
  }

  private learnRange(e: Prim, base: string): void {
    if (e.type.k !== "int" || (e.op !== "sub" && e.op !== "add")) return;
    const [a, b] = e.args.map((x) => this.atom(x)[0]!) as [string, string];
    this.bounds.arithmetic(e.op, a, b, base);
  }

  private proj(e: Proj): Slots {
    const t = e.arg.type;
    if (t.k !== "tuple") throw new Error("webgpu: proj of a non-tuple");
    const start = t.elems.slice(0, e.index).reduce((n, et) => n + slotCount(et), 0);
    return this.atom(e.arg).slice(start, start + slotCount(e.type));
  }

  private if(e: If, base: string): Slots {
    const cond = this.atom(e.cond)[0]!;
    const branch = (body: Expr): { lines: string[]; slots: Slots } => {
      let slots: Slots = [];
      this.out.indentIn();
      const lines = this.out.capture(() => {
        slots = this.expr(body, this.fresh());
      });
      this.out.indentOut();
      return { lines, slots };
    };
    const yes = branch(e.then);
    const no = branch(e.else);
    const names = slotNames(base, e.type);
    const result = names.map((n, i) => (yes.slots[i] === no.slots[i] ? yes.slots[i]! : n));
    names.forEach((n, i) => {
      if (this.shared.has(yes.slots[i]!) && this.shared.has(no.slots[i]!)) this.shared.add(n);
    });
    this.declareVars(
      names.filter((n, i) => result[i] === n),
      e.type,
      names.flatMap((n, i) => (result[i] === n ? [i] : [])),
    );
    this.markDimensions(result, e.type, new Set(names.filter((n, i) => result[i] === n)));
    const assignments = (slots: Slots) => {
      this.out.indentIn();
      names.forEach((n, i) => {
        if (result[i] === n) this.out.line(`${n} = ${slots[i]};`);
      });
      this.out.indentOut();
    };
    this.out.line(`if (${cond}) {`);
    this.out.append(yes.lines);
    assignments(yes.slots);
    this.out.line("} else {");
    this.out.append(no.lines);
    assignments(no.slots);
    this.out.line("}");
    return result;
  }

  /** `var name: T = init;` for the given slot positions of a value of type `t` (defaults: zeros). */
  declareVars(names: Slots, t: Type, positions: readonly number[], inits?: Slots): void {
    const types = slotTypes(t);
    names.forEach((n, q) => {
      const pos = positions[q]!;
      this.out.line(`var ${n}: ${types[pos]!.type} = ${inits ? inits[q]! : types[pos]!.zero};`);
    });
  }

  /** targets := values, as a simultaneous assignment (values may name other targets, as in a swap). */
  assign(targets: Slots, values: Slots): void {
    const pairs = targets.map((t, i) => [t, values[i]!] as const).filter(([t, v]) => t !== v);
    const targetSet = new Set(targets);
    const saved = pairs.map(([, v]) => {
      if (!targetSet.has(v)) return v;
      const tmp = this.fresh();
      this.out.line(`let ${tmp} = ${v};`);
      return tmp;
    });
    pairs.forEach(([t], i) => this.out.line(`${t} = ${saved[i]};`));
  }

  /** Slots of a copy of the value in `slots` (of type `t`): every array leaf copied into a new allocation. */
  copyValue(slots: Slots, t: Type): Slots {
    const out = [...slots];
    let at = 0;
    for (const l of leavesOf(t)) {
      if (l.rank > 0) {
        const [data, offset, ...dims] = out.slice(at, at + leafSlotCount(l));
        const n = times(dims);
        const copy = this.allocate(n, false);
        this.copyWords(copy, plus(data!, offset!), n);
        out[at] = copy;
        out[at + 1] = "0";
      }
      at += leafSlotCount(l);
    }
    return out;
  }

  /** The initial state's slots, with the array leaves that ownership.ts asks to copy replaced by fresh copies. */
  private copiedOnEntry(e: Ifold | While, init: string[]): string[] {
    const copy = this.copyOnEntry.get(e);
    if (copy === undefined) return init;
    let at = 0;
    const visit = (t: Type, c: Fresh): void => {
      if (t.k === "tuple") {
        t.elems.forEach((u, k) => visit(u, typeof c === "boolean" ? c : (c[k] ?? false)));
        return;
      }
      for (const l of leavesOf(t)) {
        if (c === true && l.rank > 0) {
          const copied = this.copyValue(init.slice(at, at + leafSlotCount(l)), arrayType(l));
          init[at] = copied[0]!;
          init[at + 1] = copied[1]!;
        }
        at += leafSlotCount(l);
      }
    };
    visit(e.acc.type, copy);
    return init;
  }

  private loopState(e: Ifold | While): Slots {
    const init = this.copiedOnEntry(e, [...this.atom(e.init)]);
    const state = slotNames(varName(e.acc.id), e.acc.type);
    const fixed = invariantDimensionSlots(e);
    fixed.forEach((q) => (state[q] = init[q]!));
    // A shared accumulator passed through a loop's state is still shared (and updated in place in it).
    state.forEach((name, q) => {
      if (this.shared.has(init[q]!)) this.shared.add(name);
    });
    const mutable = state.map((_, q) => q).filter((q) => !fixed.has(q));
    this.declareVars(
      mutable.map((q) => state[q]!),
      e.acc.type,
      mutable,
      mutable.map((q) => init[q]!),
    );
    this.markDimensions(state, e.acc.type);
    this.bind(e.acc, state);
    return state;
  }

  private ifold(e: Ifold): Slots {
    const count = this.atom(e.count)[0]!;
    this.checkCount(count, "ifold count", e.span);
    const state = this.loopState(e);
    const i = this.loopVariable(e.index, count);
    this.out.open(`for (var ${i}: i32 = 0; ${i} < ${count}; ${i}++) {`);
    this.assign(state, this.expr(e.body, this.fresh()));
    this.out.close();
    return state;
  }

  private while(e: While): Slots {
    const state = this.loopState(e);
    this.out.open("loop {");
    const go = this.expr(e.cond, this.fresh())[0]!;
    this.out.line(`if (!${go}) { break; }`);
    this.assign(state, this.expr(e.body, this.fresh()));
    this.out.close();
    return state;
  }
}

/** The WGSL type and zero of each slot of a value of type `t`. */
export function slotTypes(t: Type): { type: string; zero: string }[] {
  return leavesOf(t).flatMap((l: Leaf) => {
    if (l.kind === "tape") return fail("unsupported", "the webgpu back end cannot compile recursive functions");
    if (l.rank === 0) return [{ type: SCALAR_TYPE[l.kind], zero: ZERO[l.kind] }];
    return Array.from({ length: l.rank + 2 }, () => ({ type: "i32", zero: "0" }));
  });
}

/** An array type of one leaf (for copying a leaf as a value of its own). */
function arrayType(l: Leaf): Type {
  let t: Type = SCALAR_TYPES[elemKind(l)];
  for (let d = 0; d < l.rank; d++) t = arrayOf(t);
  return t;
}

const SCALAR_TYPES: Record<ScalarKind, Type> = { double: DOUBLE, int: INT, bool: BOOL };

/** A product of slots, without multiplications by 1 and with 0 for anything times 0. */
export function times(factors: readonly string[]): string {
  if (factors.includes("0")) return "0";
  const rest = factors.filter((f) => f !== "1");
  if (rest.length === 0) return "1";
  return rest.length === 1 ? rest[0]! : `(${rest.join(" * ")})`;
}

/** `a + b` without adding 0. */
export function plus(a: string, b: string): string {
  if (a === "0") return b;
  if (b === "0") return a;
  return `(${a} + ${b})`;
}
