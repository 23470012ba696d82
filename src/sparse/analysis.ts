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
  type While,
} from "../ir/ir.js";
import type { Type } from "../types/types.js";
import { PRIMS } from "../prims/table.js";
import type { PrimName } from "../prims/names.js";
import type { Tracer } from "./algebra.js";
import { PArray } from "./persistent-array.js";
import {
  BOTTOM,
  Closure,
  GiveUp,
  isScalar,
  Opaque,
  SummaryA,
  tracerOf,
  TupleA,
  UNKNOWN,
  type Abs,
  type Env,
  type Lattice,
} from "./values.js";
import { addValues, emptyOf, updatePath, zerosOf } from "./array-ops.js";

/** How primitives on Doubles combine the dependencies of their operands (see ./algebra.ts). */
const DOUBLE_KINDS: Partial<Record<PrimName, "linear" | "product" | "quotient" | "nonlinear" | "none" | "second">> = {
  add: "linear",
  sub: "linear",
  neg: "linear",
  max: "linear",
  min: "linear",
  abs: "linear",
  mul: "product",
  div: "quotient",
  pow: "nonlinear",
  sin: "nonlinear",
  cos: "nonlinear",
  tan: "nonlinear",
  log: "nonlinear",
  exp: "nonlinear",
  sqrt: "nonlinear",
  tanh: "nonlinear",
  floor: "none",
  stopGradient: "none",
  toDouble: "none",
  withDerivativeOf: "second",
};

/** Rounds of a loop's fixpoint before its state is widened to the top of its type. */
const FIXPOINT_ROUNDS = 12;
/** Nested calls of the program's functions the analysis follows. */
const MAX_CALL_DEPTH = 1000;

export interface AnalysisLimits {
  /** Expressions evaluated before the analysis gives up (default 3·10⁸). */
  readonly maxSteps?: number;
}

export class Analysis {
  private steps = 0;
  private depth = 0;
  private readonly maxSteps: number;
  private readonly functions: ReadonlyMap<string, IrFunction>;

  constructor(
    private readonly lattice: Lattice,
    fn: IrFunction,
    limits: AnalysisLimits = {},
  ) {
    this.maxSteps = limits.maxSteps ?? 3e8;
    this.functions = new Map((fn.functions ?? []).map((f) => [f.name, f]));
  }

  /** The abstract result of `fn` on abstract arguments. */
  run(fn: IrFunction, args: readonly Abs[]): Abs {
    const env: Env = new Map();
    fn.params.forEach((p, i) => env.set(p.id, args[i]!));
    return this.eval(fn.body, env);
  }

  private eval(e: Expr, env: Env): Abs {
    while (e.kind === "let") {
      env.set(e.v.id, this.node(e.rhs, env));
      e = e.body;
    }
    return this.node(e, env);
  }

  private atom(a: Atom, env: Env): Abs {
    if (a.kind === "lit") return a.value;
    const v = env.get(a.id);
    if (v === undefined) throw new Error(`sparsity analysis: unbound variable ${a.name}#${a.id}`);
    return v;
  }

  private node(e: Expr, env: Env): Abs {
    if (++this.steps > this.maxSteps)
      throw new GiveUp(`the analysis ran past its budget of ${this.maxSteps.toExponential(0)} steps`);
    switch (e.kind) {
      case "lit":
      case "var":
        return this.atom(e, env);
      case "let":
        return this.eval(e, env);
      case "prim":
        return this.prim(e, env);
      case "tuple":
        return new TupleA(e.elems.map((a) => this.atom(a, env)));
      case "proj": {
        const t = this.atom(e.arg, env);
        if (!(t instanceof TupleA)) throw new GiveUp("a projection of a value that is not a tuple");
        return t.elems[e.index]!;
      }
      case "lam":
        return new Closure(e.param, e.body, env);
      case "app":
        return this.apply(this.atom(e.fn, env), this.atom(e.arg, env));
      case "if": {
        const c = this.atom(e.cond, env);
        if (c === true) return this.eval(e.then, env);
        if (c === false) return this.eval(e.else, env);
        return this.lattice.join(this.eval(e.then, env), this.eval(e.else, env));
      }
      case "build":
        return this.build(e, env);
      case "ifold":
        return this.ifold(e, env);
      case "while":
        return this.while(e, env);
      case "call":
        return this.call(
          e.fn,
          e.args.map((a) => this.atom(a, env)),
        );
      case "custom":
        return new Opaque(this.atom(e.fn, env), undefined);
      case "jvp":
        throw new GiveUp("a derivative left unexpanded");
    }
  }

  private apply(f: Abs, arg: Abs): Abs {
    if (f instanceof Closure) {
      const env = new Map(f.env);
      env.set(f.param.id, arg);
      return this.eval(f.body, env);
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

  private build(e: Build, env: Env): Abs {
    const n = this.atom(e.size, env);
    if (typeof n !== "number") {
      env.set(e.index.id, UNKNOWN);
      return new SummaryA(this.eval(e.body, env));
    }
    const items = new Array<Abs>(Math.max(0, n));
    for (let i = 0; i < n; i++) {
      env.set(e.index.id, i);
      items[i] = this.eval(e.body, env);
    }
    return PArray.of(items);
  }

  private ifold(e: Ifold, env: Env): Abs {
    const n = this.atom(e.count, env);
    let s = this.atom(e.init, env);
    if (typeof n !== "number") {
      env.set(e.index.id, UNKNOWN);
      return this.fixpoint(s, e.type, (state) => {
        env.set(e.acc.id, state);
        return this.eval(e.body, env);
      });
    }
    for (let i = 0; i < n; i++) {
      env.set(e.acc.id, s);
      env.set(e.index.id, i);
      s = this.eval(e.body, env);
    }
    return s;
  }

  private while(e: While, env: Env): Abs {
    let s = this.atom(e.init, env);
    for (;;) {
      env.set(e.acc.id, s);
      const c = this.eval(e.cond, env);
      if (c === false) return s;
      if (c !== true)
        return this.fixpoint(s, e.type, (state) => {
          env.set(e.acc.id, state);
          return this.eval(e.body, env);
        });
      s = this.eval(e.body, env);
    }
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

  private prim(p: Prim, env: Env): Abs {
    const args = p.args.map((a) => this.atom(a, env));
    switch (p.op) {
      case "get":
        return this.get(args[0]!, args[1]!, p.type);
      case "length": {
        const a = args[0]!;
        return a instanceof PArray ? a.length : UNKNOWN;
      }
      case "checkIndex":
        return args[0]!;
      case "sameSize":
        return typeof args[0] === "number" ? args[0] : args[1]!;
      case "zerosLike":
        return zerosOf(args[0]!, p.type);
      case "setAt":
      case "addAt":
        return updatePath(this.lattice, args[0]!, pathOf(args[1]!), args[2]!, p.op === "setAt" ? "set" : "add", p.type);
      case "addArray":
        return addValues(this.lattice, args[0]!, args[1]!);
      case "field":
        return this.field(args[0]!, args[1] as number);
      case "record":
        return this.record(args, p.type);
      case "sameShape":
        return UNKNOWN;
      case "newTape":
      case "tapePush":
      case "tapePop":
        throw new GiveUp("a tape (the reverse mode of recursive code)");
      default:
        return this.scalar(p, args);
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

  /** A primitive on numbers or Bools. */
  private scalar(p: Prim, args: readonly Abs[]): Abs {
    if (args.every((a) => typeof a === "number" || typeof a === "boolean")) {
      try {
        return PRIMS[p.op].evaluate(
          args,
          p.args.map((a) => a.type),
          undefined,
        );
      } catch {
        return UNKNOWN; // the program fails here for these values (an index division by zero)
      }
    }
    if (p.op === "and" && args.includes(false)) return false;
    if (p.op === "or" && args.includes(true)) return true;
    if (p.type.k !== "double") return UNKNOWN;
    const kind = DOUBLE_KINDS[p.op];
    if (kind === undefined) throw new Error(`sparsity analysis: no rule for ${p.op} on Doubles`);
    if (!args.every(isScalar)) throw new GiveUp(`${p.op} of a value that is not a number`);
    const a = tracerOf(args[0]!);
    const b = args.length > 1 ? tracerOf(args[1]!) : undefined;
    const algebra = this.lattice.algebra;
    let r: Tracer | undefined;
    switch (kind) {
      case "linear":
        r = algebra.linear(a, b);
        break;
      case "product":
        r = algebra.product(a, b);
        break;
      case "quotient":
        r = algebra.quotient(a, b);
        break;
      case "nonlinear":
        r = algebra.nonlinear(a, b);
        break;
      case "none":
        r = undefined;
        break;
      case "second":
        r = b;
        break;
    }
    return r ?? UNKNOWN;
  }
}

/** An update's path: one Index, or a tuple of them. */
function pathOf(p: Abs): readonly Abs[] {
  return p instanceof TupleA ? p.elems : [p];
}

export const resultType = (fn: IrFunction): Type => typeOf(fn.body);
