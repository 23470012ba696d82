// Calls of the program's first-order functions in the interpreter: a call evaluates its arguments, binds them to the
// function's parameters in a fresh environment and runs the body. A call in tail position of that body
// (./interpreter.ts `evalTail`) is made by the same loop, so tail recursion (a recursive loop) needs no JS stack. Other
// nested calls are counted: past MAX_CALL_DEPTH the call is a located "recursion" error instead of a JavaScript stack
// overflow (the interpreter is the reference, not a runtime; compiled code allows far more, ../runtime/limits.ts).
// Each nested call takes a few large interpreter frames (about 1,100 fit in Node's default stack for a small body): a
// body nesting loops and branches deeply may exhaust the JS stack first, which is reported as the same error at the
// call that could not be made.

import type { Call, IrFunction } from "../ir/ir.js";
import { fail } from "../syntax/diagnostics.js";
import { MAX_CALL_DEPTH_COMPILED } from "../runtime/limits.js";
import type { Value } from "../runtime/value.js";
import { evalAtom, evalTail, type Env } from "./interpreter.js";

/** How many nested non-tail calls the interpreter makes (far below what the JS stack holds for its frames). */
export const MAX_CALL_DEPTH = 1000;

let functions: ReadonlyMap<string, IrFunction> = new Map();
let depth = 0;
let deepest = 0;
let overflowed = false;

/** Runs `body` with `fns` as the functions calls refer to (restored afterwards: runs may nest). */
export function withFunctions<T>(fns: readonly IrFunction[] | undefined, body: () => T): T {
  if (fns === undefined || fns.length === 0) return body();
  const [savedFunctions, savedDepth] = [functions, depth];
  functions = new Map(fns.map((f) => [f.name, f]));
  depth = 0;
  try {
    return body();
  } finally {
    functions = savedFunctions;
    depth = savedDepth;
  }
}

export function callFunction(call: Call, env: Env): Value {
  if (depth >= MAX_CALL_DEPTH) {
    fail("recursion", `recursion deeper than ${MAX_CALL_DEPTH} calls in the interpreter`, call.span, {
      hint: `compiled code (--engine js) allows ${MAX_CALL_DEPTH_COMPILED} pending calls; the interpreter runs only tail calls without a limit`,
    });
  }
  depth++;
  deepest = Math.max(deepest, depth);
  try {
    let next: Call = call;
    let args = next.args.map((a) => evalAtom(a, env));
    for (;;) {
      const fn = functions.get(next.fn);
      if (fn === undefined) throw new Error(`interpreter: call of an unknown function ${next.fn}`);
      const frame: Env = new Map();
      fn.params.forEach((p, i) => frame.set(p.id, args[i]!));
      const result = evalTail(fn.body, frame);
      if (!(typeof result === "object" && "kind" in result)) return result;
      next = result;
      args = next.args.map((a) => evalAtom(a, frame));
    }
  } catch (e) {
    // Out of stack: nothing more is done down there (even building a message needs stack); the outermost call reports.
    if (e instanceof RangeError) overflowed = true;
    if (!overflowed || depth > 1) throw e;
    overflowed = false;
    return fail(
      "recursion",
      `recursion deeper than the interpreter's stack allows (${deepest} nested calls)`,
      call.span,
      {
        hint: `compiled code (--engine js) allows ${MAX_CALL_DEPTH_COMPILED} pending calls; the interpreter ${MAX_CALL_DEPTH} at most`,
      },
    );
  } finally {
    depth--;
    if (depth === 0) deepest = 0;
  }
}
