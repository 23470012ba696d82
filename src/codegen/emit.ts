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

import { MAX_ARRAY_ELEMENTS } from "../runtime/limits.js";
import { fail } from "../syntax/diagnostics.js";
import type { Span } from "../syntax/source.js";
import type { Type } from "../types/types.js";
import { isZeroLiteral, symbolicZero, tangentPositions } from "../ir/ir.js";
import type { Atom, Call, Expr, If, Ifold, Let, Prim, Proj, Var, While } from "../ir/ir.js";
import { JS_LOWERING } from "./lowering.js";
import {
  componentSlots,
  elemKind,
  invariantDimensionSlots,
  leafSlotCount,
  leafStarts,
  leavesOf,
  slotCount,
  type Leaf,
} from "../lowering/leaves.js";
import { BoundsFacts } from "../lowering/bounds.js";
import { CodeWriter, jsLiteral, nonNegativeIndexLiteral, slotNames, varName } from "./writer.js";
import { emitBuild, sliceOf } from "./build.js";
import { copyTape } from "./tape.js";
import type { Fresh } from "../lowering/ownership.js";
import { releasesIterations } from "../lowering/regions.js";

export type Slots = readonly string[];

const SPAN_POSITIONS = new WeakMap<readonly Span[], Map<Span, number>>();

export class Emitter {
  readonly out: CodeWriter;
  /** Closure constants of the generated code: `$spans[k]` and `$types[k]` (shared by a program's functions). */
  readonly spans: Span[];
  readonly types: Type[];
  /** How a call of one of the program's functions is written (./functions.ts); none outside such a program. */
  callSite?: (em: Emitter, e: Call, base: string) => Slots;
  private readonly env = new Map<number, Slots>();
  /** What is known of Index slots: loop ranges, dimensions, checks made (src/lowering/bounds.ts). */
  readonly bounds: BoundsFacts;
  private temps = 0;
  private readonly errorSites: string[] = [];
  /** How many `$e` locals failing checks need. */
  savedCount = 0;
  /** The array updates that may overwrite their operand (ownership.ts); the others copy it first. */
  inPlace: ReadonlySet<Prim> = new Set();
  /** Loops whose shared initial state components are copied once on entry (ownership.ts). */
  copyOnEntry: ReadonlyMap<Ifold | While, Fresh> = new Map();
  /** Calls whose arguments at these positions are passed as copies (owned parameters given shared values). */
  copyArgs: ReadonlyMap<Call, ReadonlySet<number>> = new Map();

  constructor(indent: number, shared?: { readonly spans: Span[]; readonly types: Type[] }) {
    this.out = new CodeWriter(indent);
    this.spans = shared?.spans ?? [];
    this.types = shared?.types ?? [];
    this.bounds = new BoundsFacts(this.out, nonNegativeIndexLiteral);
  }

  /** A fresh base name for locals that no variable names. */
  fresh(): string {
    return `t${++this.temps}`;
  }

  spanRef(span: Span | undefined): string {
    if (span === undefined) return "undefined";
    // Positions by span, for the spans array (shared by the emitters of a program): a search per check would be
    // quadratic in the size of a long program.
    let positions = SPAN_POSITIONS.get(this.spans);
    if (positions === undefined) {
      positions = new Map(this.spans.map((s, k) => [s, k]));
      SPAN_POSITIONS.set(this.spans, positions);
    }
    let k = positions.get(span);
    if (k === undefined) {
      k = this.spans.push(span) - 1;
      positions.set(span, k);
    }
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
        if (only === undefined || only.has(name)) this.bounds.dimension(name);
      }
    });
  }

  /** Names that hold dimensions of arrays (build's shape records). */
  markDimensionNames(names: Slots): void {
    for (const n of names) this.bounds.dimension(n);
  }

  /** Declares a loop variable `name` that runs over [0, bound). */
  loopVariable(v: Var, bound: string): string {
    const name = varName(v.id);
    this.bind(v, [name]);
    this.bounds.loopVariable(name, bound);
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
      case "while":
        return this.while(e);
      case "jvp":
        throw new Error("codegen: a jvp node reached the code generator (the forward-ad pass expands them)");
      case "lam":
      case "app":
      case "custom":
        return fail(
          "unsupported",
          `cannot compile a function value here (a ${e.kind === "lam" ? "lambda" : e.kind === "app" ? "call" : "function with a custom derivative"})`,
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
   * function body (labelled `$main`, see compile.ts); `raise` (given the names of those locals) is the call that
   * throws,
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
    if (this.bounds.nonNegative(n)) return;
    const at = this.spanRef(span);
    // A build's size is also checked against the array limit (../runtime/limits.ts) before anything is allocated.
    const test = what === "build size" ? `${n} < 0 || ${n} > ${MAX_ARRAY_ELEMENTS}` : `${n} < 0`;
    this.failIf(test, [n], ([count]) => `$rt.badCount("${what}", ${count}, ${at})`);
  }

  /**
   * `let name = init, ...;` with initial values of the right kind (numbers stay numbers, typed arrays typed arrays).
   */
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

  /** A primitive, as its entry in the JavaScript lowering table (./lowering.ts) writes it. */
  private prim(e: Prim, base: string): Slots {
    const lowering = JS_LOWERING[e.op];
    if ("slots" in lowering) return lowering.slots(this, e, base);
    this.learnRange(e, base);
    const args = e.args.map((a) => this.atom(a)[0]!);
    const tangents = tangentPositions(e);
    if (tangents.length > 0) {
      // A zero tangent is a symbolic zero (Prim.tangent): the product is 0 even for an infinite or NaN partial.
      const plain = lowering.expr(
        args,
        e.args.map((a) => a.type),
        this.spanRef(e.span),
      );
      const checks = tangents.filter((k) => e.args[k]!.kind !== "lit").map((k) => `${args[k]} === 0`);
      const value = symbolicZero(e, (k) => isZeroLiteral(e.args[k]!))
        ? "0"
        : checks.length > 0
          ? `${checks.join(" || ")} ? 0 : ${plain}`
          : plain;
      this.out.line(`const ${base} = ${value};`);
      return [base];
    }
    this.out.line(
      `const ${base} = ${lowering.expr(
        args,
        e.args.map((a) => a.type),
        this.spanRef(e.span),
      )};`,
    );
    return [base];
  }

  /** `get`: the element's slots, a view of the array's leaves for an array element (no copy); bounds-checked. */
  get(e: Prim, base: string): Slots {
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

  /** Index arithmetic as the reverse sweep writes it on loop variables (`last - k`, `i + 1`) keeps a known range. */
  private learnRange(e: Prim, base: string): void {
    if (e.type.k !== "int" || (e.op !== "sub" && e.op !== "add")) return;
    const [a, b] = e.args.map((x) => this.atom(x)[0]!) as [string, string];
    this.bounds.arithmetic(e.op, a, b, base);
  }

  /** Checks `0 <= i < length` (the part not already known), else the interpreter's index error at `span`. */
  boundsCheck(i: string, length: string, span: Span | undefined): void {
    const check = this.bounds.indexCheck(i, length);
    if (check === "none") return;
    const fails = check === "upper" ? `${i} >= ${length}` : `!(${i} >= 0 && ${i} < ${length})`;
    const at = this.spanRef(span);
    this.failIf(fails, [i, length], ([index, n]) => `$rt.indexOutOfRange(${index}, ${n}, ${at})`);
  }

  private proj(e: Proj): Slots {
    const t = e.arg.type;
    if (t.k !== "tuple") throw new Error("codegen: proj of a non-tuple");
    const { start, end } = componentSlots(t, e.index);
    return this.atom(e.arg).slice(start, end);
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

  /** Slots of a copy of the value in `slots` (of type `t`): every array leaf copied (into the arena), every tape. */
  copyValue(slots: Slots, t: Type): Slots {
    const out = [...slots];
    let at = 0;
    for (const l of leavesOf(t)) {
      if (l.kind === "tape") out[at] = copyTape(this, out[at]!);
      else if (l.rank > 0) {
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

  /** The initial state's slots, with the array and tape leaves ownership.ts asks to copy replaced by fresh copies. */
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
        if (c === true && l.kind === "tape") init[at] = copyTape(this, init[at]!);
        else if (c === true && l.rank > 0) {
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

  /**
   * The mutable locals of a loop's state (ifold or while), initialised from `init`: dimensions of state components
   * whose shape never changes are the initial value's own locals (not reassigned). Binds the state variable.
   */
  private loopState(e: Ifold | While): Slots {
    const init = this.copiedOnEntry(e, [...this.atom(e.init)]);
    const state = slotNames(varName(e.acc.id), e.acc.type);
    const fixed = invariantDimensionSlots(e);
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
    return state;
  }

  private ifold(e: Ifold): Slots {
    const count = this.atom(e.count)[0]!;
    this.checkCount(count, "ifold count", e.span);
    const state = this.loopState(e);
    const region = this.region(e);
    const i = this.loopVariable(e.index, count);
    this.out.open(`for (let ${i} = 0; ${i} < ${count}; ${i}++) {`);
    const next = this.expr(e.body, this.fresh());
    this.assign(state, region?.end(next) ?? next);
    this.out.close();
    if (region !== undefined) this.out.line("$a.keep();");
    return state;
  }

  /** `for (;;) { cond; if (!c) break; state = body }`: the condition is evaluated before every iteration. */
  private while(e: While): Slots {
    const state = this.loopState(e);
    const region = this.region(e);
    this.out.open("for (;;) {");
    const go = this.expr(e.cond, this.fresh())[0]!;
    this.out.line(`if (!${go}) break;`);
    const next = this.expr(e.body, this.fresh());
    this.assign(state, region?.end(next) ?? next);
    this.out.close();
    if (region !== undefined) this.out.line("$a.keep();");
    return state;
  }

  /**
   * For a loop whose iterations give back what they allocate (src/lowering/regions.ts): marks the arena before the
   * loop (`$a.keep()` after it drops the mark); `end`, at the end of an iteration, once the loop has allocated more
   * than REGION_BYTES since the mark, copies the next state's arrays allocated since into homes of their own (typed
   * arrays outside the arena, made once per size) and gives back everything allocated since the mark.
   */
  private region(e: Ifold | While): { end(next: Slots): Slots } | undefined {
    if (!releasesIterations(e, this.inPlace)) return undefined;
    const leaves = leavesOf(e.acc.type);
    const starts = leafStarts(leaves);
    const arrays = leaves.flatMap((l, k) => (l.rank > 0 ? [{ leaf: l, at: starts[k]! }] : []));
    const homes = arrays.map(() => this.fresh());
    const mark = this.fresh();
    this.out.line(`const ${mark} = $a.mark();`);
    if (homes.length > 0) this.out.line(`let ${homes.map((h) => `${h} = null`).join(", ")};`);
    return {
      end: (next) => {
        const out = [...next];
        const views = arrays.map(({ at }) => {
          const [data, offset] = [this.fresh(), this.fresh()];
          this.out.line(`let ${data} = ${next[at]!}, ${offset} = ${next[at + 1]!};`);
          out[at] = data;
          out[at + 1] = offset;
          return { data, offset };
        });
        this.out.open(`if ($a.since(${mark}) > ${REGION_BYTES}) {`);
        arrays.forEach(({ leaf, at }, j) => {
          const { data, offset } = views[j]!;
          const size = times(next.slice(at + 2, at + 2 + leaf.rank));
          const home = homes[j]!;
          this.out.open(`if ($a.fresh(${data}, ${mark})) {`);
          this.out.line(
            `if (${home} === null || ${home}.length !== ${size}) ${home} = new ${TYPED[elemKind(leaf)]}(${size});`,
          );
          this.out.line(`${home}.set(${data}.subarray(${offset}, ${plus(offset, size)}));`);
          this.out.line(`${data} = ${home}; ${offset} = 0;`);
          this.out.close();
        });
        this.out.line("$a.rewind();");
        this.out.close();
        return out;
      },
    };
  }
}

/** The bytes a loop allocates before its iterations give them back (src/lowering/regions.ts). */
const REGION_BYTES = 1 << 20;

const TYPED = { double: "Float64Array", int: "Int32Array", bool: "Uint8Array" } as const;

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
