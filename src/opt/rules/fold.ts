// Constant folding: a primitive applied to literals becomes the literal it evaluates to, computed by the primitive's
// own evaluation rule (src/prims/table.ts) so folding agrees with the interpreter bit for bit. A primitive that would
// raise an error (integer division by zero) is left alone, so the error still happens at run time.

import { lit, symbolicZero, type Expr } from "../../ir/ir.js";
import { PRIMS } from "../../prims/table.js";
import { rule } from "./rule.js";

export const constantFold = rule({
  name: "constant-fold",
  head: "prim",
  doc: "op l1 ... ln -> l (all operands literals)",
  apply(node): Expr | undefined {
    const values: (number | boolean)[] = [];
    for (const a of node.args) {
      if (a.kind !== "lit") return undefined;
      values.push(a.value);
    }
    let result;
    // A zero tangent is a symbolic zero (Prim.tangent), as the interpreter evaluates it.
    if (symbolicZero(node, (k) => values[k] === 0)) return lit(0, node.type);
    try {
      result = PRIMS[node.op].evaluate(
        values,
        node.args.map((a) => a.type),
        node.span,
      );
    } catch {
      return undefined;
    }
    if (typeof result !== "number" && typeof result !== "boolean") return undefined;
    return lit(result, node.type);
  },
});
