// The lse eval: log-sum-exp of x (`primal`) and its gradient (`gradient`, reverse mode). Input {x}.

import { VECTOR } from "../../types/types.js";
import type { EvalModule } from "../eval-module.js";
import { compileDerivative, compilePrimal, inputObject, smoothEval, toValue } from "../smooth-eval.js";

export const lseEval = (): EvalModule =>
  smoothEval({
    name: "lse",
    main: "gradbench/lse.smooth",
    compile: {
      primal: (prog) => compilePrimal(prog, "lse", [VECTOR]),
      gradient: (prog) => compileDerivative(prog, "lse", [VECTOR], [0], "gradient"),
    },
    args(_fn, input) {
      const { x } = inputObject(input, ["x"]);
      return [toValue(x, VECTOR, "the input's `x`")];
    },
  });
