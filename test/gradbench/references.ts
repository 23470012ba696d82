// Plain JavaScript references for the evals, written from the eval definitions (GradBench's evals/<name>/README.md),
// independent of Smooth: the tool's outputs are checked against these, and its derivatives against central
// differences of these primals or against closed forms.

export function lse(x: readonly number[]): number {
  const top = Math.max(...x);
  return top + Math.log(x.reduce((s, v) => s + Math.exp(v - top), 0));
}

export function llsq(x: readonly number[], n: number): number {
  let sum = 0;
  for (let i = 0; i < n; i++) {
    const t = -1 + (i * 2) / (n - 1);
    let r = Math.sign(t);
    for (let j = 0; j < x.length; j++) r -= x[j]! * t ** j;
    sum += r * r;
  }
  return sum / 2;
}

/** y(2) for y' = f(x, y), y(0) = 0, by s classical Runge-Kutta steps. */
export function ode(x: readonly number[], s: number): number[] {
  const n = x.length;
  const f = (y: readonly number[]) => y.map((_, i) => (i === 0 ? x[0]! : x[i]! * y[i - 1]!));
  const axpy = (y: readonly number[], a: number, k: readonly number[]) => y.map((v, i) => v + a * k[i]!);
  const h = 2 / s;
  let y: number[] = new Array<number>(n).fill(0);
  for (let step = 0; step < s; step++) {
    const k1 = f(y);
    const k2 = f(axpy(y, h / 2, k1));
    const k3 = f(axpy(y, h / 2, k2));
    const k4 = f(axpy(y, h, k3));
    y = y.map((v, i) => v + (h * (k1[i]! + 2 * k2[i]! + 2 * k3[i]! + k4[i]!)) / 6);
  }
  return y;
}

/** The determinant by Gaussian elimination with partial pivoting (a flat row-major ell-by-ell matrix). */
export function det(flatA: readonly number[], ell: number): number {
  const a = Array.from({ length: ell }, (_, i) => flatA.slice(i * ell, (i + 1) * ell));
  let d = 1;
  for (let c = 0; c < ell; c++) {
    let p = c;
    for (let r = c + 1; r < ell; r++) if (Math.abs(a[r]![c]!) > Math.abs(a[p]![c]!)) p = r;
    if (p !== c) {
      [a[p], a[c]] = [a[c]!, a[p]!];
      d = -d;
    }
    d *= a[c]![c]!;
    for (let r = c + 1; r < ell; r++) {
      const m = a[r]![c]! / a[c]![c]!;
      for (let k = c; k < ell; k++) a[r]![k]! -= m * a[c]![k]!;
    }
  }
  return d;
}

/** The gradient of the determinant, row-major: the cofactor matrix, each cofactor a determinant of order ell - 1. */
export function detGradient(flatA: readonly number[], ell: number): number[] {
  const out: number[] = [];
  for (let i = 0; i < ell; i++)
    for (let j = 0; j < ell; j++) {
      const minor: number[] = [];
      for (let r = 0; r < ell; r++)
        for (let c = 0; c < ell; c++) if (r !== i && c !== j) minor.push(flatA[r * ell + c]!);
      out.push((-1) ** (i + j) * (ell === 1 ? 1 : det(minor, ell - 1)));
    }
  return out;
}

const sqDist = (a: readonly number[], b: readonly number[]) => a.reduce((s, v, i) => s + (v - b[i]!) ** 2, 0);

/** The index of the nearest centroid of each point. */
function nearest(points: readonly number[][], centroids: readonly number[][]): number[] {
  return points.map((p) =>
    centroids.reduce((best, c, j) => (sqDist(p, c) < sqDist(p, centroids[best]!) ? j : best), 0),
  );
}

export function kmeansCost(points: readonly number[][], centroids: readonly number[][]): number {
  return points.reduce((s, p, i) => s + sqDist(p, centroids[nearest(points, centroids)[i]!]!), 0);
}

/**
 * J H^-1: the cost's gradient for centroid j is 2 sum (c_j - p) over its points, its Hessian diagonal 2 (number of
 * points), so the direction is c_j minus the mean of its points.
 */
export function kmeansDir(points: readonly number[][], centroids: readonly number[][]): number[][] {
  const owner = nearest(points, centroids);
  return centroids.map((c, j) => {
    const mine = points.filter((_, i) => owner[i] === j);
    return c.map((v, l) => v - mine.reduce((s, p) => s + p[l]!, 0) / mine.length);
  });
}

export interface GmmInput {
  readonly d: number;
  readonly k: number;
  readonly n: number;
  readonly alpha: number[];
  readonly mu: number[][];
  readonly q: number[][];
  readonly l: number[][];
  readonly x: number[][];
  readonly gamma: number;
  readonly m: number;
}

/** log Gamma(a) for a positive multiple of 1/2, exactly by Gamma(a + 1) = a Gamma(a) from Gamma(1) or Gamma(1/2). */
function logGammaOfHalves(a: number): number {
  let out = Number.isInteger(a) ? 0 : 0.5 * Math.log(Math.PI);
  for (let b = Number.isInteger(a) ? 1 : 0.5; b < a; b++) out += Math.log(b);
  return out;
}

/** GradBench's gmm objective: the log posterior, with the simplifications of evals/gmm/README.md. */
export function gmmLogPosterior(g: GmmInput): number {
  const { d, k, n, gamma, m } = g;
  // Q_k: diagonal exp(q_k), strict lower triangle l_k filled column by column.
  const Q = g.q.map((qk, c) => {
    const rows = Array.from({ length: d }, (_, r) =>
      Array.from({ length: d }, (_, j) => (r === j ? Math.exp(qk[r]!) : 0)),
    );
    let at = 0;
    for (let col = 0; col < d; col++) for (let r = col + 1; r < d; r++) rows[r]![col] = g.l[c]![at++]!;
    return rows;
  });
  const sumQ = g.q.map((qk) => qk.reduce((s, v) => s + v, 0));
  let likelihood = -n * ((d / 2) * Math.log(2 * Math.PI) + lse(g.alpha));
  for (const xi of g.x) {
    const beta = Q.map((Qk, c) => {
      const centred = xi.map((v, j) => v - g.mu[c]![j]!);
      const Qx = Qk.map((row) => row.reduce((s, v, j) => s + v * centred[j]!, 0));
      return g.alpha[c]! - 0.5 * Qx.reduce((s, v) => s + v * v, 0) + sumQ[c]!;
    });
    likelihood += lse(beta);
  }
  const nPrime = d + m + 1;
  let logMultiGamma = ((d * (d - 1)) / 4) * Math.log(Math.PI);
  for (let j = 1; j <= d; j++) logMultiGamma += logGammaOfHalves(nPrime / 2 + (1 - j) / 2);
  let prior = k * (nPrime * d * Math.log(gamma / Math.SQRT2) - logMultiGamma);
  for (let c = 0; c < k; c++) {
    const frobenius = Q[c]!.flat().reduce((s, v) => s + v * v, 0);
    prior += (-(gamma * gamma) / 2) * frobenius + m * sumQ[c]!;
  }
  return likelihood + prior;
}
