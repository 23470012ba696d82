// A bounded fixpoint driver: repeats a step until it changes nothing, or until a limit is hit, and says which.
// Rewriting can grow a program (fusion copies loop bodies), so a size limit stops it from running away.

import type { IrFunction } from "../ir/ir.js";
import { functionSize } from "../ir/free.js";

export type StopReason = "fixpoint" | "iteration-limit" | "size-limit";

export interface FixpointLimits {
  readonly maxIterations: number;
  /** Stop once the function has more nodes than this. */
  readonly maxSize: number;
}

export interface FixpointReport {
  readonly reason: StopReason;
  /** Steps run, including the last one (which changed nothing when the reason is "fixpoint"). */
  readonly iterations: number;
  /** How many times each named rule fired, over all steps. */
  readonly fired: Readonly<Record<string, number>>;
  /** Node count of the result. */
  readonly size: number;
}

/** One step: the new function, and how often each rule fired in it (nothing fired = fixpoint). */
export type FixpointStep = (fn: IrFunction) => { fn: IrFunction; fired: ReadonlyMap<string, number> };

export function runToFixpoint(
  fn: IrFunction,
  step: FixpointStep,
  limits: FixpointLimits,
): { fn: IrFunction; report: FixpointReport } {
  const fired: Record<string, number> = {};
  let size: number | undefined;
  const done = (reason: StopReason, iterations: number) => ({
    fn,
    report: { reason, iterations, fired, size: size ?? functionSize(fn) },
  });
  for (let i = 1; i <= limits.maxIterations; i++) {
    const r = step(fn);
    fn = r.fn;
    size = functionSize(fn);
    let changes = 0;
    for (const [name, n] of r.fired) {
      fired[name] = (fired[name] ?? 0) + n;
      changes += n;
    }
    if (changes === 0) return done("fixpoint", i);
    if (size > limits.maxSize) return done("size-limit", i);
  }
  return done("iteration-limit", limits.maxIterations);
}
