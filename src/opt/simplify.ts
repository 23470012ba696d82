// The simplifier: named rewrite rules run to a bounded fixpoint. Each iteration analyses uses, then sweeps the function
// once with the rules (../rewrite.ts), which also removes dead lets (./dce.ts) from each scope it finishes. It stops
// when an iteration changes nothing, or at the iteration or size limit, and reports which.

import type { IrFunction } from "../ir/ir.js";
import { functionSize } from "../ir/free.js";
import { runToFixpoint, type FixpointLimits, type FixpointReport } from "./fixpoint.js";
import { analyseUses } from "./occurrences.js";
import type { Pass } from "./pass.js";
import { Rewriter } from "./rewrite.js";
import { CONDITIONAL_RULES } from "./rules/conditional.js";
import { constantFold } from "./rules/fold.js";
import { fission, fissionInvariant } from "./rules/fission.js";
import { FUSION_RULES } from "./rules/fusion.js";
import { ITERATION_RULES } from "./rules/iteration.js";
import { RANGE_RULES } from "./rules/range.js";
import { onehotState } from "./rules/onehot-state.js";
import { invariantComponent, scatterBuild } from "./rules/loop-state.js";
import { constantStateLeaf } from "./rules/constant-leaf.js";
import { ifSelectAtom } from "./rules/select-atom.js";
import { unswitchNested } from "./rules/unswitch-nested.js";
import { caseSplitBuild } from "./rules/case-split.js";
import { projConstant } from "./rules/constant-component.js";
import { ringRules } from "./rules/ring.js";
import { addNegativeZero } from "./rules/update.js";
import { stopDerivativeOf } from "./rules/derivative-marks.js";
import { RuleSet, type AnyRule } from "./rules/rule.js";
import { projOfIf, projOfTuple, tupleEta } from "./rules/tuple.js";

/**
 * The rules of the simplifier (paper 000 Fig. 7 and the range facts), in the order they are tried for a node: folding
 * first, then what the facts decide, fusion, the ring rules, then the rules that restructure. Every rule is exact on
 * primal values; on forward mode's tangent arithmetic the ring rules also take the paper's assumption that the sign of
 * a zero and the rounding of a sum do not matter (./rules/ring.ts).
 */
export function simplifyRules(): AnyRule[] {
  return [
    constantFold,
    ...RANGE_RULES,
    ...FUSION_RULES,
    ...ringRules(),
    addNegativeZero,
    stopDerivativeOf,
    projOfTuple,
    projConstant,
    fission,
    projOfIf,
    tupleEta,
    ...CONDITIONAL_RULES,
    ifSelectAtom,
    ...ITERATION_RULES,
    onehotState,
    invariantComponent,
    constantStateLeaf,
    scatterBuild,
    fissionInvariant,
    unswitchNested,
    caseSplitBuild,
  ];
}

/** The rules, every one exact on primal values (they may only remove index and shape errors). */
export const SIMPLIFY_RULES: readonly AnyRule[] = simplifyRules();

/** Names of the rewrites the engine does itself (not rules of the list): they appear in reports too. */
export const STRUCTURAL_REWRITES = ["let-flatten", "copy-propagation", "let-tail", "dead-let"] as const;

export interface SimplifyOptions {
  readonly rules?: readonly AnyRule[];
  readonly maxIterations?: number;
  /** Node-count limit; by default 8 times the input's size (at least 100000). */
  readonly maxSize?: number;
}

export function simplify(fn: IrFunction, opts: SimplifyOptions = {}): { fn: IrFunction; report: FixpointReport } {
  const rules = new RuleSet(opts.rules ?? SIMPLIFY_RULES);
  const limits: FixpointLimits = {
    maxIterations: opts.maxIterations ?? 32,
    maxSize: opts.maxSize ?? Math.max(100_000, 8 * functionSize(fn)),
  };
  return runToFixpoint(
    fn,
    (f) => {
      // The rewriter removes dead lets as it finishes each scope, the function's own included.
      const rw = new Rewriter(rules, analyseUses(f.body), new Map());
      return { fn: { ...f, body: rw.body(f.body) }, fired: rw.fired };
    },
    limits,
  );
}

/** The simplifier as a pass; `onReport` receives each run's report (for `smooth dev` and tests). */
export function simplifyPass(opts: SimplifyOptions & { onReport?: (r: FixpointReport) => void } = {}): Pass {
  return {
    name: "simplify",
    run(fn) {
      const { fn: out, report } = simplify(fn, opts);
      opts.onReport?.(report);
      return out;
    },
  };
}
