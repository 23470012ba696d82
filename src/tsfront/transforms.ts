import type { Env, Fn } from "./context.js";
import type { Node } from "./syntax.js";
import type { FnVal, Lets, Val } from "./values.js";

export function applyTransform(
  fn: Fn,
  f: FnVal,
  args: readonly (Val | undefined)[],
  env: Env,
  lets: Lets,
  call: Node,
): Val {
  return fn.fail(call, "todo");
}
