// `smooth jacobian --sparse` and `smooth hessian --sparse`: the derivative in compressed sparse row form, as JSON
// {"value": v, "jacobian" (or "hessian"): {"shape": [rows, columns], "rowPointers": [...], "columnIndexes": [...],
// "values": [...]}, "mode", "colours", "density", and "note" when the pattern is dense}. Rows and columns are numbered
// as in the dense output (src/cli/derivative-commands.ts).

import type { Engine, SmoothProgram } from "../api/program.js";
import { describeParam } from "../api/entry-types.js";
import { HESSIAN_HINT, requireDoubleResult } from "../api/derivatives.js";
import { typeOf } from "../ir/ir.js";
import { lowerEntry } from "../ir/lower.js";
import { valueFromJson, valueToJson } from "../runtime/json.js";
import { programSparse } from "../sparse/program-sparse.js";
import type { SparseMatrix } from "../sparse/sparse-derivative.js";
import { DOUBLE } from "../types/types.js";
import { chooseWrt, cliSubject, parseMode, type DerivativeOptions } from "./derivative-options.js";

/** A sparse matrix as JSON (non-finite values as the strings "NaN", "Infinity", "-Infinity"). */
export function sparseMatrixJson(m: SparseMatrix): Record<string, unknown> {
  return {
    shape: m.shape,
    rowPointers: [...m.rowPointers],
    columnIndexes: [...m.columnIndexes],
    values: [...m.values].map((x) => valueToJson(x, DOUBLE)),
  };
}

/** The JSON of `smooth jacobian --sparse` / `smooth hessian --sparse`. */
export function sparseJson(
  prog: SmoothProgram,
  o: DerivativeOptions,
  args: unknown[],
  engine: Engine,
  kind: "jacobian" | "hessian",
): unknown {
  const def = prog.definition(o.fn);
  const argTypes = prog.argTypesFromJson(o.fn, args);
  const values = args.map((a, i) => valueFromJson(a, argTypes[i]!, describeParam(def, i)));
  const wrt = chooseWrt(prog, o.fn, argTypes, o.wrt);
  const subject = cliSubject(prog, o.fn);
  const resultType = typeOf(lowerEntry(prog.checked, o.fn, argTypes).body);
  const requested = parseMode(o.mode);
  if (kind === "hessian") requireDoubleResult(subject, resultType, "smooth hessian --sparse", HESSIAN_HINT);
  const { matrix, value } = programSparse({
    prog,
    name: o.fn,
    argTypes,
    values,
    wrt,
    kind,
    engine,
    subject,
    context: `smooth ${kind} --sparse`,
    ...(requested === undefined ? {} : { requested }),
  });
  const { mode, colours, density, note } = matrix.info;
  return {
    value: valueToJson(value(), resultType),
    [kind]: sparseMatrixJson(matrix),
    mode,
    colours,
    density,
    ...(note === undefined ? {} : { note }),
  };
}
