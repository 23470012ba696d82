// The sparsity analysis: an abstract interpretation of a first-order IR function (after forward-ad and inlining) that
// finds, for each Double it computes, which input positions it can depend on (and, for Hessians, which pairs of
// them its second derivative can involve). It runs the program on abstract values (./values.ts) at the arguments'
// shapes and Index values: indexing with a known index reads one element, a loop of known count runs its iterations,
// a branch whose condition is known takes that branch. Where it cannot tell, it is conservative: a branch on a Double
// takes both and joins them; an unknown index reads (or may write) every element; a loop of unknown length runs to a
// fixpoint, widened after a few rounds to "every position". So the pattern never misses a non-zero of the derivative
// at any value of the Doubles; its cost is about the primal's (each Double carries a lazily united set, ./deps.ts).

import {
  typeOf,
  type Atom,
  type Build,
  type Expr,
  type Ifold,
  type IrFunction,
  type Prim,
  type Var,
  type While,
} from "../ir/ir.js";
import type { Type } from "../types/types.js";
import { PArray } from "./persistent-array.js";
import {
  BOTTOM,
  Closure,
  GiveUp,
  Opaque,
  SummaryA,
  TupleA,
  UNKNOWN,
  type Abs,
  type Frame,
  type Lattice,
} from "./values.js";
import { addValues, emptyOf, updatePath, zerosOf } from "./array-ops.js";
import { scalarCode, type Code } from "./scalar-ops.js";

/** Rounds of a loop's fixpoint before its state is widened to the top of its type. */
const FIXPOINT_ROUNDS = 12;
/** Nested calls of the program's functions the analysis follows. */
const MAX_CALL_DEPTH = 1000;

export interface AnalysisLimits {
  /** Bindings and loop iterations evaluated before the analysis gives up (default 3·10⁸). */
  readonly maxSteps?: number;
}

/** A function compiled: its body's code, the slots of its parameters and the size of its frame. */
interface Compiled {
  readonly body: Code;
  readonly params: readonly number[];
  readonly size: () => number;
}

/**
 * The analysis runs each function compiled to closures once (a JavaScript closure per IR node, variables as slots of
 * an array per call): it evaluates the program's loops element by element, so the interpretive overhead per node is
 * what its cost is made of.
 */
export class Analysis {
  private steps = 0;
  private depth = 0;
  private readonly maxSteps: number;
  private readonly functions: ReadonlyMap<string, IrFunction>;
  private readonly compiled = new Map<IrFunction, Compiled>();

  constructor(
    private readonly lattice: Lattice,
    fn: IrFunction,
    limits: AnalysisLimits = {},
  ) {
    this.maxSteps = limits.maxSteps ?? 3e8;
    this.functions = new Map((fn.functions ?? []).map((f) => [f.name, f]));
  }

  /** Bindings and loop iterations evaluated so far (what the budget counts; tests check its growth). */
  get stepsTaken(): number {
    return this.steps;
  }

  /** The abstract result of `fn` on abstract arguments. */
  run(fn: IrFunction, args: readonly Abs[]): Abs {
    let c = this.compiled.get(fn);
    if (c === undefined) this.compiled.set(fn, (c = this.compileFunction(fn)));
    const frame: Frame = new Array<Abs>(c.size());
    c.params.forEach((slot, i) => (frame[slot] = args[i]!));
    return c.body(frame);
  }

  private count(n: number): void {
    this.steps += n;
    if (this.steps > this.maxSteps)
      throw new GiveUp(`the analysis ran past its budget of ${this.maxSteps.toExponential(0)} steps`);
  }

  private compileFunction(fn: IrFunction): Compiled {
    const slots = new Map<number, number>();
    const slot = (v: Var): number => {
      let s = slots.get(v.id);
      if (s === undefined) slots.set(v.id, (s = slots.size));
      return s;
    };
    const params = fn.params.map(slot);
    const body = this.compile(fn.body, slot);
    return { body, params, size: () => slots.size };
  }

  private atom(a: Atom, slot: (v: Var) => number): Code {
    if (a.kind === "lit") {
      const value = a.value;
      return () => value;
    }
    const s = slot(a);
    return (f) => f[s]!;
  }

  private compile(e: Expr, slot: (v: Var) => number): Code {
    if (e.kind === "let") {
      const targets: number[] = [];
      const codes: Code[] = [];
      while (e.kind === "let") {
        codes.push(this.node(e.rhs, slot));
        targets.push(slot(e.v));
        e = e.body;
      }
      const tail = this.node(e, slot);
      const n = codes.length;
      return (f) => {
        this.count(n);
        for (let k = 0; k < n; k++) f[targets[k]!] = codes[k]!(f);
        return tail(f);
      };
    }
    return this.node(e, slot);
  }

  private node(e: Expr, slot: (v: Var) => number): Code {
    switch (e.kind) {
      case "lit":
      case "var":
        return this.atom(e, slot);
      case "let":
        return this.compile(e, slot);
      case "prim":
        return this.prim(e, slot);
      case "tuple": {
        const parts = e.elems.map((a) => this.atom(a, slot));
        return (f) => new TupleA(parts.map((c) => c(f)));
      }
      case "proj": {
        const arg = this.atom(e.arg, slot);
        const index = e.index;
        return (f) => {
          const t = arg(f);
          if (!(t instanceof TupleA)) throw new GiveUp("a projection of a value that is not a tuple");
          return t.elems[index]!;
        };
      }
      case "lam": {
        const param = slot(e.param);
        const body = this.compile(e.body, slot);
        return (f) => new Closure(param, body, f);
      }
      case "app": {
        const fn = this.atom(e.fn, slot);
        const arg = this.atom(e.arg, slot);
        return (f) => this.apply(fn(f), arg(f));
      }
      case "if": {
        const cond = this.atom(e.cond, slot);
        const then = this.compile(e.then, slot);
        const els = this.compile(e.else, slot);
        return (f) => {
          const c = cond(f);
          if (c === true) return then(f);
          if (c === false) return els(f);
          return this.lattice.join(then(f), els(f));
        };
      }
      case "build":
        return this.build(e, slot);
      case "ifold":
        return this.ifold(e, slot);
      case "while":
        return this.while(e, slot);
      case "call": {
        const args = e.args.map((a) => this.atom(a, slot));
        const name = e.fn;
        return (f) =>
          this.call(
            name,
            args.map((c) => c(f)),
          );
      }
      case "custom": {
        const fn = this.atom(e.fn, slot);
        return (f) => new Opaque(fn(f), undefined);
      }
      case "jvp":
        return () => {
          throw new GiveUp("a derivative left unexpanded");
        };
    }
  }

  private apply(f: Abs, arg: Abs): Abs {
    if (f instanceof Closure) {
      // A copy of the frame: a curried function applied twice keeps each application's arguments apart.
      const frame = f.frame.slice();
      frame[f.paramSlot] = arg;
      return f.body(frame);
    }
    if (f instanceof Opaque) {
      // A function with custom derivative rules: its rules, not its body, make the derivative, so every Double of its
      // result is taken to depend on all of its arguments (the structure, and Index values, come from its body).
      const deps = this.lattice.algebra.linear(f.extra, this.lattice.allDeps(arg));
      const r = this.apply(f.fn, arg);
      return r instanceof Closure || r instanceof Opaque ? new Opaque(r, deps) : this.lattice.spread(r, deps);
    }
    throw new GiveUp("an application of a value that is not a known function");
  }

  private call(name: string, args: readonly Abs[]): Abs {
    const fn = this.functions.get(name);
    if (fn === undefined) throw new Error(`sparsity analysis: no function ${name}`);
    if (this.depth >= MAX_CALL_DEPTH) throw new GiveUp(`calls nest deeper than ${MAX_CALL_DEPTH}`);
    this.depth++;
    try {
      return this.run(fn, args);
    } finally {
      this.depth--;
    }
  }

  private build(e: Build, slot: (v: Var) => number): Code {
    const size = this.atom(e.size, slot);
    const index = slot(e.index);
    const body = this.compile(e.body, slot);
    return (f) => {
      const n = size(f);
      if (typeof n !== "number") {
        f[index] = UNKNOWN;
        return new SummaryA(body(f));
      }
      const items = new Array<Abs>(Math.max(0, n));
      for (let i = 0; i < n; i++) {
        f[index] = i;
        items[i] = body(f);
      }
      this.count(n);
      return PArray.of(items);
    };
  }

  private ifold(e: Ifold, slot: (v: Var) => number): Code {
    const count = this.atom(e.count, slot);
    const init = this.atom(e.init, slot);
    const acc = slot(e.acc);
    const index = slot(e.index);
    const body = this.compile(e.body, slot);
    const t = e.type;
    return (f) => {
      const n = count(f);
      let s = init(f);
      if (typeof n !== "number") {
        f[index] = UNKNOWN;
        return this.fixpoint(s, t, (state) => {
          f[acc] = state;
          return body(f);
        });
      }
      for (let i = 0; i < n; i++) {
        f[acc] = s;
        f[index] = i;
        s = body(f);
      }
      this.count(n);
      return s;
    };
  }

  private while(e: While, slot: (v: Var) => number): Code {
    const init = this.atom(e.init, slot);
    const acc = slot(e.acc);
    const cond = this.compile(e.cond, slot);
    const body = this.compile(e.body, slot);
    const t = e.type;
    return (f) => {
      let s = init(f);
      for (;;) {
        f[acc] = s;
        const c = cond(f);
        if (c === false) return s;
        if (c !== true)
          return this.fixpoint(s, t, (state) => {
            f[acc] = state;
            return body(f);
          });
        s = body(f);
        this.count(1);
      }
    };
  }

  /** The least state above `init` that `step` keeps below itself; after FIXPOINT_ROUNDS rounds, the type's top. */
  private fixpoint(init: Abs, t: Type, step: (s: Abs) => Abs): Abs {
    let s = init;
    for (let round = 0; round < FIXPOINT_ROUNDS; round++) {
      const next = step(s);
      if (this.lattice.leq(next, s)) return s;
      s = this.lattice.join(s, next);
    }
    return this.lattice.top(t);
  }

  private prim(p: Prim, slot: (v: Var) => number): Code {
    const codes = p.args.map((a) => this.atom(a, slot));
    const [a = () => UNKNOWN, b = () => UNKNOWN, c = () => UNKNOWN] = codes;
    const t = p.type;
    switch (p.op) {
      case "get":
        return (f) => this.get(a(f), b(f), t);
      case "length":
        return (f) => {
          const x = a(f);
          return x instanceof PArray ? x.length : UNKNOWN;
        };
      case "checkIndex":
        return a;
      case "sameSize":
        return (f) => {
          const n = a(f);
          return typeof n === "number" ? n : b(f);
        };
      case "zerosLike":
        return (f) => zerosOf(a(f), t);
      case "setAt":
      case "addAt": {
        const how = p.op === "setAt" ? "set" : "add";
        return (f) => updatePath(this.lattice, a(f), pathOf(b(f)), c(f), how, t);
      }
      case "addArray":
        return (f) => addValues(this.lattice, a(f), b(f));
      case "field":
        return (f) => this.field(a(f), b(f) as number);
      case "record":
        return (f) =>
          this.record(
            codes.map((code) => code(f)),
            t,
          );
      case "sameShape":
        return () => UNKNOWN;
      case "newTape":
      case "tapePush":
      case "tapePop":
        return () => {
          throw new GiveUp("a tape (the reverse mode of recursive code)");
        };
      default:
        return scalarCode(p, codes, this.lattice.algebra);
    }
  }
  private get(a: Abs, i: Abs, t: Type): Abs {
    if (a instanceof PArray) {
      if (typeof i !== "number") return this.orEmpty(this.lattice.summaryOf(a), t);
      // Out of range, the program fails here: no value flows on.
      return i >= 0 && i < a.length ? a.get(i) : emptyOf(t);
    }
    if (a instanceof SummaryA) return this.orEmpty(a.elem, t);
    throw new GiveUp("an element of a value that is not an array");
  }

  private orEmpty(v: Abs, t: Type): Abs {
    return v === BOTTOM ? emptyOf(t) : v;
  }

  private field(a: Abs, k: number): Abs {
    const pick = (v: Abs) => (v instanceof TupleA ? v.elems[k]! : v === BOTTOM ? BOTTOM : v);
    if (a instanceof PArray) return PArray.of(a.elements().map(pick));
    if (a instanceof SummaryA) return new SummaryA(pick(a.elem));
    throw new GiveUp("a field of a value that is not an array");
  }

  /** record tape i v n: an empty tape first becomes n copies of v (reverse mode's residuals). */
  private record(args: readonly Abs[], t: Type): Abs {
    const [tape, i, v, n] = args;
    let base = tape!;
    if (base instanceof PArray && base.length === 0)
      base = typeof n === "number" ? PArray.of(new Array<Abs>(Math.max(0, n)).fill(v!)) : new SummaryA(v!);
    return updatePath(this.lattice, base, [i!], v!, "set", t);
  }
}

/** An update's path: one Index, or a tuple of them. */
function pathOf(p: Abs): readonly Abs[] {
  return p instanceof TupleA ? p.elems : [p];
}

export const resultType = (fn: IrFunction): Type => typeOf(fn.body);
