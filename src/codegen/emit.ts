// Statements for core IR expressions. Each expression is compiled to JavaScript statements plus the *slots* holding its
// value (see leaves.ts): a slot is always a local's name or a literal, never a compound expression, so slots can be
// copied around freely. Atoms, tuples, projections and `length` cost nothing: they only rename slots.
//
// A bad index. Every `get` is bounds-checked and, like the interpreter, throws the SmoothError of
// `indexOutOfRange` (src/prims/table.ts): kind "index", message "index 7 is out of range for an array of length 3", the
// span of the get. The check is left out only where it cannot fail: the index is the variable of a loop (build or
// ifold) whose bound is the very dimension being indexed, e.g. `build (length v) (fun i -> v[i])`; for any other loop
// variable only the upper bound is checked, since a loop variable is never negative.
//
// Reassigned locals (ifold state, if results, build buffers and shape records) are only reassigned where no slot
// naming them can be read with a stale meaning: an ifold's state at the end of its body, an if result inside its
// branches before it is bound, a build's buffers and records before the build's value is bound.

import { fail } from "../syntax/diagnostics.js";
import type { Span } from "../syntax/source.js";
import { arrayOf, type Type } from "../types/types.js";
import type { Atom, Call, Expr, If, Ifold, Let, Prim, Proj, Var } from "../ir/ir.js";
import { PRIMS } from "../prims/table.js";
import { elemKind, leafSlotCount, leafStarts, leavesOf, slotCount, slotNames, type Leaf } from "./leaves.js";
import { CodeWriter, isNonNegativeIntLiteral, jsLiteral, varName } from "./writer.js";
import { emitBuild, sliceOf } from "./build.js";
import { invariantShapes } from "../ir/invariant-shapes.js";
import type { Fresh } from "./ownership.js";
import { emitAddArray, emitRecord, emitUpdateAt, emitZerosLike } from "./update.js";
import { emitTapeOp } from "./tape.js";
import { isTapeOp } from "../prims/tape.js";

export type Slots = readonly string[];

export class Emitter {
  readonly out: CodeWriter;
  /** Closure constants of the generated code: `$spans[k]` and `$types[k]` (shared by a program's functions). */
  readonly spans: Span[];
  readonly types: Type[];
  /** How a call of one of the program's functions is written (./functions.ts); none outside such a program. */
  callSite?: (em: Emitter, e: Call, base: string) => Slots;
  private readonly env = new Map<number, Slots>();
  /** Loop variable -> its loop's bound: the variable lies in [0, bound). */
  private readonly loopBounds = new Map<string, string>();
  /** Locals that only ever hold array dimensions, so are never negative. */
  private readonly dimensions = new Set<string>();
  private temps = 0;
  private readonly errorSites: string[] = [];
  /** How many `$e` locals failing checks need. */
  savedCount = 0;
  /** The array updates that may overwrite their operand (ownership.ts); the others copy it first. */
  inPlace: ReadonlySet<Prim> = new Set();
  /** Loops whose shared initial state components are copied once on entry (ownership.ts). */
  copyOnEntry: ReadonlyMap<Ifold, Fresh> = new Map();
  /** Calls whose arguments at these positions are passed as copies (owned parameters given shared values). */
  copyArgs: ReadonlyMap<Call, ReadonlySet<number>> = new Map();

  constructor(indent: number, shared?: { readonly spans: Span[]; readonly types: Type[] }) {
    this.out = new CodeWriter(indent);
    this.spans = shared?.spans ?? [];
    this.types = shared?.types ?? [];
  }

  /** A fresh base name for locals that no variable names. */
  fresh(): string {
    return `t${++this.temps}`;
  }

  spanRef(span: Span | undefined): string {
    if (span === undefined) return "undefined";
    let k = this.spans.indexOf(span);
    if (k < 0) k = this.spans.push(span) - 1;
    return `$spans[${k}]`;
  }

  typeRef(t: Type): string {
    return `$types[${this.types.push(t) - 1}]`;
  }

  bind(v: Var, slots: Slots): void {
    if (slots.length !== slotCount(v.type)) throw new Error(`codegen: ${slots.length} slots bound to ${varName(v.id)}`);
    // Locals are named after variable ids, so an id bound twice (against the IR's invariant) would mix two locals up.
    if (this.env.has(v.id)) throw new Error(`codegen: variable ${varName(v.id)} is bound twice`);
    this.env.set(v.id, slots);
  }

  /** Records that the dimension slots among `slots` (of type `t`) are locals holding dimensions. */
  markDimensions(slots: Slots, t: Type, only?: ReadonlySet<string>): void {
    const leaves = leavesOf(t);
    leafStarts(leaves).forEach((s, l) => {
      for (let d = 0; d < leaves[l]!.rank; d++) {
        const name = slots[s + 2 + d]!;
        if (only === undefined || only.has(name)) this.dimensions.add(name);
      }
    });
  }

  /** Names that hold dimensions of arrays (build's shape records). */
  markDimensionNames(names: Slots): void {
    for (const n of names) this.dimensions.add(n);
  }

  /** Declares a loop variable `name` that runs over [0, bound). */
  loopVariable(v: Var, bound: string): string {
    const name = varName(v.id);
    this.bind(v, [name]);
    this.loopBounds.set(name, bound);
    return name;
  }

  atom(a: Atom): Slots {
    if (a.kind === "lit") return [jsLiteral(a.value, a.type)];
    const slots = this.env.get(a.id);
    if (slots === undefined) throw new Error(`codegen: unbound variable ${varName(a.id)}`);
    return slots;
  }

  letBinding(l: Let): void {
    this.bind(l.v, this.expr(l.rhs, varName(l.v.id)));
  }

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
      case "call":
        if (this.callSite === undefined) throw new Error(`codegen: a call of ${e.fn} outside a program of functions`);
        return this.callSite(this, e, base);
      case "jvp":
        throw new Error("codegen: a jvp node reached the code generator (the forward-ad pass expands them)");
      case "lam":
      case "app":
        return fail(
          "unsupported",
          `cannot compile a function value here (a ${e.kind === "lam" ? "lambda" : "call"})`,
          undefined,
          {
            hint: "the compiled back end takes first-order programs: functions must be inlined away first",
          },
        );
    }
  }

  /**
   * `if (failed)` raise an error. The error is not raised where the check is: the check saves the error site's
   * number in `$ek` and the numbers the message needs (`values`) in the locals `$e0`, `$e1`, ..., and leaves the whole
   * function body (labelled `$main`, see compile.ts); `raise` (given the names of those locals) is the call that throws,
   * placed after the body. A call, or even an array literal, on the failure path of a check in a hot loop makes V8
   * compile the loop up to three times slower, though that path never runs; storing numbers and a `break` do not.
   */
  failIf(failed: string, values: readonly string[], raise: (saved: readonly string[]) => string): void {
    const site = this.errorSites.length + 1;
    const saved = values.map((_, q) => `$e${q}`);
    this.savedCount = Math.max(this.savedCount, saved.length);
    this.errorSites.push(`case ${site}: return ${raise(saved)};`);
    const saves = values.map((v, q) => `${saved[q]} = ${v}; `).join("");
    this.out.line(`if (${failed}) { $ek = ${site}; ${saves}break $main; }`);
  }

  /** The statements that raise the error of the failed check, after the function body (see failIf). */
  errorDispatch(): string[] {
    return this.errorSites;
  }

  /** A size or count must not be negative: the interpreter's shape error otherwise. */
  checkCount(n: string, what: "build size" | "ifold count", span: Span | undefined): void {
    if (isNonNegativeIntLiteral(n) || this.dimensions.has(n) || this.loopBounds.has(n)) return;
    const at = this.spanRef(span);
    this.failIf(`${n} < 0`, [n], ([count]) => `$rt.negativeCount("${what}", ${count}, ${at})`);
  }

  /** `let name = init, ...;` with initial values of the right kind (numbers stay numbers, typed arrays typed arrays). */
  declareMutable(names: Slots, t: Type, inits?: Slots, positions?: readonly number[]): void {
    const defaults = defaultSlots(t);
    const parts = names.map((n, i) => `${n} = ${inits ? inits[i] : defaults[positions ? positions[i]! : i]}`);
    if (parts.length > 0) this.out.line(`let ${parts.join(", ")};`);
  }

  /** targets := values, as a simultaneous assignment (values may name other targets, as in a swap). */
  assign(targets: Slots, values: Slots): void {
    const pairs = targets.map((t, i) => [t, values[i]!] as const).filter(([t, v]) => t !== v);
    // Values that are themselves targets are saved first, since their assignment may come before their use.
    const targetSet = new Set(targets);
    const saved = pairs.map(([, v]) => {
      if (!targetSet.has(v)) return v;
      const tmp = this.fresh();
      this.out.line(`const ${tmp} = ${v};`);
      return tmp;
    });
    pairs.forEach(([t], i) => this.out.line(`${t} = ${saved[i]};`));
  }

  private prim(e: Prim, base: string): Slots {
    if (e.op === "get") return this.get(e, base);
    if (e.op === "length") return [this.atom(e.args[0]!)[2]!];
    if (e.op === "checkIndex") {
      const [j, n] = e.args.map((a) => this.atom(a)[0]!) as [string, string];
      this.boundsCheck(j, n, e.span);
      return [j];
    }
    if (e.op === "sameSize") {
      const [n, m] = e.args.map((a) => this.atom(a)[0]!) as [string, string];
      const at = this.spanRef(e.span);
      if (n !== m) this.failIf(`${n} !== ${m}`, [n, m], ([x, y]) => `$rt.sizesDiffer(${x}, ${y}, ${at})`);
      return [n];
    }
    if (e.op === "field") {
      // An array of tuples is held as its components' arrays, one after the other: component k's slots are the field.
      const arr = e.args[0]!;
      const comps = arr.type.k === "array" && arr.type.elem.k === "tuple" ? arr.type.elem.elems : [];
      const k = e.args[1]!.kind === "lit" ? (e.args[1]!.value as number) : -1;
      const start = comps.slice(0, k).reduce((n, t) => n + slotCount(arrayOf(t)), 0);
      return this.atom(arr).slice(start, start + slotCount(e.type));
    }
    if (e.op === "zerosLike") return emitZerosLike(this, e, base);
    if (e.op === "setAt" || e.op === "addAt") return emitUpdateAt(this, e, base, this.inPlace.has(e));
    if (e.op === "record") return emitRecord(this, e, base, this.inPlace.has(e));
    if (e.op === "sameShape") {
      // Equal dimensions, leaf by leaf (data and offsets are not shape).
      const [a, b] = e.args.map((x) => this.atom(x));
      const leaves = leavesOf(e.args[0]!.type);
      const tests = leafStarts(leaves).flatMap((s, l) =>
        Array.from({ length: leaves[l]!.rank }, (_, d) => `${a![s + 2 + d]} === ${b![s + 2 + d]}`),
      );
      this.out.line(`const ${base} = ${tests.length === 0 ? "true" : tests.join(" && ")};`);
      return [base];
    }
    if (e.op === "addArray") return emitAddArray(this, e, base, this.inPlace.has(e));
    if (isTapeOp(e.op)) return emitTapeOp(this, e, base);
    this.learnRange(e, base);
    const rule = PRIMS[e.op];
    if (rule.js === "array-structural") throw new Error(`codegen: no structural lowering for ${e.op}`);
    const args = e.args.map((a) => this.atom(a)[0]!);
    this.out.line(
      `const ${base} = ${rule.js(
        args,
        e.args.map((a) => a.type),
        this.spanRef(e.span),
      )};`,
    );
    return [base];
  }

  private get(e: Prim, base: string): Slots {
    const [arr, index] = e.args as [Atom, Atom];
    const a = this.atom(arr);
    const i = this.atom(index)[0]!;
    const length = a[2]!; // dimension 0 of the first leaf: every leaf has the same
    this.boundsCheck(i, length, e.span);
    const names = slotNames(base, e.type);
    const leaves = leavesOf(arr.type);
    const starts = leafStarts(leaves);
    const elemStarts = leafStarts(leavesOf(e.type));
    return leaves.flatMap((leaf, k) => {
      const [data, offset, , ...inner] = a.slice(starts[k], starts[k]! + leafSlotCount(leaf));
      const at = plus(offset!, times([i, ...inner]));
      const name = names[elemStarts[k]!]!;
      if (leaf.rank === 1) {
        this.out.line(`const ${name} = ${leaf.kind === "bool" ? `${data}[${at}] !== 0` : `${data}[${at}]`};`);
        return [name];
      }
      const viewOffset = names[elemStarts[k]! + 1]!;
      this.out.line(`const ${viewOffset} = ${at};`);
      return [data!, viewOffset, ...inner];
    });
  }

  /** Locals holding `x - 1` and `x + 1` (Index), by x: the bounds of reversed and shifted loop indexes. */
  private readonly minusOne = new Map<string, string>();
  private readonly plusOne = new Map<string, string>();

  /**
   * Index arithmetic on loop variables whose range is known, as the reverse sweep writes it: `last - k` with
   * last = n - 1 and k running over [0, n) lies in [0, n); `i + 1` with i over [0, n) lies in [0, n + 1) when a local
   * holds n + 1. Recorded like loop variables, so gets and updates at these indexes need no (or half a) check.
   */
  private learnRange(e: Prim, base: string): void {
    if (e.type.k !== "int" || (e.op !== "sub" && e.op !== "add")) return;
    const [a, b] = e.args.map((x) => this.atom(x)[0]!) as [string, string];
    if (b === "1") (e.op === "sub" ? this.minusOne : this.plusOne).set(a, base);
    if (e.op === "sub") {
      const bound = this.loopBounds.get(b);
      if (bound !== undefined && this.minusOne.get(bound) === a && !this.loopBounds.has(base))
        this.loopBounds.set(base, bound);
    } else if (b === "1") {
      const bound = this.loopBounds.get(a);
      const above = bound === undefined ? undefined : this.plusOne.get(bound);
      if (above !== undefined && above !== base) this.loopBounds.set(base, above);
    }
  }

  /** Bounds checks already made, with the block they were made in (they hold while it is open: CodeWriter.isOpen). */
  private readonly checked = new Map<string, number>();

  boundsCheck(i: string, length: string, span: Span | undefined): void {
    // The same check earlier in the same run passed (a failed check leaves the function), so it holds here too.
    const key = `${i} ${length}`;
    const made = this.checked.get(key);
    if (made !== undefined && this.out.isOpen(made)) return;
    this.checked.set(key, this.out.scope);
    const bound = this.loopBounds.get(i);
    // i < bound, and a bound that is itself a loop variable is below its own bound (nested triangular loops).
    for (let b = bound, hops = 0; b !== undefined && hops < 8; b = this.loopBounds.get(b), hops++)
      if (b === length) return;
    const fails =
      bound !== undefined || isNonNegativeIntLiteral(i) ? `${i} >= ${length}` : `!(${i} >= 0 && ${i} < ${length})`;
    const at = this.spanRef(span);
    this.failIf(fails, [i, length], ([index, n]) => `$rt.indexOutOfRange(${index}, ${n}, ${at})`);
  }

  private proj(e: Proj): Slots {
    const t = e.arg.type;
    if (t.k !== "tuple") throw new Error("codegen: proj of a non-tuple");
    const start = t.elems.slice(0, e.index).reduce((n, et) => n + slotCount(et), 0);
    return this.atom(e.arg).slice(start, start + slotCount(e.type));
  }

  private if(e: If, base: string): Slots {
    const cond = this.atom(e.cond)[0]!;
    // Both branches are written first, so that slots on which they agree (an outer variable, a literal offset 0)
    // need no local of their own.
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
    const defaults = defaultSlots(e.type);
    const declared = names.flatMap((n, i) => (result[i] === n ? [`${n} = ${defaults[i]}`] : []));
    if (declared.length > 0) this.out.line(`let ${declared.join(", ")};`);
    // Only the locals declared here: a shared slot may be, say, a build size that is only known to be >= 0 in here.
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

  /** Slots of a copy of the value in `slots` (of type `t`): every array leaf copied (into the arena). */
  copyValue(slots: Slots, t: Type): Slots {
    const out = [...slots];
    let at = 0;
    for (const l of leavesOf(t)) {
      if (l.rank > 0) {
        const [data, offset, ...dims] = out.slice(at, at + leafSlotCount(l));
        const name = this.fresh();
        this.out.line(`const ${name} = ${sliceOf(elemKind(l), data!, offset!, plus(offset!, times(dims)))};`);
        out[at] = name;
        out[at + 1] = "0";
      }
      at += leafSlotCount(l);
    }
    return out;
  }

  /** The initial state's slots, with the array leaves that ownership.ts asks to copy replaced by fresh copies. */
  private copiedOnEntry(e: Ifold, init: string[]): string[] {
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
          const [data, offset, ...dims] = init.slice(at, at + leafSlotCount(l));
          const name = this.fresh();
          // An empty array has nothing to overwrite (and record replaces it): no copy, no allocation.
          this.out.line(
            `const ${name} = ${dims[0]} === 0 ? ${data} : ${sliceOf(elemKind(l), data!, offset!, plus(offset!, times(dims)))};`,
          );
          init[at] = name;
          init[at + 1] = "0";
        }
        at += leafSlotCount(l);
      }
    };
    visit(e.acc.type, copy);
    return init;
  }

  private ifold(e: Ifold): Slots {
    const init = this.copiedOnEntry(e, [...this.atom(e.init)]);
    const count = this.atom(e.count)[0]!;
    this.checkCount(count, "ifold count", e.span);
    // Dimensions of state components whose shape never changes are the initial value's own locals (not reassigned).
    const state = slotNames(varName(e.acc.id), e.acc.type);
    const fixed = new Set<number>();
    const parts = e.acc.type.k === "tuple" ? e.acc.type.elems : [e.acc.type];
    let at = 0;
    invariantShapes(e).forEach((inv, k) => {
      const leaves = leavesOf(parts[k]!);
      for (const l of leaves) {
        if (inv) for (let d = 0; d < l.rank; d++) fixed.add(at + 2 + d);
        at += leafSlotCount(l);
      }
    });
    fixed.forEach((q) => (state[q] = init[q]!));
    const mutable = state.map((_, q) => q).filter((q) => !fixed.has(q));
    this.declareMutable(
      mutable.map((q) => state[q]!),
      e.acc.type,
      mutable.map((q) => init[q]!),
      mutable,
    );
    this.markDimensions(state, e.acc.type);
    this.bind(e.acc, state);
    const i = this.loopVariable(e.index, count);
    this.out.open(`for (let ${i} = 0; ${i} < ${count}; ${i}++) {`);
    this.assign(state, this.expr(e.body, this.fresh()));
    this.out.close();
    return state;
  }
}

/** Initial values for mutable slots of type `t`: 0, false, or an empty typed array of the right kind. */
function defaultSlots(t: Type): string[] {
  return leavesOf(t).flatMap((l: Leaf) =>
    l.rank === 0
      ? [l.kind === "bool" ? "false" : l.kind === "tape" ? "null" : "0"]
      : [EMPTY_ARRAY[elemKind(l)], ...new Array<string>(l.rank + 1).fill("0")],
  );
}

export const EMPTY_ARRAY = { double: "$rt.emptyF64", int: "$rt.emptyI32", bool: "$rt.emptyU8" } as const;

/** A product of slots, without multiplications by 1 and with 0 for anything times 0. */
export function times(factors: readonly string[]): string {
  if (factors.includes("0")) return "0";
  const rest = factors.filter((f) => f !== "1");
  return rest.length === 0 ? "1" : rest.join(" * ");
}

/** `a + b` without the `0 +` of arrays that start at the beginning of their typed array. */
export function plus(a: string, b: string): string {
  if (a === "0") return b;
  if (b === "0") return a;
  return `${a} + ${b}`;
}
