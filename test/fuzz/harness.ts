// The fuzzing harness (issue 15 item 6): fast-check arbitraries for what a hostile or unlucky user gives Smooth, and
// the property each must satisfy — every input is an answer or one SmoothError (never another exception), and where
// both engines (and both modes) answer, they agree.
//  - malformed sources: corpus programs with characters deleted, inserted, duplicated or swapped, and token soup;
//  - hostile arguments: JSON of wrong shapes and types, huge and negative numbers, NaN-ish strings, deep nesting,
//    given to the corpus programs in both engines;
//  - oversized requests: sizes near and past the limits (builds, Index literals);
//  - random well-typed programs (test/gen) in both engines, and Double-valued ones in both derivative modes.
// `npm run fuzz` runs many of each with a fresh seed (printed; SMOOTH_RANDOM_SEED replays it); test/fuzz/fuzz.test.ts
// runs a fixed-seed slice in CI.

import fc from "fast-check";
import { loadProgram, type SmoothProgram } from "../../src/api/program.js";
import { describeParam } from "../../src/api/entry-types.js";
import { valueFromJson } from "../../src/runtime/json.js";
import type { TupleValue, Value } from "../../src/runtime/value.js";
import { SmoothError } from "../../src/syntax/diagnostics.js";
import type { Type } from "../../src/types/types.js";
import { CORPUS_DIR, readPrograms } from "../gen/corpus.js";
import {
  compiledDisagreement,
  disagreement,
  engineDisagreement,
  outcome,
  runBothEngines,
} from "../gen/differential.js";
import { arbProgram } from "../gen/program.js";
import { arbDoubleProgram } from "../reverse/double-programs.js";
import { expectClose, load, MODE_TOL, Point } from "../reverse/harness.js";

export const CORPUS = readPrograms(CORPUS_DIR);

/** Runs `f`; a SmoothError is an answer, anything else thrown is a bug (rethrown with the input). */
export function answerOrSmoothError<T>(input: string, f: () => T): T | SmoothError {
  try {
    return f();
  } catch (e) {
    if (e instanceof SmoothError) return e;
    const message = e instanceof Error ? `${e.name}: ${e.message}` : String(e);
    throw new Error(`internal error on input:\n${input}\n${message}`, { cause: e });
  }
}

// ---- malformed sources ----

const TOKENS = [
  "let",
  "fun",
  "in",
  "if",
  "then",
  "else",
  "build",
  "ifold",
  "length",
  "->",
  "(",
  ")",
  "[",
  "]",
  "=",
  "+",
  "-",
  "*",
  "/",
  "**",
  ",",
  ":",
  "x",
  "v",
  "i",
  "0",
  "1.",
  "2147483648",
  "1e400",
  "Vector",
  "Double",
  "Index",
  "\n",
  " ",
  "//",
  "(*",
  "*)",
  "fst",
  "snd",
  "<",
  "&&",
  "not",
  "vectorSum",
  "main",
  "diff",
  "grad",
  "vjp",
];

type Edit = { readonly at: number; readonly kind: "delete" | "insert" | "duplicate" | "swap"; readonly token: string };

const arbEdit: fc.Arbitrary<Edit> = fc.record({
  at: fc.nat(),
  kind: fc.constantFrom("delete", "insert", "duplicate", "swap"),
  token: fc.constantFrom(...TOKENS),
});

function applyEdit(text: string, e: Edit): string {
  if (text.length === 0) return e.token;
  const at = e.at % text.length;
  const len = 1 + (e.at % 7);
  switch (e.kind) {
    case "delete":
      return text.slice(0, at) + text.slice(at + len);
    case "insert":
      return text.slice(0, at) + e.token + text.slice(at);
    case "duplicate":
      return text.slice(0, at + len) + text.slice(at, at + len) + text.slice(at + len);
    case "swap":
      return (
        text.slice(0, at) + text.slice(at + len, at + 2 * len) + text.slice(at, at + len) + text.slice(at + 2 * len)
      );
  }
}

/** A corpus program with a few edits, or a soup of tokens; with the corpus program's arguments. */
export const arbMalformedSource: fc.Arbitrary<{ text: string; args: readonly unknown[] }> = fc.oneof(
  fc
    .record({ k: fc.nat({ max: CORPUS.length - 1 }), edits: fc.array(arbEdit, { minLength: 1, maxLength: 4 }) })
    .map(({ k, edits }) => ({ text: edits.reduce(applyEdit, CORPUS[k]!.text), args: CORPUS[k]!.args })),
  fc.array(fc.constantFrom(...TOKENS), { maxLength: 40 }).map((ts) => ({ text: ts.join(" "), args: [] })),
);

/** A source is an answer or a SmoothError; a program that loads runs `main` in both engines, which agree. */
export function checkSource({ text, args }: { text: string; args: readonly unknown[] }): void {
  const program = answerOrSmoothError(text, () => loadProgram({ name: "fuzz.smooth", text }));
  if (program instanceof SmoothError || program.checked.lookup("main") === undefined) return;
  compareEngines(program, "main", args, text);
}

// ---- hostile arguments ----

const hostileNumber = fc.oneof(
  fc.constantFrom(0, -0, 1, -1, 0.5, 2 ** 31 - 1, 2 ** 31, -(2 ** 31), 2 ** 53, 1e308, -1e308, 3e9, 1e-320),
  fc.integer({ min: -5, max: 5 }),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
);
const hostileLeaf = fc.oneof(
  { weight: 6, arbitrary: hostileNumber },
  { weight: 1, arbitrary: fc.constantFrom("NaN", "Infinity", "-Infinity", "1e999", "", "0x10", "1", null, true) },
);
const { json: arbHostileJson } = fc.letrec<{ json: unknown }>((tie) => ({
  json: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    hostileLeaf,
    fc.array(tie("json"), { maxLength: 4 }),
    fc.dictionary(fc.constantFrom("a", "b", "w"), tie("json"), { maxKeys: 2 }),
  ),
}));

/** A corpus program and arguments for its `main`: its own, mutated at one leaf, or arbitrary JSON. */
export const arbHostileCall: fc.Arbitrary<{ k: number; args: readonly unknown[] }> = fc
  .record({
    k: fc.nat({ max: CORPUS.length - 1 }),
    args: fc.oneof(fc.array(arbHostileJson, { maxLength: 4 }), fc.constant(undefined)),
    leaf: hostileLeaf,
    at: fc.nat(),
  })
  .map(({ k, args, leaf, at }) => ({ k, args: args ?? replaceLeaf(CORPUS[k]!.args, at, leaf) }));

/** `args` with its (at mod count)-th number replaced by `leaf`. */
function replaceLeaf(args: readonly unknown[], at: number, leaf: unknown): unknown[] {
  let count = 0;
  const countLeaves = (x: unknown): void => (Array.isArray(x) ? x.forEach(countLeaves) : void count++);
  countLeaves(args);
  let k = 0;
  const target = count === 0 ? -1 : at % count;
  const go = (x: unknown): unknown => (Array.isArray(x) ? x.map(go) : k++ === target ? leaf : x);
  return args.map(go);
}

const loaded = new Map<number, SmoothProgram>();

export function checkHostileCall({ k, args }: { k: number; args: readonly unknown[] }): void {
  let program = loaded.get(k);
  if (program === undefined) loaded.set(k, (program = loadProgram({ name: CORPUS[k]!.file, text: CORPUS[k]!.text })));
  compareEngines(program, "main", args, `${CORPUS[k]!.file} with ${JSON.stringify(args)}`, RUNNABLE_INDEX);
}

/**
 * The largest Index argument a hostile call is run with. A larger valid one (2^31 - 1 is one of the hostile numbers)
 * is decoded and the program compiled, but not run: as a loop count it asks for billions of iterations, which is
 * what the program says (the matrix power of the corpus, raised to 2^31 - 1, runs for hours in the interpreter).
 */
const RUNNABLE_INDEX = 100_000;

/** Whether a decoded argument of type `t` holds an Index larger than `limit` in size. */
function holdsLargeIndex(v: Value, t: Type, limit: number): boolean {
  if (t.k === "int") return Math.abs(v as number) > limit;
  if (t.k === "tuple") return t.elems.some((e, i) => holdsLargeIndex((v as TupleValue).elems[i]!, e, limit));
  return false;
}

/**
 * Every engine on `fn` at `args`: each an answer or a SmoothError, agreeing (or the optimiser elided an error). With
 * `runnableIndex`, a call with a larger Index argument is only decoded and compiled.
 */
function compareEngines(
  program: SmoothProgram,
  fn: string,
  args: readonly unknown[],
  input: string,
  runnableIndex = Infinity,
): void {
  const prepared = answerOrSmoothError(input, () => {
    const argTypes = program.argTypesFromJson(fn, args);
    const def = program.definition(fn);
    const values = args.map((a, i) => valueFromJson(a, argTypes[i]!, describeParam(def, i)));
    const [interp, js, wasm] = (["interp", "js", "wasm"] as const).map((e) => program.specialise(fn, argTypes, e));
    return { values, argTypes, interp: interp!, js: js!, wasm: wasm! };
  });
  if (prepared instanceof SmoothError) return;
  if (prepared.values.some((v, i) => holdsLargeIndex(v, prepared.argTypes[i]!, runnableIndex))) return;
  const [interp, js, wasm] = [prepared.interp, prepared.js, prepared.wasm].map((spec) =>
    answerOrSmoothError(input, () => outcome(spec, prepared.values)),
  );
  if (interp instanceof SmoothError || js instanceof SmoothError || wasm instanceof SmoothError) return;
  const type = prepared.interp.resultType;
  const problem =
    disagreement(interp!, js!, type) ??
    disagreement(interp!, wasm!, type, undefined, "wasm") ??
    compiledDisagreement(js!, wasm!, type);
  if (problem !== undefined) throw new Error(`engines disagree on:\n${input}\n${problem}`);
}

// ---- oversized requests ----

/** A size near or past a limit, in a build, a literal or a loop count. */
export const arbOversized: fc.Arbitrary<{ text: string; args: readonly unknown[] }> = fc
  .record({
    // Past the array limit (2^26) or negative: each is refused before any work (a size within it would run).
    n: fc.constantFrom(2 ** 26 + 1, 2 ** 27, 2 ** 31 - 1, 2 ** 30, 3e9, -1, -(2 ** 31)),
    form: fc.constantFrom(
      "let main = fun (n: Index) -> build n (fun i -> double i)",
      "let main = fun (n: Index) -> matrixZeros n n",
      "let main = fun (n: Index) -> length (vectorRange (n + n))",
      "let main = fun (x: Double) -> x + LIT",
      "let main = fun (i: Index) -> i * LIT",
    ),
  })
  .map(({ n, form }) => ({ text: form.replace("LIT", String(n)), args: [form.includes("Double") ? 1.5 : n] }));

// ---- random well-typed programs ----

/** A random program (test/gen) with its arguments, in both engines. */
export const arbRandomProgram = arbProgram({ maxDepth: 4 });

export function checkRandomProgram(p: { source: string; args: readonly unknown[] }): void {
  const runs = answerOrSmoothError(p.source, () => runBothEngines("random.smooth", p.source, p.args));
  if (runs instanceof SmoothError) throw new Error(`a generated program does not load:\n${p.source}\n${runs.message}`);
  const problem = engineDisagreement(runs);
  if (problem !== undefined) throw new Error(`engines disagree on:\n${p.source}\n${problem}`);
}

/** Random Double-valued programs: the gradient in forward and reverse mode, each in both engines (Point checks). */
export const arbGradientProgram = arbDoubleProgram(4);

export function checkModes(p: { source: string; args: readonly unknown[] }): void {
  const at = new Point(load(p.source), "f", p.args);
  expectClose(at.reverseJacobian(), at.forwardJacobian(), MODE_TOL, "reverse vs forward gradient");
}
