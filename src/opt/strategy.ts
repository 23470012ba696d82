// The optimisation strategy: one fixed sequence of passes, repeated until a round changes nothing (a bounded
// fixpoint that says why it stopped, like the simplifier's own):
//
//   simplify (every rule of Fig. 7 and the range facts, to its fixpoint, dead lets removed)
//   -> cse (equal right-hand sides in scope become one)
//   -> licm (invariants leave loops)
//   -> sink (lets move into the one branch that uses them)
//   -> materialise (a transcendental element computed in several loops over n becomes one array)
//   -> siblings (two loops over the same count that share work become one loop)
//
// No per-program choices: the order is what lets each stage feed the next. Fusion and fission need the uses of a value
// where it is computed, so they run before code motion moves anything; CSE makes equal sizes one variable for the
// range facts; LICM takes the primal computation out of the builds of a vectorised derivative; sinking leaves a loop
// body as `if i = j then ... else a`, which the iteration rules (single access, unswitching) recognise in the next
// round.

import { functionSize } from "../ir/free.js";
import type { IrFunction } from "../ir/ir.js";
import { verify } from "../ir/verify.js";
import { eliminateCommonSubexpressions } from "./cse.js";
import type { StopReason } from "./fixpoint.js";
import { hoistInvariants } from "./licm.js";
import { materialiseShared } from "./materialise.js";
import type { Pass } from "./pass.js";
import type { AnyRule } from "./rules/rule.js";
import { simplify, simplifyRules } from "./simplify.js";
import { fuseSiblings } from "./siblings.js";
import { sinkLets } from "./sink.js";
import { timed } from "./stage-times.js";

export interface StrategyOptions {
  /** Also the rules exact only for finite Doubles (paper 000's assumption; ./rules/ring.ts). Default false. */
  readonly assumeFinite?: boolean;
  /** The rules, instead of simplifyRules(assumeFinite). */
  readonly rules?: readonly AnyRule[];
  readonly maxRounds?: number;
  /** Node-count limit; by default 8 times the input's size (at least 100000). */
  readonly maxSize?: number;
  /** Check the IR invariants after every step (tests do); a violation names the step and the round. */
  readonly verify?: boolean;
}

export interface StrategyReport {
  readonly reason: StopReason;
  readonly rounds: number;
  /** How many times each rule and pass step fired, over all rounds ("cse", "licm" and "sink" count their moves). */
  readonly fired: Readonly<Record<string, number>>;
  readonly size: number;
}

export function optimise(fn: IrFunction, opts: StrategyOptions = {}): { fn: IrFunction; report: StrategyReport } {
  const maxRounds = opts.maxRounds ?? 16;
  const maxSize = opts.maxSize ?? Math.max(100_000, 8 * functionSize(fn));
  const rules = opts.rules ?? simplifyRules(opts.assumeFinite ?? false);
  const fired: Record<string, number> = {};
  const add = (name: string, n: number) => {
    if (n > 0) fired[name] = (fired[name] ?? 0) + n;
  };
  const check = (f: IrFunction, step: string, round: number): IrFunction => {
    if (!opts.verify) return f;
    try {
      verify(f);
    } catch (e) {
      throw new Error(`optimise: after ${step} in round ${round}: ${e instanceof Error ? e.message : String(e)}`, {
        cause: e,
      });
    }
    return f;
  };
  const done = (reason: StopReason, rounds: number) => ({
    fn,
    report: { reason, rounds, fired, size: functionSize(fn) },
  });
  for (let round = 1; round <= maxRounds; round++) {
    let changes = 0;
    const input = fn;
    const s = timed("simplify", () => simplify(input, { rules, maxSize }));
    fn = check(s.fn, "simplify", round);
    for (const [name, n] of Object.entries(s.report.fired)) {
      add(name, n);
      changes += n;
    }
    if (s.report.reason === "size-limit") return done("size-limit", round);
    const simplified = fn;
    const c = timed("cse", () => eliminateCommonSubexpressions(simplified));
    const l = timed("licm", () => hoistInvariants(check(c.fn, "cse", round)));
    const k = timed("sink", () => sinkLets(check(l.fn, "licm", round)));
    const z = timed("materialise", () => materialiseShared(check(k.fn, "sink", round)));
    const f = timed("siblings", () => fuseSiblings(check(z.fn, "materialise", round)));
    fn = check(f.fn, "siblings", round);
    add("materialise", z.materialised);
    add("siblings", f.fused);
    changes += z.materialised + f.fused;
    add("cse", c.replaced);
    add("licm", l.hoisted);
    add("sink", k.sunk);
    changes += c.replaced + l.hoisted + k.sunk;
    if (changes === 0) return done("fixpoint", round);
    if (functionSize(fn) > maxSize) return done("size-limit", round);
  }
  return done("iteration-limit", maxRounds);
}

/** The strategy as a pass; `onReport` receives each run's report (for `smooth dev` and tests). */
export function optimisePass(opts: StrategyOptions & { onReport?: (r: StrategyReport) => void } = {}): Pass {
  return {
    name: opts.assumeFinite ? "optimise-finite" : "optimise",
    run(fn) {
      const { fn: out, report } = optimise(fn, opts);
      opts.onReport?.(report);
      return out;
    },
  };
}
