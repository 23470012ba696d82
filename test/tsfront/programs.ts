// Programs as people write them in plain TypeScript, beside ./corpus.ts: functions given to functions (an ODE
// integrator taking its right-hand side, a quadrature rule taking its integrand), functions stored in layer objects,
// small classes (a physics step, a model of layers), a while loop to convergence, k-means with a switch and helpers,
// closures made by functions. The module imports nothing and reads no data from outside: its text is also read by
// `typescriptModule` in the packed tarball's projects and in the browser bundle (./programs.test.ts,
// test/package/tarball.test.ts, test/browser/browser.test.ts), which must give the numbers Node gives here.

type Vec = number[];
type Rhs = (t: number, y: Vec) => Vec;

function axpy(a: number, x: Vec, y: Vec): Vec {
  return y.map((yi, i) => yi + a * x[i]!);
}

/** One classical Runge–Kutta step of y' = f(t, y). */
function rk4Step(f: Rhs, t: number, y: Vec, dt: number): Vec {
  const k1 = f(t, y);
  const k2 = f(t + dt / 2, axpy(dt / 2, k1, y));
  const k3 = f(t + dt / 2, axpy(dt / 2, k2, y));
  const k4 = f(t + dt, axpy(dt, k3, y));
  return y.map((yi, i) => yi + (dt / 6) * (k1[i]! + 2 * k2[i]! + 2 * k3[i]! + k4[i]!));
}

function integrate(f: Rhs, y0: Vec, t1: number, steps: number): Vec {
  let y = y0;
  const dt = t1 / steps;
  for (let s = 0; s < steps; s++) y = rk4Step(f, s * dt, y, dt);
  return y;
}

/** A damped, driven oscillator integrated by RK4 (its right-hand side a closure over the parameters). */
export function oscillatorEnd(damping: number, stiffness: number, x0: number): number {
  const rhs = (t: number, y: Vec): Vec => [y[1]!, -stiffness * y[0]! - damping * y[1]! + Math.sin(t)];
  const [x, v] = integrate(rhs, [x0, 0], 2, 40);
  return x! * x! + 0.5 * v! * v!;
}

/** Lotka–Volterra populations after a while, the same integrator given another right-hand side. */
export function predatorPrey(params: Vec): number {
  const [a, b, c, d] = params;
  const rhs: Rhs = (_t, [prey, predator]) => [
    a! * prey! - b! * prey! * predator!,
    d! * prey! * predator! - c! * predator!,
  ];
  const end = integrate(rhs, [1, 0.5], 1.5, 30);
  return end[0]! + 2 * end[1]!;
}

/** Simpson's rule for ∫ f over [a, b] with n (even) intervals. */
function simpson(f: (x: number) => number, a: number, b: number, n: number): number {
  const h = (b - a) / n;
  let s = f(a) + f(b);
  for (let i = 1; i < n; i++) s += (i % 2 === 1 ? 4 : 2) * f(a + i * h);
  return (s * h) / 3;
}

/** The expected value of a smooth payoff under a Gaussian density, by quadrature of a closure. */
export function gaussianExpectation(mu: number, sigma: number): number {
  const density = (x: number) => Math.exp(-0.5 * ((x - mu) / sigma) ** 2) / (sigma * Math.sqrt(2 * Math.PI));
  return simpson((x) => density(x) * Math.log(1 + Math.exp(x)), mu - 6 * sigma, mu + 6 * sigma, 60);
}

/** Newton's method for the root of x³ + p x − q, iterated with a while loop until the step is tiny. */
export function cubicRoot(p: number, q: number): number {
  let x = 1;
  let step = 1;
  let iterations = 0;
  while (Math.abs(step) > 1e-13 && iterations < 100) {
    step = (x * x * x + p * x - q) / (3 * x * x + p);
    x -= step;
    iterations++;
  }
  return x;
}

/** Gradient descent on a ridge-regression objective, unrolled: how good the trained weight is on held-out data. */
export function tunedRidge(logLambda: number, xs: Vec, ys: Vec): number {
  const lambda = Math.exp(logLambda);
  let w = 0;
  for (let epoch = 0; epoch < 25; epoch++) {
    let g = lambda * w;
    for (let i = 0; i < 4; i++) g += (w * xs[i]! - ys[i]!) * xs[i]!;
    w -= 0.1 * g;
  }
  let heldOut = 0;
  for (let i = 4; i < xs.length; i++) heldOut += (w * xs[i]! - ys[i]!) ** 2;
  return heldOut;
}

/** Logistic regression's mean negative log-likelihood, with the stable softplus and an L2 penalty. */
export function logisticRegression(w: Vec, X: number[][], y: Vec): number {
  const softplus = (z: number) => (z > 0 ? z + Math.log1p(Math.exp(-z)) : Math.log1p(Math.exp(z)));
  let total = 0;
  X.forEach((row, i) => {
    const z = row.reduce((s, xj, j) => s + w[j + 1]! * xj, w[0]!);
    total += softplus(z) - y[i]! * z;
  });
  return total / X.length + 0.01 * w.reduce((s, wj) => s + wj * wj, 0);
}

interface DenseLayer {
  w: number[][];
  b: number[];
  act: (z: number) => number;
}

const relu = (z: number) => (z > 0 ? z : 0.01 * z);

function forward(layers: DenseLayer[], x: Vec): Vec {
  let h = x;
  for (const { w, b, act } of layers) h = w.map((row, i) => act(row.reduce((s, wij, j) => s + wij * h[j]!, b[i]!)));
  return h;
}

/** A multilayer perceptron whose layers are objects holding their activation function; its mean squared error. */
export function mlpError(W1: number[][], b1: Vec, W2: number[][], X: number[][], y: Vec): number {
  const layers: DenseLayer[] = [
    { w: W1, b: b1, act: Math.tanh },
    { w: W2, b: [0], act: (z) => z },
  ];
  let error = 0;
  for (let i = 0; i < X.length; i++) error += (forward(layers, X[i]!)[0]! - y[i]!) ** 2;
  return error / X.length;
}

/** The same network with a leaky-relu hidden layer (the activation a function of the module). */
export function reluNet(W1: number[][], b1: Vec, W2: number[][], x: Vec): number {
  return forward(
    [
      { w: W1, b: b1, act: relu },
      { w: W2, b: [0.1], act: Math.tanh },
    ],
    x,
  )[0]!;
}

interface Cell {
  wx: number;
  wh: number;
  b: number;
}

/** An Elman RNN: a stack of cells (objects in an array), unrolled over a sequence, and a squared loss. */
export function rnnLoss(params: Vec, sequence: Vec, target: number): number {
  const cells: Cell[] = [];
  for (let k = 0; k + 2 < params.length; k += 3) cells.push({ wx: params[k]!, wh: params[k + 1]!, b: params[k + 2]! });
  const state = cells.map(() => 0);
  for (const x of sequence) {
    let input = x;
    cells.forEach((cell, k) => {
      state[k] = Math.tanh(cell.wx * input + cell.wh * state[k]! + cell.b);
      input = state[k]!;
    });
  }
  return (state[state.length - 1]! - target) ** 2;
}

/** The distance of a point to a centre, by the metric a k-means run was configured with. */
function distance(metric: number, a: Vec, b: Vec): number {
  let d = 0;
  for (let j = 0; j < a.length; j++) {
    const diff = a[j]! - b[j]!;
    switch (metric) {
      case 0:
        d += diff * diff;
        break;
      case 1:
        d += Math.sqrt(diff * diff + 1e-3);
        break;
      default:
        d += Math.log(Math.cosh(diff));
    }
  }
  return d;
}

function nearest(metric: number, point: Vec, centres: number[][]): number {
  let best = 0;
  for (let c = 1; c < centres.length; c++)
    if (distance(metric, point, centres[c]!) < distance(metric, point, centres[best]!)) best = c;
  return best;
}

/** k-means' objective: each point's distance to its nearest centre, then one Lloyd update's movement. */
export function kMeansObjective(centres: number[][], points: number[][], metric: number): number {
  let total = 0;
  const sums = centres.map((c) => c.map(() => 0));
  const counts = centres.map(() => 0);
  for (const p of points) {
    const k = nearest(metric, p, centres);
    total += distance(metric, p, centres[k]!);
    sums[k] = sums[k]!.map((s, j) => s + p[j]!);
    counts[k]! += 1;
  }
  let moved = 0;
  centres.forEach((c, k) => {
    if (counts[k]! > 0)
      moved += distance(
        0,
        c,
        sums[k]!.map((s) => s / counts[k]!),
      );
  });
  return total + 0.5 * moved;
}

class Body {
  constructor(
    public x: number,
    public y: number,
    public vx: number,
    public vy: number,
  ) {}
  get kinetic(): number {
    return 0.5 * (this.vx * this.vx + this.vy * this.vy);
  }
  /** A symplectic Euler step around a central mass at the origin. */
  step(dt: number): Body {
    const r = Math.hypot(this.x, this.y);
    const ax = -this.x / (r * r * r);
    const ay = -this.y / (r * r * r);
    const vx = this.vx + dt * ax;
    const vy = this.vy + dt * ay;
    return new Body(this.x + dt * vx, this.y + dt * vy, vx, vy);
  }
  energy(): number {
    return this.kinetic - 1 / Math.hypot(this.x, this.y);
  }
}

/** An orbit integrated with a small class: the drift of its energy and where it ends. */
export function orbitDrift(state: Vec, dt: number): number {
  const start = new Body(state[0]!, state[1]!, state[2]!, state[3]!);
  let body = start;
  for (let i = 0; i < 50; i++) body = body.step(dt);
  return (body.energy() - start.energy()) * 1e3 + body.x;
}

class Polynomial {
  constructor(public coefficients: Vec) {}
  at(x: number): number {
    let y = 0;
    for (let i = this.coefficients.length - 1; i >= 0; i--) y = y * x + this.coefficients[i]!;
    return y;
  }
  derivative(): Polynomial {
    return new Polynomial(this.coefficients.slice(1).map((c, i) => c * (i + 1)));
  }
}

/** A polynomial's fit to samples plus a penalty on its slope: a class with a method returning a new object. */
export function smoothFit(coefficients: Vec, xs: Vec, ys: Vec): number {
  const p = new Polynomial(coefficients);
  const slope = p.derivative();
  let loss = 0;
  for (let i = 0; i < xs.length; i++) loss += (p.at(xs[i]!) - ys[i]!) ** 2 + 0.1 * slope.at(xs[i]!) ** 2;
  return loss;
}

const compose =
  (f: (x: number) => number, g: (x: number) => number) =>
  (x: number): number =>
    f(g(x));

function applyN(f: (x: number) => number, n: number, x: number): number {
  let y = x;
  for (let i = 0; i < n; i++) y = f(y);
  return y;
}

/** Higher-order helpers: a map of the logistic map composed with a scaling, iterated. */
export function iteratedMap(r: number, x0: number): number {
  const scale = (a: number) => (x: number) => a * x;
  const logistic = (x: number) => r * x * (1 - x);
  return applyN(compose(logistic, scale(0.9)), 6, x0);
}

/** Softmax attention of one query over keys and values, then a squared norm. */
export function attention(query: Vec, keys: number[][], values: Vec): number {
  const dot = (a: Vec, b: Vec) => a.reduce((s, ai, i) => s + ai * b[i]!, 0);
  const scores = keys.map((k) => dot(query, k) / Math.sqrt(query.length));
  const top = Math.max(...scores);
  const weights = scores.map((s) => Math.exp(s - top));
  const norm = weights.reduce((a, b) => a + b, 0);
  const out = weights.reduce((s, wi, i) => s + (wi / norm) * values[i]!, 0);
  return out * out;
}

/** Bilinear interpolation in a grid of samples at a point inside it. */
export function bilinear(grid: number[][], x: number, y: number): number {
  const i = Math.min(Math.floor(x), grid.length - 2);
  const j = Math.min(Math.floor(y), grid[0]!.length - 2);
  const fx = x - i;
  const fy = y - j;
  const row = (r: number) => grid[r]![j]! * (1 - fy) + grid[r]![j + 1]! * fy;
  return row(i) * (1 - fx) + row(i + 1) * fx;
}

/** A Gaussian mixture's negative log-likelihood with a log-sum-exp helper. */
export function mixtureNll(means: Vec, logScales: Vec, data: Vec): number {
  const logSumExp = (xs: Vec) => {
    const m = Math.max(...xs);
    return m + Math.log(xs.reduce((s, x) => s + Math.exp(x - m), 0));
  };
  let nll = 0;
  for (const x of data) {
    const terms = means.map((mu, k) => {
      const s = Math.exp(logScales[k]!);
      return -0.5 * ((x - mu) / s) ** 2 - Math.log(s) - Math.log(means.length);
    });
    nll -= logSumExp(terms);
  }
  return nll;
}

/** Power iteration's Rayleigh quotient: the largest eigenvalue of a symmetric matrix, approximately. */
export function dominantEigenvalue(A: number[][]): number {
  const matVec = (v: Vec) => A.map((row) => row.reduce((s, a, j) => s + a * v[j]!, 0));
  let v = A.map(() => 1);
  for (let k = 0; k < 30; k++) {
    const w = matVec(v);
    const n = Math.sqrt(w.reduce((s, x) => s + x * x, 0));
    v = w.map((x) => x / n);
  }
  const Av = matVec(v);
  return v.reduce((s, x, i) => s + x * Av[i]!, 0);
}

/** A robot arm's end point (angles to positions, tuples returned by a helper), and its distance to a target. */
export function armReach(angles: Vec, tx: number, ty: number): number {
  const link = (x: number, y: number, heading: number, length: number): [number, number] => [
    x + length * Math.cos(heading),
    y + length * Math.sin(heading),
  ];
  let x = 0;
  let y = 0;
  let heading = 0;
  angles.forEach((a, k) => {
    heading += a;
    [x, y] = link(x, y, heading, 1 / (k + 1));
  });
  return Math.hypot(x - tx, y - ty);
}
