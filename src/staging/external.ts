// Calling a function that is not a staged operation from a staged function: a library function (grad(g), a Smooth
// module's definition) called with tensors. The call is recorded as an application of an extra, function-typed
// parameter of the staged definition (see External in ./graph.ts); the library binds that parameter to the callee's
// program, so the whole is one program.

import { funOf, showType, type Type } from "../types/types.js";
import { stagingFail } from "./errors.js";
import { activeTrace, traceFor } from "./graph.js";
import { sameType, staticOfType, aStatic } from "./static-type.js";
import { emit, Tensor, toOperand, type Staged } from "./tensor.js";

/**
 * True while a function is traced and `args` holds a tensor somewhere (then a library function must stage its call).
 */
export function isStagedCall(args: readonly unknown[]): boolean {
  if (!activeTrace()) return false;
  const staged = (x: unknown): boolean =>
    x instanceof Tensor ||
    (Array.isArray(x) && x.some(staged)) ||
    (typeof x === "object" &&
      x !== null &&
      Object.getPrototypeOf(x) === Object.prototype &&
      Object.values(x).some(staged));
  return args.some(staged);
}

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
