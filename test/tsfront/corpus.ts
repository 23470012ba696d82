// Ordinary TypeScript functions, written as TypeScript users write them (no Smooth in sight): the corpus the TypeScript
// front end is measured on (test/tsfront/corpus.test.ts: values equal the functions' own, gradients equal central
// differences of the functions themselves; bench/tsfront.bench.mjs: speed against hand-written gradients).

const G = 9.81;
const DRAG = 0.05;

/** A projectile with quadratic drag, integrated by explicit Euler steps: the squared miss distance to a target. */
export function projectileMiss(v0: Float64Array, target: number, steps: number): number {
  let x = 0;
  let y = 0;
  let vx = v0[0]!;
  let vy = v0[1]!;
  const dt = 0.01;
  for (let i = 0; i < steps; i++) {
    const speed = Math.sqrt(vx * vx + vy * vy);
    vx -= DRAG * speed * vx * dt;
    vy -= (G + DRAG * speed * vy) * dt;
    x += vx * dt;
    y += vy * dt;
  }
  return (x - target) ** 2 + y * y;
}

/** Cross-entropy of a softmax, with the maximum subtracted for stability. */
export function softmaxCrossEntropy(logits: Float64Array, label: number): number {
  let max = -Infinity;
  for (let i = 0; i < logits.length; i++) max = Math.max(max, logits[i]!);
  let total = 0;
  for (let i = 0; i < logits.length; i++) total += Math.exp(logits[i]! - max);
  return Math.log(total) + max - logits[label]!;
}

function sigmoid(x: number): number {
  return 1 / (1 + Math.exp(-x));
}

/**
 * One LSTM cell over Float64Arrays: weights W (4h × (n + h), row-major), bias b (4h), input x (n), state h and c (h);
 * returns the sum of the new hidden state and cell (a scalar to differentiate).
 */
export function lstmCell(W: Float64Array, b: Float64Array, x: Float64Array, h: Float64Array, c: Float64Array): number {
  const n = x.length;
  const m = h.length;
  const gates = new Float64Array(4 * m);
  for (let r = 0; r < 4 * m; r++) {
    let s = b[r]!;
    for (let j = 0; j < n; j++) s += W[r * (n + m) + j]! * x[j]!;
    for (let j = 0; j < m; j++) s += W[r * (n + m) + n + j]! * h[j]!;
    gates[r] = s;
  }
  let out = 0;
  for (let k = 0; k < m; k++) {
    const input = sigmoid(gates[k]!);
    const forget = sigmoid(gates[m + k]!);
    const output = sigmoid(gates[2 * m + k]!);
    const candidate = Math.tanh(gates[3 * m + k]!);
    const cell = forget * c[k]! + input * candidate;
    out += output * Math.tanh(cell) + cell;
  }
  return out;
}

/** A polynomial by Horner's rule. */
export function horner(coefficients: Float64Array, x: number): number {
  let acc = 0;
  for (let i = coefficients.length - 1; i >= 0; i--) acc = acc * x + coefficients[i]!;
  return acc;
}

/** The Rosenbrock function in n dimensions. */
export function rosenbrock(x: Float64Array): number {
  let sum = 0;
  for (let i = 0; i < x.length - 1; i++) {
    const a = x[i + 1]! - x[i]! * x[i]!;
    const b = 1 - x[i]!;
    sum += 100 * a * a + b * b;
  }
  return sum;
}

/** Linear interpolation in a sorted table, the interval found by a binary search (a fixed number of halvings). */
export function interpolate(xs: Float64Array, ys: Float64Array, x: number): number {
  let lo = 0;
  let hi = xs.length - 1;
  for (let step = 0; step < 32; step++) {
    if (hi - lo <= 1) break;
    const mid = Math.floor((lo + hi) / 2);
    if (xs[mid]! <= x) lo = mid;
    else hi = mid;
  }
  const t = (x - xs[lo]!) / (xs[hi]! - xs[lo]!);
  return ys[lo]! * (1 - t) + ys[hi]! * t;
}

/** Prefix sums written into a local array, then weighted. */
export function weightedPrefixSums(x: Float64Array, w: Float64Array): number {
  const prefix = new Float64Array(x.length);
  let running = 0;
  for (let i = 0; i < x.length; i++) {
    running += x[i]!;
    prefix[i] = running;
  }
  let total = 0;
  for (let i = 0; i < prefix.length; i++) total += w[i]! * prefix[i]! * prefix[i]!;
  return total;
}

export function logSumExp(x: Float64Array): number {
  const m = Math.max(...x);
  return m + Math.log(x.reduce((s, v) => s + Math.exp(v - m), 0));
}

/** A matrix (rows of numbers) times a vector, then the squared norm. */
export function matVecNorm(A: number[][], v: Float64Array): number {
  let total = 0;
  for (let i = 0; i < A.length; i++) {
    let s = 0;
    for (let j = 0; j < v.length; j++) s += A[i]![j]! * v[j]!;
    total += s * s;
  }
  return total;
}

interface Linear {
  w: Float64Array;
  b: number;
}

/** Mean squared error of a linear model over a data set. */
export function linearMse(model: Linear, X: number[][], y: Float64Array): number {
  let loss = 0;
  for (let i = 0; i < X.length; i++) {
    let prediction = model.b;
    for (let j = 0; j < model.w.length; j++) prediction += model.w[j]! * X[i]![j]!;
    const r = prediction - y[i]!;
    loss += r * r;
  }
  return loss / X.length;
}

/** Logistic regression's negative log-likelihood, with a stable log(1 + e^z). */
export function logisticLoss(model: Linear, X: number[][], y: Float64Array): number {
  let total = 0;
  for (let i = 0; i < X.length; i++) {
    let z = model.b;
    for (let j = 0; j < model.w.length; j++) z += model.w[j]! * X[i]![j]!;
    const softplus = z > 0 ? z + Math.log(1 + Math.exp(-z)) : Math.log(1 + Math.exp(z));
    total += softplus - y[i]! * z;
  }
  return total;
}

/** A piecewise function: if / else if / else. */
export function piecewise(x: number, a: number): number {
  if (x < -1) return a * (x + 1) - 1;
  else if (x < 1) return (a * x * x * x) / 3 + x;
  else return Math.sqrt(x) * a + 2 * x;
}

/** The log-likelihood of samples under a normal distribution. */
export function gaussianLogLikelihood(samples: Float64Array, mu: number, logSigma: number): number {
  const sigma = Math.exp(logSigma);
  let ll = 0;
  for (const s of samples) {
    const z = (s - mu) / sigma;
    ll += -0.5 * z * z - logSigma - 0.5 * Math.log(2 * Math.PI);
  }
  return ll;
}

/** The Huber loss of residuals. */
export function huber(residuals: Float64Array, delta: number): number {
  let loss = 0;
  residuals.forEach((r) => {
    const a = Math.abs(r);
    loss += a <= delta ? 0.5 * r * r : delta * (a - 0.5 * delta);
  });
  return loss;
}

/** The energy of a chain of springs between consecutive masses. */
export function springChainEnergy(positions: Float64Array, stiffness: number, rest: number): number {
  let energy = 0;
  for (let i = 1; i < positions.length; i++) {
    const stretch = positions[i]! - positions[i - 1]! - rest;
    energy += 0.5 * stiffness * stretch * stretch;
  }
  return energy;
}

/** The gravitational potential energy of bodies in the plane (each pair once), softened. */
export function nBodyEnergy(x: Float64Array, y: Float64Array, mass: Float64Array): number {
  let energy = 0;
  for (let i = 0; i < x.length; i++)
    for (let j = i + 1; j < x.length; j++) {
      const dx = x[i]! - x[j]!;
      const dy = y[i]! - y[j]!;
      energy -= (mass[i]! * mass[j]!) / Math.sqrt(dx * dx + dy * dy + 0.01);
    }
  return energy;
}

/** The trapezoid rule for the integral of a * exp(-b t²) over [0, 1], with a local function. */
export function trapezoid(a: number, b: number, n: number): number {
  const f = (t: number) => a * Math.exp(-b * t * t);
  const h = 1 / n;
  let sum = 0.5 * (f(0) + f(1));
  for (let i = 1; i < n; i++) sum += f(i * h);
  return sum * h;
}

function pendulumAcceleration(theta: number, length: number): number {
  return (-G / length) * Math.sin(theta);
}

/** A pendulum integrated by RK4 steps (a helper function called per stage); the final angle. */
export function pendulumRk4(theta0: number, omega0: number, length: number, steps: number): number {
  let theta = theta0;
  let omega = omega0;
  const dt = 0.01;
  for (let i = 0; i < steps; i++) {
    const k1t = omega;
    const k1w = pendulumAcceleration(theta, length);
    const k2t = omega + 0.5 * dt * k1w;
    const k2w = pendulumAcceleration(theta + 0.5 * dt * k1t, length);
    const k3t = omega + 0.5 * dt * k2w;
    const k3w = pendulumAcceleration(theta + 0.5 * dt * k2t, length);
    const k4t = omega + dt * k3w;
    const k4w = pendulumAcceleration(theta + dt * k3t, length);
    theta += (dt / 6) * (k1t + 2 * k2t + 2 * k3t + k4t);
    omega += (dt / 6) * (k1w + 2 * k2w + 2 * k3w + k4w);
  }
  return theta;
}

/** A moving average (window 3) written into a local array, then its squared sum. */
export function movingAverage(x: Float64Array): number {
  const smooth = new Float64Array(x.length - 2);
  for (let i = 1; i < x.length - 1; i++) smooth[i - 1] = (x[i - 1]! + x[i]! + x[i + 1]!) / 3;
  return smooth.reduce((s, v) => s + v * v, 0);
}

/** A Catmull-Rom spline through four points, evaluated at t. */
export function catmullRom(p: Float64Array, t: number): number {
  const t2 = t * t;
  const t3 = t2 * t;
  return (
    0.5 *
    (2 * p[1]! +
      (-p[0]! + p[2]!) * t +
      (2 * p[0]! - 5 * p[1]! + 4 * p[2]! - p[3]!) * t2 +
      (-p[0]! + 3 * p[1]! - 3 * p[2]! + p[3]!) * t3)
  );
}

/** A polynomial fit's squared error, with map and reduce. */
export function polyFitError(coefficients: number[], xs: number[], ys: number[]): number {
  const predictions = xs.map((x) => coefficients.reduce((acc, c, k) => acc + c * x ** k, 0));
  return predictions.reduce((s, p, i) => s + (p - ys[i]!) ** 2, 0);
}

/** Ridge regression: squared error plus an L2 penalty, with map and reduce. */
export function ridge(w: Float64Array, X: Float64Array[], y: Float64Array, lambda: number): number {
  const residuals = X.map((row, i) => row.reduce((s, v, j) => s + v * w[j]!, 0) - y[i]!);
  const penalty = w.reduce((s, v) => s + v * v, 0);
  return residuals.reduce((s, r) => s + r * r, 0) + lambda * penalty;
}

interface Mlp {
  W1: number[][];
  b1: number[];
  W2: number[];
  b2: number;
}

/** A two-layer perceptron's squared error on one example. */
export function mlpLoss(p: Mlp, x: number[], target: number): number {
  let out = p.b2;
  for (let i = 0; i < p.W1.length; i++) {
    let z = p.b1[i]!;
    for (let j = 0; j < x.length; j++) z += p.W1[i]![j]! * x[j]!;
    out += p.W2[i]! * Math.tanh(z);
  }
  return (out - target) ** 2;
}

export function cosineSimilarity(a: Float64Array, b: Float64Array): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i]! * b[i]!;
    na += a[i]! * a[i]!;
    nb += b[i]! * b[i]!;
  }
  return dot / Math.sqrt(na * nb);
}

export function geometricMean(x: Float64Array): number {
  let logSum = 0;
  for (let i = 0; i < x.length; i++) logSum += Math.log(x[i]!);
  return Math.exp(logSum / x.length);
}

/** A tanh RNN unrolled over a sequence; the state is a local array replaced each step. */
export function rnnFinalState(Wh: Float64Array, Wx: Float64Array, xs: Float64Array, hidden: number): number {
  let h = new Float64Array(hidden);
  for (let t = 0; t < xs.length; t++) {
    const next = new Float64Array(hidden);
    for (let i = 0; i < hidden; i++) {
      let s = Wx[i]! * xs[t]!;
      for (let j = 0; j < hidden; j++) s += Wh[i * hidden + j]! * h[j]!;
      next[i] = Math.tanh(s);
    }
    h = next;
  }
  let total = 0;
  for (let i = 0; i < hidden; i++) total += h[i]!;
  return total;
}

/** The energy of a chain of pendulums (angles and angular velocities). */
export function pendulumChainEnergy(theta: Float64Array, omega: Float64Array, length: number): number {
  let kinetic = 0;
  let potential = 0;
  let height = 0;
  for (let i = 0; i < theta.length; i++) {
    height -= length * Math.cos(theta[i]!);
    potential += G * height;
    kinetic += 0.5 * length * length * omega[i]! * omega[i]!;
  }
  return kinetic + potential;
}

/** The error function by Abramowitz and Stegun's approximation (7.1.26). */
function erf(x: number): number {
  const sign = x < 0 ? -1 : 1;
  const a = Math.abs(x);
  const t = 1 / (1 + 0.3275911 * a);
  const y =
    1 -
    ((((1.061405429 * t - 1.453152027) * t + 1.421413741) * t - 0.284496736) * t + 0.254829592) * t * Math.exp(-a * a);
  return sign * y;
}

/** The Black-Scholes price of a European call. */
export function blackScholesCall(spot: number, strike: number, rate: number, vol: number, time: number): number {
  const d1 = (Math.log(spot / strike) + (rate + 0.5 * vol * vol) * time) / (vol * Math.sqrt(time));
  const d2 = d1 - vol * Math.sqrt(time);
  const cdf = (z: number) => 0.5 * (1 + erf(z / Math.SQRT2));
  return spot * cdf(d1) - strike * Math.exp(-rate * time) * cdf(d2);
}

/** The length of a cubic Bézier curve by a polyline of n segments. */
export function bezierLength(px: Float64Array, py: Float64Array, n: number): number {
  let length = 0;
  let prevX = px[0]!;
  let prevY = py[0]!;
  for (let k = 1; k <= n; k++) {
    const t = k / n;
    const u = 1 - t;
    const x = u * u * u * px[0]! + 3 * u * u * t * px[1]! + 3 * u * t * t * px[2]! + t * t * t * px[3]!;
    const y = u * u * u * py[0]! + 3 * u * u * t * py[1]! + 3 * u * t * t * py[2]! + t * t * t * py[3]!;
    length += Math.hypot(x - prevX, y - prevY);
    prevX = x;
    prevY = y;
  }
  return length;
}

/** ReLU features with max pooling over pairs, then a weighted sum. */
export function reluPool(x: Float64Array, w: Float64Array): number {
  let total = 0;
  for (let i = 0; i + 1 < x.length; i += 2) {
    const pooled = Math.max(Math.max(0, x[i]!), Math.max(0, x[i + 1]!));
    total += w[i / 2]! * pooled;
  }
  return total;
}

/** Newton's method for the cube root of a, by a while loop until the step is tiny; returns the root. */
export function cubeRootNewton(a: number): number {
  let x = a > 1 ? a : 1;
  let step = 1;
  let iterations = 0;
  while (Math.abs(step) > 1e-13 && iterations < 100) {
    step = (x * x * x - a) / (3 * x * x);
    x -= step;
    iterations++;
  }
  return x;
}

/** x^n by recursion on n (n a non-negative integer). */
export function power(x: number, n: number): number {
  return n === 0 ? 1 : x * power(x, n - 1);
}

/** Divide and conquer: the sum of squares of v[lo..hi) as the sum of its two halves'. */
export function treeSumSquares(v: Float64Array, lo: number, hi: number): number {
  if (hi - lo === 1) return v[lo]! * v[lo]!;
  const mid = Math.floor((lo + hi) / 2);
  return treeSumSquares(v, lo, mid) + treeSumSquares(v, mid, hi);
}

/** Mutual recursion: alternate steps of two maps until n reaches 0. */
export function alternate(n: number, x: number): number {
  return n <= 0 ? x : contract(n - 1, Math.sin(x) + x);
}
export function contract(n: number, x: number): number {
  return n <= 0 ? x * x : alternate(n - 1, 0.5 * x);
}
