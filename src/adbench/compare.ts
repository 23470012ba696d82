// Comparing results with ADBench references, by the error measure both ADBench and GradBench use.

/** rho(x, y) = |x - y| / max(1, |x| + |y|): absolute error for small values, relative error for large ones. */
export function rho(x: number, y: number): number {
  return Math.abs(x - y) / Math.max(1, Math.abs(x) + Math.abs(y));
}

/** The largest rho over corresponding elements; the vectors must have the same length. */
export function maxRho(xs: readonly number[], ys: readonly number[]): number {
  if (xs.length !== ys.length) throw new Error(`maxRho: lengths differ (${xs.length} and ${ys.length})`);
  return xs.reduce((worst, x, i) => Math.max(worst, rho(x, ys[i]!)), 0);
}

/** The numbers of a nested JSON array, in row-major order (a number is itself). */
export function flattenJson(json: unknown): number[] {
  if (Array.isArray(json)) return json.flatMap(flattenJson);
  if (typeof json !== "number") throw new Error(`flattenJson: not a number: ${JSON.stringify(json)}`);
  return [json];
}
