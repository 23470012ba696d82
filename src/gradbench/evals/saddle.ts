// The saddle eval (examples/gradbench/saddle.smooth): from the input's {start: [x, y]}, the saddle point of
// |p1|^2 - |p2|^2 by gradient descent (argmin over p1 of the max over p2), with nested derivatives in the four
// combinations of modes (rr, ff, fr, rf: outer, then inner). The output is p1 and p2, four numbers.

import type { Value } from "../../runtime/value.js";
import { DOUBLE } from "../../types/types.js";
import { GradbenchError, type EvalModule } from "../eval-module.js";
import { compilePrimal, inputObject, smoothEval, toValue } from "../smooth-eval.js";

const MODES = ["rr", "ff", "fr", "rf"] as const;

function start(input: unknown): Value[] {
  const value = inputObject(input, ["start"]).start;
  if (!Array.isArray(value) || value.length !== 2) throw new GradbenchError("the input's `start` must be two numbers");
  return value.map((x, i) => toValue(x, DOUBLE, `the input's \`start[${i}]\``));
}

/** The four numbers; the program gives NaN when a loop did not finish within its bound. */
function points(result: Value): number[] {
  if (typeof result !== "object" || result.tag !== "dense")
    throw new Error("saddle: expected a Double array from compiled code");
  const out = [...result.data];
  if (!out.every(Number.isFinite))
    throw new GradbenchError("the descent did not converge (a loop reached its bound of 340 * 300 steps)");
  return out;
}

export const saddleEval = (): EvalModule =>
  smoothEval({
    name: "saddle",
    main: "gradbench/saddle.smooth",
    compile: Object.fromEntries(MODES.map((mode) => [mode, (prog) => compilePrimal(prog, mode, [DOUBLE, DOUBLE])])),
    args: (_fn, input) => start(input),
    encode: Object.fromEntries(MODES.map((mode) => [mode, points])),
  });
