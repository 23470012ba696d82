// The reference interpreter as a back end (src/backends/backend.ts): it runs the lowered, unoptimised program, so
// that comparing it with a compiled back end tests the optimiser and the code generator together against the
// semantics. Derivative nodes (`jvp`) are expanded first: differentiation is a program transformation, and the
// interpreter runs programs.

import type { Backend } from "../backends/backend.js";
import { forwardAdPass } from "../ad/expand.js";
import { someNode } from "../ir/free.js";
import { runPipeline } from "../opt/pass.js";
import type { Value } from "../runtime/value.js";
import { runFunction } from "./interpreter.js";

export const INTERP_BACKEND = {
  name: "interp",
  description: "reference interpreter",
  input: "lowered",
  compile(lowered) {
    // In the entry or in one of the program's (recursive) functions.
    const hasJvp = [lowered, ...(lowered.functions ?? [])].some((f) => someNode(f.body, (e) => e.kind === "jvp"));
    const reference = hasJvp ? runPipeline(lowered, [forwardAdPass]) : lowered;
    const run = (args: readonly Value[]) => runFunction(reference, args);
    return { run, runBorrowed: run };
  },
} as const satisfies Backend;
