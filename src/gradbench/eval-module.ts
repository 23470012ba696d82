// The contract between the GradBench protocol loop and each eval: an eval compiles its Smooth program once
// (define), then turns each evaluate message into a prepared call whose run() is the only timed work.

/** One call prepared: input converted (untimed); run() does the timed work; output() is the JSON of the last run. */
export interface PreparedCall {
  run(): void;
  output(): unknown;
}
export interface EvalModule {
  readonly name: string; // the eval's module name, e.g. "gmm"
  readonly functions: readonly string[]; // e.g. ["objective", "jacobian"]
  define(): void; // load + compile everything (untimed); throws on failure
  prepare(fn: string, input: unknown): PreparedCall; // throws GradbenchError (clear message) on unknown fn / bad input
}
export class GradbenchError extends Error {}
