// Type-directed, depth-bounded generation of well-typed Smooth expressions (as source text).
//
// How the generated text stays well-typed under Smooth's inference rules:
//  - every let, lambda parameter, loop state and local function is annotated, so no type is left to inference
//    across two uses;
//  - a Double is never written as an integer literal except next to a Double variable (`x * 2`), where the literal
//    adapts at once; elsewhere it is written with a point (`2.`). An expression meant to be a Double therefore always
//    is one, and an Index may meet it (it is promoted) without turning it into an Index;
//  - integer literals meant as Indexes may end up Doubles where nothing forces them (a tuple result); that changes
//    nothing for agreement between the back ends.
// Every compound expression is parenthesised, so precedence and the reach of let/if/fun never matter.
//
// Runtime safety: arrays have static lengths (types.ts), sizes are literals or `length` of an array in scope, and
// indexes are loop indexes of a small enough range, literals below the length, or `length - 1 - i`; so builds are
// regular and reads in range. Integer division by zero is the one runtime error generated on purpose (rarely).

import type { Rng } from "./rng.js";
import { arrayProductions } from "./arrays.js";
import { boolProductions, doubleProductions, indexProductions } from "./scalars.js";
import { Scope, type Binding } from "./scope.js";
import {
  annotation,
  arrayOf,
  BOOL,
  funAnnotation,
  INDEX,
  pairOf,
  randomType,
  sameType,
  type GenType,
} from "./types.js";

/** A weighted way to make an expression (weight 0: not applicable here). */
export type Production = readonly [number, () => string];

export class ExprGen {
  constructor(
    readonly rng: Rng,
    readonly scope: Scope,
  ) {}

  /** An expression of type `t` whose nesting is at most `depth`. */
  expr(t: GenType, depth: number): string {
    if (depth <= 0) return this.leaf(t);
    const d = depth - 1;
    // The leaf comes first: a shrunk choice list makes leaves.
    const options: Production[] = [[1.5, () => this.leaf(t)], ...this.generic(t, d), ...this.specific(t, d)];
    return this.rng.weighted(options)();
  }

  private specific(t: GenType, d: number): Production[] {
    switch (t.k) {
      case "double":
        return doubleProductions(this, d);
      case "index":
        return indexProductions(this, d);
      case "bool":
        return boolProductions(this, d);
      case "array":
        return arrayProductions(this, t, d);
      case "pair":
        return [
          [2, () => `(${this.expr(t.fst, d)}, ${this.expr(t.snd, d)})`],
          [0.5, () => `(pair ${this.expr(t.fst, d)} ${this.expr(t.snd, d)})`],
        ];
    }
  }

  /** A variable (or a safe path from one) of type t, or a constant. */
  leaf(t: GenType): string {
    const paths = this.scope.pathsOf(t);
    if (paths.length > 0 && !this.rng.chance(0.2)) return this.rng.pick(paths).text;
    return this.constant(t);
  }

  constant(t: GenType): string {
    const { rng } = this;
    switch (t.k) {
      case "double":
        return doubleLiteral(rng.pick([0, 1, 2, 0.5, -1.5, 3.25, -2, 10, 0.001, 1e6]));
      case "index":
        return rng.weighted<() => string>([
          [8, () => indexLiteral(rng.int(0, 4))],
          [1, () => indexLiteral(rng.int(-3, -1))],
          [0.3, () => indexLiteral(rng.pick([2147483647, 65536, 46341]))],
        ])();
      case "bool":
        return rng.pick(["true", "false"]);
      case "array": {
        const i = this.scope.fresh("i");
        const size = this.size(t.n);
        const body = this.scope.with({ kind: "value", name: i, type: { k: "index" }, bound: t.n }, () =>
          this.leaf(t.elem),
        );
        return `(build ${size} (fun (${i}: Index) -> ${body}))`;
      }
      case "pair":
        return `(${this.leaf(t.fst)}, ${this.leaf(t.snd)})`;
    }
  }

  /** An Index expression whose value is n: the literal or `length x` of an array in scope with that length. */
  size(n: number): string {
    const sizes = this.scope.sizesOf(n);
    return sizes.length > 0 && this.rng.chance(0.6) ? this.rng.pick(sizes) : String(n);
  }

  /** A length for a new array: one already in scope (so `length x` can express it) or a small one. */
  length(min = 0): number {
    const known = this.scope.lengths().filter((n) => n >= min);
    return known.length > 0 && this.rng.chance(0.6) ? this.rng.pick(known) : this.rng.int(min, Math.max(min, 4));
  }

  /** An Index expression in range for an array of length n (n >= 1). */
  index(n: number): string {
    const loops = this.scope.indexesBelow(n);
    const { rng } = this;
    return rng.weighted<() => string>([
      [1, () => String(rng.int(0, n - 1))],
      [loops.length > 0 ? 4 : 0, () => rng.pick(loops).text],
      [loops.length > 0 ? 1 : 0, () => `(${this.size(n)} - 1 - ${rng.pick(loops).text})`],
      [0.3, () => `(${this.size(n)} - 1)`],
    ])();
  }

  /** A random type for an intermediate value, preferring lengths already in scope. */
  someType(depth = 1): GenType {
    return randomType(this.rng, depth, this.scope.lengths());
  }

  /** `body` generated with a fresh variable of type t in scope; returns the name and the body. */
  binding(prefix: string, t: GenType, body: () => string, bound?: number): [string, string] {
    const name = this.scope.fresh(prefix);
    const b =
      bound === undefined
        ? { kind: "value" as const, name, type: t }
        : { kind: "value" as const, name, type: t, bound };
    return [name, this.scope.with(b, body)];
  }

  /**
   * `let rec r (n: Index) (x: S) : T = if n <= 0 then base else step in body`: the step may call r at n - 1, the
   * body at a count from 0 to 3, so the recursion ends, at most 4 deep.
   */
  private recursive(t: GenType, d: number): string {
    const { rng, scope } = this;
    const state = this.someType(rng.int(0, 1));
    const result = rng.chance(0.6) ? t : this.someType();
    const [r, n, x] = [scope.fresh("r"), scope.fresh("n"), scope.fresh("x")];
    const params: Binding[] = [
      { kind: "value", name: n, type: INDEX },
      { kind: "value", name: x, type: state },
    ];
    // The step and the body usually use a call's value (so the recursion runs), and may call it again anywhere.
    const withCall = (count: string, type: GenType, binding: Binding) =>
      scope.with(binding, () => {
        if (!rng.chance(0.75)) return this.expr(type, d);
        const call = `(${r} ${count} ${this.expr(state, d)})`;
        const [y, rest] = this.binding("y", result, () => this.expr(type, d));
        return `(let ${y}: ${annotation(result)} = ${call} in ${rest})`;
      });
    const fbody = scope.withAll(params, () => {
      const base = this.expr(result, d);
      const step = withCall(`(${n} - 1)`, result, { kind: "rec", name: r, state, result, counter: n });
      return `(if ${n} <= 0 then ${base} else ${step})`;
    });
    const body = withCall(String(rng.int(0, 3)), t, { kind: "rec", name: r, state, result });
    const head = `${r} (${n}: Index) (${x}: ${annotation(state)}) : ${annotation(result)}`;
    return `(let rec ${head} = ${fbody} in ${body})`;
  }

  /** Productions for every type: if, let, tuple patterns, lambdas, local functions, projections, get, ifold, while. */
  private generic(t: GenType, d: number): Production[] {
    const { rng, scope } = this;
    const calls = scope.functions().filter((f) => sameType(f.type.result, t));
    const recursive = scope.recursive().filter((f) => sameType(f.result, t));
    return [
      [0.6, () => this.recursive(t, d)],
      [
        recursive.length > 0 ? 1.5 : 0,
        () => {
          const f = rng.pick(recursive);
          const count = f.counter === undefined ? String(rng.int(0, 3)) : `(${f.counter} - 1)`;
          return `(${f.name} ${count} ${this.expr(f.state, d)})`;
        },
      ],
      [1.2, () => `(if ${this.expr(BOOL, d)} then ${this.expr(t, d)} else ${this.expr(t, d)})`],
      [
        1.2,
        () => {
          const s = this.someType();
          const value = this.expr(s, d);
          const [x, body] = this.binding("x", s, () => this.expr(t, d));
          return `(let ${x}: ${annotation(s)} = ${value} in ${body})`;
        },
      ],
      [
        0.5,
        () => {
          const first = this.someType(0);
          const second = this.someType();
          const s = pairOf(first, second);
          const value = this.expr(s, d);
          const a = scope.fresh("a");
          const b = scope.fresh("b");
          const body = scope.withAll(
            [
              { kind: "value", name: a, type: first },
              { kind: "value", name: b, type: second },
            ],
            () => this.expr(t, d),
          );
          return `(let (${a}, ${b}): ${annotation(s)} = ${value} in ${body})`;
        },
      ],
      [
        0.6,
        () => {
          const s = this.someType();
          const [x, body] = this.binding("x", s, () => this.expr(t, d));
          return `((fun (${x}: ${annotation(s)}) -> ${body}) ${this.expr(s, d)})`;
        },
      ],
      [
        0.5,
        () => {
          const type = { k: "fun" as const, param: this.someType(), result: rng.chance(0.5) ? t : this.someType() };
          const [x, fbody] = this.binding("x", type.param, () => this.expr(type.result, d));
          const f = scope.fresh("f");
          const body = scope.with({ kind: "fun", name: f, type }, () => this.expr(t, d));
          const param = `(${x}: ${annotation(type.param)})`;
          return `(let ${f}: ${funAnnotation(type)} = fun ${param} -> ${fbody} in ${body})`;
        },
      ],
      [
        calls.length > 0 ? 1.5 : 0,
        () => {
          const f = rng.pick(calls);
          return `(${f.name} ${this.expr(f.type.param, d)})`;
        },
      ],
      [
        0.6,
        () => {
          const other = this.someType(0);
          return rng.chance(0.5)
            ? `(fst ${this.expr(pairOf(t, other), d)})`
            : `(snd ${this.expr(pairOf(other, t), d)})`;
        },
      ],
      [
        0.9,
        () => {
          const n = this.length(1);
          const array = this.expr(arrayOf(t, n), d);
          return `(${array}[${this.index(n)}])`;
        },
      ],
      [
        0.6,
        () => {
          const count = this.length();
          const init = this.expr(t, d);
          const acc = scope.fresh("acc");
          const k = scope.fresh("k");
          const body = scope.withAll(
            [
              { kind: "value", name: acc, type: t },
              { kind: "value", name: k, type: { k: "index" }, bound: count },
            ],
            () => this.expr(t, d),
          );
          return `(ifold (fun (${acc}: ${annotation(t)}) (${k}: Index) -> ${body}) ${init} ${this.size(count)})`;
        },
      ],
      [
        0.4,
        () => {
          // A while loop whose state carries a step counter k: it ends after at most `count` steps, earlier when the
          // generated condition on the state fails. In the body k < count, so it indexes arrays of that length.
          const count = rng.int(0, 4);
          const init = this.expr(t, d);
          const state = annotation(pairOf(t, { k: "index" }));
          const lambda = (inBody: boolean, make: (x: string, k: string) => string): string => {
            const [s, x, k] = [scope.fresh("s"), scope.fresh("x"), scope.fresh("k")];
            const text = scope.withAll(
              [
                { kind: "value", name: x, type: t },
                { kind: "value", name: k, type: { k: "index" }, ...(inBody ? { bound: count } : {}) },
              ],
              () => make(x, k),
            );
            return `(fun (${s}: ${state}) -> let (${x}, ${k}) = ${s} in ${text})`;
          };
          const cond = lambda(false, (_x, k) => `((${k} < ${count}) && ${this.expr(BOOL, d)})`);
          const body = lambda(true, (_x, k) => `(${this.expr(t, d)}, ${k} + 1)`);
          return `(fst (while ${cond} ${body} (${init}, 0)))`;
        },
      ],
    ];
  }
}

/** A Double literal with a point or an exponent (never read as an Index), parenthesised when negative. */
export function doubleLiteral(x: number): string {
  let text = String(Math.abs(x));
  if (!/[.e]/.test(text)) text += ".";
  return x < 0 ? `(-${text})` : text;
}

/** An Index literal, parenthesised when negative. */
export function indexLiteral(k: number): string {
  return k < 0 ? `(-${-k})` : String(k);
}
