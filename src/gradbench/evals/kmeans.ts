// The kmeans eval: the cost of centroids for points (`cost`) and the Newton direction J H^-1 with the diagonal
// Hessian (`dir`: forward over reverse mode inside the Smooth program). Input {points, centroids}, rows of d.

import { MATRIX } from "../../types/types.js";
import { GradbenchError, type EvalModule } from "../eval-module.js";
import { compilePrimal, inputObject, smoothEval, toValue } from "../smooth-eval.js";

const ARG_TYPES = [MATRIX, MATRIX];

export const kmeansEval = (): EvalModule =>
  smoothEval({
    name: "kmeans",
    main: "gradbench/kmeans.smooth",
    compile: {
      cost: (prog) => compilePrimal(prog, "kmeansCost", ARG_TYPES),
      dir: (prog) => compilePrimal(prog, "kmeansDir", ARG_TYPES),
    },
    args(_fn, input) {
      const { points, centroids } = inputObject(input, ["points", "centroids"]);
      const p = toValue(points, MATRIX, "the input's `points`");
      const c = toValue(centroids, MATRIX, "the input's `centroids`");
      const width = (rows: unknown): number | undefined =>
        Array.isArray(rows) && Array.isArray(rows[0]) ? rows[0].length : undefined;
      if (width(points) === undefined || width(centroids) === undefined)
        throw new GradbenchError("the input's `points` and `centroids` must each hold at least one row");
      if (width(points) !== width(centroids))
        throw new GradbenchError(`points have ${width(points)} coordinates but centroids have ${width(centroids)}`);
      return [p, c];
    },
  });
