// The particle eval (examples/gradbench/particle.smooth): from the input's starting control {w}, gradient descent on
// the squared miss distance of a charged particle simulated by Euler steps, with nested derivatives in the four
// combinations of modes (rr, ff, fr, rf: outer, then inner). The output is the final w.

import type { Value } from "../../runtime/value.js";
import { DOUBLE } from "../../types/types.js";
import { GradbenchError, type EvalModule } from "../eval-module.js";
import { compilePrimal, inputObject, smoothEval, toValue } from "../smooth-eval.js";

const MODES = ["rr", "ff", "fr", "rf"] as const;

/** The final w; the program gives NaN when a loop did not finish within its bound. */
function finalW(result: Value): number {
  if (typeof result !== "number" || !Number.isFinite(result))
    throw new GradbenchError("the descent did not converge (a loop reached its bound of 340 * 300 steps)");
  return result;
}

export const particleEval = (): EvalModule =>
  smoothEval({
    name: "particle",
    main: "gradbench/particle.smooth",
    compile: Object.fromEntries(MODES.map((mode) => [mode, (prog) => compilePrimal(prog, mode, [DOUBLE])])),
    args: (_fn, input) => [toValue(inputObject(input, ["w"]).w, DOUBLE, "the input's `w`")],
    encode: Object.fromEntries(MODES.map((mode) => [mode, finalW])),
  });
