// Random programs over a vector with index structure, for the sparsity analysis (test/sparse/generated.test.ts): each
// output element (or each term of a sum) reads the vector at its own index shifted and clamped, through an Index
// array, inside short inner loops, under branches on Doubles, through products and non-linear functions. The
// generator of test/gen/program.ts rarely gives a function whose Jacobian has much structure; these always do.

import fc from "fast-check";
import { ChoiceRng, type Rng } from "./rng.js";

export interface IndexedProgram {
  readonly source: string;
  /** x (a Vector) and idx (an Array<Index> of positions of x). */
  readonly args: readonly unknown[];
  /** "vector": main returns a build over x's positions (a Jacobian); "sum": a Double (a Hessian). */
  readonly result: "vector" | "sum";
}

/** Clamped into x's positions (n is x's length). */
const clamp = (e: string) => `(min (max (${e}) 0) (n - 1))`;

class IndexedGen {
  constructor(private readonly rng: Rng) {}

  /** An Index position of x, from the indexes in scope. */
  position(indexes: readonly string[]): string {
    const i = this.rng.pick(indexes);
    const c = this.rng.int(-2, 2);
    return this.rng.weighted([
      [3, clamp(`${i} + ${c}`)],
      [1, `idx[min (max (${i} + ${c}) 0) (length idx - 1)]`],
      [1, indexes.length > 1 ? clamp(`${indexes[0]} + ${indexes[1]} - 1`) : clamp(i)],
    ]);
  }

  double(depth: number, indexes: readonly string[]): string {
    const leaf = (): string =>
      this.rng.weighted([
        [4, `x[${this.position(indexes)}]`],
        [1, `${this.rng.int(1, 9) / 4}`],
      ]);
    if (depth <= 0) return leaf();
    const d = () => this.double(depth - 1, indexes);
    return this.rng.weighted<() => string>([
      [3, leaf],
      [2, () => `(${d()} + ${d()})`],
      [1, () => `(${d()} - ${d()})`],
      [3, () => `(${d()} * ${d()})`],
      [1, () => `(${d()} / (2. + ${d()} * ${d()}))`],
      [1, () => `(sin ${d()})`],
      [1, () => `(exp (0.1 * ${d()}))`],
      [1, () => `(abs ${d()})`],
      [1, () => `(max ${d()} ${d()})`],
      [2, () => `(if ${d()} > 0. then ${d()} else ${d()})`],
      [
        1,
        () => {
          const k = `k${depth}`;
          const body = this.double(depth - 1, [...indexes, k]);
          return `(ifold (fun (s: Double) (${k}: Index) -> s + ${body}) 0. ${this.rng.int(1, 3)})`;
        },
      ],
    ])();
  }

  program(): IndexedProgram {
    const n = this.rng.int(1, 7);
    const x = Array.from({ length: n }, () => (this.rng.int(-8, 8) || 3) / 4);
    const idx = Array.from({ length: this.rng.int(1, 4) }, () => this.rng.int(0, n - 1));
    const result = this.rng.chance(0.5) ? "sum" : "vector";
    const element = this.double(this.rng.int(1, 4), ["i"]);
    const body = result === "vector" ? `build n (fun i -> ${element})` : `ifold (fun s i -> s + ${element}) 0. n`;
    const source = `let main = fun (x: Vector) (idx: Array<Index>) ->\n  let n = length x\n  ${body}\n`;
    return { source, args: [x, idx], result };
  }
}

export function generateIndexedProgram(rng: Rng): IndexedProgram {
  return new IndexedGen(rng).program();
}

export function arbIndexedProgram(): fc.Arbitrary<IndexedProgram> {
  return fc.array(fc.nat({ max: 65535 }), { maxLength: 400, size: "max" }).map((choices) => {
    const p = generateIndexedProgram(new ChoiceRng(choices));
    return Object.assign(p, { [fc.toStringMethod]: () => `\n// args: ${JSON.stringify(p.args)}\n${p.source}` });
  });
}
