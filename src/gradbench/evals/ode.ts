// The ode eval: s Runge-Kutta steps for the ODE of evals/ode with parameters x (`primal`: the solution y(2)) and the
// gradient of its last component with respect to x (`gradient`, reverse mode through the s steps). Input {x, s}.

import { MAX_ARRAY_ELEMENTS } from "../../runtime/limits.js";
import { INT, VECTOR } from "../../types/types.js";
import { GradbenchError, type EvalModule } from "../eval-module.js";
import { compileDerivative, compilePrimal, inputObject, integerIn, smoothEval, toValue } from "../smooth-eval.js";

const ARG_TYPES = [VECTOR, INT];

export const odeEval = (): EvalModule =>
  smoothEval({
    name: "ode",
    main: "gradbench/ode.smooth",
    compile: {
      primal: (prog) => compilePrimal(prog, "odeSolve", ARG_TYPES),
      gradient: (prog) => compileDerivative(prog, "odeLast", ARG_TYPES, [0], "gradient"),
    },
    args(_fn, input) {
      const { x, s } = inputObject(input, ["x", "s"]);
      const xs = toValue(x, VECTOR, "the input's `x`");
      if (!Array.isArray(x) || x.length === 0) throw new GradbenchError("the input's `x` must not be empty");
      return [xs, integerIn(s, "the input's `s`", 1, MAX_ARRAY_ELEMENTS)];
    },
  });
