// Random Double-valued programs for differentiation: `f (v: Vector) (x: Double) (m: Matrix)` over vectors of one
// static length N (and N-by-N matrices), built from loops (build, ifold with Double, pair and Vector states), array
// reads (v[i], rows m[i] and elements m[i][j], reads of built arrays), conditionals on comparisons, lets, tuples,
// the functional updates (setAt, addAt) and smooth scalar functions whose arguments stay in their domains (log and
// sqrt of 2 + cos/sin, divisions by 2 + sin, exp of sin), with max, min and abs for kinks.
//
// Every read is in range (loop indexes of loops of N iterations, literals below N, N - 1 - i), so the programs never
// fail. Choices come from an Rng (test/gen/rng.ts): fast-check shrinks the list of choices to a smaller program.
//
// With `recursion`, a `let rec` group of one or two functions `r (a: Double) (w: Vector) (n: Index)` returning a
// Double or a Vector comes first: `if n <= 0 then base else step`, where the step may call any of the group at
// `n - 1` (self- and mutual recursion, tail and non-tail calls, several per step) and the base calls none. `f` calls
// them anywhere, counts being literals or loop indexes (at most 3), so every recursion ends within 4 levels; `f` then
// also has a second Double parameter `y`.

import fc from "fast-check";
import { ChoiceRng, type Rng } from "../gen/rng.js";

export interface DoubleProgram {
  readonly source: string;
  readonly args: readonly unknown[];
}

type Kind = "double" | "index" | "vector" | "matrix";

class Scope {
  private readonly vars: { name: string; kind: Kind }[] = [];
  private counter = 0;
  /** Variables out of reach for now (`hiding`). */
  private hidden: ReadonlySet<string> = new Set();

  fresh(prefix: string): string {
    return `${prefix}${this.counter++}`;
  }
  of(kind: Kind): string[] {
    return this.vars.filter((v) => v.kind === kind && !this.hidden.has(v.name)).map((v) => v.name);
  }
  /** `body` generated without the variables `names` (an expression that does not depend on them). */
  hiding<T>(names: readonly string[], body: () => T): T {
    const outer = this.hidden;
    this.hidden = new Set([...outer, ...names]);
    try {
      return body();
    } finally {
      this.hidden = outer;
    }
  }
  with<T>(bound: readonly (readonly [string, Kind])[], body: () => T): T {
    for (const [name, kind] of bound) this.vars.push({ name, kind });
    try {
      return body();
    } finally {
      this.vars.splice(this.vars.length - bound.length, bound.length);
    }
  }
}

const LITERALS = ["0.5", "(-1.25)", "2.", "0.75", "(-0.3)"];

/** A function of the recursive group: `name (a: Double) (w: Vector) (n: Index)` returning `result`. */
interface Recursive {
  readonly name: string;
  readonly result: "double" | "vector";
}

class Generator {
  readonly scope = new Scope();
  /** The recursive functions calls may use (none in a base case). */
  recursive: readonly Recursive[] = [];
  /** Inside a recursive function's step: its count parameter, which its calls decrease. */
  counter: string | undefined;

  constructor(
    private readonly rng: Rng,
    private readonly n: number,
  ) {}

  private pick<T>(items: readonly T[]): T {
    return this.rng.pick(items);
  }

  index(): string {
    const loops = this.scope.of("index");
    if (loops.length === 0 || this.rng.chance(0.25)) return String(this.rng.int(0, this.n - 1));
    const i = this.pick(loops);
    return this.rng.chance(0.25) ? `(${this.n} - 1 - ${i})` : i;
  }

  double(d: number): string {
    const leaf = () => {
      const vars = this.scope.of("double");
      return this.rng.weighted<() => string>([
        [3, () => (vars.length > 0 ? this.pick(vars) : this.pick(LITERALS))],
        [2, () => `${this.pick(this.scope.of("vector"))}[${this.index()}]`],
        [1, () => this.pick(LITERALS)],
        [this.scope.of("matrix").length > 0 ? 1 : 0, () => `${this.matrixLeaf()}[${this.index()}][${this.index()}]`],
      ])();
    };
    if (d <= 0) return leaf();
    const D = () => this.double(d - 1);
    return this.rng.weighted<() => string>([
      [2, leaf],
      [4, () => `(${D()} ${this.pick(["+", "-", "*"])} ${D()})`],
      [2, () => `(${this.pick(["sin", "cos", "tanh"])} ${D()})`],
      [
        1.5,
        () =>
          this.pick([
            () => `(exp (sin ${D()}))`,
            () => `(log (2. + cos ${D()}))`,
            () => `(sqrt (2. + sin ${D()}))`,
            () => `(${D()} / (2. + sin ${D()}))`,
            () => `(${D()} ** 2.)`,
            () => `((1.5 + sin ${D()}) ** (tanh ${D()}))`,
            () => `(-${D()})`,
          ])(),
      ],
      [1, () => `(${this.pick(["max", "min"])} ${D()} ${D()})`],
      [0.5, () => `(abs ${D()})`],
      [0.7, () => `(double ${this.index()} * ${D()})`],
      [1.5, () => `(if ${D()} ${this.pick(["<", ">"])} ${D()} then ${D()} else ${D()})`],
      [1.5, () => this.let("y", "double", () => D(), D)],
      [1.5, () => `${this.vector(d - 1)}[${this.index()}]`],
      [0.7, () => `${this.matrix(d - 1)}[${this.index()}][${this.index()}]`],
      [this.callable("double") ? 3 : 0, () => this.call("double", d - 1)],
      [1.5, () => this.ifold("s", "Double", D, D)],
      [1, () => `(vectorSum ${this.vector(d - 1)})`],
      [0.7, () => `(vectorDot ${this.vector(d - 1)} ${this.vector(d - 1)})`],
      [
        1,
        () => {
          const [a, b] = [this.scope.fresh("a"), this.scope.fresh("b")];
          const body = this.scope.with(
            [
              [a, "double"],
              [b, "double"],
            ],
            D,
          );
          return `(let (${a}, ${b}) = (${D()}, ${D()}) in ${body})`;
        },
      ],
      [
        1,
        () => {
          // A pair as the loop state.
          const [st, a, b, i] = [
            this.scope.fresh("st"),
            this.scope.fresh("a"),
            this.scope.fresh("b"),
            this.scope.fresh("i"),
          ];
          const step = this.scope.with(
            [
              [a, "double"],
              [b, "double"],
              [i, "index"],
            ],
            () => `(${D()}, ${D()})`,
          );
          const loop = `(ifold (fun (${st}: Double * Double) (${i}: Index) -> let (${a}, ${b}) = ${st} in ${step}) (${D()}, ${D()}) ${this.n})`;
          return `(${this.pick(["fst", "snd"])} ${loop})`;
        },
      ],
    ])();
  }

  vector(d: number): string {
    const leaf = () => this.pick(this.scope.of("vector"));
    if (d <= 0) return leaf();
    const D = () => this.double(d - 1);
    const V = () => this.vector(d - 1);
    return this.rng.weighted<() => string>([
      [2, leaf],
      [3, () => this.build("i", "index", D)],
      [1.5, () => this.binder("y", "double", (y, body) => `(vectorMap ${V()} (fun (${y}: Double) -> ${body}))`, D)],
      [1, () => `${this.matrix(d - 1)}[${this.index()}]`],
      [1, () => `(${this.pick(["setAt", "addAt"])} ${V()} ${this.index()} ${D()})`],
      [1, () => this.ifold("w", "Vector", V, (w, i) => `(${this.pick(["setAt", "addAt"])} ${w} ${i} ${D()})`)],
      [
        // Updates in place in branches, of values read from the state (reversed from undo logs).
        1,
        () =>
          this.ifold(
            "w",
            "Vector",
            V,
            (w, i) =>
              `(if ${D()} > ${D()} then setAt ${w} ${i} (${D()} * ${w}[${i}]) else addAt (setAt ${w} ${this.index()} ${D()}) ${i} ${D()})`,
          ),
      ],
      [1, () => this.let("u", "vector", V, V)],
      [0.7, () => `(if ${D()} > ${D()} then ${V()} else ${V()})`],
      [this.callable("vector") ? 2 : 0, () => this.call("vector", d - 1)],
    ])();
  }

  /** A matrix in scope, or (in a recursive function, which has none) one built of a vector in scope. */
  private matrixLeaf(): string {
    const ms = this.scope.of("matrix");
    if (ms.length > 0) return this.pick(ms);
    return `(build ${this.n} (fun (${this.scope.fresh("r")}: Index) -> ${this.pick(this.scope.of("vector"))}))`;
  }

  matrix(d: number): string {
    const leaf = () => this.matrixLeaf();
    if (d <= 0) return leaf();
    return this.rng.weighted<() => string>([
      [2, leaf],
      [2, () => this.build("r", "index", () => this.vector(d - 1))],
      [
        1,
        () =>
          this.let(
            "mm",
            "matrix",
            () => this.matrix(d - 1),
            () => this.matrix(d - 1),
          ),
      ],
    ])();
  }

  callable(result: "double" | "vector"): boolean {
    return this.recursive.some((f) => f.result === result);
  }

  /** A call of a recursive function: at `n - 1` inside a step, else at a literal or a loop index (at most 3). */
  call(result: "double" | "vector", d: number): string {
    const f = this.pick(this.recursive.filter((r) => r.result === result));
    const count =
      this.counter !== undefined
        ? `(${this.counter} - 1)`
        : this.rng.chance(0.6)
          ? String(this.rng.int(0, 3))
          : this.index();
    return `(${f.name} ${this.double(d)} ${this.vector(d)} ${count})`;
  }

  /** The `let rec` group (its functions then callable from `f`). */
  recursiveGroup(depth: number): string {
    const group: Recursive[] = Array.from({ length: this.rng.int(1, 2) }, (_, k) => ({
      name: `r${k}`,
      result: this.rng.chance(0.7) ? "double" : "vector",
    }));
    const definitions = group.map((f) => {
      const [a, w, n] = [this.scope.fresh("a"), this.scope.fresh("w"), this.scope.fresh("n")];
      const body = (calls: readonly Recursive[], counter: string | undefined) => {
        [this.recursive, this.counter] = [calls, counter];
        const params: [string, Kind][] = [
          [a, "double"],
          [w, "vector"],
        ];
        return this.scope.with(params, () => {
          const e = f.result === "double" ? this.double(this.rng.int(1, depth)) : this.vector(this.rng.int(1, depth));
          // The step usually calls the group (so that the recursion runs); the base never does.
          return calls.length > 0 && this.rng.chance(0.8) ? this.withCall(f.result, e, depth) : e;
        });
      };
      const base = body([], undefined);
      const step = body(group, n);
      const type = f.result === "double" ? "Double" : "Vector";
      return `${f.name} (${a}: Double) (${w}: Vector) (${n}: Index) : ${type} =\n  if ${n} <= 0 then ${base} else ${step}`;
    });
    [this.recursive, this.counter] = [group, undefined];
    return `let rec ${definitions.join("\nand ")}\n`;
  }

  /** `e` (of kind `result`) combined with a call of the group, unless it makes one already. */
  withCall(result: "double" | "vector", e: string, depth: number): string {
    if (this.recursive.some((f) => e.includes(`(${f.name} `))) return e;
    const d = this.rng.int(0, depth - 1);
    if (result === "double") {
      // In `f`, half the time a call independent of x and y, times an expression of them: the Hessian's directions
      // along x and y then run the same forward sweep of the call (CSE shares it) and different reverse ones.
      const alone = this.counter === undefined && this.rng.chance(0.5);
      const make = () => (this.callable("double") ? this.call("double", d) : `(vectorSum ${this.call("vector", d)})`);
      const call = alone ? this.scope.hiding(["x", "y"], make) : make();
      return `(${e} ${alone ? "*" : this.pick(["+", "*"])} ${call})`;
    }
    const [y, u, i] = [this.scope.fresh("y"), this.scope.fresh("u"), this.scope.fresh("i")];
    const [call, at] = this.callable("vector") ? [this.call("vector", d), `[${i}]`] : [this.call("double", d), ""];
    return `(let ${y} = ${call} in let ${u} = ${e} in build ${this.n} (fun (${i}: Index) -> ${y}${at} * ${u}[${i}]))`;
  }

  private binder(prefix: string, kind: Kind, make: (name: string, body: string) => string, body: () => string): string {
    const name = this.scope.fresh(prefix);
    return make(name, this.scope.with([[name, kind]], body));
  }

  private let(prefix: string, kind: Kind, rhs: () => string, body: () => string): string {
    const value = rhs();
    return this.binder(prefix, kind, (name, b) => `(let ${name} = ${value} in ${b})`, body);
  }

  private build(prefix: string, kind: Kind, body: () => string): string {
    return this.binder(prefix, kind, (i, b) => `(build ${this.n} (fun (${i}: Index) -> ${b}))`, body);
  }

  /** `ifold (fun (acc: T) (i: Index) -> body) init N`, with acc and i in scope in the body. */
  private ifold(
    prefix: string,
    type: "Double" | "Vector",
    init: () => string,
    body: (acc: string, i: string) => string,
  ): string {
    const start = init();
    const [acc, i] = [this.scope.fresh(prefix), this.scope.fresh("i")];
    const kind: Kind = type === "Double" ? "double" : "vector";
    const text = this.scope.with(
      [
        [acc, kind],
        [i, "index"],
      ],
      () => body(acc, i),
    );
    return `(ifold (fun (${acc}: ${type}) (${i}: Index) -> ${text}) ${start} ${this.n})`;
  }
}

export interface DoubleProgramOptions {
  /** Prefix `f` with a recursive group, which it calls (see the top). */
  readonly recursion?: boolean;
}

export function generateDoubleProgram(rng: Rng, maxDepth = 4, opts: DoubleProgramOptions = {}): DoubleProgram {
  const n = rng.int(2, 4);
  const g = new Generator(rng, n);
  const group = opts.recursion ? g.recursiveGroup(Math.max(1, maxDepth - 1)) : "";
  // With recursion, a second Double: a Hessian's directions along x and y are straight-line code side by side, where
  // CSE may share their work (and a recursive call's tape, issue 29), not iterations of one loop.
  const params: [string, Kind][] = opts.recursion
    ? [
        ["v", "vector"],
        ["x", "double"],
        ["y", "double"],
        ["m", "matrix"],
      ]
    : [
        ["v", "vector"],
        ["x", "double"],
        ["m", "matrix"],
      ];
  const body = g.scope.with(params, () => {
    const e = g.double(rng.int(1, maxDepth));
    return opts.recursion ? g.withCall("double", e, maxDepth) : e;
  });
  const value = () => Math.round((rng.int(0, 4000) / 1000 - 2) * 1000) / 1000 + 0.0005;
  const vec = () => Array.from({ length: n }, value);
  const args = opts.recursion
    ? [vec(), value(), value(), Array.from({ length: n }, vec)]
    : [vec(), value(), Array.from({ length: n }, vec)];
  const header = opts.recursion
    ? "(v: Vector) (x: Double) (y: Double) (m: Matrix)"
    : "(v: Vector) (x: Double) (m: Matrix)";
  return { source: `${group}let f = fun ${header} ->\n  ${body}\n`, args };
}

export function arbDoubleProgram(maxDepth = 4, opts: DoubleProgramOptions = {}): fc.Arbitrary<DoubleProgram> {
  return fc.array(fc.nat({ max: 65535 }), { maxLength: 400, size: "max" }).map((choices) => {
    const p = generateDoubleProgram(new ChoiceRng(choices), maxDepth, opts);
    return Object.assign(p, { [fc.toStringMethod]: () => `\n// args: ${JSON.stringify(p.args)}\n${p.source}` });
  });
}
