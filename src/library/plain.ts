// A plain JavaScript function given to a transform. Its source is read (acorn, src/tsfront/): a function that calls
// Smooth's tensor operations or library functions is traced (./staged.ts); any other is translated from its source
// (./ts-target.ts, the TypeScript subset), or refused with an error at the construct the translation cannot read.
// A plain function is never traced for want of reading it: tracing runs the JavaScript on staged values, which a loop
// over `v.length` and `v[i]` would silently turn into a constant.

import type * as A from "acorn";
import * as tensorOps from "../staging/index.js";
import type { JsFunction } from "../staging/index.js";
import { functionSource, isOwnGlobal, memberOf } from "../tsfront/closure.js";
import type { FunctionSource, Resolved } from "../tsfront/source.js";
import { bare, declaredNames, keyName, type Expression } from "../tsfront/syntax.js";
import { checkTensorConditions } from "../tsfront/tensor-conditions.js";
import { walkTree } from "../tsfront/walk.js";
import { knownFunction } from "../tsfront/transforms.js";
import { stagedTarget } from "./staged.js";
import { libraryFunction, type Target } from "./target.js";
import { TsTarget } from "./ts-target.js";

const OPS: ReadonlySet<unknown> = new Set(Object.values(tensorOps).filter((v) => typeof v === "function"));
const OP_NAMES: ReadonlySet<string> = new Set(
  Object.entries(tensorOps)
    .filter(([, v]) => typeof v === "function")
    .map(([k]) => k),
);

/** A call's callee as a name or `owner.name` (bundlers write `(0, ns.add)(...)`, which `bare` strips). */
function calleeOf(e: Expression | A.Super): { name: string; owner?: string } | undefined {
  if (e.type === "Super") return undefined;
  const c = bare(e);
  if (c.type === "Identifier") return { name: c.name };
  if (c.type === "MemberExpression" && c.object.type !== "Super") {
    const owner = bare(c.object);
    const name = keyName(c.property, c.computed);
    if (owner.type === "Identifier" && name !== undefined) return { name, owner: owner.name };
  }
  return undefined;
}

/** What a callee is, resolved in the function's scope: the member of a free object, or a free name. */
function resolveCallee(src: FunctionSource, callee: { name: string; owner?: string }): Resolved | undefined {
  // (Math.sin, Number(x): the translator's own, looked up in no closure.)
  if (isOwnGlobal(callee.owner ?? callee.name)) return undefined;
  if (callee.owner === undefined) return src.scope.lookup(callee.name);
  const owner = src.scope.lookup(callee.owner);
  const member = owner && memberOf(owner, callee.name);
  return member?.k === "function" ? member : undefined;
}

const LOCALS = new WeakMap<FunctionSource, ReadonlySet<string>>();

/**
 * A free name the scope does not know, taken for a tensor operation by its name (where the closure cannot be read, or
 * the operation is a global): not when the function declares the name itself (a local helper called `sum`).
 */
function opByName(src: FunctionSource, callee: { name: string; owner?: string }): string | undefined {
  if (callee.owner !== undefined || !OP_NAMES.has(callee.name)) return undefined;
  let locals = LOCALS.get(src);
  if (!locals) LOCALS.set(src, (locals = declaredNames(src.node)));
  return locals.has(callee.name) ? undefined : callee.name;
}

/**
 * Must the function be traced? When it (or a function of its module or closure that it calls) calls a tensor operation
 * or a function the library made (a module's definition, grad(g), ...): by value where the closure can be read, else
 * a tensor operation by its name.
 */
function needsTracing(src: FunctionSource, seen = new Set<FunctionSource>()): boolean {
  if (seen.has(src)) return false;
  seen.add(src);
  const traced = (callee: { name: string; owner?: string }): boolean => {
    const r = resolveCallee(src, callee);
    if (r === undefined) return opByName(src, callee) !== undefined;
    if (r.k !== "function") return false;
    // The transforms, and functions with custom rules written with numbers, are translated (src/tsfront/transforms.ts).
    if (knownFunction(r.value) !== undefined) return false;
    if (r.value !== undefined && (OPS.has(r.value) || libraryFunction(r.value))) return true;
    try {
      return needsTracing(r.source(), seen);
    } catch {
      return false; // a function whose source cannot be read: the translation reports it
    }
  };
  let found = false;
  walkTree(src.node, true, (n) => {
    if (found) return undefined;
    if (n.type === "CallExpression") {
      const callee = calleeOf((n as A.CallExpression).callee);
      if (callee && traced(callee)) found = true;
    }
    return found ? undefined : true;
  });
  return found;
}

/**
 * Does the function call one of the library's transforms (grad, jvp, ...) while its closure holds what the translator
 * does not read (a value it cannot take, or a function the library made from a Smooth definition or by tracing)?
 * Such a function is traced, as every function calling a transform was before the translator read them.
 */
function transformsOverData(src: FunctionSource): boolean {
  let transform = false;
  let data = false;
  walkTree(src.node, true, (n) => {
    if (n.type === "CallExpression") {
      const callee = calleeOf((n as A.CallExpression).callee);
      const r = callee && resolveCallee(src, callee);
      if (r?.k === "function" && knownFunction(r.value)?.k === "transform") transform = true;
    }
    let r: Resolved | undefined;
    if (n.type === "Identifier") r = src.scope.lookup((n as A.Identifier).name);
    const m = n as A.MemberExpression;
    if (n.type === "MemberExpression" && !m.computed && m.object.type === "Identifier") {
      const owner = src.scope.lookup(m.object.name);
      const name = keyName(m.property, false);
      r = owner && name !== undefined ? memberOf(owner, name) : undefined;
    }
    // (A function the library made that the translator cannot read: a Smooth definition, a traced function.)
    const opaque = r?.k === "function" && libraryFunction(r.value) !== undefined && !knownFunction(r.value);
    if (r?.k === "other" || opaque) data = true;
    return true;
  });
  return transform && data;
}

/** The tensor operation a callee names (`lt`, or `ns.lt` for a bundler's namespace), if it names one. */
function tensorOpCalled(src: FunctionSource, e: Expression): string | undefined {
  const callee = calleeOf(e);
  if (!callee) return undefined;
  const r = resolveCallee(src, callee);
  if (r === undefined) return opByName(src, callee);
  return r.k === "function" && OPS.has(r.value) ? callee.name : undefined;
}

/** Is `fn` a plain function the translator reads (not one over tensors, which is traced)? */
export function readsAsPlain(fn: unknown): boolean {
  if (typeof fn !== "function" || libraryFunction(fn) !== undefined) return false;
  try {
    return !needsTracing(functionSource(fn as (...args: never[]) => unknown));
  } catch {
    return false;
  }
}

/** The target of a plain function (one per function: see targetOf). */
export function plainTarget(fn: JsFunction): Target {
  const src = functionSource(fn as (...args: never[]) => unknown);
  if (!needsTracing(src) && !transformsOverData(src)) return new TsTarget(src);
  checkTensorConditions(src, (callee) => tensorOpCalled(src, callee));
  return stagedTarget(fn);
}
