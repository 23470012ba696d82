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
  /** The rules, instead of simplifyRules(). */
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
  const rules = opts.rules ?? simplifyRules();
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
  /** One round on `input`: its result, and the changes made by simplify and by the steps after it. */
  const runRound = (input: IrFunction, round: number) => {
    const s = timed("simplify", () => simplify(input, { rules, maxSize }));
    const simplified = check(s.fn, "simplify", round);
    const c = timed("cse", () => eliminateCommonSubexpressions(simplified));
    const l = timed("licm", () => hoistInvariants(check(c.fn, "cse", round)));
    const k = timed("sink", () => sinkLets(check(l.fn, "licm", round)));
    const z = timed("materialise", () => materialiseShared(check(k.fn, "sink", round)));
    const f = timed("siblings", () => fuseSiblings(check(z.fn, "materialise", round)));
    const moved = { materialise: z.materialised, siblings: f.fused, cse: c.replaced, licm: l.hoisted, sink: k.sunk };
    return { s, fn: check(f.fn, "siblings", round), moved };
  };
  for (let round = 1; round <= maxRounds; round++) {
    const r = runRound(fn, round);
    let changes = 0;
    for (const [name, n] of Object.entries(r.s.report.fired)) {
      add(name, n);
      changes += n;
    }
    if (r.s.report.reason === "size-limit") {
      fn = r.s.fn;
      return done("size-limit", round);
    }
    fn = r.fn;
    let moves = 0;
    for (const [name, n] of Object.entries(r.moved)) {
      add(name, n);
      moves += n;
    }
    changes += moves;
    if (changes === 0) return done("fixpoint", round);
    if (functionSize(fn) > maxSize) return done("size-limit", round);
    // Only simplify changed anything, and it ended at its own fixpoint: the next round would start from a fixpoint
    // of simplify and give the later steps the program they have just left as it was, so it would change nothing.
    // Stopping here saves that round (a quarter of the optimiser's time on ht's Jacobian). Tests (verify) run it
    // anyway and fail if it changes something. (At the round limit the report says so, as it always has.)
    if (moves === 0 && r.s.report.reason === "fixpoint" && round < maxRounds) {
      if (opts.verify) confirmFixpoint(runRound(fn, round + 1), round);
      return done("fixpoint", round);
    }
  }
  return done("iteration-limit", maxRounds);
}

/** Fails unless `next`, the round after an early stop, changed nothing. */
function confirmFixpoint(
  next: { s: { report: { fired: Readonly<Record<string, number>> } }; moved: Record<string, number> },
  round: number,
): void {
  const changed = [...Object.entries(next.s.report.fired), ...Object.entries(next.moved)].filter(([, n]) => n > 0);
  if (changed.length > 0)
    throw new Error(
      `optimise: stopped after round ${round}, but the next round changes it: ${changed.map(([k, n]) => `${k} ${n}`).join(", ")}`,
    );
}

/** The strategy as a pass; `onReport` receives each run's report (for `smooth dev` and tests). */
export function optimisePass(opts: StrategyOptions & { onReport?: (r: StrategyReport) => void } = {}): Pass {
  return {
    name: "optimise",
    run(fn) {
      const { fn: out, report } = optimise(fn, opts);
      opts.onReport?.(report);
      return out;
    },
  };
}
