// Random Double-valued programs for differentiation: `f (v: Vector) (x: Double) (m: Matrix)` over vectors of one
// static length N (and N-by-N matrices), built from loops (build, ifold with Double, pair and Vector states), array
// reads (v[i], rows m[i] and elements m[i][j], reads of built arrays), conditionals on comparisons, lets, tuples,
// the functional updates (setAt, addAt) and smooth scalar functions whose arguments stay in their domains (log and
// sqrt of 2 + cos/sin, divisions by 2 + sin, exp of sin), with max, min and abs for kinks.
//
// Every read is in range (loop indexes of loops of N iterations, literals below N, N - 1 - i), so the programs never
// fail. Choices come from an Rng (test/gen/rng.ts): fast-check shrinks the list of choices to a smaller program.

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

  fresh(prefix: string): string {
    return `${prefix}${this.counter++}`;
  }
  of(kind: Kind): string[] {
    return this.vars.filter((v) => v.kind === kind).map((v) => v.name);
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

class Generator {
  readonly scope = new Scope();

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
        [3, () => (vars.length > 0 ? this.pick(vars) : "x")],
        [2, () => `${this.pick(this.scope.of("vector"))}[${this.index()}]`],
        [1, () => this.pick(LITERALS)],
        [1, () => `${this.pick(this.scope.of("matrix"))}[${this.index()}][${this.index()}]`],
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
    ])();
  }

  matrix(d: number): string {
    const leaf = () => this.pick(this.scope.of("matrix"));
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

export function generateDoubleProgram(rng: Rng, maxDepth = 4): DoubleProgram {
  const n = rng.int(2, 4);
  const g = new Generator(rng, n);
  const body = g.scope.with(
    [
      ["v", "vector"],
      ["x", "double"],
      ["m", "matrix"],
    ],
    () => g.double(rng.int(1, maxDepth)),
  );
  const value = () => Math.round((rng.int(0, 4000) / 1000 - 2) * 1000) / 1000 + 0.0005;
  const vec = () => Array.from({ length: n }, value);
  const args = [vec(), value(), Array.from({ length: n }, vec)];
  return { source: `let f = fun (v: Vector) (x: Double) (m: Matrix) ->\n  ${body}\n`, args };
}

export function arbDoubleProgram(maxDepth = 4): fc.Arbitrary<DoubleProgram> {
  return fc.array(fc.nat({ max: 65535 }), { maxLength: 400, size: "max" }).map((choices) => {
    const p = generateDoubleProgram(new ChoiceRng(choices), maxDepth);
    return Object.assign(p, { [fc.toStringMethod]: () => `\n// args: ${JSON.stringify(p.args)}\n${p.source}` });
  });
}
