// Values from outside a traced function, passed to its program as parameters after its arguments (the instance's
// hidden parameters, ./target.ts) instead of being written into it:
//  - data it closed over or hands to a library function it calls (a Float64Array, an NDArray, a `number[][]` a Smooth
//    definition takes as a Matrix): read at each call, so the program sees the data's current contents (its shape is
//    part of the trace, and must not change);
//  - a tensor of a trace being recorded around it (a closure traced inside another function's trace, as in
//    `x => mul(x, grad(y => mul(x, y))(3))`): the enclosing trace passes its own tensor, so the inner derivative treats
//    it as a constant (no perturbation confusion);
//  - a runtime value the library holds (a linear map's residuals, ./linearize.ts) used inside a trace.

import type { Value } from "../runtime/value.js";
import { staticTypeOfValue, Tensor, type StaticType } from "../staging/index.js";
import { setDataCapture } from "../staging/tensor.js";
import { fail } from "../syntax/diagnostics.js";
import type { Type } from "../types/types.js";
import { encode } from "./convert.js";
import { NDArray } from "./ndarray.js";
import type { MType } from "../types/mtype.js";
import { describe, showTree, treeKey, typedArrayName, type Tree, type Where } from "./pytree.js";
import type { Hidden } from "./target.js";

/** The argument's type with its array lengths, which the traced program takes as constants. */
export function staticOf(t: Tree): StaticType {
  switch (t.k) {
    case "double":
      return { k: "double" };
    case "index":
      return { k: "int" };
    case "bool":
      return { k: "bool" };
    case "dense": {
      // A dimension not known while tracing an enclosing function (see ./staged-call.ts) is NaN.
      const known = (d: number) => (Number.isNaN(d) ? undefined : d);
      let s: StaticType = { k: t.elem };
      for (let d = t.shape.length - 1; d >= 0; d--) s = { k: "array", length: known(t.shape[d]!), elem: s };
      return s;
    }
    case "tuple":
      return { k: "tuple", elems: t.elems.map(staticOf) };
    case "list":
      return { k: "array", length: Number.isNaN(t.length) ? undefined : t.length, elem: staticOf(t.elem) };
  }
}

/** Library data given to a trace (its structure already described, e.g. from a Smooth definition's parameter type). */
export class CapturedData {
  constructor(
    readonly data: unknown,
    readonly tree: Tree,
    /** The parameter type it was described with (it tells an Index array from a Double one). */
    readonly hint?: MType,
  ) {}
}

/** A runtime value of the library given to a trace. */
export class CapturedValue {
  constructor(
    readonly value: Value,
    readonly type: Type,
  ) {}
}

const CLOSED_OVER: Where = { what: "data the traced function closed over" };

setDataCapture((value) => {
  if (value instanceof CapturedValue)
    return { key: value, type: staticTypeOfValue(value.value, value.type), payload: value };
  if (value instanceof CapturedData) return { key: value.data, type: staticOf(value.tree), payload: value };
  if (!(value instanceof NDArray) && typedArrayName(value) === undefined) return undefined;
  const tree = describe(value, undefined, CLOSED_OVER);
  return { key: value, type: staticOf(tree), payload: new CapturedData(value, tree) };
});

/** The hidden parameter of an instance for what its trace captured (a payload of ../staging/graph.ts's Capture). */
export function hiddenOf(type: Type, payload: unknown): Hidden {
  if (payload instanceof Tensor)
    return {
      type,
      staged: payload,
      transient: true,
      value: () =>
        fail(
          "unsupported",
          "a function that uses a tensor of another traced function was called after that function's tracing ended",
          undefined,
          { hint: "call it (or a transform of it) inside the function whose tensor it uses" },
        ),
    };
  if (payload instanceof CapturedValue) return { type, staged: payload, value: () => payload.value };
  const { data, tree, hint } = payload as CapturedData;
  return {
    type,
    staged: payload,
    value: () => {
      // The program was traced for the data's shape: other contents are read, another shape is refused.
      const now = describe(data, hint, CLOSED_OVER);
      if (treeKey(now, true) !== treeKey(tree, true))
        fail(
          "argument",
          "data a traced function closed over has changed shape since the function was traced",
          undefined,
          {
            expected: showTree(tree),
            found: showTree(now),
            hint: "trace the function again (a new function) for data of another shape",
          },
        );
      return encode(data, tree, () => CLOSED_OVER);
    },
  };
}
