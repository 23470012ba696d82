// Calling a function that is not a staged operation from a staged function: a library function (grad(g), a Smooth
// module's definition) called with tensors. The call is recorded as an application of an extra, function-typed
// parameter of the staged definition (see External in ./graph.ts); the library binds that parameter to the callee's
// program, so the whole is one program.

import { funOf, showType, type Type } from "../types/types.js";
import { stagingFail } from "./errors.js";
import { traceFor } from "./graph.js";
import { sameType, staticOfType, aStatic } from "./static-type.js";
import { emit, toOperand, type Staged } from "./tensor.js";

/**
 * Records `callee(...args)` (each argument a staged value of the parameter type, tuples as JavaScript arrays) and
 * returns
 * the staged result. `key` identifies the callee: calls of one callee share one parameter.
 */
export function callExternal(
  label: string,
  key: unknown,
  payload: unknown,
  paramTypes: readonly Type[],
  resultType: Type,
  args: readonly unknown[],
): Staged {
  const trace = traceFor(label);
  const operands = args.map((a, k) => {
    const expected = staticOfType(paramTypes[k]!);
    const o = toOperand(a, label, `argument ${k}`, expected);
    if (!sameType(o.type, expected))
      stagingFail(`\`${label}\`: argument ${k} is ${aStatic(o.type)}, but ${showType(paramTypes[k]!)} is expected`);
    return o.operand;
  });
  const type = paramTypes.reduceRight<Type>((r, p) => funOf(p, r), resultType);
  const ext = trace.external(key, type, payload);
  return emit(trace, { kind: "call", fn: ext.name, args: operands }, staticOfType(resultType));
}
