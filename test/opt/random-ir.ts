// Random well-typed IR programs for differential tests: the optimiser's output must compute exactly what its input
// computes, and the printer's output must read back as the same program.
//
// Programs never fail at run time, so that removing dead code cannot change an outcome: every index is clamped into
// range (`min (max j 0) (length v - 1)`), arrays are never empty, loop counts are literals or lengths, and integer
// division is not generated. They exercise lambdas (curried, higher-order, in tuples and conditionals), builds,
// ifolds with scalar and tuple state, gets, lengths and conditionals.

import { AnfBuilder, litBool, litDouble, litIndex } from "../../src/ir/builder.js";
import { freshVar, type Atom, type IrFunction, type Var } from "../../src/ir/ir.js";
import type { PrimName } from "../../src/prims/names.js";
import type { DenseArray, Value } from "../../src/runtime/value.js";
import { DOUBLE, funOf, INT, VECTOR } from "../../src/types/types.js";

export interface RandomProgramOptions {
  /** `if` whose branches are functions (the surface type checker may not accept them). */
  readonly functionIfs?: boolean;
  /** Tuples holding functions. */
  readonly functionTuples?: boolean;
  readonly depth?: number;
}

export interface RandomProgram {
  readonly fn: IrFunction;
  readonly args: readonly Value[];
}

const D2D = funOf(DOUBLE, DOUBLE);

/** A small deterministic PRNG (mulberry32), so a failing seed reproduces. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Variables in scope, by type. */
interface Env {
  readonly doubles: readonly Atom[];
  readonly ints: readonly Atom[];
  readonly vectors: readonly Atom[];
  readonly pairs: readonly Atom[];
  readonly funs: readonly Atom[];
}

const withVar = (env: Env, key: keyof Env, a: Atom): Env => ({ ...env, [key]: [...env[key], a] });

class Gen {
  constructor(
    private readonly r: () => number,
    private readonly opts: RandomProgramOptions,
  ) {}

  private int(n: number): number {
    return Math.floor(this.r() * n);
  }

  private pick<T>(xs: readonly T[]): T {
    return xs[this.int(xs.length)]!;
  }

  /** Picks one of the cases whose guard holds. */
  private choose(cases: readonly (readonly [boolean, () => Atom])[]): Atom {
    const ok = cases.filter(([g]) => g);
    return this.pick(ok)[1]();
  }

  double(b: AnfBuilder, env: Env, d: number): Atom {
    const leaf = d <= 0;
    return this.choose([
      [true, () => litDouble(this.pick([-2, -1, -0.5, 0, 0.5, 1, 2, 3]))],
      [env.doubles.length > 0, () => this.pick(env.doubles)],
      [!leaf, () => this.arith(b, env, d)],
      [!leaf, () => this.arith(b, env, d)],
      [!leaf, () => this.arith(b, env, d)],
      [
        !leaf,
        () =>
          b.prim(this.pick<PrimName>(["neg", "sin", "cos", "tanh", "abs", "floor", "exp"]), [
            this.double(b, env, d - 1),
          ]),
      ],
      [!leaf, () => b.prim("toDouble", [this.index(b, env, d - 1)])],
      [!leaf && env.vectors.length > 0, () => this.get(b, env, d)],
      [!leaf, () => b.proj(this.int(2), this.pair(b, env, d - 1))],
      [
        !leaf,
        () =>
          b.if(
            this.bool(b, env, d - 1),
            (bt) => this.double(bt, env, d - 1),
            (be) => this.double(be, env, d - 1),
          ),
      ],
      [!leaf, () => this.fold(b, env, d)],
      [!leaf, () => this.sum(b, env, d)],
      [!leaf, () => this.sum(b, env, d)],
      [!leaf, () => b.app(this.fun(b, env, d - 1), this.double(b, env, d - 1))],
      [!leaf, () => b.app(b.app(this.fun2(b, env, d - 1), this.double(b, env, d - 1)), this.double(b, env, d - 1))],
    ]);
  }

  /** Binary arithmetic, often nested (the printer's parenthesisation is tested on these). */
  private arith(b: AnfBuilder, env: Env, d: number): Atom {
    const op = this.pick<PrimName>(["add", "sub", "mul", "div", "pow", "max", "min"]);
    return b.prim(op, [this.double(b, env, d - 1), this.double(b, env, d - 1)]);
  }

  private get(b: AnfBuilder, env: Env, d: number): Atom {
    const v = this.pick(env.vectors);
    const j = this.index(b, env, d - 1);
    const last = b.prim("sub", [b.prim("length", [v]), litIndex(1)]);
    const clamped = b.prim("min", [b.prim("max", [j, litIndex(0)]), last]);
    return b.prim("get", [v, clamped]);
  }

  /** `ifold (fun s i -> s + v[i]) 0. (length v)` over a vector that is often built on the spot (fusion fodder). */
  private sum(b: AnfBuilder, env: Env, d: number): Atom {
    const v = this.vector(b, env, d - 1);
    return b.ifold(litDouble(0), b.prim("length", [v]), (acc, i, bb) => bb.prim("add", [acc, bb.prim("get", [v, i])]));
  }

  /** A loop count: a small literal or the length of a vector (never negative). */
  private count(b: AnfBuilder, env: Env): Atom {
    if (env.vectors.length > 0 && this.r() < 0.6) return b.prim("length", [this.pick(env.vectors)]);
    return litIndex(1 + this.int(4));
  }

  private fold(b: AnfBuilder, env: Env, d: number): Atom {
    if (this.r() < 0.5) {
      return b.ifold(this.double(b, env, d - 1), this.count(b, env), (acc, i, bb) =>
        this.double(bb, withVar(withVar(env, "doubles", acc), "ints", i), d - 1),
      );
    }
    // Tuple state: both components may depend on both.
    const s = b.ifold(this.pair(b, env, d - 1), this.count(b, env), (acc, i, bb) => {
      const inner = withVar(withVar(env, "pairs", acc), "ints", i);
      return bb.tuple([this.double(bb, inner, d - 1), this.double(bb, inner, d - 1)]);
    });
    return b.proj(this.int(2), s);
  }

  index(b: AnfBuilder, env: Env, d: number): Atom {
    const leaf = d <= 0;
    return this.choose([
      [true, () => litIndex(this.int(5) - 1)],
      [env.ints.length > 0, () => this.pick(env.ints)],
      [
        !leaf,
        () =>
          b.prim(this.pick<PrimName>(["add", "sub", "mul", "max", "min"]), [
            this.index(b, env, d - 1),
            this.index(b, env, d - 1),
          ]),
      ],
      [!leaf && env.vectors.length > 0, () => b.prim("length", [this.pick(env.vectors)])],
      [!leaf, () => b.prim("length", [this.vector(b, env, d - 1)])],
    ]);
  }

  bool(b: AnfBuilder, env: Env, d: number): Atom {
    const leaf = d <= 0;
    return this.choose([
      [this.r() < 0.2, () => litBool(this.r() < 0.5)],
      [
        true,
        () =>
          b.prim(this.pick<PrimName>(["lt", "gt", "le", "ge", "eq", "ne"]), [
            this.double(b, env, d - 1),
            this.double(b, env, d - 1),
          ]),
      ],
      [!leaf, () => b.prim(this.pick<PrimName>(["lt", "eq"]), [this.index(b, env, d - 1), this.index(b, env, d - 1)])],
      [!leaf, () => b.prim("not", [this.bool(b, env, d - 1)])],
      [!leaf, () => b.prim(this.pick<PrimName>(["and", "or"]), [this.bool(b, env, d - 1), this.bool(b, env, d - 1)])],
    ]);
  }

  vector(b: AnfBuilder, env: Env, d: number): Atom {
    const leaf = d <= 0;
    return this.choose([
      [env.vectors.length > 0, () => this.pick(env.vectors)],
      [leaf || env.vectors.length === 0, () => b.build(litIndex(1 + this.int(3)), (i, bb) => bb.prim("toDouble", [i]))],
      [!leaf, () => b.build(this.count(b, env), (i, bb) => this.double(bb, withVar(env, "ints", i), d - 1))],
      [!leaf && env.vectors.length > 0, () => this.map(b, env, d)],
      [
        !leaf,
        () =>
          b.if(
            this.bool(b, env, d - 1),
            (bt) => this.vector(bt, env, d - 1),
            (be) => this.vector(be, env, d - 1),
          ),
      ],
    ]);
  }

  /** `build (length v) (fun i -> f v[i])`, the shape of the prelude's vectorMap. */
  private map(b: AnfBuilder, env: Env, d: number): Atom {
    const v = this.pick(env.vectors);
    const f = this.fun(b, env, d - 1);
    return b.build(b.prim("length", [v]), (i, bb) => bb.app(f, bb.prim("get", [v, i])));
  }

  pair(b: AnfBuilder, env: Env, d: number): Atom {
    return this.choose([
      [env.pairs.length > 0, () => this.pick(env.pairs)],
      [true, () => b.tuple([this.double(b, env, d - 1), this.double(b, env, d - 1)])],
    ]);
  }

  fun(b: AnfBuilder, env: Env, d: number): Atom {
    const leaf = d <= 0;
    return this.choose([
      [env.funs.length > 0, () => this.pick(env.funs)],
      [true, () => b.lam("x", DOUBLE, (x, bb) => this.double(bb, withVar(env, "doubles", x), d - 1))],
      [!leaf, () => b.app(this.fun2(b, env, d - 1), this.double(b, env, d - 1))],
      [!leaf, () => b.app(this.hof(b, env, d - 1), this.fun(b, env, d - 1))],
      [
        !leaf && !!this.opts.functionIfs,
        () =>
          b.if(
            this.bool(b, env, d - 1),
            (bt) => this.fun(bt, env, d - 1),
            (be) => this.fun(be, env, d - 1),
          ),
      ],
      [
        !leaf && !!this.opts.functionTuples,
        () => b.proj(this.int(2), b.tuple([this.fun(b, env, d - 1), this.fun(b, env, d - 1)])),
      ],
      [
        !leaf && !!this.opts.functionTuples && !!this.opts.functionIfs,
        () => {
          // A conditional of tuples of functions, projected: the inliner pushes the projection into the branches.
          const t = b.if(
            this.bool(b, env, d - 1),
            (bt) => bt.tuple([this.fun(bt, env, d - 1), this.fun(bt, env, d - 1)]),
            (be) => be.tuple([this.fun(be, env, d - 1), this.fun(be, env, d - 1)]),
          );
          return b.proj(this.int(2), t);
        },
      ],
    ]);
  }

  private fun2(b: AnfBuilder, env: Env, d: number): Atom {
    return b.lam("x", DOUBLE, (x, bx) =>
      bx.lam("y", DOUBLE, (y, by) => this.double(by, withVar(withVar(env, "doubles", x), "doubles", y), d - 1)),
    );
  }

  /** `fun f -> fun x -> ...f applied once or twice...` */
  private hof(b: AnfBuilder, env: Env, d: number): Atom {
    return b.lam("f", D2D, (f, bf) =>
      bf.lam("x", DOUBLE, (x, bx) => {
        const inner = withVar(withVar(env, "funs", f), "doubles", x);
        const y = bx.app(f, this.double(bx, inner, d - 1));
        return this.r() < 0.5 ? bx.app(f, y) : bx.prim("add", [y, this.double(bx, inner, d - 1)]);
      }),
    );
  }
}

function vectorValue(xs: readonly number[]): DenseArray {
  return { tag: "dense", elemKind: "double", shape: [xs.length], data: Float64Array.from(xs) };
}

/** A random program `f (v: Vector) (w: Vector) (x: Double) (k: Index)` returning a Double or a (Double, Vector). */
export function randomProgram(seed: number, opts: RandomProgramOptions = {}): RandomProgram {
  const r = rng(seed);
  const g = new Gen(r, opts);
  const depth = opts.depth ?? 4;
  const v = freshVar("v", VECTOR);
  const w = freshVar("w", VECTOR);
  const x = freshVar("x", DOUBLE);
  const k = freshVar("k", INT);
  const env: Env = { doubles: [x], ints: [k], vectors: [v, w], pairs: [], funs: [] };
  const b = new AnfBuilder();
  // A few let-bound helpers first, as the lowering emits prelude functions.
  const f = g.fun(b, env, depth - 2);
  const env2 = withVar(env, "funs", f);
  const result =
    r() < 0.5 ? g.double(b, env2, depth) : b.tuple([g.double(b, env2, depth), g.vector(b, env2, depth - 1)]);
  const params: Var[] = [v, w, x, k];
  const small = () => Math.round((r() * 4 - 2) * 4) / 4;
  const args: Value[] = [
    vectorValue([small(), small(), small()]),
    vectorValue([small(), small()]),
    small(),
    Math.floor(r() * 5) - 1,
  ];
  return { fn: { name: "f", params, body: b.finish(result) }, args };
}
