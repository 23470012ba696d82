// Named passes and the standard compilation pipeline. Later stages (fusion beyond Fig. 7c, LICM, CSE, AD) add
// passes here; a pipeline is just a list, so `smooth dev --passes a,b,c` can build any sequence by name.

import { forwardAdPass } from "../ad/expand.js";
import { fail } from "../syntax/diagnostics.js";
import { inlineKeepingCustomPass, inlinePass } from "./inline.js";
import type { Pass, Pipeline } from "./pass.js";
import { simplifyPass } from "./simplify.js";
import { csePass } from "./cse.js";
import { licmPass } from "./licm.js";
import { sinkPass } from "./sink.js";
import { siblingsPass } from "./siblings.js";
import { optimisePass } from "./strategy.js";
import { dcePass } from "./dce.js";
import { chunkAccumulationsPass } from "./chunk-accumulations.js";

export const PASSES: Readonly<Record<string, Pass>> = {
  "forward-ad": forwardAdPass,
  inline: inlinePass,
  simplify: simplifyPass(),
  cse: csePass,
  licm: licmPass,
  sink: sinkPass,
  siblings: siblingsPass,
  dce: dcePass,
  optimise: optimisePass(),
  "inline-keep-custom": inlineKeepingCustomPass,
  "chunk-accumulations": chunkAccumulationsPass,
};

/**
 * What `compile` runs: derivatives expanded into ordinary IR (forward-ad), first-order IR (inline), then the
 * optimisation strategy (./strategy.ts: simplify, CSE, LICM, sinking, to a bounded fixpoint). A derivative written in
 * the program (`deriv`, `grad`, `jvp`, ...) is optimised as one requested from outside: the rules that take the
 * paper's assumption (the sign of a zero and the rounding of a sum do not matter) apply to forward mode's tangent
 * arithmetic wherever it is, and to nothing else (./rules/ring.ts).
 */
export const STANDARD_PIPELINE: Pipeline = [PASSES["forward-ad"]!, PASSES.inline!, PASSES.optimise!];

/**
 * For the derivative programs of an entry point (../api/derivative-programs.ts): the standard pipeline, then reverse
 * mode's heavy sweeps over a dataset cut into chunks that threads can run (./chunk-accumulations.ts). The chunks
 * change the order of a sum's additions, which is why the standard pipeline, whose sums may be primal values, does
 * not do it.
 */
export const DERIVATIVE_PIPELINE: Pipeline = [...STANDARD_PIPELINE, PASSES["chunk-accumulations"]!];

/**
 * The primal that reverse mode differentiates (../api/program.ts): first-order and optimised like STANDARD_PIPELINE's,
 * but with the calls of functions with custom derivative rules kept, for the reverse sweep to use their rules.
 * REVERSE_PRIMAL_REFERENCE is the interpreter's (not optimised).
 */
export const REVERSE_PRIMAL_PIPELINE: Pipeline = [
  PASSES["forward-ad"]!,
  PASSES["inline-keep-custom"]!,
  PASSES.optimise!,
];
export const REVERSE_PRIMAL_REFERENCE: Pipeline = [PASSES["forward-ad"]!, PASSES["inline-keep-custom"]!];

/** The pipeline named by a list such as `["inline", "simplify"]` (from the command line). */
export function pipelineFromNames(names: readonly string[]): Pipeline {
  return names.map((n) => {
    const pass = PASSES[n];
    if (pass === undefined) {
      fail("argument", `unknown pass \`${n}\``, undefined, {
        expected: `one of ${Object.keys(PASSES).join(", ")}`,
        found: n,
      });
    }
    return pass;
  });
}
