// A plain JavaScript function given to a transform. With the TypeScript compiler at hand, its source is read: a
// function that calls Smooth's tensor operations is traced (./staged.ts); any other is translated from its source
// (./ts-target.ts, the TypeScript subset). Without the compiler, every plain function is traced.

import * as tensorOps from "../staging/index.js";
import type { JsFunction } from "../staging/index.js";
import { functionSource } from "../tsfront/closure.js";
import { typescript, typescriptAvailable } from "../tsfront/compiler.js";
import type { FunctionSource } from "../tsfront/source.js";
import { stagedTarget } from "./staged.js";
import type { Target } from "./target.js";
import { TsTarget } from "./ts-target.js";

const OPS: ReadonlySet<unknown> = new Set(Object.values(tensorOps).filter((v) => typeof v === "function"));
const OP_NAMES: ReadonlySet<string> = new Set(
  Object.entries(tensorOps)
    .filter(([, v]) => typeof v === "function")
    .map(([k]) => k),
);

/** Does the function call a tensor operation (by its value where the closure can be read, else by its name)? */
function callsTensorOperations(src: FunctionSource): boolean {
  const ts = typescript();
  let found = false;
  const visit = (n: import("typescript").Node): void => {
    if (found) return;
    if (ts.isCallExpression(n) && ts.isIdentifier(n.expression)) {
      const name = n.expression.text;
      const r = src.scope.lookup(name);
      if (r?.k === "function" && r.value !== undefined ? OPS.has(r.value) : r === undefined && OP_NAMES.has(name))
        found = true;
    }
    ts.forEachChild(n, visit);
  };
  visit(src.node);
  return found;
}

/** The target of a plain function (one per function: see targetOf). */
export function plainTarget(fn: JsFunction): Target {
  if (!typescriptAvailable()) return stagedTarget(fn);
  const src = functionSource(fn as (...args: never[]) => unknown);
  return callsTensorOperations(src) ? stagedTarget(fn) : new TsTarget(src);
}
