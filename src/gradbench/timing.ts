// How often an evaluate message runs its function, and the timings reported for it. The protocol asks for at least
// `min_runs` runs and at least `min_seconds` of accumulated run time, whichever takes longer, with one "evaluate"
// timing per run. Only the run itself is timed: decoding the JSON and converting the input happen before, encoding
// the output after.

import { GradbenchError } from "./eval-module.js";

export interface Runs {
  readonly minRuns: number;
  readonly minSeconds: number;
}

export interface Timing {
  readonly name: string;
  readonly nanoseconds: number;
}

/**
 * The most runs one evaluate message may ask for, and make: each is a timing in the response (some 40 bytes of JSON),
 * and `min_seconds` of a function that takes a microsecond would otherwise make billions.
 */
export const MAX_RUNS = 1_000_000;

/** The longest `min_seconds` one evaluate message may ask for: an hour. */
export const MAX_SECONDS = 3600;

/** One run and no minimum time: for inputs without `min_runs` / `min_seconds` (the hello eval's bare numbers). */
export const ONE_RUN: Runs = { minRuns: 1, minSeconds: 0 };

/** The run counts of an evaluate message's input; absent fields default to one run and no minimum time. */
export function runsOf(input: unknown): Runs {
  if (typeof input !== "object" || input === null || Array.isArray(input)) return ONE_RUN;
  const fields = input as { readonly min_runs?: unknown; readonly min_seconds?: unknown };
  const minRuns = fields.min_runs ?? 1;
  const minSeconds = fields.min_seconds ?? 0;
  if (typeof minRuns !== "number" || !Number.isInteger(minRuns) || minRuns < 0 || minRuns > MAX_RUNS)
    throw new GradbenchError(`min_runs must be an integer from 0 to ${MAX_RUNS}, got ${shown(minRuns)}`);
  if (typeof minSeconds !== "number" || !Number.isFinite(minSeconds) || minSeconds < 0 || minSeconds > MAX_SECONDS)
    throw new GradbenchError(`min_seconds must be a number from 0 to ${MAX_SECONDS}, got ${shown(minSeconds)}`);
  // At least one run, so that there is an output to report.
  return { minRuns: Math.max(1, minRuns), minSeconds };
}

/** A field's value for messages (a number too large for a double reads as Infinity, which JSON writes as null). */
const shown = (x: unknown): string => (typeof x === "number" && !Number.isFinite(x) ? String(x) : JSON.stringify(x));

/** Runs `run` until both minimums are met, or MAX_RUNS runs; one "evaluate" timing per run, in nanoseconds. */
export function timeRuns(run: () => void, runs: Runs, clock: () => bigint = () => process.hrtime.bigint()): Timing[] {
  const timings: Timing[] = [];
  const minNanoseconds = BigInt(Math.ceil(runs.minSeconds * 1e9));
  let total = 0n;
  while ((timings.length < runs.minRuns || total < minNanoseconds) && timings.length < MAX_RUNS) {
    const start = clock();
    run();
    const elapsed = clock() - start;
    total += elapsed;
    timings.push({ name: "evaluate", nanoseconds: Number(elapsed) });
  }
  return timings;
}
