// Specialising an entry point to the arguments it is called with (paper 002 §4.2): the definition's type scheme is
// instantiated and matched against the JSON arguments, so `fun v -> vectorSum v` called with [1, 2] runs at Vector.
// Where the scheme fixes a type (Index, Vector, ...) that type is used and the value is checked against it later;
// where it leaves a variable, the JSON decides (numbers are Double, true/false Bool, arrays Array<...>).

import { MAX_ARGUMENT_NESTING } from "../runtime/limits.js";
import { fail } from "../syntax/diagnostics.js";
import type { CheckedDef } from "../types/infer.js";
import {
  concretize,
  freshTVar,
  fromConcrete,
  instantiate,
  prune,
  TypeNamer,
  unifyRaw,
  UnifyError,
  type MType,
} from "../types/mtype.js";
import { arrayOf, BOOL, DOUBLE, tupleOf, type Type } from "../types/types.js";
import { shortJson } from "../runtime/json.js";

/** The parameter name used in messages: "parameter `v` of `main`". */
export function describeParam(def: CheckedDef, i: number): string {
  const name = def.paramNames[i];
  return name ? `parameter \`${name}\` of \`${def.name}\`` : `argument ${i} of \`${def.name}\``;
}

export function entryArgTypes(def: CheckedDef, args: readonly unknown[]): Type[] {
  let t = prune(instantiate(def.scheme));
  const types: Type[] = [];
  const namer = new TypeNamer();
  for (let i = 0; i < args.length; i++) {
    if (t.k !== "fun") {
      fail(
        "argument",
        `\`${def.name}\` takes ${i} argument${i === 1 ? "" : "s"}, but ${args.length} were given`,
        def.def.nameSpan,
      );
    }
    const what = describeParam(def, i);
    const ty = typeFromJson(args[i], t.param, what, namer);
    try {
      unifyRaw(t.param, fromConcrete(ty));
    } catch (e) {
      if (!(e instanceof UnifyError)) throw e;
      fail("argument", `${what} does not accept this value`, undefined, {
        expected: namer.show(t.param),
        found: shortJson(args[i]),
      });
    }
    types.push(concretize(t.param, new Map()));
    t = prune(t.result);
  }
  return types;
}

function typeFromJson(json: unknown, t: MType, what: string, namer: TypeNamer, depth = 0): Type {
  // (Nesting is bounded before it can exhaust the stack: no Smooth value is nested that deeply.)
  if (depth > MAX_ARGUMENT_NESTING)
    fail("argument", `${what} is nested more than ${MAX_ARGUMENT_NESTING} levels deep`, undefined, {
      expected: "numbers, booleans and arrays of these, nested as deeply as the parameter's type",
    });
  t = prune(t);
  switch (t.k) {
    case "double":
    case "int":
    case "bool":
      return concretize(t, new Map());
    case "array":
      if (!Array.isArray(json)) return mismatch(json, t, what, namer);
      return arrayOf(
        json.length > 0 ? typeFromJson(json[0], t.elem, what, namer, depth + 1) : concretize(t.elem, new Map()),
      );
    case "tuple":
      if (!Array.isArray(json) || json.length !== t.elems.length) return mismatch(json, t, what, namer);
      return tupleOf(t.elems.map((e, i) => typeFromJson(json[i], e, what, namer, depth + 1)));
    case "fun":
    case "tape":
      return fail(
        "argument",
        `${what} is a ${t.k === "fun" ? "function" : "tape"}, which cannot be passed as JSON`,
        undefined,
        {
          expected: namer.show(t),
        },
      );
    case "tvar":
      if (typeof json === "boolean" && t.flag === "any") return BOOL;
      if (Array.isArray(json) && t.flag === "any")
        return arrayOf(json.length > 0 ? typeFromJson(json[0], freshTVar(), what, namer, depth + 1) : DOUBLE);
      if (typeof json === "number" || typeof json === "string") return DOUBLE;
      return mismatch(json, t, what, namer);
  }
}

function mismatch(json: unknown, t: MType, what: string, namer: TypeNamer): never {
  return fail("argument", `${what} expects ${namer.show(t)}`, undefined, {
    expected: namer.show(t),
    found: shortJson(json),
  });
}
