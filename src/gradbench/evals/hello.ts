// The hello eval: `square` (x²) and `double`, its derivative (2x) by Smooth's reverse mode. The input is a bare
// number, with no min_runs / min_seconds (one run).

import { DOUBLE } from "../../types/types.js";
import type { EvalModule } from "../eval-module.js";
import { compileDerivative, compilePrimal, smoothEval, toValue } from "../smooth-eval.js";

export const helloEval = (): EvalModule =>
  smoothEval({
    name: "hello",
    main: "gradbench/hello.smooth",
    compile: {
      square: (prog) => compilePrimal(prog, "square", [DOUBLE]),
      double: (prog) => compileDerivative(prog, "square", [DOUBLE], [0], "gradient"),
    },
    args: (_fn, input) => [toValue(input, DOUBLE, "the input")],
  });
