// IR programs built by hand around a reverse gradient program (for nested derivatives): a Hessian-vector product by
// forward mode over it, and the dot product of the gradient with a vector (whose reverse gradient is H w).

import { dualType } from "../../src/ad/dual-types.js";
import { tangentOf } from "../../src/ad/seed.js";
import { AnfBuilder, litDouble, mkPrim } from "../../src/ir/builder.js";
import { freshVar, mkLam, type IrFunction } from "../../src/ir/ir.js";
import { copyFresh } from "../../src/ir/rename.js";
import { VECTOR } from "../../src/types/types.js";

/** hvp (x, t) = the tangent of jvp (fun x -> grad x) at (x, t): forward mode over the reverse gradient `grad`. */
export function hvpProgram(grad: IrFunction): IrFunction {
  const [x, t] = [freshVar("x", VECTOR), freshVar("t", VECTOR)];
  const param = freshVar("y", VECTOR);
  const b = new AnfBuilder();
  const g = b.bind("g", mkLam(param, copyFresh(grad.body, new Map([[grad.params[0]!.id, param]]))));
  const dg = b.bind("dg", { kind: "jvp", fn: g, type: dualType(g.type) });
  const n = b.prim("length", [x], "n");
  const dual = b.build(n, (i, bb) => bb.tuple([bb.prim("get", [x, i]), bb.prim("get", [t, i])], "d"), "dx");
  const out = b.app(dg, dual, "out");
  return { name: "hvp", params: [x, t], body: b.finish(tangentOf(b, out, VECTOR)!) };
}

/** <grad x, w>: the reverse gradient program followed by a dot product with the parameter w. */
export function gradientDotProgram(grad: IrFunction): IrFunction {
  const [x, w] = [freshVar("x", VECTOR), freshVar("w", VECTOR)];
  const b = new AnfBuilder();
  const g = b.bind("g", copyFresh(grad.body, new Map([[grad.params[0]!.id, x]])));
  const n = b.prim("length", [g], "n");
  const dot = b.ifold(litDouble(0), n, (s, i, bb) => {
    const term = bb.prim("mul", [bb.prim("get", [g, i]), bb.prim("get", [w, i])], "term");
    return mkPrim("add", [s, term]);
  });
  return { name: "gradDot", params: [x, w], body: b.finish(dot) };
}
