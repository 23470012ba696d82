// Whether a first-order IR function is linear in some of its parameters (what linearTranspose needs: a linear map's
// transpose is its vector-Jacobian product at any point). An abstract interpretation over types, not values: each
// Double (each array of Doubles, summarised) is classified by two bits, whether it can have a part that depends on
// the linear parameters (LINEAR) and a part that does not (CONSTANT): literal zeros and zerosLike have neither,
// x + c has both (affine). Non-linearity is an error naming the reason: a product or quotient of two values that
// depend on the parameters, a non-linear primitive of one, a comparison or conversion of one (the function would be
// piecewise), or a constant term in the result.

import type { Atom, Expr, IrFunction, Prim, Var } from "../ir/ir.js";
import type { PrimName } from "../prims/names.js";
import type { Type } from "../types/types.js";

const CONSTANT = 1;
const LINEAR = 2;

/** A value's class: bits per Double leaf (an array summarised by its element), tuples by component. */
type Cls = number | TupleCls | ClosureCls;
class TupleCls {
  constructor(readonly parts: readonly Cls[]) {}
}
class ClosureCls {
  constructor(
    readonly param: Var,
    readonly body: Expr,
    readonly env: Map<number, Cls>,
  ) {}
}

/** Why a function is not linear: a sentence completing "`f` is not linear in its arguments: it ...". */
export class NotLinear extends Error {}

const OP_NAMES: Partial<Record<PrimName, string>> = {
  pow: "`**`",
  max: "`max`",
  min: "`min`",
  abs: "`abs`",
  floor: "`floor`",
  stopGradient: "`stopGradient`",
  withDerivativeOf: "`withDerivativeOf`",
  sin: "`sin`",
  cos: "`cos`",
  tan: "`tan`",
  log: "`log`",
  exp: "`exp`",
  sqrt: "`sqrt`",
  tanh: "`tanh`",
};

function join(a: Cls, b: Cls): Cls {
  if (typeof a === "number" && typeof b === "number") return a | b;
  if (a instanceof TupleCls && b instanceof TupleCls) return new TupleCls(a.parts.map((p, i) => join(p, b.parts[i]!)));
  if (a === b) return a;
  throw new NotLinear("chooses between two functions");
}

function same(a: Cls, b: Cls): boolean {
  if (typeof a === "number" || typeof b === "number") return a === b;
  if (a instanceof TupleCls && b instanceof TupleCls) return a.parts.every((p, i) => same(p, b.parts[i]!));
  return a === b;
}

/** Every leaf of a value of type t with no part at all (zeros). */
function zeroOf(t: Type): Cls {
  return t.k === "tuple" ? new TupleCls(t.elems.map(zeroOf)) : t.k === "array" ? zeroOf(t.elem) : 0;
}

const bits = (c: Cls): number =>
  typeof c === "number" ? c : c instanceof TupleCls ? c.parts.reduce<number>((n, p) => n | bits(p), 0) : 0;

class Linearity {
  private readonly functions: ReadonlyMap<string, IrFunction>;
  private readonly calls = new Map<string, Cls>();
  private readonly active = new Set<string>();

  constructor(fn: IrFunction) {
    this.functions = new Map((fn.functions ?? []).map((f) => [f.name, f]));
  }

  run(fn: IrFunction, args: readonly Cls[]): Cls {
    const env = new Map<number, Cls>();
    fn.params.forEach((p, i) => env.set(p.id, args[i]!));
    return this.eval(fn.body, env);
  }

  private eval(e: Expr, env: Map<number, Cls>): Cls {
    while (e.kind === "let") {
      env.set(e.v.id, this.node(e.rhs, env));
      e = e.body;
    }
    return this.node(e, env);
  }

  private atom(a: Atom, env: Map<number, Cls>): Cls {
    if (a.kind === "lit") return a.type.k === "double" && a.value !== 0 ? CONSTANT : 0;
    return env.get(a.id) ?? zeroOf(a.type);
  }

  private node(e: Expr, env: Map<number, Cls>): Cls {
    switch (e.kind) {
      case "lit":
      case "var":
        return this.atom(e, env);
      case "let":
        return this.eval(e, env);
      case "prim":
        return this.prim(
          e,
          e.args.map((a) => this.atom(a, env)),
        );
      case "tuple":
        return new TupleCls(e.elems.map((a) => this.atom(a, env)));
      case "proj": {
        const t = this.atom(e.arg, env);
        return t instanceof TupleCls ? t.parts[e.index]! : zeroOf(e.type);
      }
      case "lam":
        return new ClosureCls(e.param, e.body, env);
      case "app":
        return this.apply(this.atom(e.fn, env), this.atom(e.arg, env));
      case "custom":
        return this.atom(e.fn, env);
      case "if":
        return join(this.eval(e.then, env), this.eval(e.else, env));
      case "build":
        env.set(e.index.id, 0);
        return this.eval(e.body, env);
      case "ifold":
        env.set(e.index.id, 0);
        return this.fixpoint(this.atom(e.init, env), (s) => {
          env.set(e.acc.id, s);
          return this.eval(e.body, env);
        });
      case "while":
        return this.fixpoint(this.atom(e.init, env), (s) => {
          env.set(e.acc.id, s);
          this.eval(e.cond, env);
          return this.eval(e.body, env);
        });
      case "call":
        return this.call(
          e.fn,
          e.args.map((a) => this.atom(a, env)),
          e.type,
        );
      case "jvp":
        throw new NotLinear("takes a derivative that was not expanded");
    }
  }

  private apply(f: Cls, arg: Cls): Cls {
    if (!(f instanceof ClosureCls)) throw new NotLinear("applies a value that is not a known function");
    const env = new Map(f.env);
    env.set(f.param.id, arg);
    return this.eval(f.body, env);
  }

  /** A loop's state: joined with each iteration's until it stops growing (two bits a leaf: a few rounds). */
  private fixpoint(init: Cls, step: (s: Cls) => Cls): Cls {
    let s = init;
    for (;;) {
      const next = join(s, step(s));
      if (same(next, s)) return s;
      s = next;
    }
  }

  /** A call of a program function: its body on these classes; a recursive call meanwhile assumes the last result. */
  private call(name: string, args: readonly Cls[], t: Type): Cls {
    const fn = this.functions.get(name);
    if (fn === undefined) throw new Error(`linearity: no function ${name}`);
    const key = `${name}|${args.map((a) => JSON.stringify(a)).join(",")}`;
    if (this.active.has(key)) return this.calls.get(key) ?? zeroOf(t);
    this.active.add(key);
    try {
      for (;;) {
        const before = this.calls.get(key) ?? zeroOf(t);
        const after = join(before, this.run(fn, args));
        this.calls.set(key, after);
        if (same(after, before)) return after;
      }
    } finally {
      this.active.delete(key);
    }
  }

  private prim(p: Prim, args: readonly Cls[]): Cls {
    const [a = 0, b = 0] = args;
    const lin = (c: Cls) => (bits(c) & LINEAR) !== 0;
    // What reads only an array's shape, or passes an Index through, is constant whatever the array holds.
    if (p.op === "length" || p.op === "sameShape" || p.op === "checkIndex" || p.op === "sameSize") return 0;
    if (p.type.k !== "double" && p.type.k !== "array" && p.type.k !== "tuple") {
      // Index and Bool results: a comparison or conversion of a value depending on the arguments makes the function
      // piecewise.
      if (args.some(lin)) throw new NotLinear(`compares or converts a value that depends on them (\`${p.op}\`)`);
      return 0;
    }
    switch (p.op) {
      case "add":
      case "sub":
      case "addArray":
        return join(a, b);
      case "neg":
        return a;
      case "mul":
        if (lin(a) && lin(b)) throw new NotLinear("multiplies two values that both depend on them (`*`)");
        if (a === 0 || b === 0) return 0;
        return lin(a) ? a : lin(b) ? b : CONSTANT;
      case "div":
        if (lin(b)) throw new NotLinear("divides by a value that depends on them (`/`)");
        return a;
      case "toDouble":
        return CONSTANT;
      case "get":
        return a;
      case "zerosLike":
        return zeroOf(p.type);
      case "setAt":
      case "addAt":
        return join(a, args[2]!);
      case "record":
        return join(a, args[2]!);
      case "field":
        return a instanceof TupleCls ? a.parts[fieldOf(p)]! : a;
      case "newTape":
      case "tapePush":
      case "tapePop":
        throw new NotLinear("is recursive in a way linearTranspose does not follow (a tape)");
      default: {
        const name = OP_NAMES[p.op];
        if (args.some(lin)) throw new NotLinear(`applies ${name ?? `\`${p.op}\``} to a value that depends on them`);
        return args.length === 0 ? 0 : CONSTANT;
      }
    }
  }
}

/**
 * Checks that the first-order `fn` is linear in the parameters `wrt` (others are constants): throws NotLinear with
 * the reason otherwise.
 */
export function checkLinear(fn: IrFunction, wrt: readonly number[]): void {
  const args = fn.params.map((p, k) => (wrt.includes(k) ? leaves(p.type, LINEAR) : zeroOf(p.type)));
  const out = new Linearity(fn).run(fn, args);
  if ((bits(out) & CONSTANT) !== 0)
    throw new NotLinear("has a constant term: its result is not zero when its arguments are (it is affine at best)");
}

function leaves(t: Type, c: number): Cls {
  return t.k === "tuple"
    ? new TupleCls(t.elems.map((e) => leaves(e, c)))
    : t.k === "array"
      ? leaves(t.elem, c)
      : t.k === "double"
        ? c
        : 0;
}

/** The component number of a `field` (a literal). */
function fieldOf(p: Prim): number {
  const k = p.args[1]!;
  return k.kind === "lit" ? (k.value as number) : 0;
}
