// Staging a TypeScript function: call it once on symbolic arguments, and emit what it computed as Smooth source.
//
// The function runs as ordinary JavaScript: its own control flow over plain numbers (loops, `if`s, recursion) is
// evaluated now and leaves only its effect on the program (static control flow, paper 003 Appendix B), while the
// staged operations record bindings. A staging is per argument type and, when the caller gives them, per array
// lengths: the program uses the lengths given here as constants.

import { KEYWORDS } from "../syntax/lexer.js";
import { containsFun, showType, type Type } from "../types/types.js";
import { arrayGet, arrayLength, type ArrayValue, type Value } from "../runtime/value.js";
import { emitDefinition } from "./emitter.js";
import { describeJsValue, StagingError, stagingFail, userSite } from "./errors.js";
import {
  forEachOperand,
  Trace,
  withTrace,
  type Binding,
  type External,
  type Node,
  type Operand,
  type Scope,
} from "./graph.js";
import { describeStatic, sameType, staticOfType, typeOfStatic, type StaticType } from "./static-type.js";
import { parameterValue, toOperand } from "./tensor.js";

export interface StagedFunction {
  /** Smooth source of one top-level definition `let <name> = fun (x0: T0) ... -> body`. */
  readonly source: string;
  readonly name: string;
  /** The type of the definition's result. */
  readonly resultType: Type;
  /**
   * Values from outside the function it read (see Capture): the definition takes them after its arguments, before the
   * externals.
   */
  readonly captures: readonly { readonly type: Type; readonly payload: unknown }[];
  /** Functions the definition takes after its arguments and captures (library functions the staged one called). */
  readonly externals: readonly External[];
}

export interface StageOptions {
  /**
   * Per argument, its type with the array lengths known now (see `staticTypeOfValue`): `x.length` and `x.shape` are
   * then plain numbers, and the program is valid only for arguments of exactly those lengths (stage again for others;
   * `staticTypeKey` makes a cache key). Without it, lengths are Index tensors computed when the program runs.
   */
  readonly shapes?: readonly (StaticType | undefined)[];
}

const NAME = /^[A-Za-z][A-Za-z0-9_]*$/;

/** Any JavaScript function: what is given is checked when it is traced. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- arguments are checked at run time
export type JsFunction = (...args: any[]) => unknown;
export const isJsFunction = (x: unknown): x is JsFunction => typeof x === "function";

/**
 * Traces `fn` on symbolic arguments of the given types and returns the Smooth source of one definition named `name`
 * with exactly those parameter types. `fn` receives per parameter a Tensor (a scalar or an array), or a JavaScript
 * array of those for a tuple type; it returns a tensor, a number (a Double), or a JavaScript array of them (a tuple).
 * Throws a StagingError naming the operation or argument that cannot be staged.
 */
export function stageFunction(
  fn: JsFunction,
  argTypes: readonly Type[],
  name = "staged",
  options: StageOptions = {},
): StagedFunction {
  if (typeof fn !== "function")
    stagingFail(`stageFunction: expected a function to stage, but got ${describeJsValue(fn)}`);
  if (!NAME.test(name) || KEYWORDS.has(name)) {
    stagingFail(`stageFunction: ${JSON.stringify(name)} is not a valid Smooth name`);
  }
  if (argTypes.length === 0) stagingFail("stageFunction: a staged function needs at least one argument");
  if (fn.length > argTypes.length) {
    stagingFail(
      `stageFunction: the function takes ${fn.length} parameters, but ${argTypes.length} argument types were given`,
    );
  }
  const statics = argTypes.map((t, i) => argumentStatic(t, i, options.shapes?.[i]));
  const trace = new Trace();
  return withTrace(trace, () => {
    const params = statics.map((s, i) => trace.freshNode("x", s, `x${i}`));
    const args = params.map((p) => parameterValue(trace, p));
    const out: unknown = (fn as (...a: unknown[]) => unknown)(...args);
    const result = toOperand(out, "stageFunction", "the result of the staged function");
    checkBoolsUsed(trace.root, result.operand);
    const captured = trace.captures.map((c) => c.node);
    const block = { scope: trace.root, result: result.operand };
    const source = emitDefinition(name, [...params, ...captured], block, trace.externals);
    const captures = trace.captures.map((c) => ({ type: typeOfStatic(c.node.type), payload: c.payload }));
    return { source, name, resultType: typeOfStatic(result.type), captures, externals: trace.externals };
  });
}

/** Every binding of a scope and of the bodies nested in it. */
function allBindings(scope: Scope, out: Binding[] = []): Binding[] {
  for (const b of scope.bindings) {
    out.push(b);
    const r = b.rhs;
    if (r.kind === "build" || r.kind === "ifold") allBindings(r.body.body.scope, out);
    else if (r.kind === "if") {
      allBindings(r.then.scope, out);
      allBindings(r.else.scope, out);
    } else if (r.kind === "call") for (const a of r.args) if (a.kind === "lambda") allBindings(a.body.scope, out);
  }
  return out;
}

/**
 * A Bool the user's code made that no staged operation reads went into a JavaScript condition (`if (lt(x, 0))`),
 * where every tensor is true: an error at the line that made it, instead of a program that silently takes one branch.
 */
function checkBoolsUsed(root: Scope, result: Operand): void {
  const bindings = allBindings(root);
  const read = new Set<Node>();
  const mark = (o: Operand): void => {
    if (o.kind === "node") read.add(o.node);
    else if (o.kind === "tuple") o.elems.forEach(mark);
  };
  mark(result);
  for (const b of bindings) forEachOperand(b.rhs, mark);
  for (const b of bindings) {
    if (!b.site || Array.isArray(b.pattern) || read.has(b.pattern as Node)) continue;
    throw new StagingError(
      `a staged Bool made at ${userSite(b.site) ?? "an unknown place"} is never used by a staged operation: it was used as a JavaScript condition ` +
        "(if, ?:, &&, ||, !, a loop's condition), where JavaScript sees every tensor as true; " +
        "use cond(c, () => a, () => b) for a staged choice, and and/or/not to combine staged Bools",
    );
  }
}

function argumentStatic(t: Type, i: number, shape: StaticType | undefined): StaticType {
  if (containsFun(t))
    stagingFail(`stageFunction: argument ${i} has the function type ${showType(t)}, which cannot be staged`);
  const plain = staticOfType(t);
  if (shape === undefined) return plain;
  if (!sameType(shape, plain)) {
    stagingFail(
      `stageFunction: the shape given for argument ${i} (${describeStatic(shape)}) is not of its type ${showType(t)}`,
    );
  }
  return shape;
}

/** The static type of a runtime value of type `t`: its array lengths (inner lengths of an empty array stay unknown). */
export function staticTypeOfValue(v: Value, t: Type): StaticType {
  switch (t.k) {
    case "double":
    case "int":
    case "bool":
      return { k: t.k };
    case "array": {
      const a = v as ArrayValue;
      const n = arrayLength(a);
      return { k: "array", length: n, elem: n > 0 ? staticTypeOfValue(arrayGet(a, 0), t.elem) : staticOfType(t.elem) };
    }
    case "tuple": {
      const elems = (v as { elems: readonly Value[] }).elems;
      return { k: "tuple", elems: t.elems.map((e, k) => staticTypeOfValue(elems[k]!, e)) };
    }
    case "fun":
    case "tape":
      return stagingFail(`a function (${showType(t)}) cannot be an argument of a staged function`);
  }
}

/** A string that identifies a static type, lengths included (for caching stagings per argument shapes). */
export function staticTypeKey(s: StaticType): string {
  switch (s.k) {
    case "array":
      return `[${s.length ?? "?"}]${staticTypeKey(s.elem)}`;
    case "tuple":
      return `(${s.elems.map(staticTypeKey).join(",")})`;
    default:
      return s.k;
  }
}
