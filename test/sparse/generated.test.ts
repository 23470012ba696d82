// Sparse derivatives of random well-typed programs (test/gen): the pattern the analysis finds contains every entry of
// the dense Jacobian (forward mode, the existing path) that is not zero, and the sparse values equal the dense ones;
// the same for Hessians of programs with a Double result. Programs whose primal fails, or with no argument that is a
// Double or an array of Doubles, are skipped (and counted, so that the property is not vacuous).
//
// SMOOTH_RANDOM_RUNS scales the number of programs (default 500 → 80 Jacobians, 40 Hessians).

import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { loadProgram } from "../../src/api/program.js";
import { describeParam } from "../../src/api/entry-types.js";
import { doubleRank } from "../../src/ad/seed.js";
import { hessianJson, jacobianJson } from "../../src/cli/derivative-commands.js";
import { valueFromJson } from "../../src/runtime/json.js";
import { programSparse } from "../../src/sparse/program-sparse.js";
import type { SparseMatrix } from "../../src/sparse/sparse-derivative.js";
import { SmoothError } from "../../src/syntax/diagnostics.js";
import { arbIndexedProgram, type IndexedProgram } from "../gen/indexed.js";
import { arbProgram, type GeneratedProgram } from "../gen/program.js";

const RUNS = Number(process.env.SMOOTH_RANDOM_RUNS ?? 500);
const DEPTH = Number(process.env.SMOOTH_RANDOM_DEPTH ?? 6);

/** A JSON number of the CLI (non-finite ones are strings). */
const num = (x: unknown): number => (typeof x === "number" ? x : Number(x));

/** Whether two derivative entries agree: both NaN, or equal to a relative 1e-12. */
const close = (a: number, b: number) =>
  (Number.isNaN(a) && Number.isNaN(b)) || a === b || Math.abs(a - b) <= 1e-12 * Math.max(1, Math.abs(a), Math.abs(b));

interface Checked {
  readonly dense: number[][];
  readonly sparse: SparseMatrix;
}

/** The dense and the sparse derivative of `main` with respect to its first seedable argument, or why it is skipped. */
function derivatives(p: { source: string; args: readonly unknown[] }, kind: "jacobian" | "hessian"): Checked | string {
  const prog = loadProgram({ name: "random.smooth", text: p.source });
  const argTypes = prog.argTypesFromJson("main", p.args);
  const k = argTypes.findIndex((t) => doubleRank(t) !== undefined);
  if (k < 0) return "no argument is a Double or an array of Doubles";
  const primal = prog.specialise("main", argTypes, "js");
  const def = prog.definition("main");
  const values = p.args.map((a, i) => valueFromJson(a, argTypes[i]!, describeParam(def, i)));
  const out = primal.resultType;
  if (kind === "jacobian" ? doubleRank(out) === undefined : out.k !== "double") return "the result does not fit";
  let dense: number[][];
  try {
    primal.run(values);
    const o = { fn: "main", engine: "js", prelude: true, wrt: String(k), mode: "forward" };
    const json = (kind === "jacobian" ? jacobianJson : hessianJson)(prog, o, [...p.args], "js") as Record<
      string,
      unknown
    >;
    dense = (json[kind] as unknown[][]).map((row) => row.map(num));
  } catch (e) {
    if (e instanceof SmoothError) return `it fails: ${e.summary}`;
    throw e;
  }
  const subject = { label: "`main`", argument: (j: number) => `argument ${j}` };
  const { matrix } = programSparse({
    prog,
    name: "main",
    argTypes,
    values,
    wrt: [k],
    kind,
    engine: "js",
    subject,
    context: "test",
  });
  return { dense, sparse: matrix };
}

/** Every non-zero of `dense` is an entry of the sparse matrix, with the same value; the other entries are zero. */
function checkContains({ dense, sparse }: Checked): void {
  const rows = dense.length;
  // With no columns the CLI's dense Jacobian (columns transposed) has no rows either.
  if (sparse.shape[1] === 0) return expect(sparse.values.length).toBe(0);
  expect(sparse.shape[0]).toBe(rows);
  const inPattern = new Map<number, number>();
  for (let r = 0; r < rows; r++)
    for (let q = sparse.rowPointers[r]!; q < sparse.rowPointers[r + 1]!; q++)
      inPattern.set(r * sparse.shape[1] + sparse.columnIndexes[q]!, sparse.values[q]!);
  dense.forEach((row, r) =>
    row.forEach((x, c) => {
      const v = inPattern.get(r * sparse.shape[1] + c);
      if (v === undefined && x !== 0) throw new Error(`the pattern misses the entry (${r}, ${c}) = ${x}`);
      if (v !== undefined && !close(v, x)) throw new Error(`entry (${r}, ${c}): sparse ${v}, dense ${x}`);
    }),
  );
}

function property(
  kind: "jacobian" | "hessian",
  programs: fc.Arbitrary<GeneratedProgram | IndexedProgram>,
  runs: number,
  atLeast: number,
) {
  const skipped = new Map<string, number>();
  let checked = 0;
  fc.assert(
    fc.property(programs, (p) => {
      const r = derivatives(p, kind);
      if (typeof r === "string") {
        const why = r.replace(/:.*/, "");
        skipped.set(why, (skipped.get(why) ?? 0) + 1);
        return;
      }
      try {
        checkContains(r);
      } catch (e) {
        const message = `${(e as Error).message}\n--- program ---\n// args: ${JSON.stringify(p.args)}\n${p.source}`;
        throw new Error(message, { cause: e });
      }
      checked++;
    }),
    { numRuns: runs },
  );
  // Not vacuous: most programs are checked.
  expect(checked, JSON.stringify([...skipped])).toBeGreaterThanOrEqual(atLeast);
}

describe("sparse derivatives of random programs", () => {
  const jacobians = Math.max(10, Math.round(RUNS / 6));
  const hessians = Math.max(6, Math.round(RUNS / 12));
  const general = arbProgram({ maxDepth: DEPTH });
  it(`find every non-zero of the dense Jacobian, with its value (${jacobians} programs)`, () => {
    property("jacobian", general, jacobians, Math.round(jacobians / 4));
  });
  it(`find every non-zero of the dense Hessian, with its value (${hessians} programs)`, () => {
    property("hessian", general, hessians, Math.round(hessians / 8));
  });
  // Programs with index structure (test/gen/indexed.ts): stencils, gathers, inner loops, branches on Doubles.
  const indexed = (result: "vector" | "sum") => arbIndexedProgram().filter((p) => p.result === result);
  it(`with index structure: the Jacobian's non-zeros (${jacobians} programs)`, () => {
    property("jacobian", indexed("vector"), jacobians, Math.round(jacobians * 0.9));
  });
  it(`with index structure: the Hessian's non-zeros (${jacobians} programs)`, () => {
    property("hessian", indexed("sum"), jacobians, Math.round(jacobians * 0.9));
  });
});
