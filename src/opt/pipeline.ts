// Named passes and the standard compilation pipeline. Later stages (fusion beyond Fig. 7c, LICM, CSE, AD) add
// passes here; a pipeline is just a list, so `smooth dev --passes a,b,c` can build any sequence by name.

import { fail } from "../syntax/diagnostics.js";
import { inlinePass } from "./inline.js";
import type { Pass, Pipeline } from "./pass.js";
import { simplifyPass } from "./simplify.js";

export const PASSES: Readonly<Record<string, Pass>> = {
  inline: inlinePass,
  simplify: simplifyPass(),
};

/** What `compile` runs: first-order IR (inline), then the simplifier (partial evaluation, folding, fusion, DCE). */
export const STANDARD_PIPELINE: Pipeline = [PASSES.inline!, PASSES.simplify!];

/** The pipeline named by a list such as `["inline", "simplify"]` (from the command line). */
export function pipelineFromNames(names: readonly string[]): Pipeline {
  return names.map((n) => {
    const pass = PASSES[n];
    if (pass === undefined) {
      fail("argument", `unknown pass \`${n}\``, undefined, { expected: `one of ${Object.keys(PASSES).join(", ")}`, found: n });
    }
    return pass;
  });
}
