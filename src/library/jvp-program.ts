// The Jacobian-vector product of an entry point as an IR function (what `jvp(f, primals, tangents)` compiles):
//   (x1, ..., xn, dx_k for each argument k with a Double in it) -> (f x1 ... xn, the tangent of the result)
// D[f] (the `jvp` node, expanded by the forward-ad pass) is applied to the duals of the arguments — each primal zipped
// with its tangent (an array of pairs for an array) — and the dual result is split into its primal and tangent parts.
// Index and Bool parts carry no tangent: they are their own duals, and dropped from the result's tangent.

import { hasTangent, dualType } from "../ad/dual-types.js";
import { tangentOf } from "../ad/seed.js";
import { constDual } from "../ad/forward.js";
import { withFunctionsOf } from "../api/derivative-programs.js";
import { AnfBuilder } from "../ir/builder.js";
import { freshVar, mkLam, mkTuple, typeOf, type Atom, type Expr, type IrFunction } from "../ir/ir.js";
import type { Type } from "../types/types.js";

/** The dual of a value `x` of type `t` whose tangent is `dx` (same type). */
function zipDual(b: AnfBuilder, x: Atom, dx: Atom, t: Type): Atom {
  switch (t.k) {
    case "double":
      return b.bind("dual", mkTuple([x, dx]));
    case "int":
    case "bool":
      return x;
    case "array": {
      const n = b.prim("length", [x], "n");
      return b.build(
        n,
        (i, inner) => zipDual(inner, inner.prim("get", [x, i], "x"), inner.prim("get", [dx, i], "dx"), t.elem),
        "dual",
        "i",
      );
    }
    case "tuple": {
      const parts = t.elems.map((e, k) => zipDual(b, b.proj(k, x, "x"), b.proj(k, dx, "dx"), e));
      return b.tuple(parts, "dual");
    }
    case "fun":
    case "tape":
      throw new Error(`zipDual: a ${t.k} argument has no tangent`);
  }
}

/** The primal part of a dual value of primal type `t`. */
function primalOf(b: AnfBuilder, d: Atom, t: Type): Atom {
  switch (t.k) {
    case "double":
      return b.proj(0, d, "v");
    case "int":
    case "bool":
      return d;
    case "array": {
      const n = b.prim("length", [d], "n");
      return b.build(n, (i, inner) => primalOf(inner, inner.prim("get", [d, i], "d"), t.elem), "v", "i");
    }
    case "tuple":
      return b.tuple(
        t.elems.map((e, k) => primalOf(b, b.proj(k, d, "d"), e)),
        "v",
      );
    case "fun":
    case "tape":
      throw new Error(`primalOf: a ${t.k} result has no primal part here`);
  }
}

/** The positions of the arguments that take a tangent (those with a Double in them). */
export const tangentPositions = (argTypes: readonly Type[]): number[] =>
  argTypes.flatMap((t, k) => (hasTangent(t) ? [k] : []));

/**
 * `fn`'s value and its tangent for the given argument tangents (see the file comment). Only the first `argCount`
 * parameters take tangents (the others, an instance's hidden parameters, are constants).
 */
export function jvpProgram(fn: IrFunction, argCount = fn.params.length): IrFunction {
  const params = fn.params.map((p) => freshVar(p.name, p.type));
  const tangents = tangentPositions(params.slice(0, argCount).map((p) => p.type)).map(
    (k) => [k, freshVar(`d${params[k]!.name}`, params[k]!.type)] as const,
  );
  const b = new AnfBuilder();
  let lam: Expr = fn.body;
  for (let i = fn.params.length - 1; i >= 0; i--) lam = mkLam(fn.params[i]!, lam);
  const f = b.bind(fn.name, lam);
  let out: Atom = b.bind("df", { kind: "jvp", fn: f, type: dualType(f.type) });
  params.forEach((p, k) => {
    const dx = tangents.find(([j]) => j === k)?.[1];
    out = b.app(out, dx ? zipDual(b, p, dx, p.type) : constDual(p, b), "r");
  });
  const resultType = typeOf(fn.body);
  const value = primalOf(b, out, resultType);
  const tangent = tangentOf(b, out, resultType);
  if (!tangent) throw new Error("jvpProgram: the result has no Double in it (callers check)");
  const result = b.tuple([value, tangent], "jvp");
  return {
    ...withFunctionsOf(fn),
    name: `${fn.name}_jvp`,
    params: [...params, ...tangents.map(([, v]) => v)],
    body: b.finish(result),
  };
}
