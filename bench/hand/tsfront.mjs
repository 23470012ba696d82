// Hand-written gradients of the loop-heavy functions of test/tsfront/corpus.ts, the references of
// bench/tsfront.bench.mjs: each the way a careful JavaScript programmer writes an adjoint by hand (forward pass storing
// what the backward pass reads, then one backward loop), returning the gradient in the argument's form.

/** ∇ rosenbrock(x). */
export function rosenbrockGrad(x) {
  const g = new Float64Array(x.length);
  for (let i = 0; i < x.length - 1; i++) {
    const a = x[i + 1] - x[i] * x[i];
    const b = 1 - x[i];
    g[i] += -400 * a * x[i] - 2 * b;
    g[i + 1] += 200 * a;
  }
  return g;
}

/** [∂/∂c, ∂/∂x] of horner(c, x) = Σ c_i x^i. */
export function hornerGrad(c, x) {
  const dc = new Float64Array(c.length);
  let power = 1;
  let dx = 0;
  for (let i = 0; i < c.length; i++) {
    dc[i] = power;
    if (i + 1 < c.length) dx += (i + 1) * c[i + 1] * power;
    power *= x;
  }
  return [dc, dx];
}

/**
 * The same gradient as reverse mode computes it by hand: Horner's loop forward, keeping each partial sum, then
 * backward (∂acc_{k+1}/∂acc_k = x, ∂/∂x = acc_k, ∂/∂c_i = 1).
 */
export function hornerGradReverse(c, x) {
  const n = c.length;
  const acc = new Float64Array(n + 1);
  for (let k = 0, i = n - 1; i >= 0; i--, k++) acc[k + 1] = acc[k] * x + c[i];
  const dc = new Float64Array(n);
  let dacc = 1;
  let dx = 0;
  for (let k = n - 1, i = 0; k >= 0; k--, i++) {
    dc[i] = dacc;
    dx += dacc * acc[k];
    dacc *= x;
  }
  return [dc, dx];
}

const G = 9.81;
const DRAG = 0.05;

/** [∂/∂v0, ∂/∂target] of projectileMiss(v0, target, steps): the Euler loop forward (states kept), then backward. */
export function projectileMissGrad(v0, target, steps) {
  const dt = 0.01;
  const VX = new Float64Array(steps + 1);
  const VY = new Float64Array(steps + 1);
  let x = 0;
  let y = 0;
  VX[0] = v0[0];
  VY[0] = v0[1];
  for (let i = 0; i < steps; i++) {
    const vx = VX[i];
    const vy = VY[i];
    const speed = Math.sqrt(vx * vx + vy * vy);
    const nvx = vx - DRAG * speed * vx * dt;
    const nvy = vy - (G + DRAG * speed * vy) * dt;
    VX[i + 1] = nvx;
    VY[i + 1] = nvy;
    x += nvx * dt;
    y += nvy * dt;
  }
  // f = (x - target)² + y²; x = Σ nvx dt, y = Σ nvy dt.
  const dx = 2 * (x - target);
  const dy = 2 * y;
  let gvx = 0;
  let gvy = 0;
  for (let i = steps - 1; i >= 0; i--) {
    // The adjoints of the new velocities: from x and y, and from the next step.
    const anvx = gvx + dx * dt;
    const anvy = gvy + dy * dt;
    const vx = VX[i];
    const vy = VY[i];
    const speed = Math.sqrt(vx * vx + vy * vy);
    const dsx = speed > 0 ? vx / speed : 0;
    const dsy = speed > 0 ? vy / speed : 0;
    // nvx = vx - k s vx, nvy = vy - (G + k s vy) dt with k = DRAG dt for the terms in s.
    const k = DRAG * dt;
    gvx = anvx * (1 - k * speed - k * vx * dsx) + anvy * (-k * vy * dsx);
    gvy = anvx * (-k * vx * dsy) + anvy * (1 - k * speed - k * vy * dsy);
  }
  return [new Float64Array([gvx, gvy]), -dx];
}

/** [∂/∂model, ∂/∂X] is not needed: ∂/∂model of logisticLoss({w, b}, X, y). */
export function logisticLossGrad(model, X, y) {
  const w = model.w;
  const gw = new Float64Array(w.length);
  let gb = 0;
  for (let i = 0; i < X.length; i++) {
    const row = X[i];
    let z = model.b;
    for (let j = 0; j < w.length; j++) z += w[j] * row[j];
    // d/dz [softplus(z) - y z] = sigmoid(z) - y.
    const d = 1 / (1 + Math.exp(-z)) - y[i];
    for (let j = 0; j < w.length; j++) gw[j] += d * row[j];
    gb += d;
  }
  return { w: gw, b: gb };
}

/** [∂/∂x, ∂/∂y, ∂/∂mass] of nBodyEnergy. */
export function nBodyEnergyGrad(x, y, mass) {
  const n = x.length;
  const gx = new Float64Array(n);
  const gy = new Float64Array(n);
  const gm = new Float64Array(n);
  for (let i = 0; i < n; i++)
    for (let j = i + 1; j < n; j++) {
      const dx = x[i] - x[j];
      const dy = y[i] - y[j];
      const r2 = dx * dx + dy * dy + 0.01;
      const inv = 1 / Math.sqrt(r2);
      // e -= m_i m_j / r: ∂e/∂dx = m_i m_j dx / r³.
      const c = mass[i] * mass[j] * inv * inv * inv;
      gx[i] += c * dx;
      gx[j] -= c * dx;
      gy[i] += c * dy;
      gy[j] -= c * dy;
      gm[i] -= mass[j] * inv;
      gm[j] -= mass[i] * inv;
    }
  return [gx, gy, gm];
}

/** [∂/∂positions, ∂/∂stiffness, ∂/∂rest] of springChainEnergy. */
export function springChainEnergyGrad(p, k, rest) {
  const gp = new Float64Array(p.length);
  let gk = 0;
  let gr = 0;
  for (let i = 1; i < p.length; i++) {
    const s = p[i] - p[i - 1] - rest;
    gk += 0.5 * s * s;
    gp[i] += k * s;
    gp[i - 1] -= k * s;
    gr -= k * s;
  }
  return [gp, gk, gr];
}

/** [∂/∂x, ∂/∂w] of weightedPrefixSums: prefix sums forward, their adjoints backward (a suffix sum). */
export function weightedPrefixSumsGrad(x, w) {
  const n = x.length;
  const prefix = new Float64Array(n);
  let running = 0;
  for (let i = 0; i < n; i++) prefix[i] = running += x[i];
  const gw = new Float64Array(n);
  const gx = new Float64Array(n);
  let suffix = 0;
  for (let i = n - 1; i >= 0; i--) {
    gw[i] = prefix[i] * prefix[i];
    suffix += 2 * w[i] * prefix[i];
    gx[i] = suffix;
  }
  return [gx, gw];
}
