// The llsq eval: the linear least squares objective of x with n sample points (`primal`) and its gradient with
// respect to x (`gradient`, reverse mode). Input {x, n}.

import { MAX_ARRAY_ELEMENTS } from "../../runtime/limits.js";
import { INT, VECTOR } from "../../types/types.js";
import type { EvalModule } from "../eval-module.js";
import { compileDerivative, compilePrimal, inputObject, integerIn, smoothEval, toValue } from "../smooth-eval.js";

const ARG_TYPES = [VECTOR, INT];

export const llsqEval = (): EvalModule =>
  smoothEval({
    name: "llsq",
    main: "gradbench/llsq.smooth",
    compile: {
      primal: (prog) => compilePrimal(prog, "llsq", ARG_TYPES),
      gradient: (prog) => compileDerivative(prog, "llsq", ARG_TYPES, [0], "gradient"),
    },
    args(_fn, input) {
      const { x, n } = inputObject(input, ["x", "n"]);
      const xs = toValue(x, VECTOR, "the input's `x`");
      const m = typeof xs === "object" && xs.tag === "dense" ? xs.shape[0]! : 0;
      // t_i = -1 + 2i/(n-1) needs n >= 2. The compiled gradient keeps each point's inner tape (m + 1 Doubles) until
      // the call ends (ARCHITECTURE.md, reverse-mode memory), so n (m + 1) is bounded up front like one array.
      const maxN = Math.max(2, Math.floor(MAX_ARRAY_ELEMENTS / (m + 1)));
      return [xs, integerIn(n, `the input's \`n\` (with ${m} coefficients in \`x\`)`, 2, maxN)];
    },
  });
