// The hand-written corpus (test/programs/corpus): every program runs in the reference interpreter and as compiled
// JavaScript with equal results; its optimised IR verifies, prints as Smooth that parses, checks and runs to the same
// result; together the programs use every prelude function and scalar function. Some results are also checked
// against values computed here, in plain JavaScript.

import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { preludeFile } from "../../src/api/program.js";
import { verify } from "../../src/ir/verify.js";
import { valueToJson } from "../../src/runtime/json.js";
import { parseProgram } from "../../src/syntax/parser.js";
import { CORPUS_DIR, readPrograms, withoutComments } from "../gen/corpus.js";
import { engineDisagreement, printedIrProblem, runBothEngines } from "../gen/differential.js";
import { EXPECTED, jsonClose } from "./expected.js";

const corpus = readPrograms(CORPUS_DIR);

/** The prelude functions the brief names; all must exist in the prelude and be used by the corpus. */
const PRELUDE_FUNCTIONS = [
  "vectorRange",
  "vectorFill",
  "vectorHot",
  "vectorMap",
  "vectorMap2",
  "vectorZip",
  "vectorAdd",
  "vectorEMul",
  "vectorSMul",
  "vectorSum",
  "vectorDot",
  "vectorNorm",
  "vectorSlice",
  "vectorToMatrix",
  "vectorOutProd",
  "matrixRows",
  "matrixCols",
  "matrixZeros",
  "matrixOnes",
  "matrixEye",
  "matrixHot",
  "matrixMap",
  "matrixMap2",
  "matrixAdd",
  "matrixTranspose",
  "matrixMul",
  "matrixMult",
  "matrixTrace",
  "vectorZeros",
  "vectorMax",
  "matrixZip",
  "logsumexp",
];
const SCALAR_FUNCTIONS = [
  "sin",
  "cos",
  "tan",
  "log",
  "exp",
  "sqrt",
  "tanh",
  "abs",
  "floor",
  "max",
  "min",
  "double",
  "not",
];
const OPERATORS = ["**", "&&", "||", "<>", "<=", ">=", "/"];

const uses = (name: string) => corpus.filter((p) => new RegExp(`\\b${name}\\b`).test(withoutComments(p.text)));

describe("the corpus", () => {
  it("has at least 45 programs, each with a main", () => {
    expect(corpus.length).toBeGreaterThanOrEqual(45);
    for (const p of corpus) expect(withoutComments(p.text), p.file).toMatch(/^let main\b/m);
  });

  it("uses every prelude function", () => {
    const defined = parseProgram(preludeFile()).defs.map((d) => d.name);
    expect(defined).toEqual(expect.arrayContaining(PRELUDE_FUNCTIONS));
    const unused = defined.filter((name) => uses(name).length === 0);
    expect(unused).toEqual([]);
  });

  it("uses every scalar function and operator", () => {
    expect(SCALAR_FUNCTIONS.filter((name) => uses(name).length === 0)).toEqual([]);
    const unusedOps = OPERATORS.filter((op) => !corpus.some((p) => withoutComments(p.text).includes(` ${op} `)));
    expect(unusedOps).toEqual([]);
  });

  it("gives Example 1 the arguments of examples/umv.args.json", () => {
    const file = new URL("../../examples/umv.args.json", import.meta.url);
    const args: unknown = JSON.parse(readFileSync(file, "utf8"));
    expect(corpus.find((p) => p.file === "example1_umv.smooth")?.args).toEqual(args);
  });
});

describe.each(corpus)("$file", (p) => {
  let cached: ReturnType<typeof runBothEngines> | undefined;
  const runs = () => (cached ??= runBothEngines(p.file, p.text, p.args));

  it("runs to the same value in the interpreter, as compiled JavaScript and as WebAssembly", () => {
    const r = runs();
    if (!r.interpOutcome.ok) throw new Error(`the interpreter fails:\n${r.interpOutcome.error.message}`);
    const problem = engineDisagreement(r);
    if (problem) throw new Error(`${problem}\n--- generated JavaScript ---\n${r.js.jsSource ?? ""}`);
  });

  it("has IR that verifies before and after optimisation", () => {
    const r = runs();
    verify(r.interp.lowered);
    verify(r.js.optimised);
  });

  it("prints its optimised IR as Smooth that checks and runs to the same value", () => {
    const problem = printedIrProblem(runs(), p.args);
    if (problem) throw new Error(problem);
  });

  const expected = EXPECTED[p.file];
  if (expected) {
    it("computes the result expected by an independent JavaScript computation", () => {
      const r = runs();
      const want = expected(p.args);
      for (const o of [r.interpOutcome, r.jsOutcome, r.wasmOutcome]) {
        if (!o.ok) throw new Error(o.error.message);
        const got = valueToJson(o.value, r.interp.resultType);
        if (!jsonClose(got, want)) expect(got).toEqual(want);
      }
    });
  }
});
