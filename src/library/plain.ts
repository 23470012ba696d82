// A plain JavaScript function given to a transform. With the TypeScript compiler at hand, its source is read: a
// function that calls Smooth's tensor operations or library functions is traced (./staged.ts); any other is
// translated from its source (./ts-target.ts, the TypeScript subset). Without the compiler, every plain function is
// traced.

import * as tensorOps from "../staging/index.js";
import type { JsFunction } from "../staging/index.js";
import { functionSource, resolveValue } from "../tsfront/closure.js";
import { typescript, typescriptAvailable } from "../tsfront/compiler.js";
import type { FunctionSource, Resolved } from "../tsfront/source.js";
import { checkTensorConditions } from "../tsfront/tensor-conditions.js";
import { stagedTarget } from "./staged.js";
import { libraryFunction, type Target } from "./target.js";
import { TsTarget } from "./ts-target.js";

const OPS: ReadonlySet<unknown> = new Set(Object.values(tensorOps).filter((v) => typeof v === "function"));
const OP_NAMES: ReadonlySet<string> = new Set(
  Object.entries(tensorOps)
    .filter(([, v]) => typeof v === "function")
    .map(([k]) => k),
);

/**
 * Must the function be traced? When it (or a function of its module or closure that it calls) calls a tensor operation
 * or a function the library made (a module's definition, grad(g), ...): by value where the closure can be read, else
 * a tensor operation by its name.
 */
function needsTracing(src: FunctionSource, seen = new Set<FunctionSource>()): boolean {
  if (seen.has(src)) return false;
  seen.add(src);
  const ts = typescript();
  const traced = (r: Resolved | undefined, name: string): boolean => {
    if (r === undefined) return OP_NAMES.has(name);
    if (r.k !== "function") return false;
    if (r.value !== undefined && (OPS.has(r.value) || libraryFunction(r.value))) return true;
    try {
      return needsTracing(r.source(), seen);
    } catch {
      return false; // a function whose source cannot be read: the translation reports it
    }
  };
  let found = false;
  const visit = (n: import("typescript").Node): void => {
    if (found) return;
    if (ts.isCallExpression(n)) {
      let callee: import("typescript").Expression = n.expression;
      while (ts.isParenthesizedExpression(callee)) callee = callee.expression;
      // `(0, ns.add)(...)`: how bundlers call an imported function.
      if (ts.isBinaryExpression(callee) && callee.operatorToken.kind === ts.SyntaxKind.CommaToken)
        callee = callee.right;
      if (ts.isIdentifier(callee)) found = traced(src.scope.lookup(callee.text), callee.text);
      else if (ts.isPropertyAccessExpression(callee) && ts.isIdentifier(callee.expression)) {
        const owner = src.scope.lookup(callee.expression.text);
        if (owner?.k === "object") {
          const member = (owner.value as Record<string, unknown>)[callee.name.text];
          found = typeof member === "function" && traced(resolveValue(member, callee.name.text), callee.name.text);
        }
      }
    }
    ts.forEachChild(n, visit);
  };
  visit(src.node);
  return found;
}

/** The tensor operation a callee names (`lt`, or `ns.lt` for a bundler's namespace), if it names one. */
function tensorOpCalled(src: FunctionSource, callee: import("typescript").Expression): string | undefined {
  const ts = typescript();
  let c = callee;
  while (ts.isParenthesizedExpression(c)) c = c.expression;
  if (ts.isBinaryExpression(c) && c.operatorToken.kind === ts.SyntaxKind.CommaToken) c = c.right;
  if (ts.isIdentifier(c)) {
    const r = src.scope.lookup(c.text);
    if (r === undefined) return OP_NAMES.has(c.text) ? c.text : undefined;
    return r.k === "function" && OPS.has(r.value) ? c.text : undefined;
  }
  if (ts.isPropertyAccessExpression(c) && ts.isIdentifier(c.expression)) {
    const owner = src.scope.lookup(c.expression.text);
    if (owner?.k === "object" && OPS.has((owner.value as Record<string, unknown>)[c.name.text])) return c.name.text;
  }
  return undefined;
}

/** The target of a plain function (one per function: see targetOf). */
export function plainTarget(fn: JsFunction): Target {
  if (!typescriptAvailable()) return stagedTarget(fn);
  const src = functionSource(fn as (...args: never[]) => unknown);
  if (!needsTracing(src)) return new TsTarget(src);
  checkTensorConditions(typescript(), src, (callee) => tensorOpCalled(src, callee));
  return stagedTarget(fn);
}
