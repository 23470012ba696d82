// A plain JavaScript function given to a transform: a TypeScript function over tensors, traced (./staged.ts).

import type { JsFunction } from "../staging/index.js";
import { stagedTarget } from "./staged.js";
import type { Target } from "./target.js";

/** The target of a plain function (one per function: see targetOf). */
export function plainTarget(fn: JsFunction): Target {
  return stagedTarget(fn);
}
