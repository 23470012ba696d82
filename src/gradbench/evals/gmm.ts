// The gmm eval: the log posterior of a Gaussian mixture with a Wishart prior (`objective`) and its gradient with
// respect to (alpha, mu, q, l) (`jacobian`, reverse mode). The Smooth program is ADBench's objective
// (examples/adbench/gmm.smooth) corrected as GradBench defines it (examples/gradbench/gmm.smooth). It takes each
// component's q and l as one icf row, q then l, as ADBench stores them: the rows are joined here, untimed, and the
// gradient's icf rows split again into q and l.

import { MAX_ARRAY_ELEMENTS } from "../../runtime/limits.js";
import { INT, DOUBLE, MATRIX, VECTOR } from "../../types/types.js";
import { valueToJson } from "../../runtime/json.js";
import type { Value } from "../../runtime/value.js";
import { GradbenchError, type EvalModule } from "../eval-module.js";
import {
  compileDerivative,
  compilePrimal,
  inputObject,
  integerIn,
  smoothEval,
  toValue,
  tupleParts,
} from "../smooth-eval.js";

const ARG_TYPES = [VECTOR, MATRIX, MATRIX, MATRIX, DOUBLE, INT];
/** alpha, mu, icf: the parameters differentiated. */
const WRT = [0, 1, 2];

/** Arguments of gmmLogPosterior: alphas, means, icf, x, gamma, m. */
function gmmArgs(input: unknown): Value[] {
  const fields = inputObject(input, ["d", "k", "n", "alpha", "mu", "q", "l", "x", "gamma", "m"]);
  const d = integerIn(fields.d, "the input's `d`", 1, 2 ** 15);
  const k = integerIn(fields.k, "the input's `k`", 1, MAX_ARRAY_ELEMENTS);
  const n = integerIn(fields.n, "the input's `n`", 1, MAX_ARRAY_ELEMENTS);
  const rows = (key: string, count: number, width: number): unknown[][] => {
    const value = fields[key];
    if (!Array.isArray(value) || value.length !== count || !value.every((r) => Array.isArray(r) && r.length === width))
      throw new GradbenchError(`the input's \`${key}\` must be ${count} rows of ${width} numbers`);
    return value as unknown[][];
  };
  const q = rows("q", k, d);
  const l = rows("l", k, (d * (d - 1)) / 2);
  rows("mu", k, d);
  rows("x", n, d);
  if (!Array.isArray(fields.alpha) || fields.alpha.length !== k)
    throw new GradbenchError(`the input's \`alpha\` must hold k = ${k} numbers`);
  const icf = q.map((qk, i) => [...qk, ...l[i]!]);
  return [
    toValue(fields.alpha, VECTOR, "the input's `alpha`"),
    toValue(fields.mu, MATRIX, "the input's `mu`"),
    toValue(icf, MATRIX, "the input's `q` and `l`"),
    toValue(fields.x, MATRIX, "the input's `x`"),
    toValue(fields.gamma, DOUBLE, "the input's `gamma`"),
    integerIn(fields.m, "the input's `m`", 0, 2 ** 15),
  ];
}

/** {alpha, mu, q, l} from the gradients with respect to (alphas, means, icf). */
function encodeGradient(result: Value): unknown {
  const [dAlpha, dMu, dIcf] = tupleParts(result, 3);
  const icfRows = valueToJson(dIcf!, MATRIX) as number[][];
  const d = (valueToJson(dMu!, MATRIX) as number[][])[0]?.length ?? 0;
  return {
    alpha: valueToJson(dAlpha!, VECTOR),
    mu: valueToJson(dMu!, MATRIX),
    q: icfRows.map((row) => row.slice(0, d)),
    l: icfRows.map((row) => row.slice(d)),
  };
}

export const gmmEval = (): EvalModule =>
  smoothEval({
    name: "gmm",
    main: "gradbench/gmm.smooth",
    include: ["adbench/gmm.smooth"],
    compile: {
      objective: (prog) => compilePrimal(prog, "gmmLogPosterior", ARG_TYPES),
      jacobian: (prog) => compileDerivative(prog, "gmmLogPosterior", ARG_TYPES, WRT, "gradient"),
    },
    args: (_fn, input) => gmmArgs(input),
    encode: { jacobian: encodeGradient },
  });
