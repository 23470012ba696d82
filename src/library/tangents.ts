// Tangents and cotangents as library values (jvp, linearize, a vjp pullback). A tangent has the structure and shapes
// of the value it goes with — the same objects, keys and array lengths — and a part that cannot have one (an Index,
// a Bool, an array of them) is null: in what the user gives (anything else there is an error naming it) and in what
// the library returns. (JAX writes such tangents as float0 arrays; JavaScript has null.)

import { hasTangent } from "../ad/dual-types.js";
import { tangentType } from "../ad/seed.js";
import { shapeOf, shapesEqual, showShape } from "../runtime/stack.js";
import { tuple, type Value } from "../runtime/value.js";
import { fail } from "../syntax/diagnostics.js";
import type { Span } from "../syntax/source.js";
import { fromConcrete } from "../types/mtype.js";
import { showType, typeEq, type Type } from "../types/types.js";
import { decode, encode } from "./convert.js";
import { describe, describeJs, isPlainObject, showTree, treeType, type Tree } from "./pytree.js";

/** What is being read, for messages. */
export interface TangentSite {
  /** "the tangent of parameter `x` of `f`". */
  readonly what: string;
  /** "the argument" or "the value": what it must have the shape of. */
  readonly of: string;
  readonly span?: Span;
}

const kindOf = (t: Type): string =>
  t.k === "int" ? "an Index" : t.k === "bool" ? "a Bool" : `of type ${showType(t)}, which holds no Double`;

/**
 * The runtime tangent of a value `like` of type `type` (its structure `tree`, when known: the keys of its objects),
 * read from the user's `value`. A part without a tangent must be null (or undefined); it reads as `like`'s part, which
 * a derivative program takes and ignores.
 */
export function readTangent(
  value: unknown,
  type: Type,
  like: Value,
  tree: Tree | undefined,
  site: TangentSite,
  path = "",
): Value {
  const here = path ? `${site.what} at ${path}` : site.what;
  if (!hasTangent(type)) {
    if (value === null || value === undefined) return like;
    return fail(
      "argument",
      `${here} must be null: the value there is ${kindOf(type)}, which has no tangent`,
      site.span,
      {
        expected: "null",
        found: describeJs(value),
      },
    );
  }
  const expected = (): string => (tree && tree.k !== "tuple" ? showTree(tree) : showShape(shapeOf(like)));
  const mismatch = (found: string): never =>
    fail("argument", `${here} must have the shape of ${site.of}`, site.span, { expected: expected(), found });
  if (value === null || value === undefined) mismatch(describeJs(value));
  if (type.k === "tuple") {
    const form = tree?.k === "tuple" ? tree : undefined;
    const likes = (like as { elems: readonly Value[] }).elems;
    const keys = form?.keys;
    if (keys) {
      if (!isPlainObject(value)) mismatch(describeJs(value));
      const object = value as Record<string, unknown>;
      const extra = Object.keys(object).find((k) => !keys.includes(k));
      if (extra !== undefined) mismatch(`an object with the key \`${extra}\``);
      return tuple(
        keys.map((k, i) => readTangent(object[k], type.elems[i]!, likes[i]!, form.elems[i], site, `${path}.${k}`)),
      );
    }
    if (!Array.isArray(value) || value.length !== type.elems.length) mismatch(describeJs(value));
    const parts = value as readonly unknown[];
    return tuple(type.elems.map((e, i) => readTangent(parts[i], e, likes[i]!, form?.elems[i], site, `${path}[${i}]`)));
  }
  const found = describe(value, fromConcrete(type), { what: here, span: site.span });
  const v = encode(value, found, () => ({ what: here, span: site.span }));
  if (!typeEq(type, treeType(found)) || !shapesEqual(shapeOf(v), shapeOf(like))) mismatch(showTree(found));
  return v;
}

/**
 * A tangent computed for a value of type `type` (the runtime tangent has type tangentType(type): the parts without one
 * left out) as a library value in the value's form, with null for those parts.
 */
export function decodeTangent(
  v: Value,
  type: Type,
  form: Tree | undefined,
  inputs?: readonly ArrayBufferLike[],
): unknown {
  if (!hasTangent(type)) return null;
  if (type.k === "tuple") {
    const sub = form?.k === "tuple" ? form : undefined;
    const carrying = type.elems.filter(hasTangent).length;
    const parts = carrying === 1 ? [v] : (v as { elems: readonly Value[] }).elems;
    let next = 0;
    const elems = type.elems.map((e, i) =>
      hasTangent(e) ? decodeTangent(parts[next++]!, e, sub?.elems[i], inputs) : null,
    );
    return sub?.keys ? Object.fromEntries(sub.keys.map((k, i) => [k, elems[i]])) : elems;
  }
  const t = tangentType(type)!;
  return decode(v, t, typeEq(t, type) ? form : undefined, inputs);
}

/** An adjoint (of the primal's type) as a library value in the primal's form, null for the parts without a tangent. */
export function decodeAdjoint(v: Value, type: Type, form: Tree | undefined): unknown {
  if (!hasTangent(type)) return null;
  if (type.k === "tuple") {
    const sub = form?.k === "tuple" ? form : undefined;
    const parts = (v as { elems: readonly Value[] }).elems;
    const elems = type.elems.map((e, i) => decodeAdjoint(parts[i]!, e, sub?.elems[i]));
    return sub?.keys ? Object.fromEntries(sub.keys.map((k, i) => [k, elems[i]])) : elems;
  }
  return decode(v, type, form);
}
