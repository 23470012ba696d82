// Hand-written gradients of the programs of bench/programs/reverse.smooth: the obvious efficient JavaScript (loops
// over Float64Array), the reference bench/reverse.bench.mjs measures Smooth's compiled reverse mode against.

/** d(a·b)/da = b and d(a·b)/db = a. */
export function dotGrad(a, b) {
  const n = a.length,
    ga = new Float64Array(n),
    gb = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    ga[i] = b[i];
    gb[i] = a[i];
  }
  return [ga, gb];
}

/** d(prod a)/da[i] = (product of a before i) * (product of a after i): prefix products, then suffix products. */
export function prodGrad(a) {
  const n = a.length,
    g = new Float64Array(n);
  let prefix = 1;
  for (let i = 0; i < n; i++) {
    g[i] = prefix;
    prefix *= a[i];
  }
  let suffix = 1;
  for (let i = n - 1; i >= 0; i--) {
    g[i] *= suffix;
    suffix *= a[i];
  }
  return g;
}

/** The gradient of logsumexp is softmax: exp(v - max) / sum. */
export function logsumexpGrad(v) {
  const n = v.length,
    g = new Float64Array(n);
  let m = -Infinity;
  for (let i = 0; i < n; i++) if (v[i] > m) m = v[i];
  let z = 0;
  for (let i = 0; i < n; i++) z += g[i] = Math.exp(v[i] - m);
  const r = 1 / z;
  for (let i = 0; i < n; i++) g[i] *= r;
  return g;
}

/**
 * x <- sin x * x + 0.1, n times: the derivative of the result with respect to the initial x is the product of the
 * steps' derivatives cos x * x + sin x, accumulated as the loop runs (one pass, no tape: the obvious code for a
 * scalar-to-scalar loop).
 */
export function scalarLoopGrad(x, n) {
  let g = 1;
  for (let i = 0; i < n; i++) {
    const s = Math.sin(x);
    g *= Math.cos(x) * x + s;
    x = s * x + 0.1;
  }
  return g;
}

/**
 * The same derivative by a reverse sweep, as a reverse-mode tool must do it: the forward pass tapes each x, the
 * backward pass multiplies the adjoint by each step's derivative (reported beside the table, not in it).
 */
export function scalarLoopGradTaped(x, n) {
  const tape = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    tape[i] = x;
    x = Math.sin(x) * x + 0.1;
  }
  let g = 1;
  for (let i = n - 1; i >= 0; i--) {
    const t = tape[i];
    g *= Math.cos(t) * t + Math.sin(t);
  }
  return g;
}

/**
 * s <- s * 0.5 + sin v[i] * s from s = 1, i.e. s_{i+1} = s_i f_i with f_i = 0.5 + sin v[i]. Forward: tape s_i and
 * keep f_i in the gradient's slot; backward: ds/dv[i] = (adjoint of s_{i+1}) * s_i * cos v[i], and the adjoint of
 * s_i is that of s_{i+1} times f_i.
 */
export function readLoopGrad(v) {
  const n = v.length,
    g = new Float64Array(n),
    tape = new Float64Array(n);
  let s = 1;
  for (let i = 0; i < n; i++) {
    const f = 0.5 + Math.sin(v[i]);
    tape[i] = s;
    g[i] = f;
    s *= f;
  }
  let adj = 1;
  for (let i = n - 1; i >= 0; i--) {
    const f = g[i];
    g[i] = adj * tape[i] * Math.cos(v[i]);
    adj *= f;
  }
  return g;
}

/**
 * The gradient of <w, a b> for square n-by-n row-major matrices: da = w bᵀ (row-by-row dot products) and db = aᵀ w
 * (accumulated row by row of w, so every loop walks memory in order).
 */
export function mmulLossGrad(a, b, w, n) {
  const da = new Float64Array(n * n),
    db = new Float64Array(n * n);
  for (let i = 0; i < n; i++)
    for (let k = 0; k < n; k++) {
      let s = 0;
      for (let j = 0; j < n; j++) s += w[i * n + j] * b[k * n + j];
      da[i * n + k] = s;
    }
  for (let i = 0; i < n; i++)
    for (let k = 0; k < n; k++) {
      const aik = a[i * n + k];
      const row = k * n,
        wrow = i * n;
      for (let j = 0; j < n; j++) db[row + j] += aik * w[wrow + j];
    }
  return [da, db];
}
