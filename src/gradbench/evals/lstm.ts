// The lstm eval: ADBench's LSTM loss (examples/adbench/lstm.smooth) (`objective`) and its gradient with respect to
// the main and extra parameters, each flattened row by row and concatenated (`jacobian`, reverse mode through the
// time loop). Input {main_params, extra_params, state, sequence}.

import { flattenJson } from "../../adbench/compare.js";
import { valueToJson } from "../../runtime/json.js";
import type { Value } from "../../runtime/value.js";
import { MATRIX } from "../../types/types.js";
import { GradbenchError, type EvalModule } from "../eval-module.js";
import { compileDerivative, compilePrimal, inputObject, smoothEval, toValue, tupleParts } from "../smooth-eval.js";

const ARG_TYPES = [MATRIX, MATRIX, MATRIX, MATRIX];
/** main_params, extra_params: the parameters differentiated. */
const WRT = [0, 1];

function lstmArgs(input: unknown): Value[] {
  const fields = inputObject(input, ["main_params", "extra_params", "state", "sequence"]);
  const values = (["main_params", "extra_params", "state", "sequence"] as const).map((key) =>
    toValue(fields[key], MATRIX, `the input's \`${key}\``),
  );
  // The layer count and width the reference reads off the shapes: 2l rows of 4b, 3 rows of b, 2l rows of b, c rows of
  // b.
  const shape = (key: string): [number, number] => {
    const rows = fields[key] as unknown[][];
    return [rows.length, rows[0]?.length ?? 0];
  };
  const [mainRows, mainWidth] = shape("main_params");
  const b = mainWidth / 4;
  const expect = (key: string, rows: number, width: number) => {
    const [r, w] = shape(key);
    if (r !== rows || w !== width)
      throw new GradbenchError(`the input's \`${key}\` must be ${rows} rows of ${width} (it is ${r} of ${w})`);
  };
  if (mainRows === 0 || mainRows % 2 !== 0 || !Number.isInteger(b) || b === 0)
    throw new GradbenchError("the input's `main_params` must be 2l rows of 4b numbers (l layers, b > 0)");
  expect("extra_params", 3, b);
  expect("state", mainRows, b);
  const [steps, width] = shape("sequence");
  if (steps < 2 || width !== b) throw new GradbenchError(`the input's \`sequence\` must be at least 2 rows of ${b}`);
  return values;
}

function encodeGradient(result: Value): unknown {
  const [dMain, dExtra] = tupleParts(result, 2);
  return [...flattenJson(valueToJson(dMain!, MATRIX)), ...flattenJson(valueToJson(dExtra!, MATRIX))];
}

export const lstmEval = (): EvalModule =>
  smoothEval({
    name: "lstm",
    main: "adbench/lstm.smooth",
    compile: {
      objective: (prog) => compilePrimal(prog, "lstmObjective", ARG_TYPES),
      jacobian: (prog) => compileDerivative(prog, "lstmObjective", ARG_TYPES, WRT, "gradient"),
    },
    args: (_fn, input) => lstmArgs(input),
    encode: { jacobian: encodeGradient },
  });
