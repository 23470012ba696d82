// Random well-typed programs: a `main` of one to three annotated parameters, a body of a random type, and JSON
// arguments of the right shapes. `arbProgram()` is the fast-check arbitrary (shrinking gives smaller programs);
// `generateProgram` builds one from any Rng (for seeded use outside fast-check).

import fc from "fast-check";
import { ExprGen } from "./expr.js";
import { ChoiceRng, type Rng } from "./rng.js";
import { Scope, type Binding } from "./scope.js";
import { annotation, lengthsIn, randomJson, randomType, type GenType } from "./types.js";

export interface GeneratedProgram {
  /** The program text, with a first-line `// args:` comment like the corpus files. */
  readonly source: string;
  /** Arguments of `main`, as JSON. */
  readonly args: readonly unknown[];
  readonly paramTypes: readonly GenType[];
  readonly resultType: GenType;
}

export interface GenerateOptions {
  /** Upper bound of the expression depth (default 5). */
  readonly maxDepth?: number;
  /** Upper bound of the number of parameters (default 3). */
  readonly maxParams?: number;
}

export function generateProgram(rng: Rng, opts: GenerateOptions = {}): GeneratedProgram {
  const scope = new Scope();
  const count = rng.int(1, opts.maxParams ?? 3);
  const lengths: number[] = [];
  const params: (Binding & { kind: "value" })[] = [];
  const paramTypes: GenType[] = [];
  for (let i = 0; i < count; i++) {
    const t = randomType(rng, 2, lengths);
    lengths.push(...lengthsIn(t));
    paramTypes.push(t);
    params.push({ kind: "value", name: scope.fresh("p"), type: t });
  }
  const args = paramTypes.map((t) => randomJson(rng, t));
  const resultType = randomType(rng, 2, lengths);
  const depth = rng.int(1, opts.maxDepth ?? 5);
  const gen = new ExprGen(rng, scope);
  const body = scope.withAll(params, () => gen.expr(resultType, depth));
  const header = params.map((p) => `(${p.name}: ${annotation(p.type)})`).join(" ");
  const source = `// args: ${JSON.stringify(args)}\nlet main = fun ${header} ->\n  ${body}\n`;
  return { source, args, paramTypes, resultType };
}

/** Random programs with their arguments; a failing one prints as its source text. */
export function arbProgram(opts: GenerateOptions = {}): fc.Arbitrary<GeneratedProgram> {
  return fc.array(fc.nat({ max: 65535 }), { maxLength: 1500, size: "max" }).map((choices) => {
    const p = generateProgram(new ChoiceRng(choices), opts);
    return Object.assign(p, { [fc.toStringMethod]: () => `\n${p.source}` });
  });
}
