// The det eval: the determinant of an ell-by-ell matrix A given flat in row-major order, by expansion by minors
// (`primal`), and its gradient with respect to A, row-major (`gradient`, reverse mode). Input {A, ell}.

import { INT, VECTOR } from "../../types/types.js";
import { GradbenchError, type EvalModule } from "../eval-module.js";
import { compileDerivative, compilePrimal, inputObject, integerIn, smoothEval, toValue } from "../smooth-eval.js";

const ARG_TYPES = [VECTOR, INT];

/**
 * The program keeps a table over the 2^ell column sets (examples/gradbench/det.smooth); beyond this size the table
 * no longer fits comfortably in memory (and expansion by minors, ell! products, would not finish anyway).
 */
export const DET_MAX_ELL = 16;

export const detEval = (): EvalModule =>
  smoothEval({
    name: "det",
    main: "gradbench/det.smooth",
    compile: {
      primal: (prog) => compilePrimal(prog, "det", ARG_TYPES),
      gradient: (prog) => compileDerivative(prog, "det", ARG_TYPES, [0], "gradient"),
    },
    args(_fn, input) {
      const { A, ell } = inputObject(input, ["A", "ell"]);
      const size = integerIn(ell, "the input's `ell`", 1, DET_MAX_ELL);
      if (!Array.isArray(A) || A.length !== size * size)
        throw new GradbenchError(
          `the input's \`A\` must hold ell * ell = ${size * size} numbers, got ${Array.isArray(A) ? A.length : typeof A}`,
        );
      return [toValue(A, VECTOR, "the input's `A`"), size];
    },
  });
