// Random programs, differentiated both ways:
//  - Double-valued programs over a Vector, a Double and a Matrix (./double-programs.ts: build, ifold with Double, pair
//    and Vector states, reads, rows, if, lets, tuples, setAt/addAt, smooth scalar functions): the reverse-mode
//    gradient equals the forward-mode one (1e-9 relative);
//  - the well-typed programs of the agreement tests (test/gen, any parameter and result types: tuples, arrays of
//    pairs, Index and Bool parts): the vjp program against the forward Jacobian (Jᵀ c and the dot-product test), and
//    the reverse Jacobian when the result is a Double or an array of Doubles.
// Each derivative program gives the same result in the interpreter and compiled (1e-12), its IR verified after every
// pass. fast-check shrinks a failure to a smaller program and prints it with its arguments.
//
// SMOOTH_REVERSE_RUNS sets the number of programs of each kind (default 150); SMOOTH_RANDOM_SEED replays a seed.

import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { hasTangent } from "../../src/ad/dual-types.js";
import { doubleRank } from "../../src/ad/seed.js";
import { SmoothError } from "../../src/syntax/diagnostics.js";
import { arbProgram, type GeneratedProgram } from "../gen/program.js";
import { ChoiceRng, seededChoices } from "../gen/rng.js";
import { arbDoubleProgram, generateDoubleProgram, type DoubleProgram } from "./double-programs.js";
import { doubleLeaves, expectClose, load, MODE_TOL, Point, seededRandom, type Matrix } from "./harness.js";

const RUNS = Number(process.env.SMOOTH_REVERSE_RUNS ?? 150);
const SEED = process.env.SMOOTH_RANDOM_SEED === undefined ? undefined : Number(process.env.SMOOTH_RANDOM_SEED);
const options = { numRuns: RUNS, ...(SEED === undefined ? {} : { seed: SEED }) };

function reverseEqualsForward(prog: DoubleProgram): void {
  const at = new Point(load(prog.source), "f", prog.args);
  expect(at.resultType.k).toBe("double");
  expectClose(at.reverseJacobian(), at.forwardJacobian(), MODE_TOL, "the gradient in reverse mode vs forward mode");
}

/**
 * Operations and arguments whose derivatives can be infinite or undefined (divisions, powers, log, sqrt, tan, exp,
 * the generator's huge literals): there the derivative pipeline's assumption that values are finite (paper 000 §4.1)
 * lets the two engines differ legitimately, so such programs are not compared.
 */
const UNBOUNDED = /\/|\*\*|\blog\b|\bsqrt\b|\btan\b|\bexp\b|1e6|2147483647|65536|46341|1000003/;

/** The forward Jacobian of a generated program's main, or undefined when there is nothing (finite) to compare. */
function comparable(prog: GeneratedProgram): { at: Point; forward: Matrix } | undefined {
  const body = prog.source.split("\n").slice(1).join("\n"); // without the `// args:` line
  if (/NaN|Infinity/.test(JSON.stringify(prog.args)) || UNBOUNDED.test(body)) return undefined;
  const finite = (xs: readonly number[]) => xs.every((x) => Number.isFinite(x) && Math.abs(x) < 1e6);
  try {
    const at = new Point(load(prog.source), "main", prog.args);
    if (at.wrt.length === 0 || !hasTangent(at.resultType) || !finite(doubleLeaves(at.primal(), at.resultType)))
      return undefined;
    const forward = at.forwardJacobian();
    return finite(forward.flat()) ? { at, forward } : undefined;
  } catch (e) {
    if (e instanceof SmoothError) return undefined; // the program itself fails (an index error, ...)
    throw e;
  }
}

describe("random Double-valued programs", () => {
  test(`reverse gradient = forward gradient, interpreter = compiled (${RUNS} programs)`, () => {
    fc.assert(fc.property(arbDoubleProgram(5), reverseEqualsForward), options);
  });

  test("are varied: the generator reaches every construct", () => {
    const text = Array.from(
      { length: 150 },
      (_, s) => generateDoubleProgram(new ChoiceRng(seededChoices(s))).source,
    ).join("\n");
    const constructs = [
      "build",
      "ifold",
      "(fun (w",
      "Double * Double",
      "if ",
      "let (",
      "setAt",
      "addAt",
      "vectorMap",
      "vectorSum",
      "vectorDot",
      "][",
      "m[",
      "v[",
      "double ",
      "max",
      "min",
      "abs",
      "exp",
      "log",
      "sqrt",
      " / ",
      " ** ",
      "tanh",
    ];
    expect(constructs.filter((c) => !text.includes(c))).toEqual([]);
  });
});

describe("random programs of any type (test/gen)", () => {
  test(`vjp = forward Jacobian transposed, dot-product test, reverse Jacobian (${RUNS} programs)`, () => {
    let compared = 0;
    fc.assert(
      fc.property(arbProgram({ maxDepth: 5 }), (prog) => {
        const found = comparable(prog);
        if (found === undefined) return;
        compared++;
        const { at, forward } = found;
        at.dotProductTest(seededRandom(compared), forward, 1);
        if (doubleRank(at.resultType) !== undefined)
          expectClose(at.reverseJacobian(), forward, MODE_TOL, "reverse Jacobian vs forward");
      }),
      options,
    );
    // About half the programs have something to differentiate; the test must not become vacuous.
    expect(compared).toBeGreaterThanOrEqual(RUNS / 4);
  });
});
